# sbxrun - one GNU Makefile, explicit source lists.
#
#   make                 build ./sbxrun (installs missing build dependencies through apt first),
#                        against musl where it can ("the C library" below; LIBC=glibc or musl)
#   make check           build and run every test tier (unit, cli, net, enforce, adversarial,
#                        fuzz replay, lint of man)
#   make asan check      the same, built with AddressSanitizer and UndefinedBehaviorSanitizer
#   make fuzz            run the libFuzzer target for FUZZ_SECONDS (clang)
#   make fuzz-http       the same for the proxy's HTTP parsers
#   make fuzz-unix       the same for the broker's reading of a Unix socket address
#   make bench           benchmarks (tests/bench/); make bench-proxy runs the proxy's group alone
#   make bench-count     instructions and heap per profile entry (callgrind), held to a bound
#   make install         PREFIX=/usr/local DESTDIR= (the binary, its helper link, the manual
#                        pages, the bash and zsh completions, the profile schema)
#   make deb             a Debian package, sbxrun_VERSION_ARCH.deb (platform/linux/debian/)
#   make dist            the release tarball sbxrun-VERSION.tar.gz; make distcheck builds it
#                        and runs make check inside
#   make windows         cross-build sbxrun.exe with MinGW-w64; make check-windows runs it under Wine
#
# User CFLAGS/LDFLAGS are appended last. DEVELOPER=1 turns warnings into errors (CI sets it).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
DESTDIR ?=
CC ?= cc
PKG_CONFIG ?= pkg-config
SHELL := /bin/bash

VERSION := 0.1.0

# ---- sources ---------------------------------------------------------------------------------

LIB_SRCS := \
	lib/diag.c \
	lib/path.c \
	lib/fsview.c \
	lib/fsmemo.c \
	lib/handover.c \
	lib/profile.c \
	lib/readfile.c \
	lib/load.c \
	lib/load_wire.c \
	lib/load_text.c \
	lib/load_walk.c \
	lib/load_entries.c \
	lib/load_profile.c \
	lib/load_additional.c \
	lib/load_legacy.c \
	lib/load_managed.c \
	lib/emit.c \
	lib/builtin.c \
	lib/resolve.c \
	lib/roots.c \
	lib/pmap.c \
	lib/gitroots.c \
	lib/gitindex.c \
	lib/gitmode.c \
	lib/legacy.c \
	lib/algebra.c \
	lib/addition.c \
	lib/glob.c \
	lib/context.c \
	lib/env.c \
	lib/intent.c \
	lib/proxyenv.c \
	lib/plan.c \
	lib/notes.c \
	lib/denial.c \
	lib/report.c \
	lib/strbuf.c \
	lib/domain.c \
	lib/http.c \
	lib/netlog.c \
	lib/unixaddr.c

LIB_LINUX_SRCS := \
	lib/plan_linux.c \
	lib/plan_linux_mounts.c

LIB_MACOS_SRCS := \
	lib/plan_macos.c \
	lib/sbpl.c \
	lib/sbpl_regex.c

LIB_WINDOWS_SRCS := \
	lib/winpath.c \
	lib/plan_windows.c \
	lib/winquote.c

PLATFORM_LINUX_SRCS := \
	platform/linux/probe.c \
	platform/linux/enter.c \
	platform/linux/enforce.c \
	platform/linux/landlock.c \
	platform/linux/seccomp.c \
	platform/linux/seccomp_net.c \
	platform/linux/caps.c \
	platform/linux/mountns.c \
	platform/linux/resolve.c \
	platform/linux/supervise.c \
	platform/linux/trace.c \
	platform/linux/devfs.c \
	platform/linux/netns.c \
	platform/linux/bridge.c \
	platform/linux/broker.c \
	platform/linux/network.c \
	platform/linux/points.c \
	platform/linux/gitcheck.c \
	platform/linux/exec.c

PLATFORM_MACOS_SRCS := \
	platform/macos/exec.c

PLATFORM_WINDOWS_SRCS := \
	platform/windows/run.c \
	platform/windows/util.c \
	platform/windows/token.c \
	platform/windows/acl.c \
	platform/windows/desktop.c \
	platform/windows/environ.c

# The proxy's event loop and resolver threads: POSIX, shared by Linux and macOS.
PLATFORM_UNIX_SRCS := \
	platform/unix/exec.c \
	platform/unix/proxy.c \
	platform/unix/resolver.c

# The command line of every platform.
CMD_SRCS := \
	cmd/main.c \
	cmd/errors.c \
	cmd/options.c \
	cmd/invocation.c \
	cmd/backend.c \
	cmd/run.c \
	cmd/explain.c \
	cmd/probe.c \
	cmd/tools.c \
	cmd/grants.c \
	cmd/mkdir.c \
	cmd/environ.c \
	cmd/planprint.c \
	cmd/proxy.c \
	cmd/report.c

# The Linux helper, sbxrun-linux-sandbox: Linux only.
CMD_LINUX_SRCS := \
	cmd/helper.c \
	cmd/execfail.c \
	cmd/runreport.c

