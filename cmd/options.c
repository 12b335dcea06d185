/* SPDX-License-Identifier: MIT */
/* options.c - the command line: option parsing and the usage texts. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/* ---- usage -------------------------------------------------------------------------------- */

static const char usage_main[] =
	"usage: sbxrun [OPTIONS] [--] COMMAND [ARG...]\n"
	"       sbxrun run [OPTIONS] [--] COMMAND [ARG...]\n"
	"       sbxrun explain [OPTIONS] [--platform linux|macos|windows] [--json] [--] "
	"[COMMAND...]\n"
	"       sbxrun probe [--json]\n"
	"       sbxrun access [OPTIONS] [--json] PATH...\n"
	"       sbxrun convert --to profile|legacy [--cwd DIR] [FILE|:NAME|-]\n"
	"       sbxrun merge BASE.json EXTRA.json\n"
	"       sbxrun intersect [--cwd DIR] REQUESTED.json GRANTED.json\n"
	"       sbxrun context [OPTIONS]\n"
	"       sbxrun proxy --listen ADDR [--allow-domain D]... [--deny-domain D]... "
	"[--log FILE|-]\n"
	"                    [--report FILE|-]\n"
	"\n"
	"Run COMMAND confined by a permission profile, or explain what would happen.\n"
	"\n"
	"options:\n"
	"  -p, --profile FILE|:NAME|-   profile: a JSON file, stdin, or :read-only, :workspace,\n"
	"                               :workspace-git, :danger-full-access (default :workspace)\n"
	"  -C, --cwd DIR                policy cwd and the command's cwd (default: current "
	"directory)\n"
	"  -w, --workspace-root DIR     a workspace root (repeatable; default: the cwd)\n"
	"  -a, --add-permissions FILE   merge an additional-permission profile on top "
	"(repeatable)\n"
	"      --sandbox auto|require|forbid   whether a sandbox is wanted (default auto)\n"
	"      --managed-network        the caller has managed-network requirements: the command\n"
	"                               may reach only the loopback proxies its proxy variables\n"
	"                               name (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, ...)\n"
	"      --allow-unix-socket PATH this Unix socket (or those below a directory) stays\n"
	"                               reachable with the network restricted (repeatable)\n"
	"      --allow-local-binding    the command may bind and serve on loopback\n"
	"      --allow-domain D         managed networking through sbxrun's own proxy, which\n"
	"                               lets through only requests for host D (example.com,\n"
	"                               *.example.com, **.example.com; repeatable)\n"
	"      --deny-domain D          and never for host D, even if allowed (repeatable)\n"
	"      --network-log FILE|-     append the proxy's decisions to FILE (- for standard\n"
	"                               error), one JSON line each\n"
	"      --allow-private-addresses\n"
	"                               let allowed names lead to loopback, private and\n"
	"                               link-local addresses, and to this host's own (refused\n"
	"                               by default)\n"
	"      --read PATH              also let the command read PATH (repeatable)\n"
	"      --write PATH             also let the command write PATH (repeatable)\n"
	"      --deny PATH              keep the command from PATH (repeatable)\n"
	"      --network                enable the network\n"
	"      --allow-git              the git directory of each writable root writable, but\n"
	"                               for what makes git run code (hooks, config, ...)\n"
	"      --mkdir                  run: create the directories --write names, if missing\n"
	"      --env-clear              the command's environment starts empty\n"
	"      --env-keep PATTERN       pass only variables matching PATTERN (repeatable)\n"
	"      --env-deny PATTERN       remove variables matching PATTERN (repeatable)\n"
	"      --env-deny-secrets       remove variables matching *KEY*, *SECRET*, *TOKEN*\n"
	"      --env-offline            with the network restricted, tell npm, pip, cargo and\n"
	"                               go to stay offline\n"
	"      --env-set NAME=VALUE     set a variable for the command (repeatable)\n"
	"  -v, --verbose                run: print the plan on standard error first\n"
	"      --report FILE|-          run (Linux): append one JSON line per operation the\n"
	"                               sandbox refused to FILE (- for standard error);\n"
	"                               explain: show what it changes (opens nothing)\n"
	"      --windows-sandbox disabled|restricted-token|elevated   (default restricted-token)\n"
	"      --platform linux|macos|windows   explain: plan as that platform would\n"
	"      --json                   machine-readable output (explain, probe, access)\n"
	"  -h, --help                   this help\n"
	"  -V, --version                print the version\n"
	"\n"
	"exit status: the command's own; 125 if sbxrun refused (bad usage, invalid profile,\n"
	"or the profile cannot be enforced here); 126 cannot execute; 127 not found.\n"
	"See sbxrun(1) and sbxrun-profile(5).\n";

