/* SPDX-License-Identifier: MIT */
/*
 * intent.c - does a profile need a sandbox (sbxrun-profile(5), WHEN A SANDBOX IS NEEDED), and
 * which backend a platform
 * offers. Intent and backend stay separate questions: intent without a backend is refused by
 * the caller, never run unconfined.
 */
#include "sbx.h"

const char *sbx_sandbox_name(enum sbx_sandbox s)
{
	switch (s) {
	case SBX_SANDBOX_NONE:
		return "none";
	case SBX_SANDBOX_LINUX_SECCOMP:
		return "linux-seccomp";
	case SBX_SANDBOX_MACOS_SEATBELT:
		return "macos-seatbelt";
	case SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN:
		return "windows-restricted-token";
	}
	return "?";
}

/*
 * should_require_platform_sandbox: managed network requirements always need one; a restricted
 * network needs one unless something outside isolates the file system; an enabled network
 * needs one only for a restricted file system without full-disk write.
 */
bool sbx_should_require_platform_sandbox(const struct sbx_profile *p, bool managed_network,
					 const struct sbx_ctx *ctx)
{
	if (managed_network)
		return true;
	if (!p->network)
		return p->fs.kind != SBX_FS_EXTERNAL;
	return p->fs.kind == SBX_FS_RESTRICTED && !sbx_fs_full_write(&p->fs, ctx);
}

bool sbx_should_sandbox(const struct sbx_profile *p, enum sbx_pref pref, bool managed_network,
			const struct sbx_ctx *ctx)
{
	switch (pref) {
	case SBX_PREF_FORBID:
		return false;
	case SBX_PREF_REQUIRE:
		return true;
	case SBX_PREF_AUTO:
		break;
	}
	return sbx_should_require_platform_sandbox(p, managed_network, ctx);
}

enum sbx_sandbox sbx_platform_sandbox(enum sbx_platform pl, enum sbx_windows_level level)
{
	switch (pl) {
	case SBX_PLATFORM_LINUX:
		return SBX_SANDBOX_LINUX_SECCOMP;
	case SBX_PLATFORM_MACOS:
		return SBX_SANDBOX_MACOS_SEATBELT;
	case SBX_PLATFORM_WINDOWS:
		return level == SBX_WIN_DISABLED ? SBX_SANDBOX_NONE
						 : SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN;
	}
	return SBX_SANDBOX_NONE;
}
