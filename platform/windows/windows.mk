# windows.mk - the Windows build, included by the top-level Makefile (whose VERSION, WARN, SUDO,
# source lists and user CFLAGS/LDFLAGS it uses): cross-built with MinGW-w64, tested under Wine.
#
# make windows         build-windows/sbxrun.exe (and a copy at ./sbxrun.exe)
# make check-windows   the tests of tests/windows/ under Wine (which runs the code but enforces
#                      neither restricted tokens, ACLs nor desktop DACLs; see tests/windows/run)
#
# jansson is cross-built from the distribution's source package into build-windows/jansson;
# libseccomp and libcap are Linux-only and not linked.

WIN_CC ?= x86_64-w64-mingw32-gcc
WIN_AR ?= x86_64-w64-mingw32-ar
WIN_BUILD := build-windows
WIN_JANSSON := $(WIN_BUILD)/jansson
WIN_DEB := gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 dpkg-dev
WINE_DEB := wine wine64

# Format strings are checked by the native build: MinGW's checker knows only the conversions of
# the Microsoft runtime (no %zu), while __USE_MINGW_ANSI_STDIO links the C99 printf family.
WIN_CFLAGS = -std=gnu11 -D_GNU_SOURCE -DSBX_VERSION_STR='"$(VERSION)"' -D_WIN32_WINNT=0x0A00 \
	-DJANSSON_STATIC -D__USE_MINGW_ANSI_STDIO=1 -include platform/windows/compat.h -Ilib \
	-Iplatform -I$(WIN_JANSSON)/include -O2 $(WARN) -Wno-format -fstack-protector-strong \
	-D_FORTIFY_SOURCE=2 $(CFLAGS)
WIN_LDFLAGS = -static -Wl,--dynamicbase -Wl,--nxcompat -Wl,--high-entropy-va $(LDFLAGS)
WIN_LIBS := $(WIN_JANSSON)/lib/libjansson.a -lbcrypt -lshell32 -luser32 -ladvapi32 -lssp

WIN_TEST_PROGS := $(WIN_BUILD)/tests/sbxtest.exe $(WIN_BUILD)/tests/rundriver.exe \
	$(WIN_BUILD)/tests/unit-tests.exe
# The unit tests of the Windows-facing pure code, run again under the Windows C runtime, and
# those of the backend's own decisions, which need the Windows API.
WIN_UNIT_SRCS := tests/unit/main.c tests/unit/test_winquote.c tests/unit/test_plan_windows.c \
	tests/unit/test_winpath.c tests/windows/unit_backend.c

# The source lists are the Makefile's: WINDOWS_SRCS is the command line and this backend.
WIN_LIB_OBJS := $(ALL_LIB_SRCS:%.c=$(WIN_BUILD)/%.o)
WIN_PROGRAM_OBJS := $(WINDOWS_SRCS:%.c=$(WIN_BUILD)/%.o)
WIN_PLATFORM_OBJS := $(PLATFORM_WINDOWS_SRCS:%.c=$(WIN_BUILD)/%.o)

deps-windows:
	@missing=""; \
	command -v $(WIN_CC) >/dev/null || missing="$$missing gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64"; \
	command -v dpkg-source >/dev/null || missing="$$missing dpkg-dev"; \
	if [ -n "$$missing" ]; then \
		echo "sbxrun: installing Windows build dependencies: $(SUDO) apt-get install -y$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing || exit 1; \
	fi

deps-wine:
	@if ! command -v wine >/dev/null; then \
		echo "sbxrun: installing Wine: $(SUDO) apt-get install -y $(WINE_DEB)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(WINE_DEB) || exit 1; \
	fi

$(WIN_JANSSON)/lib/libjansson.a: platform/build-jansson.sh platform/apt-source.sh | deps-windows
	@rm -f $@
	platform/build-jansson.sh $(WIN_JANSSON) $(WIN_CC) $(WIN_AR) windows

$(WIN_BUILD)/%.o: %.c platform/windows/compat.h $(WIN_JANSSON)/lib/libjansson.a
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -MMD -MP -c $< -o $@

$(WIN_BUILD)/libsbx.a: $(WIN_LIB_OBJS)
	@rm -f $@
	$(WIN_AR) rcs $@ $^

$(WIN_BUILD)/sbxrun.exe: $(WIN_PROGRAM_OBJS) $(WIN_BUILD)/libsbx.a
	$(WIN_CC) $(WIN_LDFLAGS) -o $@ $(WIN_PROGRAM_OBJS) $(WIN_BUILD)/libsbx.a $(WIN_LIBS)

$(WIN_BUILD)/tests/sbxtest.exe: $(WIN_BUILD)/tests/windows/sbxtest.o
	$(WIN_CC) $(WIN_LDFLAGS) -o $@ $^ -lshell32 -luser32 -ladvapi32 -lssp

$(WIN_BUILD)/tests/rundriver.exe: $(WIN_BUILD)/tests/windows/rundriver.o $(WIN_PLATFORM_OBJS) \
		$(WIN_BUILD)/libsbx.a
	$(WIN_CC) $(WIN_LDFLAGS) -o $@ $^ $(WIN_LIBS)

$(WIN_BUILD)/tests/unit-tests.exe: $(WIN_UNIT_SRCS:%.c=$(WIN_BUILD)/%.o) \
		$(filter-out $(WIN_BUILD)/platform/windows/run.o,$(WIN_PLATFORM_OBJS)) \
		$(WIN_BUILD)/libsbx.a
	$(WIN_CC) $(WIN_LDFLAGS) -o $@ $^ $(WIN_LIBS)

sbxrun.exe: $(WIN_BUILD)/sbxrun.exe
	cp $< $@

windows: sbxrun.exe $(WIN_TEST_PROGS)

check-windows: windows deps-wine
	SBXRUN_EXE=$(CURDIR)/$(WIN_BUILD)/sbxrun.exe WIN_TESTS=$(CURDIR)/$(WIN_BUILD)/tests \
		VECTORS=$(CURDIR)/tests/vectors tests/windows/run

.PHONY: deps-windows deps-wine

# Every object's header dependencies, the test programs' too (a stale one links a struct of
# another size).
-include $(WIN_LIB_OBJS:.o=.d) $(WIN_PROGRAM_OBJS:.o=.d) $(WIN_UNIT_SRCS:%.c=$(WIN_BUILD)/%.d) \
	$(WIN_BUILD)/tests/windows/rundriver.d $(WIN_BUILD)/tests/windows/sbxtest.d