static const struct {
	const char *name;
	const char *text;
} usages[] = {
	{"explain", "usage: sbxrun explain [OPTIONS] [--platform linux|macos|windows] [--json] "
		    "[--] [COMMAND...]\n"
		    "Print the decision and the launch plan for COMMAND; runs nothing.\n"},
	{"probe", "usage: sbxrun probe [--json]\nPrint what this host can enforce.\n"},
	{"access", "usage: sbxrun access [OPTIONS] [--json] PATH...\n"
		   "Print the effective access (read, write or deny) of each PATH, and why.\n"},
	{"convert", "usage: sbxrun convert --to profile|legacy [--cwd DIR] [FILE|:NAME|-]\n"
		    "Convert between a legacy SandboxPolicy and a PermissionProfile, or print a\n"
		    "built-in (:workspace, ...) as a profile to start from.\n"},
	{"merge", "usage: sbxrun merge BASE.json EXTRA.json\n"
		  "Print the union of two additional-permission profiles.\n"},
	{"intersect", "usage: sbxrun intersect [--cwd DIR] REQUESTED.json GRANTED.json\n"
		      "Print what an approval of REQUESTED by GRANTED actually grants.\n"},
	{"context", "usage: sbxrun context [OPTIONS]\n"
		    "Print the <environment_context> block a model is shown.\n"},
};

void usage_print(const char *subcommand, bool to_stderr)
{
	FILE *f = to_stderr ? stderr : stdout;

	for (size_t i = 0; subcommand && i < sizeof(usages) / sizeof(usages[0]); i++) {
		if (strcmp(subcommand, usages[i].name) == 0) {
			fputs(usages[i].text, f);
			fputs("Options as for sbxrun --help; see sbxrun(1).\n", f);
			return;
		}
	}
	fputs(usage_main, f);
}

/* ---- parsing ------------------------------------------------------------------------------ */

enum {
	LO_SANDBOX = 256,
	LO_MANAGED,
	LO_PLATFORM,
	LO_WINLEVEL,
	LO_JSON,
	LO_TO,
	LO_UNIX_SOCKET,
	LO_LOCAL_BINDING,
	LO_READ,
	LO_WRITE,
	LO_DENY,
	LO_NETWORK,
	LO_MKDIR,
	LO_ENV_CLEAR,
	LO_ENV_KEEP,
	LO_ENV_DENY,
	LO_ENV_DENY_SECRETS,
	LO_ENV_OFFLINE,
	LO_ENV_SET,
	LO_ALLOW_DOMAIN,
	LO_DENY_DOMAIN,
	LO_NETWORK_LOG,
	LO_ALLOW_PRIVATE,
	LO_ALLOW_GIT,
	LO_REPORT,
};

