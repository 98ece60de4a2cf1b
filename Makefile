# SPDX-License-Identifier: GPL-2.0-only
# refnic: top-level build. kbuild builds kmod/, CMake builds lib/, tools/ and
# the GoogleTest suites, and the selftests are built against the kernel's
# kselftest harness. `make` builds everything; `make run` and `make check`
# also install what is missing (make deps) and use the QEMU VM.

SHELL := /bin/bash
BUILD := $(CURDIR)/build
NPROC := $(shell nproc)

# --- the kernel ---------------------------------------------------------------
# KERNEL picks the kernel series refnic is built for and tested on, for every
# target: make check KERNEL=7.3, make run KERNEL=7.3, make deps KERNEL=7.3.
# scripts/kernel.sh maps a series to its files and knows the supported ones.
#
# >>> THE DEFAULT KERNEL SERIES is the next line (scripts/kernel.sh reads it
# >>> too; keep it "KERNEL ?= X.Y" with nothing after the value).
KERNEL ?= 7.3
KERNEL_ERROR := $(shell scripts/kernel.sh --check '$(KERNEL)' 2>&1)
ifneq ($(KERNEL_ERROR),)
$(error $(KERNEL_ERROR))
endif
# Every script make runs (vm.sh, check.sh, bench.sh, ...) uses this series.
export REFNIC_KERNEL := $(KERNEL)
kernel = $(shell scripts/kernel.sh --get $(1) $(KERNEL))
# Known before the kernel is set up:
KSTAMP := $(call kernel,STAMP)
KMOD_BUILD := $(call kernel,KMOD_BUILD)
KO := $(call kernel,KO)
# Known once it is (make deps): expanded in recipes only, after their
# prerequisites ran.
KVER = $(call kernel,KVER)
KDIR ?= $(call kernel,KDIR)

# Debian 12's linux-source-6.12, whatever KERNEL is: the kselftest headers
# and the upstream selftests come from it (scripts/kernel-source.sh).
TOOLS_KSRC := $(BUILD)/linux-source
# The VM finds the iproute2 plugin in the build tree, no install needed.
VM := scripts/vm/vm.sh --series $(KERNEL) --env IP_LIB_DIR=$(BUILD)/iproute2
# make install's: PREFIX, DESTDIR for staging.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_PREFIX = $(abspath $(PREFIX))
# The CMake tree of lib/ and tools/: the VM's scripts use build/cmake; make install takes
# another (its test installs from the tree ctest runs in).
CMAKE_BUILD ?= $(BUILD)/cmake

all: kmod lib iproute2 selftests

# --- dependencies -----------------------------------------------------------
deps:
	@scripts/deps.sh --kernel $(KERNEL)

# The kernel is set up once; `make deps` looks for updates. deps.sh sets up
# 6.12 (build/kver: the tools' source) whatever KERNEL is.
$(sort $(KSTAMP) $(BUILD)/kver):
	@scripts/deps.sh --kernel $(KERNEL)

$(TOOLS_KSRC)/.unpacked: $(BUILD)/kver
	@scripts/kernel-source.sh >/dev/null

# --- kernel module ------------------------------------------------------------
# refnic is built out of tree, one copy of its sources per kernel
# (build/kmod/<series>/, build/kmod/<series>-debug/), so that no kernel's
# objects end up in kmod/ or in another kernel's build. $(call sync-kmod,DIR)
# copies kmod/ and uapi/ there without kbuild's outputs; the outputs already
# in DIR stay (rsync never deletes excluded files): rebuilds are incremental.
sync-kmod = mkdir -p $(1) && rsync -a --delete --exclude '*.o' --exclude '*.ko' \
	--exclude '.*.cmd' --exclude '*.mod' --exclude '*.mod.c' --exclude Module.symvers \
	--exclude modules.order kmod uapi $(1)/

kmod: $(KSTAMP)
	@$(call sync-kmod,$(KMOD_BUILD))
	$(MAKE) -C $(KMOD_BUILD)/kmod KDIR=$(KDIR) -j$(NPROC)
	@echo "kmod: $(KO) for $(KERNEL) ($(KVER))"

# --- C++ library, tools and unit tests --------------------------------------
# A failed configure leaves a CMakeCache.txt behind: remove it, so that the
# next make configures again instead of building from a half-made tree.
$(CMAKE_BUILD)/CMakeCache.txt: CMakeLists.txt
	cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_INSTALL_PREFIX=$(INSTALL_PREFIX) >/dev/null || { rm -f $@; exit 1; }

lib: $(CMAKE_BUILD)/CMakeCache.txt
	cmake --build $(CMAKE_BUILD) -j$(NPROC)

