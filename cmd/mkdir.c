/* SPDX-License-Identifier: MIT */
/*
 * mkdir.c - --mkdir: the directories that --write names and that do not exist are created
 * before planning, as `mkdir -p` would (each missing component with mode 0777 less the umask),
 * so that the grant takes effect; without it a grant on a missing path has none.
 *
 * The walk is the threat: an earlier confined run may have planted a symbolic link on the way,
 * to have this run create directories, and grant write, somewhere else. So each component is
 * looked at without following it; a directory is entered by a descriptor opened without
 * following links, so what was checked is what is entered; a symbolic link is followed only when
 * no confined command could have placed it: it lies outside every writable root of the profile
 * and belongs to root or the caller. Otherwise the run is refused (exit 125), and what this walk
 * created is removed again (mkdir_undo), as for any later refusal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

#ifdef _WIN32
int mkdir_grants(struct invocation *inv, const struct opts *o)
{
	(void)inv;
	return o->mkdir ? refuse("--mkdir is not available on Windows: create the directories "
				 "first")
			: 0;
}

int config_home_make(struct invocation *inv, const struct opts *o, char **will)
{
	(void)inv;
	(void)o;
	if (will)
		*will = NULL;
	return 0;
}
#else

#ifdef O_PATH
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif

/* Could a confined command have made this link: in a writable root, or owned by another? */
static bool link_untrusted(const struct sbx_profile *mat, const struct sbx_ctx *ctx,
			   const char *dir, const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != getuid())
		return true;
	if (mat->type != SBX_MANAGED || mat->fs.kind != SBX_FS_RESTRICTED)
		return true; /* an unrestricted file system is writable everywhere */
	return sbx_fs_resolve_access(&mat->fs, ctx, dir, NULL) == SBX_WRITE;
}

static int walk_err(const char *target, const char *what, int err)
{
	return refuse("--mkdir '%s': %s: %s", target, what, strerror(err));
}

/* Records dir/name as created by this run (undone by mkdir_undo on a refusal). */
static int record(struct sbx_strv *made, const char *dir, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		p = NULL;
	return sbx_strv_push_owned(made, p) ? refuse("out of memory") : 0;
}

/* Follows a trusted link at dir/name: its real path in real, a descriptor of it returned. */
static int follow(const char *target, char *real, size_t size, const char *name)
{
	char *joined = NULL, *rp;
	int fd;

	if (asprintf(&joined, "%s/%s", real, name) < 0)
		return -refuse("out of memory");
	rp = realpath(joined, NULL);
	free(joined);
	if (!rp || strlen(rp) >= size) {
		walk_err(target, name, rp ? ENAMETOOLONG : errno);
		free(rp);
		return -EXIT_REFUSED;
	}
	fd = open(rp, DIR_FLAGS);
	if (fd < 0)
		walk_err(target, name, errno);
	/* "" stands for "/", so that joining a name never doubles the separator. */
	snprintf(real, size, "%s", strcmp(rp, "/") ? rp : "");
	free(rp);
	return fd < 0 ? -EXIT_REFUSED : fd;
}

/* Creates target (absolute, normalized) and its missing parents; records what it created. */
static int make_one(const char *target, const struct sbx_profile *mat, const struct sbx_ctx *ctx,
		    struct sbx_strv *made)
{
	char real[PATH_MAX] = "", name[NAME_MAX + 1];
	const char *s = target;
	int fd = open("/", DIR_FLAGS);

	if (fd < 0)
		return walk_err(target, "/", errno);
	for (;;) {
		struct stat st;
		size_t n;
		int next, r = 0;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (!n)
			break;
		if (n > NAME_MAX || strlen(real) + 1 + n >= sizeof(real)) {
			close(fd);
			return walk_err(target, "the path", ENAMETOOLONG);
		}
		memcpy(name, s, n);
		name[n] = 0;
		s += n;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT) {
				r = walk_err(target, name, errno);
			} else if (mkdirat(fd, name, 0777) ==
				   0) { /* the umask applies, as in mkdir -p */
				r = record(made, real, name);
			} else if (errno != EEXIST) {
				r = walk_err(target, name, errno);
			}
			if (!r && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				r = walk_err(target, name, errno);
			if (r) {
				close(fd);
				return r;
			}
		}
		if (S_ISLNK(st.st_mode)) {
			if (link_untrusted(mat, ctx, real[0] ? real : "/", &st)) {
				struct sbx_diag d;

				close(fd);
				sbx_diag_clear(&d);
				sbx_diag_set(
					&d, 0,
					"--mkdir '%s': %s/%s is a symbolic link a confined command "
					"could have placed (inside a writable root, or not yours)",
					target, real, name);
				sbx_diag_hint(&d, 0,
					      "name the directory it leads to, or remove the link");
				return refuse_diag(&d);
			}
			next = follow(target, real, sizeof(real), name);
		} else if (S_ISDIR(st.st_mode)) {
			next = openat(fd, name, DIR_FLAGS);
			if (next < 0)
				next = -walk_err(target, name, errno);
			else
				snprintf(real + strlen(real), sizeof(real) - strlen(real), "/%s",
					 name);
		} else {
			next = -walk_err(target, name, ENOTDIR);
		}
		close(fd);
		if (next < 0)
			return -next;
		fd = next;
	}
	close(fd);
	return 0;
}