static const struct option long_opts[] = {
	{"profile", required_argument, NULL, 'p'},
	{"cwd", required_argument, NULL, 'C'},
	{"workspace-root", required_argument, NULL, 'w'},
	{"add-permissions", required_argument, NULL, 'a'},
	{"sandbox", required_argument, NULL, LO_SANDBOX},
	{"managed-network", no_argument, NULL, LO_MANAGED},
	{"allow-unix-socket", required_argument, NULL, LO_UNIX_SOCKET},
	{"allow-local-binding", no_argument, NULL, LO_LOCAL_BINDING},
	{"platform", required_argument, NULL, LO_PLATFORM},
	{"windows-sandbox", required_argument, NULL, LO_WINLEVEL},
	{"json", no_argument, NULL, LO_JSON},
	{"to", required_argument, NULL, LO_TO},
	{"read", required_argument, NULL, LO_READ},
	{"write", required_argument, NULL, LO_WRITE},
	{"deny", required_argument, NULL, LO_DENY},
	{"network", no_argument, NULL, LO_NETWORK},
	{"allow-git", no_argument, NULL, LO_ALLOW_GIT},
	{"mkdir", no_argument, NULL, LO_MKDIR},
	{"env-clear", no_argument, NULL, LO_ENV_CLEAR},
	{"env-keep", required_argument, NULL, LO_ENV_KEEP},
	{"env-deny", required_argument, NULL, LO_ENV_DENY},
	{"env-deny-secrets", no_argument, NULL, LO_ENV_DENY_SECRETS},
	{"env-offline", no_argument, NULL, LO_ENV_OFFLINE},
	{"env-set", required_argument, NULL, LO_ENV_SET},
	{"allow-domain", required_argument, NULL, LO_ALLOW_DOMAIN},
	{"deny-domain", required_argument, NULL, LO_DENY_DOMAIN},
	{"network-log", required_argument, NULL, LO_NETWORK_LOG},
	{"allow-private-addresses", no_argument, NULL, LO_ALLOW_PRIVATE},
	{"report", required_argument, NULL, LO_REPORT},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static unsigned opt_bit(int c)
{
	switch (c) {
	case 'p':
		return OPT_PROFILE;
	case 'C':
		return OPT_CWD;
	case 'w':
		return OPT_ROOT;
	case 'a':
		return OPT_ADD;
	case LO_SANDBOX:
		return OPT_SANDBOX;
	case LO_MANAGED:
		return OPT_MANAGED_NET;
	case LO_PLATFORM:
		return OPT_PLATFORM;
	case LO_WINLEVEL:
		return OPT_WINLEVEL;
	case LO_JSON:
		return OPT_JSON;
	case LO_TO:
		return OPT_TO;
	case LO_UNIX_SOCKET:
		return OPT_UNIX_SOCKET;
	case LO_LOCAL_BINDING:
		return OPT_LOCAL_BINDING;
	case LO_READ:
	case LO_WRITE:
	case LO_DENY:
	case LO_NETWORK:
		return OPT_GRANT;
	case LO_MKDIR:
		return OPT_MKDIR;
	case LO_ENV_CLEAR:
	case LO_ENV_KEEP:
	case LO_ENV_DENY:
	case LO_ENV_DENY_SECRETS:
	case LO_ENV_OFFLINE:
	case LO_ENV_SET:
		return OPT_ENV;
	case 'v':
		return OPT_VERBOSE;
	case LO_ALLOW_DOMAIN:
	case LO_DENY_DOMAIN:
	case LO_NETWORK_LOG:
	case LO_ALLOW_PRIVATE:
		return OPT_DOMAINS;
	case LO_ALLOW_GIT:
		return OPT_GIT;
	case LO_REPORT:
		return OPT_REPORT;
	}
	return 0;
}

static const char *opt_name(int c)
{
	if (c == 'v')
		return "verbose";
	for (const struct option *lo = long_opts; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}

/* Looks value up in a NULL-terminated list; returns its index or -1. */
static int pick(const char *value, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(value, names[i]) == 0)
			return i;
	return -1;
}

static int bad_value(const char *opt, const char *value, const char *expected)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	sbx_diag_set(&d, 0, "--%s: invalid value '%s' (expected %s)", opt, value, expected);
	return refuse_diag(&d);
}

const char *opt_abbreviated(char *const argv[], int next, const struct option *lo, int idx)
{
	const char *w;

	if (idx < 0 || next < 1)
		return NULL;
	/* A value given as a word of its own follows the option's word. */
	w = argv[next - 1];
	if (optarg && optarg == argv[next - 1] && next >= 2)
		w = argv[next - 2];
	if (strncmp(w, "--", 2) != 0)
		return NULL;
	return strcspn(w + 2, "=") == strlen(lo[idx].name) ? NULL : w;
}

/* Is word ("--net", "--net=x") the start of a long option's name, but not the whole of it? */
static bool is_prefix_of_any(const char *word)
{
	size_t n;

	if (strncmp(word, "--", 2) != 0)
		return false;
	n = strcspn(word + 2, "=");
	for (const struct option *lo = long_opts; lo->name; lo++)
		if (n < strlen(lo->name) && strncmp(lo->name, word + 2, n) == 0)
			return true;
	return false;
}

/*
 * getopt says '?' with the option's value in optopt for a long option that takes no value given
 * one, named in full or by a prefix that it took for that option: no unknown option of that
 * letter ("--verb=1" is not "-v"). 0 for a short option refused inside a bundle that follows
 * such a word ("--verbose -Xv"): that word holds no '='.
 */