# iproute2 plugin: `ip link add ... type refnic peer name ...` on iproute2 6.1.
iproute2:
	$(MAKE) -C tools/iproute2 O=$(BUILD)/iproute2

# --- selftests ----------------------------------------------------------------
KSFT_INC := $(BUILD)/selftests/kselftest
SELFTEST_C := $(wildcard selftests/*/*.c)
SELFTEST_BIN := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(SELFTEST_C))

$(KSFT_INC)/.copied: $(TOOLS_KSRC)/.unpacked
	mkdir -p $(KSFT_INC)
	cp $(TOOLS_KSRC)/tools/testing/selftests/kselftest_harness.h \
	   $(TOOLS_KSRC)/tools/testing/selftests/kselftest.h \
	   $(TOOLS_KSRC)/tools/testing/selftests/kselftest/ktap_helpers.sh $(KSFT_INC)/
	touch $@

# The C tests use librefnic's C ring interface (lib/include/refnic/bypass.h, header-only).
$(BUILD)/selftests/%: selftests/%.c selftests/refnic_harness.h $(KSFT_INC)/.copied \
		$(wildcard uapi/linux/*.h) lib/include/refnic/bypass.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(CURDIR)/selftests -I$(KSFT_INC) \
		-I$(CURDIR)/uapi -I$(CURDIR)/lib/include -o $@ $< -lpthread

# Test-only helpers on the guest's PATH: an ethtool that can set
# tcp-data-split, and sudo for upstream scripts.
$(BUILD)/bin/.linked: lib
	mkdir -p $(BUILD)/bin
	ln -sfn $(CMAKE_BUILD)/tools/refnic-ethtool/refnic-ethtool $(BUILD)/bin/ethtool
	ln -sfn $(CURDIR)/scripts/sudo $(BUILD)/bin/sudo
	touch $@

# The harness self-test's module that WARNs (selftests/harness/planted/warn.sh
# loads it from its source dir): built there for KERNEL; kbuild rebuilds it
# when KERNEL changes (its recorded commands name the kernel tree).
planted-warn: $(KSTAMP)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/harness/planted_warn -j$(NPROC) modules

upstream-selftests: $(TOOLS_KSRC)/.unpacked
	@scripts/upstream-selftests.sh

# selftests/upstream/*.sh run the booted kernel's own driver selftests:
# 6.12's always (the kselftest headers come from there), 7.3's as well when
# KERNEL is 7.3. The newer tools (ethtool --json) serve 6.12's rss_ctx.py
# too.
kernel-selftests: upstream-tools $(if $(filter 6.12,$(KERNEL)),,upstream-selftests-7.3)
selftests: kmod $(SELFTEST_BIN) $(BUILD)/bin/.linked planted-warn upstream-selftests \
	kernel-selftests

# Linux 7.3's own driver selftests (drivers/net, drivers/net/hw) against
# netdevsim or a refnic pair on 7.3, with the newer tools they need
# (docs/upstream-7.3.md): make upstream-7.3 [UPSTREAM_TARGET=refnic]
upstream-tools:
	@scripts/upstream-tools.sh

upstream-selftests-7.3: upstream-tools
	@scripts/upstream-selftests.sh 7.3

UPSTREAM_TARGET ?= netdevsim
upstream-7.3: upstream-selftests-7.3
	@REFNIC_KO=$$(scripts/kernel.sh --get KO 7.3) IP_LIB_DIR=$(BUILD)/iproute2 \
		selftests/upstream/run_7.3.sh --queues 8 $(UPSTREAM_TARGET) \
		$(if $(filter refnic,$(UPSTREAM_TARGET)),selftests/upstream/7.3/refnic.list)

# --- the VM -------------------------------------------------------------------
vm-shell: deps all
	$(VM) --setup "insmod $(KO)" shell

# make vm-run CMD='ip -d link show'
vm-run: deps all
	@$(VM) --setup "insmod $(KO)" run -- bash -c "$$CMD"

run: deps all
	@scripts/demo.sh

# refnic against veth in one VM run: TCP at MTU 1500/9000, 64 B UDP rate,
# interrupts per packet. A measurement: exits 0 whatever the numbers.
# make bench BENCH_ARGS='--rounds 5 --secs 6' (--baseline OLD.json: an earlier
# run's build/bench/bench.json beside this one)
bench: deps all
	@scripts/bench.sh $(BENCH_ARGS)

# make lab EXP=irq-poll [LAB_ARGS='--rounds 5']: one experiment of the NIC
# datapath lessons (scripts/lab-guest.py --list), its table, verdict and plot
# in build/lab (docs/lab.md). EXP unset or unknown: the list.
ifeq ($(EXP),)
lab:
	@scripts/lab.sh --list
else
# The name is checked before deps and the build, which take minutes.
lab:
	@scripts/lab.sh --check $(EXP)
	@$(MAKE) --no-print-directory deps all
	@scripts/lab.sh $(EXP) $(LAB_ARGS)
endif

# make soak [SOAK_MINUTES=10] [SOAK_SEED=N] [SOAK_KINDS="K..."] [DEBUG=1]: the soak under faults
# (selftests/net/soak.sh) alone in the VM; DEBUG=1 on the debug kernel that
# make check-debug builds. make check runs a 2-minute short run on the
# default kernel (docs/testing.md#make-soak).
soak: deps all
	@scripts/soak.sh --kernel $(KERNEL) $(if $(filter 1 yes,$(DEBUG)),--debug)

# --- checks -------------------------------------------------------------------
# Without KERNEL=: every check on the default kernel and the core selftests
# on the other one, side by side (what CI runs). With KERNEL=X.Y: every
# check on that kernel.
check: deps all
ifeq ($(origin KERNEL),file)
	@scripts/check-all.sh
else
	@scripts/check.sh full --kernel $(KERNEL)
endif

check-quick: deps all
	@scripts/check.sh quick --kernel $(KERNEL)

# Opt-in, not in CI: a debug kernel (KASAN, lockdep, kmemleak, ...) of the
# series built once and cached (scripts/debug-kernel.sh); refnic built
# against it. RESUME=1 leaves out what passed there in an earlier run with
# the same sources (scripts/check.sh --resume).
check-debug: deps all
	@scripts/debug-kernel.sh --kernel $(KERNEL)
	@$(call sync-kmod,$(call kernel,DEBUG_KMOD_BUILD))
	$(MAKE) -C $(call kernel,DEBUG_OUT)/kdir M=$(call kernel,DEBUG_KMOD_BUILD)/kmod -j$(NPROC) modules
	@scripts/check.sh debug --kernel $(KERNEL) $(if $(filter 1 yes,$(RESUME)),--resume)

# --- install ------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: everything under $(DESTDIR)$(PREFIX) and nothing
# elsewhere: the tools, librefnic, its headers (the uAPI headers as include/refnic/uapi/linux),
# refnic.pc, the CMake package, the YNL spec (share/ynl/specs), the examples
# (share/doc/refnic/examples) and the iproute2 plugin (LIBDIR/ip, where ip looks when PREFIX is
# /usr; else IP_LIB_DIR: docs/install.md). PREFIX counts on every call: a CMake tree configured
# for another prefix is configured again first, so that its LIBDIR follows too
# (lib/x86_64-linux-gnu for /usr, lib elsewhere) and relinked.
install: lib iproute2
	@if [ "$$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' $(CMAKE_BUILD)/CMakeCache.txt)" != \
			"$(INSTALL_PREFIX)" ]; then \
		echo "install: configuring $(CMAKE_BUILD) for PREFIX=$(INSTALL_PREFIX)"; \
		cmake -S . -B $(CMAKE_BUILD) -DCMAKE_INSTALL_PREFIX=$(INSTALL_PREFIX) >/dev/null && \
		cmake --build $(CMAKE_BUILD) -j$(NPROC); \
	fi
	DESTDIR=$(DESTDIR) cmake --install $(CMAKE_BUILD)
	$(MAKE) -C tools/iproute2 O=$(BUILD)/iproute2 install DESTDIR=$(DESTDIR) \
		IP_LIB_DIR=$$(cat $(CMAKE_BUILD)/install-libdir)/ip

# refnic.ko through DKMS on this host (root): what a module build needs and
# nothing of make deps (QEMU, busybox, the VM's kernels); it names what is
# missing (docs/install.md).
dkms-install:
	@scripts/dkms-install.sh

dkms-uninstall:
	@scripts/dkms-install.sh --remove

# (kmod clean: objects left in kmod/ by builds from before build/kmod/)
clean:
	-$(MAKE) -C kmod clean KDIR=$(KDIR)
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/harness/planted_warn clean
	rm -rf $(CMAKE_BUILD) $(BUILD)/selftests $(BUILD)/bin $(BUILD)/check $(BUILD)/kmod

.PHONY: all deps kmod lib iproute2 selftests planted-warn upstream-selftests kernel-selftests \
	upstream-tools upstream-selftests-7.3 upstream-7.3 vm-shell \
	vm-run run bench lab soak check check-quick check-debug install dkms-install dkms-uninstall clean
