/* SPDX-License-Identifier: MIT */
/* plancase.c - reading the Linux planner's cases (see plancase.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plancase.h"
#include "t.h"

const char *plancase_dir(void)
{
	static char dir[4096];

	snprintf(dir, sizeof(dir), "%s/../plan/linux", t_vectors_dir);
	return dir;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **plancase_list(size_t *n)
{
	struct sbx_strv v = {0};
	struct dirent *de;
	DIR *d = opendir(plancase_dir());

	*n = 0;
	if (!d) {
		t_fail(__FILE__, __LINE__, "cannot open %s", plancase_dir());
		return NULL;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && sbx_strv_push(&v, de->d_name) < 0)
			break;
	closedir(d);
	if (v.n)
		qsort(v.v, v.n, sizeof(*v.v), str_cmp);
	*n = v.n;
	return v.v;
}

json_t *plancase_json(const char *name, const char *file)
{
	char path[8192];
	json_error_t err;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s/%s", plancase_dir(), name, file);
	j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	if (!j)
		t_fail(__FILE__, __LINE__, "%s: %s:%d: %s", name, file, err.line, err.text);
	return j;
}

void plancase_facts(const json_t *host, struct sbx_linux_facts *f)
{
	const char *blocked = json_string_value(json_object_get(host, "userns_blocked_by"));
	const char *kernel = json_string_value(json_object_get(host, "kernel"));

	memset(f, 0, sizeof(*f));
	snprintf(f->kernel, sizeof(f->kernel), "%s", kernel ? kernel : "6.18");
	f->landlock_abi = (int)json_integer_value(json_object_get(host, "landlock_abi"));
	f->seccomp = json_is_true(json_object_get(host, "seccomp"));
	f->user_namespaces = json_is_true(json_object_get(host, "user_namespaces"));
	f->mount_namespace = json_is_true(json_object_get(host, "mount_namespace"));
	f->no_new_privs = json_is_true(json_object_get(host, "no_new_privs"));
	f->running_as_root = json_is_true(json_object_get(host, "running_as_root"));
	f->wsl = (int)json_integer_value(json_object_get(host, "wsl"));
	f->pid_namespace = json_is_true(json_object_get(host, "pid_namespace"));
	f->ipc_namespace = json_is_true(json_object_get(host, "ipc_namespace"));
	f->net_namespace = json_is_true(json_object_get(host, "net_namespace"));
	f->unix_broker = json_is_true(json_object_get(host, "unix_broker"));
	f->terminal = json_is_true(json_object_get(host, "terminal"));
	snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by), "%s", blocked ? blocked : "");
}

int plancase_profile(const json_t *v, struct sbx_profile *out, struct sbx_diag *d)
{
	char *text = json_dumps(v, JSON_COMPACT);
	enum sbx_input_form form;
	int r;

	if (!text)
		return -1;
	r = sbx_profile_load_buf(text, strlen(text), "profile.json", out, &form, NULL, d);
	free(text);
	return r;
}