# The library is pure and the same everywhere (every platform's planner is in it, so that
# `explain --platform` works on any host); each program adds its command line and backend.
ALL_LIB_SRCS := $(LIB_SRCS) $(LIB_LINUX_SRCS) $(LIB_MACOS_SRCS) $(LIB_WINDOWS_SRCS)
LINUX_SRCS := $(CMD_SRCS) $(CMD_LINUX_SRCS) $(PLATFORM_LINUX_SRCS) $(PLATFORM_UNIX_SRCS)
DARWIN_SRCS := $(CMD_SRCS) $(PLATFORM_MACOS_SRCS) $(PLATFORM_UNIX_SRCS)
WINDOWS_SRCS := $(CMD_SRCS) $(PLATFORM_WINDOWS_SRCS)

UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
# The macOS enforcement suite's probe (built and run on a Mac by check-enforce-macos).
ENFORCE_MACOS_SRCS := tests/enforce-macos/probe.c
FUZZ_TARGET := tests/fuzz/fuzz_profile.c
FUZZ_HTTP_TARGET := tests/fuzz/fuzz_http.c
FUZZ_UNIX_TARGET := tests/fuzz/fuzz_unix.c

# ---- flags -----------------------------------------------------------------------------------

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla \
	-Wpointer-arith -Wundef -Wwrite-strings -Wimplicit-fallthrough -Wno-unused-parameter
ifeq ($(DEVELOPER),1)
WARN += -Werror
endif
HARDEN_CFLAGS := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection -fPIE
HARDEN_LDFLAGS := -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack

OPT := -O2 -g
BUILD := build
ifneq ($(filter asan,$(MAKECMDGOALS)),)
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HARDEN_CFLAGS := -fPIE
BUILD := build-asan
SAN_LDFLAGS := -fsanitize=address,undefined
STATIC := 0
endif