int opt_given_a_value(char *const argv[], int argc, int next, const struct option *lo, int val)
{
	const char *w = next >= 1 && next - 1 < argc ? argv[next - 1] : NULL;
	size_t n;

	if (!w || strncmp(w, "--", 2) != 0 || !strchr(w, '=') || !val)
		return 0;
	n = strcspn(w + 2, "=");
	for (; lo->name; lo++)
		if (lo->has_arg == no_argument && lo->val == val && n && n <= strlen(lo->name) &&
		    strncmp(lo->name, w + 2, n) == 0)
			return n == strlen(lo->name) ? 1 : 2;
	return 0;
}

static int too_many(const char *opt)
{
	return refuse("--%s: given more than %d times", opt, OPT_LIST_MAX);
}

/* Does the command line deny a path (--deny)? */
static bool grant_denies(const struct opts *o)
{
	for (size_t i = 0; i < o->n_grants; i++)
		if (o->grants[i].access == SBX_DENY)
			return true;
	return false;
}

static int list_add(const char **list, size_t *n, const char *value, const char *opt)
{
	if (*n == OPT_LIST_MAX)
		return too_many(opt);
	list[(*n)++] = value;
	return 0;
}

/*
 * --sandbox forbid runs the command unconfined: an option that asks for a restriction (a denied
 * path, managed networking, a socket allow-list, a domain filter and its log) could only be
 * dropped without a word, and whoever gave it expects it kept. Refused as a usage error naming
 * both; an --add-permissions file that denies is refused the same way once it is read
 * (invocation.c). The profile's own rules stay waived by forbid, as in Codex (a caller that
 * forbids a sandbox for a :read-only profile means it).
 */
static int forbid_conflict(const struct opts *o, const char *sub)
{
	const char *asked = o->n_grants > 0 && grant_denies(o) ? "--deny"
			    : o->managed_network	       ? "--managed-network"
			    : o->n_allow_domains > 0	       ? "--allow-domain"
			    : o->n_deny_domains > 0	       ? "--deny-domain"
			    : o->network_log		       ? "--network-log"
			    : o->allow_private_addresses       ? "--allow-private-addresses"
			    : o->n_unix_sockets > 0	       ? "--allow-unix-socket"
			    : o->allow_local_binding	       ? "--allow-local-binding"
							       : NULL;
	struct sbx_diag d;

	if (o->pref != SBX_PREF_FORBID || !asked)
		return 0;
	sbx_diag_clear(&d);
	sbx_diag_set(&d, SBX_E_USAGE,
		     "%s--sandbox forbid runs the command unconfined, and %s asks for a "
		     "restriction that only a sandbox can keep",
		     sub, asked);
	sbx_diag_hint(&d, SBX_E_USAGE,
		      "drop --sandbox forbid to have it enforced, or drop %s to run unconfined",
		      asked);
	return refuse_diag(&d);
}

