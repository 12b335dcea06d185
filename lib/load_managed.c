/* SPDX-License-Identifier: MIT */
/*
 * load_managed.c - Codex's ManagedNetworkSandboxContext, the JSON a caller hands the Linux helper
 * with --managed-network: the loopback ports of its proxies, whether local binding is allowed,
 * and whether every Unix socket is.
 *
 * Codex serializes the struct with camel-case keys ("loopbackPorts"); its helper's documentation
 * spells them in snake case ("loopback_ports"). Both spellings are read, one of them per field:
 * the same setting given twice could disagree with itself. Every key is optional (Codex gives
 * each a default) and an unknown key is an error, as everywhere in a profile.
 */
#include <string.h>

#include "load.h"

/* The camel-case keys, then the snake-case keys, in the same order. */
static const char *const keys[] = {
	"loopbackPorts",
	"allowLocalBinding",
	"dangerouslyAllowAllUnixSockets",
	"loopback_ports",
	"allow_local_binding",
	"dangerously_allow_all_unix_sockets",
	NULL,
};
#define N_FIELDS 3

static int load_ports(const struct sbx_at *a, json_t *v, struct sbx_managed_ctx *out)
{
	size_t i;
	json_t *x;
	int r;

	r = sbx_want_type(a, v, JSON_ARRAY, "an array of port numbers");
	if (r)
		return r;
	json_array_foreach(v, i, x)
	{
		struct sbx_at c;
		json_int_t port;
		size_t k;

		sbx_at_index(&c, a, i);
		port = json_is_integer(x) ? json_integer_value(x) : 0;
		if (port < 1 || port > 65535)
			return sbx_at_fail(&c, SBX_E_INVALID,
					   "a loopback port must be an integer from 1 to 65535");
		for (k = 0; k < out->n_ports && out->ports[k] < (unsigned)port; k++)
			;
		if (k < out->n_ports && out->ports[k] == (unsigned)port)
			continue;
		if (out->n_ports == SBX_MAX_LOOPBACK_PORTS)
			return sbx_at_fail(&c, SBX_E_TOO_BIG,
					   "more than %d distinct loopback ports",
					   SBX_MAX_LOOPBACK_PORTS);
		memmove(out->ports + k + 1, out->ports + k,
			(out->n_ports - k) * sizeof(out->ports[0]));
		out->ports[k] = (unsigned)port;
		out->n_ports++;
	}
	return 0;
}

static int load_fields(const struct sbx_at *a, json_t *root, void *arg)
{
	struct sbx_managed_ctx *out = arg;
	json_t *vals[2 * N_FIELDS] = {0}, *v[N_FIELDS] = {0};
	const char *used[N_FIELDS] = {0};
	struct sbx_at c;
	int r;

	r = sbx_scan_keys(a, root, keys, vals, "a managed network context",
			  "\"loopbackPorts\", \"allowLocalBinding\" and "
			  "\"dangerouslyAllowAllUnixSockets\"");
	for (int i = 0; !r && i < N_FIELDS; i++) {
		if (vals[i] && vals[N_FIELDS + i]) {
			sbx_at_key(&c, a, keys[N_FIELDS + i]);
			return sbx_at_fail(&c, SBX_E_INVALID,
					   "\"%s\" and \"%s\" are one setting, given twice",
					   keys[i], keys[N_FIELDS + i]);
		}
		v[i] = vals[i] ? vals[i] : vals[N_FIELDS + i];
		used[i] = vals[i] ? keys[i] : keys[N_FIELDS + i];
	}
	if (!r && v[0]) {
		sbx_at_key(&c, a, used[0]);
		r = load_ports(&c, v[0], out);
	}
	if (!r && v[1]) {
		sbx_at_key(&c, a, used[1]);
		r = sbx_get_bool(&c, v[1], &out->allow_local_binding);
	}
	if (!r && v[2]) {
		sbx_at_key(&c, a, used[2]);
		r = sbx_get_bool(&c, v[2], &out->allow_all_unix_sockets);
	}
	return r;
}

int sbx_managed_ctx_load_buf(const char *buf, size_t len, const char *name,
			     struct sbx_managed_ctx *out, struct sbx_diag *d)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = sbx_load_object(buf, len, name, d, load_fields, out);
	if (r)
		memset(out, 0, sizeof(*out));
	return r;
}