/* The directory at path (absolute), opened without following a link at any name: -1 if not. */
static int open_nofollow(const char *path)
{
	const char *s = path;
	char name[NAME_MAX + 1];
	int fd = open("/", DIR_FLAGS);

	while (fd >= 0) {
		size_t n;
		int next;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (!n)
			break;
		if (n > NAME_MAX || (n == 1 && s[0] == '.') || (n == 2 && !strncmp(s, "..", 2))) {
			close(fd);
			return -1;
		}
		memcpy(name, s, n);
		name[n] = 0;
		s += n;
		next = openat(fd, name, DIR_FLAGS);
		close(fd);
		fd = next;
	}
	return fd;
}

/*
 * git's global config directory ~/.config (XDG_CONFIG_HOME and GIT_CONFIG_GLOBAL unset), missing
 * where the command could make it: the plan could only keep the command from planting
 * ~/.config/git/config there by masking the directory every other program writes, and refused.
 * Run makes it instead, as programs that follow the XDG base directory specification do (mode
 * 0700), and leaves it: the plan then finds it, and keeps git's directory in it from being made
 * as when ~/.config was there. Only for a run that will be confined (not --sandbox forbid) by a
 * profile that keeps git's global config (not one that writes everywhere). The home directory is
 * walked from / without following a link at any component: a link on the way (one a confined
 * command could have planted in a writable root would lead the directory anywhere) makes
 * nothing, and the plan judges the path as before (a link inside a writable root, or the missing
 * ~/.config, refused). The name is made in that descriptor: a link or anything else already
 * there, or made meanwhile (EEXIST), is left for the plan's own look-up to judge, and so is a
 * look-up that fails (never taken for "missing").
 * With will (explain), nothing is made: *will is the directory run would make, or NULL.
 * 0, or EXIT_REFUSED printed.
 */
int config_home_make(struct invocation *inv, const struct opts *o, char **will)
{
	static const char tail[] = "/.config/git/config";
	const char *xdg = getenv("XDG_CONFIG_HOME"), *g = inv->git_globals[0];
	struct sbx_profile mat = {0};
	size_t len = g ? strlen(g) : 0, hlen;
	char *home = NULL, *dir = NULL;
	struct stat st;
	int fd = -1, r = 0, err;

	if (will)
		*will = NULL;
	/* git's directory is ~/.config/git only with both unset (sbx_git_globals). */
	if (getenv("GIT_CONFIG_GLOBAL") || (xdg && xdg[0]) || len < sizeof(tail) ||
	    strcmp(g + len - (sizeof(tail) - 1), tail) != 0)
		return 0;
	hlen = len - (sizeof(tail) - 1);
	home = strndup(g, hlen ? hlen : 1);
	dir = strndup(g, len - strlen("/git/config"));
	if (!home || !dir) {
		r = refuse("out of memory");
		goto out;
	}
	if (sbx_profile_materialize(&inv->profile, &inv->ctx, &mat)) {
		r = refuse("out of memory");
		goto out;
	}
	/* Only where the command could make it: elsewhere nothing is refused, nothing made. */
	if (mat.type != SBX_MANAGED || mat.fs.kind != SBX_FS_RESTRICTED ||
	    !sbx_should_sandbox(&mat, o->pref, o->managed_network || o->n_allow_domains > 0,
				&inv->ctx) ||
	    sbx_fs_full_write(&mat.fs, &inv->ctx) ||
	    sbx_fs_resolve_access(&mat.fs, &inv->ctx, dir, NULL) != SBX_WRITE)
		goto out;
	fd = open_nofollow(home);
	if (fd < 0 || fstatat(fd, ".config", &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		goto out;
	if (will) {
		*will = dir;
		dir = NULL;
		goto out;
	}
	if (mkdirat(fd, ".config", 0700) < 0 && errno != EEXIST) {
		struct sbx_diag d;

		err = errno;
		sbx_diag_clear(&d);
		sbx_diag_set(&d, 0,
			     "cannot make %s, the directory of git's global config %s, which "
			     "the command could otherwise make in a writable root: %s",
			     dir, g, strerror(err));
		sbx_diag_hint(&d, 0,
			      "make it (mkdir -m 0700 %s), or point GIT_CONFIG_GLOBAL at a file "
			      "outside the writable roots",
			      dir);
		r = refuse_diag(&d);
	}
out:
	if (fd >= 0)
		close(fd);
	sbx_profile_free(&mat);
	free(home);
	free(dir);
	return r;
}

int mkdir_grants(struct invocation *inv, const struct opts *o)
{
	struct sbx_profile mat = {0};
	int r = 0;

	if (!o->mkdir)
		return 0;
	if (sbx_profile_materialize(&inv->profile, &inv->ctx, &mat))
		return refuse("out of memory");
	for (size_t i = 0; !r && i < o->n_grants; i++) {
		char *path = NULL;

		if (o->grants[i].access != SBX_WRITE)
			continue;
		r = grant_path(o->grants[i].path, SBX_WRITE, inv->cwd, &path);
		if (!r)
			r = make_one(path, &mat, &inv->ctx, &inv->made);
		free(path);
	}
	sbx_profile_free(&mat);
	return r;
}
#endif

int mkdir_targets(const struct invocation *inv, const struct opts *o, struct sbx_strv *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; o->mkdir && i < o->n_grants; i++) {
		char *path = NULL;

		if (o->grants[i].access != SBX_WRITE)
			continue;
		if (grant_path(o->grants[i].path, SBX_WRITE, inv->cwd, &path))
			return EXIT_REFUSED;
		if (sbx_strv_push_owned(out, path))
			return refuse("out of memory");
	}
	return 0;
}

void mkdir_undo(struct invocation *inv)
{
	/* Deepest first; rmdir(2) removes only what is still empty, so nothing else is lost. */
	for (size_t i = inv->made.n; i-- > 0;)
		(void)rmdir(inv->made.v[i]);
	sbx_strv_clear(&inv->made);
}