int opts_parse(struct opts *o, int argc, char **argv, unsigned allowed, bool stop_at_operand)
{
	static const char *const prefs[] = {"auto", "require", "forbid", NULL};
	static const char *const platforms[] = {"linux", "macos", "windows", NULL};
	static const char *const levels[] = {"disabled", "restricted-token", "elevated", NULL};
	/* Messages of a subcommand start with its name; those of plain sbxrun need none. */
	char sub[32];
	int c, i, r, idx = -1, given;
	bool long_form;
	const char *abbr;

	snprintf(sub, sizeof(sub), "%s%s", o->subcommand ? o->subcommand : "",
		 o->subcommand ? ": " : "");
	o->wlevel = SBX_WIN_RESTRICTED_TOKEN;
	o->platform = sbx_host_platform();
	optind = 1;
	opterr = 0;
	/* "+": options end at the first operand, so the command's own options stay its own. */
	while ((c = getopt_long(argc, argv, stop_at_operand ? "+:p:C:w:a:vhV" : ":p:C:w:a:vhV",
				long_opts, &idx)) != -1) {
		abbr = c != '?' && c != ':' ? opt_abbreviated(argv, optind, long_opts, idx) : NULL;
		long_form = idx >= 0;
		idx = -1;
		if (abbr) {
			struct sbx_diag d;

			sbx_diag_clear(&d);
			sbx_diag_set(&d, 0, "%sunknown option '%s'", sub, abbr);
			sbx_diag_hint(&d, 0,
				      "options are spelled out in full; see 'sbxrun %s%s--help'",
				      o->subcommand ? o->subcommand : "", o->subcommand ? " " : "");
			return refuse_diag(&d);
		}
		if (c == 'h') {
			usage_print(o->subcommand, false);
			return -1;
		}
		/* Anywhere among plain sbxrun's options, as -h; a subcommand has no version. */
		if (c == 'V' && !o->subcommand) {
			printf("sbxrun %s\n", SBX_VERSION);
			return -1;
		}
		if (c == ':') {
			/*
			 * A long option is its own word. A short one may end a bundle ("-vp"), and
			 * musl leaves optind past the end then: name it from optopt.
			 */
			const char *w = optind - 1 < argc ? argv[optind - 1] : NULL;

			if (w && strncmp(w, "--", 2) == 0)
				return refuse("%soption '%s' needs a value", sub, w);
			return refuse("%soption '-%c' needs a value", sub, optopt);
		}
		given = c == '?' ? opt_given_a_value(argv, argc, optind, long_opts, optopt) : 0;
		if (given == 1)
			return refuse("%soption '%.*s' takes no value", sub,
				      (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
		if (given == 2) {
			/* Named as given, never by the letter getopt left in optopt. */
			struct sbx_diag d;

			sbx_diag_clear(&d);
			sbx_diag_set(&d, 0, "%sunknown option '%s'", sub, argv[optind - 1]);
			sbx_diag_hint(&d, 0,
				      "options are spelled out in full; see 'sbxrun %s%s--help'",
				      o->subcommand ? o->subcommand : "", o->subcommand ? " " : "");
			return refuse_diag(&d);
		}
		if (c == '?' || c == 'V') {
			struct sbx_diag d;

			sbx_diag_clear(&d);
			if (optopt && optopt < 256 && c == '?')
				sbx_diag_set(&d, 0, "%sunknown option '-%c'", sub, optopt);
			else if (c == 'V')
				/* Inside a bundle ("-vV") no word is the option's own. */
				sbx_diag_set(&d, 0, "%sunknown option '%s'", sub,
					     long_form ? "--version" : "-V");
			else
				sbx_diag_set(&d, 0, "%sunknown option '%s'", sub, argv[optind - 1]);
			/* A prefix of two or more options (getopt calls it ambiguous). */
			if (c == '?' && !optopt && is_prefix_of_any(argv[optind - 1]))
				sbx_diag_hint(
					&d, 0,
					"options are spelled out in full; see 'sbxrun %s%s--help'",
					o->subcommand ? o->subcommand : "",
					o->subcommand ? " " : "");
			else if (o->subcommand)
				snprintf(d.hint, sizeof(d.hint), "see 'sbxrun %s --help'",
					 o->subcommand);
			else
				snprintf(d.hint, sizeof(d.hint), "see 'sbxrun --help'");
			return refuse_diag(&d);
		}
		if (!(opt_bit(c) & allowed))
			return refuse("%soption '--%s' does not apply here", sub, opt_name(c));
		/*
		 * "sbxrun --profile -- make": the value was forgotten, and getopt took the "--"
		 * meant to end the options for it (a deny of a file named "--", a profile of that
		 * name...). A file of that name is still ./--.
		 */
		if (optarg && strcmp(optarg, "--") == 0) {
			struct sbx_diag d;

			sbx_diag_clear(&d);
			if (long_form)
				sbx_diag_set(&d, 0, "%soption '--%s' needs a value before '--'",
					     sub, opt_name(c));
			else
				sbx_diag_set(&d, 0, "%soption '-%c' needs a value before '--'", sub,
					     c);
			sbx_diag_hint(&d, 0, "'--' ends the options; a file named so is ./--");
			return refuse_diag(&d);
		}
		switch (c) {
		case 'p':
			if (!optarg[0])
				return refuse("--profile: empty value");
			o->profile = optarg;
			break;
		case 'C':
			/* Never the current directory by default: "$DIR" unset in a script. */
			if (!optarg[0])
				return refuse("--cwd: empty value");
			o->cwd = optarg;
			break;
		case 'w':
			if (!optarg[0])
				return refuse("--workspace-root: empty value");
			if (o->n_roots == SBX_MAX_WORKSPACE_ROOTS)
				return refuse("--workspace-root: more than %d roots",
					      SBX_MAX_WORKSPACE_ROOTS);
			o->roots[o->n_roots++] = optarg;
			break;
		case 'a':
			if (!optarg[0])
				return refuse("--add-permissions: empty value");
			if (o->n_add == sizeof(o->add) / sizeof(o->add[0]))
				return refuse("--add-permissions: more than %zu files",
					      sizeof(o->add) / sizeof(o->add[0]));
			o->add[o->n_add++] = optarg;
			break;
		case LO_SANDBOX:
			if ((i = pick(optarg, prefs)) < 0)
				return bad_value("sandbox", optarg, "auto, require or forbid");
			o->pref = (enum sbx_pref)i;
			break;
		case LO_MANAGED:
			o->managed_network = true;
			break;
		case LO_UNIX_SOCKET:
			/* Checked and normalized with the plan (sbx_plan_network). */
			if (o->n_unix_sockets == SBX_MAX_UNIX_SOCKETS)
				return refuse("--allow-unix-socket: more than %d sockets",
					      SBX_MAX_UNIX_SOCKETS);
			o->unix_sockets[o->n_unix_sockets++] = optarg;
			break;
		case LO_LOCAL_BINDING:
			o->allow_local_binding = true;
			break;
		case LO_PLATFORM:
			if ((i = pick(optarg, platforms)) < 0)
				return bad_value("platform", optarg, "linux, macos or windows");
			o->platform = (enum sbx_platform)i;
			o->platform_set = true;
			break;
		case LO_WINLEVEL:
			if ((i = pick(optarg, levels)) < 0)
				return bad_value("windows-sandbox", optarg,
						 "disabled, restricted-token or elevated");
			o->wlevel = (enum sbx_windows_level)i;
			break;
		case LO_JSON:
			o->json = true;
			break;
		case LO_TO:
			if (strcmp(optarg, "profile") && strcmp(optarg, "legacy"))
				return bad_value("to", optarg, "profile or legacy");
			o->to = optarg;
			break;
		case LO_READ:
		case LO_WRITE:
		case LO_DENY:
			if (!optarg[0])
				return refuse("--%s: empty path", opt_name(c));
			if (o->n_grants == OPT_LIST_MAX)
				return too_many(opt_name(c));
			o->grants[o->n_grants].access = c == LO_READ	? SBX_READ
							: c == LO_WRITE ? SBX_WRITE
									: SBX_DENY;
			o->grants[o->n_grants++].path = optarg;
			break;
		case LO_NETWORK:
			o->network = true;
			break;
		case LO_MKDIR:
			o->mkdir = true;
			break;
		case LO_ALLOW_GIT:
			o->allow_git = true;
			break;
		case LO_ENV_CLEAR:
			o->env_clear = true;
			break;
		case LO_ENV_KEEP:
		case LO_ENV_DENY:
			if (!optarg[0])
				return refuse("--%s: empty pattern", opt_name(c));
			if (c == LO_ENV_KEEP)
				r = list_add(o->env_keep, &o->n_env_keep, optarg, opt_name(c));
			else
				r = list_add(o->env_deny, &o->n_env_deny, optarg, opt_name(c));
			if (r)
				return r;
			break;
		case LO_ENV_DENY_SECRETS:
			o->env_deny_secrets = true;
			break;
		case LO_ENV_OFFLINE:
			o->env_offline = true;
			break;
		case LO_ENV_SET:
			if (sbx_env_check_assignment(optarg))
				return bad_value("env-set", optarg, "NAME=VALUE");
			r = list_add(o->env_set, &o->n_env_set, optarg, opt_name(c));
			if (r)
				return r;
			break;
		case 'v':
			o->verbose = true;
			break;
		case LO_ALLOW_DOMAIN:
		case LO_DENY_DOMAIN:
			/* Checked with the plan (invocation.c), where a bad pattern is refused. */
			if (c == LO_ALLOW_DOMAIN)
				r = list_add(o->allow_domains, &o->n_allow_domains, optarg,
					     opt_name(c));
			else
				r = list_add(o->deny_domains, &o->n_deny_domains, optarg,
					     opt_name(c));
			if (r)
				return r;
			break;
		case LO_NETWORK_LOG:
			if (!optarg[0])
				return refuse("--network-log: empty path");
			o->network_log = optarg;
			break;
		case LO_ALLOW_PRIVATE:
			o->allow_private_addresses = true;
			break;
		case LO_REPORT:
			if (!optarg[0])
				return refuse(
					"--report: empty path (give a file, or - for standard "
					"error)");
			o->report = optarg;
			break;
		}
	}
	o->rest = argv + optind;
	o->n_rest = argc - optind;
	return forbid_conflict(o, sub);
}
