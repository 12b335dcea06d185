/* SPDX-License-Identifier: MIT */
/* probe.c - what this host can enforce (sbxrun(1), Subcommands). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#if defined(__linux__)
#include "linux/linux.h"

/* A fact that may be unknown (NULL) or none (""): null for both. */
static json_t *nonempty_or_null(const char *s)
{
	return s && s[0] ? sbx_json_text(s) : json_null();
}
#endif

static json_t *probe_json(void)
{
	json_t *o = json_object();
	enum sbx_platform pl = sbx_host_platform();

	json_object_set_new(o, "platform", sbx_json_text(sbx_platform_name(pl)));
#if defined(__linux__)
	{
		struct sbx_linux_facts f;

		sbx_linux_probe(&f);
		json_object_set_new(o, "kernel", sbx_json_text(f.kernel));
		json_object_set_new(o, "landlock_abi", json_integer(f.landlock_abi));
		json_object_set_new(o, "seccomp", json_boolean(f.seccomp));
		json_object_set_new(o, "user_namespaces", json_boolean(f.user_namespaces));
		json_object_set_new(o, "user_namespaces_blocked_by",
				    nonempty_or_null(f.userns_blocked_by));
		json_object_set_new(o, "mount_namespace", json_boolean(f.mount_namespace));
		json_object_set_new(o, "net_namespace", json_boolean(f.net_namespace));
		json_object_set_new(o, "unix_broker", json_boolean(f.unix_broker));
		/* Whether run keeps the caller's process group (a terminal's job) or makes one. */
		json_object_set_new(o, "terminal", json_boolean(f.terminal));
		json_object_set_new(o, "pid_namespace", json_boolean(f.pid_namespace));
		json_object_set_new(o, "ipc_namespace", json_boolean(f.ipc_namespace));
		json_object_set_new(o, "no_new_privs", json_boolean(f.no_new_privs));
		json_object_set_new(o, "running_as_root", json_boolean(f.running_as_root));
		json_object_set_new(o, "in_container", json_boolean(f.in_container));
		json_object_set_new(o, "wsl", f.wsl ? json_integer(f.wsl) : json_null());
		json_object_set_new(o, "sandbox_exec", json_null());
	}
#elif defined(__APPLE__)
	json_object_set_new(o, "running_as_root", json_boolean(geteuid() == 0));
	json_object_set_new(o, "sandbox_exec",
			    access("/usr/bin/sandbox-exec", X_OK) == 0
				    ? sbx_json_text("/usr/bin/sandbox-exec")
				    : json_null());
#else
	json_object_set_new(o, "sandbox_exec", json_null());
#endif
	json_object_set_new(o, "sandbox",
			    sbx_json_text(sbx_sandbox_name(
				    sbx_platform_sandbox(pl, SBX_WIN_RESTRICTED_TOKEN))));
	return o;
}

int cmd_probe(int argc, char **argv)
{
	struct opts o = {.subcommand = "probe"};
	const char *key;
	json_t *j, *v;
	int r;

	r = opts_parse(&o, argc, argv, OPT_JSON, false);
	if (r)
		return r < 0 ? 0 : r;
	if (o.n_rest)
		return refuse("probe: unexpected argument '%s'", o.rest[0]);
	j = probe_json();
	if (!j)
		return refuse("out of memory");
	if (o.json) {
		char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		if (text)
			puts(text);
		free(text);
	} else {
		json_object_foreach(j, key, v)
		{
			char *text = json_dumps(v, JSON_ENCODE_ANY);

			printf("%-27s %s\n", key, text ? text : "?");
			free(text);
		}
	}
	json_decref(j);
	return 0;
}