DEPS_PKGS := jansson libseccomp libcap
DEP_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS) 2>/dev/null)
DEP_LIBS = $(shell $(PKG_CONFIG) --libs $(DEPS_PKGS) 2>/dev/null || echo -ljansson -lseccomp -lcap)
# The macOS compile check reads the system's headers (glibc's, without its GNU extensions),
# whichever C library the programs are built against.
NATIVE_CC := $(CC)
NATIVE_DEP_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS) 2>/dev/null)

ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE -DSBX_VERSION_STR='"$(VERSION)"' -Ilib -Iplatform $(OPT) \
	-pthread $(WARN) $(HARDEN_CFLAGS) $(DEP_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = -pthread $(HARDEN_LDFLAGS) $(SAN_LDFLAGS) $(LDFLAGS)

# sbxrun itself is linked static-pie (still position independent, so ASLR holds) when the static
# archives of its libraries are installed: each run starts the binary twice (sbxrun, then its
# helper), and a static binary skips the dynamic loader (maps, symbol lookups, relocations),
# about a tenth of a millisecond per start. STATIC=0 links dynamically; sanitized builds and
# macOS always do.
STATIC ?= 1
STATIC_ARCHIVES = $(foreach l,c jansson seccomp cap,$(shell $(CC) -print-file-name=lib$(l).a))
STATIC_OK = $(and $(filter 1,$(STATIC)),$(if $(filter-out /%,$(STATIC_ARCHIVES)),,yes))
SBXRUN_LDFLAGS = $(if $(STATIC_OK),$(filter-out -pie,$(ALL_LDFLAGS)) -static-pie,$(ALL_LDFLAGS))
SBXRUN_LIBS = $(if $(STATIC_OK),$(shell $(PKG_CONFIG) --static --libs $(DEPS_PKGS) 2>/dev/null \
	|| echo -ljansson -lseccomp -lcap),$(DEP_LIBS))

# ---- the C library: musl when it can be had ------------------------------------------------------
# Every run starts two programs from sbxrun's binary (sbxrun, then its helper), and glibc's start
# identifies the processor with cpuid, which traps to the hypervisor on a virtual machine: about
# 0.3 ms per start there, against musl's start that does not (tests/bench/README.md). So the
# programs are built against musl (musl-gcc) where it can be had, with jansson, libseccomp and
# libcap built for it from the distribution's source packages into $(MUSL)
# (platform/linux/musl-deps.sh, about ten seconds). LIBC=musl insists on it; LIBC=glibc builds
# against the system's C library, as a CC of the user's, the sanitized build (the sanitizers'
# run-time needs glibc) and macOS always do. Without LIBC, the first make decides, says so in one
# line when it falls back to glibc, and keeps the decision in $(BUILD)/libc.mk (make clean
# forgets it). What musl lacks: glibc's _FORTIFY_SOURCE checks (the sanitized build is glibc's).
MUSL := $(CURDIR)/build/musl
# Goals that build nothing against the C library decide nothing.
LIBC_FREE_GOALS := clean dist distcheck windows check-windows sbxrun.exe fuzz fuzz-http fuzz-unix \
	lint uninstall check-man check-macos deps deps-test deps-pkg deps-windows deps-wine
ifneq ($(filter asan,$(MAKECMDGOALS)),)
LIBC := glibc
else ifeq ($(shell uname -s),Darwin)
LIBC := glibc
else ifeq ($(LIBC),)
ifneq ($(filter-out default undefined,$(origin CC)),)
LIBC := glibc
else ifneq ($(and $(MAKECMDGOALS),$(if $(filter-out $(LIBC_FREE_GOALS),$(MAKECMDGOALS)),,yes)),)
LIBC := glibc
else
include $(BUILD)/libc.mk
endif
endif
# (Empty only while $(BUILD)/libc.mk is being made: make then reads this file again.)
ifneq ($(filter-out musl glibc,$(LIBC)),)
$(error LIBC is musl or glibc, not "$(LIBC)")
endif
# A LIBC or CC given on the command line beats the choices above: refuse the mixes that cannot
# build, rather than fail later on headers of one C library and libraries of the other.
ifeq ($(LIBC),musl)
ifneq ($(filter asan,$(MAKECMDGOALS)),)
$(error LIBC=musl cannot build asan: the sanitizers' run-time needs glibc (drop LIBC=musl))
endif
ifeq ($(origin CC),command line)
$(error LIBC=musl builds with its own compiler wrapper: drop CC=$(CC), or build with LIBC=glibc)
endif
endif

ifeq ($(LIBC),musl)
CC := $(MUSL)/bin/musl-cc
# The kernel's headers and the three libraries' only: never glibc's /usr/include.
DEP_CFLAGS = -isystem $(MUSL)/kernel -isystem $(MUSL)/include
DEP_LIBS = -L$(MUSL)/lib -ljansson -lseccomp -lcap
STATIC_OK = $(filter 1,$(STATIC))
SBXRUN_LIBS = $(DEP_LIBS)
HARDEN_CFLAGS := $(filter-out -D_FORTIFY_SOURCE=%,$(HARDEN_CFLAGS))
LIBC_READY := $(MUSL)/versions
endif

# Objects of one C library are never linked with the other's: when LIBC changes, the build
# directory starts afresh (keeping the musl libraries and the decision; a build directory
# without a stamp is an older glibc one). That is done while this file is read, before make
# looks at any object, so it is not done for a dry run (-n) or a question (-q), which change
# nothing: -n says it instead. (The single-letter flags are MAKEFLAGS' first word here.)
LIBC_DRY := $(findstring n,$(firstword -$(MAKEFLAGS)))$(findstring q,$(firstword -$(MAKEFLAGS)))
ifneq ($(and $(LIBC),$(filter-out $(LIBC_FREE_GOALS),$(or $(MAKECMDGOALS),all))),)
ifeq ($(LIBC_DRY),)
$(shell mkdir -p $(BUILD) && \
	if [ "$$(cat $(BUILD)/libc.stamp 2>/dev/null || echo glibc)" != $(LIBC) ]; then \
		find $(BUILD) -mindepth 1 -maxdepth 1 ! -name musl ! -name musl.log ! -name libc.mk \
			-exec rm -rf {} +; \
	fi; echo $(LIBC) >$(BUILD)/libc.stamp)
else ifneq ($(and $(findstring n,$(LIBC_DRY)),$(wildcard $(BUILD))),)
LIBC_BUILT := $(shell cat $(BUILD)/libc.stamp 2>/dev/null || echo glibc)
ifneq ($(LIBC_BUILT),$(LIBC))
$(info sbxrun: $(BUILD) holds a $(LIBC_BUILT) build: without -n, make starts it afresh for $(LIBC))
endif
endif
endif

# The unit tests inject allocation failures (tests/unit/failalloc.c) and sort ties both ways
# (tests/unit/tiesort.c) through GNU ld's --wrap, which Apple's linker does not have.
FAILALLOC_FNS := malloc calloc realloc strdup strndup asprintf vasprintf __asprintf_chk \
	__vasprintf_chk
UNIT_CFLAGS := -DSBX_FAILALLOC
UNIT_LDFLAGS := $(foreach f,$(FAILALLOC_FNS) qsort sbx_sort_ptrs,-Wl,--wrap=$(f))

LIB_OBJS := $(ALL_LIB_SRCS:%.c=$(BUILD)/%.o)
PROGRAM_SRCS := $(LINUX_SRCS)
PLATFORM_OBJS := $(PLATFORM_LINUX_SRCS:%.c=$(BUILD)/%.o)

# macOS: no libseccomp or libcap (Linux only), the macOS backend instead of the Linux one, and
# Apple's linker, which makes PIE by default and knows no -z options.
ifeq ($(shell uname -s),Darwin)
DEPS_PKGS := jansson
DEP_LIBS = $(shell $(PKG_CONFIG) --libs $(DEPS_PKGS) 2>/dev/null || echo -ljansson)
HARDEN_CFLAGS := $(filter-out -fstack-clash-protection,$(HARDEN_CFLAGS))
HARDEN_LDFLAGS :=
PROGRAM_SRCS := $(DARWIN_SRCS)
PLATFORM_OBJS := $(PLATFORM_MACOS_SRCS:%.c=$(BUILD)/%.o)
STATIC := 0
UNIT_CFLAGS :=
UNIT_LDFLAGS :=
endif
PROGRAM_OBJS := $(PROGRAM_SRCS:%.c=$(BUILD)/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/%.o)
LIBSBX := $(BUILD)/libsbx.a

.PHONY: deb deps-pkg check-pkg dist distcheck
.PHONY: deps-build deps-musl
.PHONY: all completion check check-unit check-cli check-schema check-enforce check-adversarial check-fuzz \
	check-macos check-man check-net asan fuzz fuzz-http fuzz-unix lint bench bench-count bench-proxy \
	install uninstall clean deps deps-test windows check-windows check-enforce-macos

all: sbxrun completion

# ---- dependencies: install what is missing, saying what runs ---------------------------------

BUILD_DEB := gcc make pkg-config libjansson-dev libseccomp-dev libcap-dev
TEST_DEB := bats mandoc util-linux git python3 python3-yaml iproute2 clang zsh bash-completion \
	python3-jsonschema curl python3-pip strace
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

deps: deps-build $(LIBC_READY)

deps-build:
	@if ! $(PKG_CONFIG) --exists $(DEPS_PKGS) 2>/dev/null; then \
		if command -v apt-get >/dev/null; then \
			echo "sbxrun: installing build dependencies: $(SUDO) apt-get install -y $(BUILD_DEB)"; \
			$(SUDO) apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(BUILD_DEB) || exit 1; \
		else \
			echo "sbxrun: missing build dependencies (jansson, libseccomp, libcap development files) and no apt-get to install them" >&2; \
			exit 1; \
		fi; \
	fi

# The musl build's tools: its compiler, gperf (libseccomp's build) and dpkg-source.
INSTALL_MUSL_DEB = missing=""; \
	for c in musl-gcc:musl-tools gperf:gperf dpkg-source:dpkg-dev; do \
		command -v $${c%%:*} >/dev/null || missing="$$missing $${c\#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		command -v apt-get >/dev/null || { echo "no apt-get to install$$missing"; exit 1; }; \
		echo "sbxrun: installing the musl build's tools: $(SUDO) apt-get install -y$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing || exit 1; \
	fi

deps-musl:
	@$(INSTALL_MUSL_DEB)

MUSL_SCRIPTS := platform/linux/musl-deps.sh platform/apt-source.sh platform/build-jansson.sh

$(MUSL)/versions: $(MUSL_SCRIPTS) | deps-build deps-musl
	@rm -f $@
	platform/linux/musl-deps.sh $(MUSL)

# The decision when LIBC is not given (above): musl if its tools and libraries can be made.
# Its output goes to the log, so sudo must not ask for a password there: without one, the
# install fails and the build falls back to glibc, saying why ("private": its prerequisites,
# deps-build among them, keep plain sudo).
$(BUILD)/libc.mk: private SUDO := $(if $(SUDO),sudo -n)
$(BUILD)/libc.mk: | deps-build
	@mkdir -p $(dir $@) $(dir $(MUSL))
	@if ( $(INSTALL_MUSL_DEB) ) >$(MUSL).log 2>&1 && \
		platform/linux/musl-deps.sh $(MUSL) >>$(MUSL).log 2>&1; then \
		echo "sbxrun: building against musl ($$(paste -sd' ' $(MUSL)/versions | sed 's/ /, /g'))"; \
		echo 'LIBC := musl' >$@; \
	else \
		echo "sbxrun: building against glibc, not musl: $$(tail -n 1 $(MUSL).log)" \
			"(LIBC=musl to insist; make clean to try again)"; \
		echo 'LIBC := glibc' >$@; \
	fi

deps-test: deps
	@missing=""; \
	for c in bats:bats mandoc:mandoc setpriv:util-linux git:git python3:python3 clang:clang \
		zsh:zsh curl:curl pip3:python3-pip strace:strace ip:iproute2 npm:npm; do \
		command -v $${c%%:*} >/dev/null || missing="$$missing $${c#*:}"; \
	done; \
	python3 -c 'import yaml' 2>/dev/null || missing="$$missing python3-yaml"; \
	[ -e /usr/share/bash-completion/bash_completion ] || missing="$$missing bash-completion"; \
	/usr/bin/python3 -c 'from jsonschema import Draft202012Validator' 2>/dev/null || \
		missing="$$missing python3-jsonschema"; \
	if [ -n "$$missing" ]; then \
		if command -v apt-get >/dev/null; then \
			echo "sbxrun: installing test dependencies: $(SUDO) apt-get install -y$$missing"; \
			$(SUDO) apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing || exit 1; \
		else \
			echo "sbxrun: missing test tools:$$missing" >&2; exit 1; \
		fi; \
	fi

# ---- build -----------------------------------------------------------------------------------

$(BUILD)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIBSBX): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/sbxrun: $(PROGRAM_OBJS) $(LIBSBX)
	$(CC) $(SBXRUN_LDFLAGS) -o $@ $(PROGRAM_OBJS) $(LIBSBX) $(SBXRUN_LIBS)

# The top-level ./sbxrun points at the last build, plain or sanitized.
sbxrun: $(BUILD)/sbxrun
	ln -sf $(BUILD)/sbxrun sbxrun

asan: sbxrun

# ---- shell completions: both scripts built from one table (cmd/completion/options) ------------
COMPLETION := $(BUILD)/completion/sbxrun $(BUILD)/completion/_sbxrun
COMPLETION_GEN := cmd/completion/gen cmd/completion/options

completion: $(COMPLETION)

$(BUILD)/completion/sbxrun: cmd/completion/sbxrun.bash.in $(COMPLETION_GEN)
	@mkdir -p $(dir $@)
	cmd/completion/gen bash $< cmd/completion/options >$@.tmp && mv $@.tmp $@

$(BUILD)/completion/_sbxrun: cmd/completion/_sbxrun.in $(COMPLETION_GEN)
	@mkdir -p $(dir $@)
	cmd/completion/gen zsh $< cmd/completion/options >$@.tmp && mv $@.tmp $@

$(UNIT_OBJS): ALL_CFLAGS += $(UNIT_CFLAGS)

$(BUILD)/unit-tests: $(UNIT_OBJS) $(LIBSBX)
	$(CC) $(ALL_LDFLAGS) $(UNIT_LDFLAGS) -o $@ $(UNIT_OBJS) $(LIBSBX) $(DEP_LIBS)

$(BUILD)/fuzz-replay: $(FUZZ_TARGET) tests/fuzz/replay.c $(LIBSBX)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(FUZZ_TARGET) tests/fuzz/replay.c $(LIBSBX) $(DEP_LIBS)

$(BUILD)/fuzz-http-replay: $(FUZZ_HTTP_TARGET) tests/fuzz/replay.c $(LIBSBX)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(FUZZ_HTTP_TARGET) tests/fuzz/replay.c $(LIBSBX) \
		$(DEP_LIBS)

$(BUILD)/fuzz-unix-replay: $(FUZZ_UNIX_TARGET) tests/fuzz/replay.c $(LIBSBX)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(FUZZ_UNIX_TARGET) tests/fuzz/replay.c $(LIBSBX) \
		$(DEP_LIBS)

# The Darwin program checked on Linux, as far as a compiler can without Apple's headers: every
# Darwin source (the library, cmd/ and platform/macos), the unit tests and the macOS
# enforcement probe, with the macOS macros defined and Linux's undefined, with what macOS
# declares by default (POSIX with XSI and the BSD extensions) but without glibc's GNU
# extensions, which macOS lacks, and with the Linux backend's headers replaced by stubs that
# stop the build (tests/macos-stubs/; its darwin.h declares the two macOS functions that glibc
# only declares as GNU extensions). A Linux-only call in a Darwin source fails here, as on a Mac.
MACOS_STUBS := $(wildcard tests/macos-stubs/*.h tests/macos-stubs/*/*.h)
DARWIN_CHECK_CFLAGS = -std=gnu11 -U__linux__ -U__linux -Ulinux -U__gnu_linux__ -D__APPLE__ \
	-D__MACH__ -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=700 -DSBX_VERSION_STR='"$(VERSION)"' \
	-Itests/macos-stubs -Ilib -Iplatform -include tests/macos-stubs/darwin.h $(WARN) \
	-Werror=implicit-function-declaration $(NATIVE_DEP_CFLAGS) $(CFLAGS)
$(BUILD)/macos-compile.stamp: $(ALL_LIB_SRCS) $(DARWIN_SRCS) $(UNIT_SRCS) $(ENFORCE_MACOS_SRCS) \
		$(MACOS_STUBS) $(wildcard lib/*.h cmd/*.h platform/macos/*.h platform/unix/*.h \
		tests/unit/*.h) | deps
	@mkdir -p $(dir $@)
	$(NATIVE_CC) $(DARWIN_CHECK_CFLAGS) -fsyntax-only $(ALL_LIB_SRCS) $(DARWIN_SRCS) $(UNIT_SRCS) \
		$(ENFORCE_MACOS_SRCS)
	@touch $@

# ---- tests -----------------------------------------------------------------------------------

check: check-unit check-fuzz check-macos check-man check-cli check-schema check-pkg \
	check-net check-enforce check-adversarial check-windows
	@echo "sbxrun: all test tiers passed ($(BUILD))"

check-unit: $(BUILD)/unit-tests
	$(BUILD)/unit-tests tests/vectors

check-fuzz: $(BUILD)/fuzz-replay $(BUILD)/fuzz-http-replay $(BUILD)/fuzz-unix-replay
	$(BUILD)/fuzz-replay tests/fuzz/corpus
	$(BUILD)/fuzz-http-replay tests/fuzz/corpus-http
	$(BUILD)/fuzz-unix-replay tests/fuzz/corpus-unix

# On Linux, what can be checked of the macOS side without a Mac: the Darwin sources compile,
# the macOS enforcement suites parse, and the macOS workflow names only what exists.
check-macos: $(BUILD)/macos-compile.stamp deps-test
	bats --count tests/enforce-macos/*.bats >/dev/null
	bash -n tests/enforce-macos/run
	tests/enforce-macos/lint-workflow .github/workflows/macos.yml Makefile

check-man: deps-test
	mandoc -Tlint -W warning man/sbxrun.1 man/sbxrun-profile.5

# The profile schema against the loader: every profile under tests/ (tests/schema/check).
check-schema: sbxrun deps-test
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun tests/schema/check

check-cli: sbxrun completion deps-test
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun SBX_BASH_COMPLETION=$(CURDIR)/$(BUILD)/completion/sbxrun \
		SBX_ZSH_COMPLETION=$(CURDIR)/$(BUILD)/completion/_sbxrun bats tests/cli

# The proxy against real servers, clients and git on 127.0.0.1 (no other network is used);
# the fault injector hides the interfaces from it.
check-net: sbxrun deps-test $(BUILD)/enforce/failinj
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun FAILINJ=$(CURDIR)/$(BUILD)/enforce/failinj bats tests/net

# ---- the seccomp filters, compiled once at build time -------------------------------------
# seccomp-gen builds the eight filters (network, metadata, traced for the denial report: on or
# off) with libseccomp (the same code the helper would run) and
# prints them as a header; the helper then loads a finished program on every start.
$(BUILD)/seccomp-gen: platform/linux/seccomp_gen.c platform/linux/seccomp.c platform/linux/linux.h $(LIBSBX) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ platform/linux/seccomp_gen.c platform/linux/seccomp.c \
		$(LIBSBX) $(DEP_LIBS)

$(BUILD)/gen/seccomp_filters.h: $(BUILD)/seccomp-gen
	@mkdir -p $(dir $@)
	$(BUILD)/seccomp-gen > $@.tmp && mv $@.tmp $@

$(BUILD)/platform/linux/seccomp.o: platform/linux/seccomp.c $(BUILD)/gen/seccomp_filters.h | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/gen -DSBX_SECCOMP_PREBUILT -MMD -MP -c $< -o $@

# ---- Linux enforcement suite: a probe that performs one operation and prints its errno name,
# a fault injector that hides a kernel feature, and the enter sequence over hand-built roots.
ENFORCE_TOOLS := $(BUILD)/enforce/probe $(BUILD)/enforce/failinj $(BUILD)/enforce/enter-demo \
	$(BUILD)/enforce/filter-demo $(BUILD)/enforce/spawn-demo $(BUILD)/enforce/net-demo \
	$(BUILD)/enforce/probe-static

$(BUILD)/enforce/probe: tests/enforce/probe.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

# The same probe linked statically, as Go programs are: no libc of the system is loaded.
$(BUILD)/enforce/probe-static: tests/enforce/probe.c | deps
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 $(DEP_CFLAGS) -static -o $@ $<

$(BUILD)/enforce/failinj: tests/enforce/failinj.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(DEP_LIBS)

# The platform objects the demos link: all but the helper's exec, with the proxy (netns.c runs it).
DEMO_OBJS = $(filter-out $(BUILD)/platform/linux/exec.o,$(PLATFORM_OBJS)) \
	$(PLATFORM_UNIX_SRCS:%.c=$(BUILD)/%.o)

$(BUILD)/enforce/enter-demo: tests/enforce/enter_demo.c $(DEMO_OBJS) $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(DEP_LIBS)

$(BUILD)/enforce/filter-demo: tests/enforce/filter_demo.c $(BUILD)/platform/linux/seccomp.o $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(DEP_LIBS)

# The process model (supervisor, init, private /dev and /proc) over a small sandbox of its own.
$(BUILD)/enforce/spawn-demo: tests/enforce/spawn_demo.c $(DEMO_OBJS) $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(DEP_LIBS)

# The network pieces (namespace, bridge, sbxrun's proxy, filter, broker) over a sandbox of their own.
$(BUILD)/enforce/net-demo: tests/enforce/net_demo.c $(DEMO_OBJS) $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(DEP_LIBS)

check-enforce: sbxrun deps-test $(ENFORCE_TOOLS)
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun ENFORCE_TOOLS=$(CURDIR)/$(BUILD)/enforce tests/enforce/run

# Two or more runs in one workspace, the first preparing the ground as a hostile command would;
# as root and as uid 65534, by the same runner.
check-adversarial: sbxrun deps-test $(ENFORCE_TOOLS)
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun ENFORCE_TOOLS=$(CURDIR)/$(BUILD)/enforce tests/enforce/run \
		tests/adversarial/*.bats

# ---- macOS enforcement suite (on a Mac only): sbxrun under /usr/bin/sandbox-exec, as root and
# as nobody, so it needs root (sudo when run as another user).
$(BUILD)/enforce-macos/probe: tests/enforce-macos/probe.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

check-enforce-macos: sbxrun $(BUILD)/enforce-macos/probe
	$(SUDO) env PATH="$$PATH" SBXRUN=$(CURDIR)/$(BUILD)/sbxrun \
		PROBE=$(CURDIR)/$(BUILD)/enforce-macos/probe tests/enforce-macos/run

FUZZ_SECONDS ?= 60
fuzz: deps-test
	@mkdir -p build-fuzz
	clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Ilib $(DEP_CFLAGS) \
		-o build-fuzz/fuzz-profile $(FUZZ_TARGET) $(ALL_LIB_SRCS) $(DEP_LIBS)
	@mkdir -p build-fuzz/corpus
	build-fuzz/fuzz-profile -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		build-fuzz/corpus tests/fuzz/corpus

# The proxy's HTTP parsers; new findings land in build-fuzz/corpus-http.
fuzz-http: deps-test
	@mkdir -p build-fuzz/corpus-http
	clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Ilib $(DEP_CFLAGS) \
		-o build-fuzz/fuzz-http $(FUZZ_HTTP_TARGET) $(ALL_LIB_SRCS) $(DEP_LIBS)
	build-fuzz/fuzz-http -max_total_time=$(FUZZ_SECONDS) -max_len=70000 \
		-dict=tests/fuzz/http.dict build-fuzz/corpus-http tests/fuzz/corpus-http

# The broker's reading of a Unix socket address; new findings land in build-fuzz/corpus-unix.
fuzz-unix: deps-test
	@mkdir -p build-fuzz/corpus-unix
	clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Ilib $(DEP_CFLAGS) \
		-o build-fuzz/fuzz-unix $(FUZZ_UNIX_TARGET) $(ALL_LIB_SRCS) $(DEP_LIBS)
	build-fuzz/fuzz-unix -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		build-fuzz/corpus-unix tests/fuzz/corpus-unix

# The tests: a bats test body runs under set -e, which ignores a failure anywhere in an && list
# but its last command, and a statement negated by !: [ "$status" -eq 0 ] && [ -z "$stderr" ]
# passes at status 1. One check a line; a wait loop may still end in && break (or continue,
# return), and a negation is written as a test that fails ([ "$(grep -c x f)" -eq 0 ]).
lint: deps-test
	mandoc -Tlint -W warning man/sbxrun.1 man/sbxrun-profile.5
	@bad=$$(grep -rnE '^[[:space:]]*(\[\[? [^]]*\]\]? && \[|! )' tests \
		--include='*.bats' --include='*.bash' | \
		grep -vE '&& (break|continue|return( [0-9]+)?)$$' || true); \
	if [ -n "$$bad" ]; then \
		printf '%s\n' "$$bad"; \
		echo "lint: a check set -e cannot see in these tests (one check a line, no leading !)"; \
		exit 1; \
	fi
	@if command -v clang-format >/dev/null; then \
		clang-format --dry-run --Werror $(ALL_LIB_SRCS) lib/*.h $(LINUX_SRCS) cmd/*.h \
			$(PLATFORM_MACOS_SRCS) platform/unix/*.h; fi
	@if command -v cppcheck >/dev/null; then \
		cppcheck -q --error-exitcode=1 --enable=warning,portability -Ilib \
			$(ALL_LIB_SRCS) $(LINUX_SRCS); fi

# The loader's micro-benchmark (tests/bench/loader.c), run by make bench.
$(BUILD)/bench/loader: tests/bench/loader.c $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIBSBX) $(DEP_LIBS)

# Both halves of run's planning, for callgrind (tests/bench/plan.c): the library and the Linux
# helper's resolver and enforcement derivation (linked with the demos' platform objects).
$(BUILD)/bench/plan: tests/bench/plan.c $(DEMO_OBJS) $(LIBSBX)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(DEMO_OBJS) $(LIBSBX) $(DEP_LIBS)

# Instructions and heap per profile entry, counted by callgrind and held to a bound
# (tests/bench/count; installs valgrind when missing; under a minute; writes
# tests/bench/results/count.txt). make bench runs it too.
# The counts' bounds were set against glibc, and the heap held is read from glibc's allocator
# (mallinfo2): in a musl build, the counting program is built against glibc in build-glibc/.
ifeq ($(LIBC),musl)
PLAN_BENCH := build-glibc/bench/plan
.PHONY: $(PLAN_BENCH)
$(PLAN_BENCH):
	$(MAKE) --no-print-directory LIBC=glibc BUILD=build-glibc $@
else
PLAN_BENCH := $(BUILD)/bench/plan
endif

bench-count: $(PLAN_BENCH)
	PLAN_BENCH=$(CURDIR)/$(PLAN_BENCH) COUNT_OUT=tests/bench/results/count.txt \
		tests/bench/count

# Installs hyperfine and bubblewrap when missing; a few minutes; writes tests/bench/results/
bench: sbxrun $(BUILD)/bench/loader $(PLAN_BENCH) $(BUILD)/enforce/failinj
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun LOADER_BENCH=$(CURDIR)/$(BUILD)/bench/loader \
		PLAN_BENCH=$(CURDIR)/$(PLAN_BENCH) FAILINJ=$(CURDIR)/$(BUILD)/enforce/failinj \
		tests/bench/run

# The proxy's group of the benchmarks alone (prints its table; writes nothing).
bench-proxy: sbxrun
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun tests/bench/proxy

# ---- install ---------------------------------------------------------------------------------

install: $(BUILD)/sbxrun $(COMPLETION)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(DATADIR)/sbxrun
	install -m 0755 $(BUILD)/sbxrun $(DESTDIR)$(BINDIR)/sbxrun
	ln -sf sbxrun $(DESTDIR)$(BINDIR)/sbxrun-linux-sandbox
	install -m 0644 man/sbxrun.1 $(DESTDIR)$(MANDIR)/man1/sbxrun.1
	install -m 0644 man/sbxrun-profile.5 $(DESTDIR)$(MANDIR)/man5/sbxrun-profile.5
	install -m 0644 $(BUILD)/completion/sbxrun $(DESTDIR)$(BASHCOMPDIR)/sbxrun
	install -m 0644 $(BUILD)/completion/_sbxrun $(DESTDIR)$(ZSHCOMPDIR)/_sbxrun
	install -m 0644 man/sbxrun-profile.schema.json \
		$(DESTDIR)$(DATADIR)/sbxrun/profile.schema.json

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sbxrun $(DESTDIR)$(BINDIR)/sbxrun-linux-sandbox \
		$(DESTDIR)$(MANDIR)/man1/sbxrun.1 $(DESTDIR)$(MANDIR)/man5/sbxrun-profile.5 \
		$(DESTDIR)$(BASHCOMPDIR)/sbxrun $(DESTDIR)$(ZSHCOMPDIR)/_sbxrun \
		$(DESTDIR)$(DATADIR)/sbxrun/profile.schema.json
	-rmdir $(DESTDIR)$(DATADIR)/sbxrun 2>/dev/null

clean:
	rm -rf build build-asan build-fuzz build-windows build-glibc sbxrun sbxrun.exe sbxrun_*.deb \
		sbxrun-*.tar.gz

# ---- packages ----------------------------------------------------------------------------------
# make deb: sbxrun_VERSION-REVISION_ARCH.deb here, built by dpkg-deb from this build
# (platform/linux/debian/build; the newest entry of its changelog must be this version).
DEB_REVISION ?= 1
DEB_VERSION := $(VERSION)-$(DEB_REVISION)

deb: $(BUILD)/sbxrun $(COMPLETION) deps-pkg
	$(if $(filter musl,$(LIBC)),SBX_BUILT_USING="$$(cat $(MUSL)/built-using)") \
		platform/linux/debian/build $(DEB_VERSION) $(BUILD)/sbxrun $(BUILD)/completion \
		$(BUILD)/deb .

# Builds the package, then tests/pkg/run: lintian, the AppArmor profile, and the package
# installed, used and purged by dpkg in a mount namespace over overlays (root; the host's
# /usr, /etc and /var are not touched).
check-pkg: deb sbxrun deps-test
	SBXRUN=$(CURDIR)/$(BUILD)/sbxrun tests/pkg/run sbxrun_$(DEB_VERSION)_$$(dpkg --print-architecture).deb

# make dist: sbxrun-VERSION.tar.gz holding the files git tracks, as they are in the working
# tree (a warning says when they differ from the last commit); owners, order and times fixed,
# so the same tree gives the same archive. make distcheck unpacks it into a scratch directory
# and runs make check there: what the tarball holds builds and passes on its own.
DIST := sbxrun-$(VERSION)

dist:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || \
		{ echo "sbxrun: make dist lists the files git tracks: run it in a git checkout" >&2; exit 1; }
	@git diff --quiet HEAD -- || echo "sbxrun: warning: the tarball holds uncommitted changes" >&2
	rm -rf $(BUILD)/dist
	mkdir -p $(BUILD)/dist/$(DIST)
	git ls-files -z | xargs -0 cp -P --parents -t $(BUILD)/dist/$(DIST)
	tar -C $(BUILD)/dist --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git log -1 --format=%ct) -czf $(DIST).tar.gz $(DIST)
	@echo "sbxrun: wrote $(DIST).tar.gz ($$(git ls-files | wc -l) files)"

distcheck: dist
	rm -rf $(BUILD)/distcheck
	mkdir -p $(BUILD)/distcheck
	tar -C $(BUILD)/distcheck -xzf $(DIST).tar.gz
	cd $(BUILD)/distcheck/$(DIST) && diff <(git -C $(CURDIR) ls-files | sort) \
		<(find . -type f -o -type l | sed 's|^\./||' | sort)
	$(MAKE) -C $(BUILD)/distcheck/$(DIST) check
	@echo "sbxrun: $(DIST).tar.gz builds and passes make check from scratch"

deps-pkg:
	@missing=""; \
	command -v dpkg-shlibdeps >/dev/null || missing="$$missing dpkg-dev"; \
	command -v lintian >/dev/null || missing="$$missing lintian"; \
	command -v apparmor_parser >/dev/null || missing="$$missing apparmor"; \
	if [ -n "$$missing" ]; then \
		echo "sbxrun: installing packaging tools: $(SUDO) apt-get install -y$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
			$$missing || exit 1; \
	fi

-include $(LIB_OBJS:.o=.d) $(PROGRAM_OBJS:.o=.d) $(UNIT_OBJS:.o=.d)

# ---- windows: cross-built with MinGW-w64, smoke-tested under Wine -----------------------------
# The rules live with the backend they build: make windows, make check-windows.
include platform/windows/windows.mk
