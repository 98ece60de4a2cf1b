# refnic: top-level build. kbuild builds kmod/, CMake builds lib/, tools/ and
# the GoogleTest suites, and the selftests are built against the kernel's
# kselftest harness. `make` builds everything; `make run` and `make check`
# also install what is missing (make deps) and use the QEMU VM.

SHELL := /bin/bash
BUILD := $(CURDIR)/build
NPROC := $(shell nproc)

# The 6.12 kernel refnic targets; scripts/deps.sh discovers and records it.
KVER = $(shell cat $(BUILD)/kver)
KDIR ?= /lib/modules/$(KVER)/build
KSRC := $(BUILD)/linux-source
# The VM finds the iproute2 plugin in the build tree, no install needed.
VM := scripts/vm/vm.sh --env IP_LIB_DIR=$(BUILD)/iproute2
PREFIX ?= /usr/local

all: kmod lib iproute2 selftests

# --- dependencies -----------------------------------------------------------
deps:
	@scripts/deps.sh

$(BUILD)/kver:
	@scripts/deps.sh

$(KSRC)/.unpacked: $(BUILD)/kver
	@scripts/kernel-source.sh >/dev/null

# --- kernel module ------------------------------------------------------------
kmod: $(BUILD)/kver
	$(MAKE) -C kmod KDIR=$(KDIR)

# --- C++ library, tools and unit tests --------------------------------------
$(BUILD)/cmake/CMakeCache.txt: CMakeLists.txt
	cmake -S . -B $(BUILD)/cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null

lib: $(BUILD)/cmake/CMakeCache.txt
	cmake --build $(BUILD)/cmake -j$(NPROC)

# iproute2 plugin: `ip link add ... type refnic peer name ...` on iproute2 6.1.
iproute2:
	$(MAKE) -C tools/iproute2 O=$(BUILD)/iproute2

# --- selftests ----------------------------------------------------------------
KSFT_INC := $(BUILD)/selftests/kselftest
SELFTEST_C := $(wildcard selftests/*/*.c)
SELFTEST_BIN := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(SELFTEST_C))

$(KSFT_INC)/.copied: $(KSRC)/.unpacked
	mkdir -p $(KSFT_INC)
	cp $(KSRC)/tools/testing/selftests/kselftest_harness.h \
	   $(KSRC)/tools/testing/selftests/kselftest.h \
	   $(KSRC)/tools/testing/selftests/kselftest/ktap_helpers.sh $(KSFT_INC)/
	touch $@

$(BUILD)/selftests/%: selftests/%.c $(KSFT_INC)/.copied $(wildcard uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(KSFT_INC) -I$(CURDIR)/uapi -o $@ $< -lpthread

# Test-only helpers on the guest's PATH: an ethtool that can set
# tcp-data-split, and sudo for upstream scripts.
$(BUILD)/bin/.linked: lib
	mkdir -p $(BUILD)/bin
	ln -sfn $(BUILD)/cmake/tools/refnic-ethtool/refnic-ethtool $(BUILD)/bin/ethtool
	ln -sfn $(CURDIR)/scripts/sudo $(BUILD)/bin/sudo
	touch $@

planted-warn: $(BUILD)/kver
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/harness/planted_warn modules

upstream-selftests: $(KSRC)/.unpacked
	@scripts/upstream-selftests.sh

selftests: kmod $(SELFTEST_BIN) $(BUILD)/bin/.linked planted-warn upstream-selftests

# --- the VM -------------------------------------------------------------------
vm-shell: deps all
	$(VM) --setup "insmod $(CURDIR)/kmod/refnic.ko" shell

# make vm-run CMD='ip -d link show'
vm-run: deps all
	@$(VM) --setup "insmod $(CURDIR)/kmod/refnic.ko" run -- bash -c "$$CMD"

run: deps all
	@scripts/demo.sh

# refnic against veth in one VM run: TCP at MTU 1500/9000, 64 B UDP rate,
# interrupts per packet. A measurement: exits 0 whatever the numbers.
# make bench BENCH_ARGS='--rounds 5 --secs 6'
bench: deps all
	@scripts/bench.sh $(BENCH_ARGS)

# --- checks -------------------------------------------------------------------
check: deps all
	@scripts/check.sh full

check-quick: deps all
	@scripts/check.sh quick

# Opt-in, not in CI: a debug kernel (KASAN, lockdep, kmemleak, ...) built
# once from linux-source-6.12 and cached; refnic built against it.
check-debug: deps all
	@scripts/debug-kernel.sh
	mkdir -p $(BUILD)/debug-kmod
	# The sources only: kbuild's outputs for Debian's kernel (objects,
	# *.mod, *.mod.c, symvers) would be linked into the debug build.
	rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' \
		--exclude '*.mod' --exclude '*.mod.c' --exclude Module.symvers \
		--exclude modules.order kmod uapi $(BUILD)/debug-kmod/
	$(MAKE) -C $(BUILD)/debug-kernel/kdir M=$(BUILD)/debug-kmod/kmod modules
	@scripts/check.sh debug

# --- install ------------------------------------------------------------------
install: lib iproute2
	cmake --install $(BUILD)/cmake
	$(MAKE) -C tools/iproute2 O=$(BUILD)/iproute2 install

dkms-install: $(BUILD)/kver
	@scripts/dkms-install.sh

clean:
	-$(MAKE) -C kmod clean KDIR=$(KDIR)
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/harness/planted_warn clean
	rm -rf $(BUILD)/cmake $(BUILD)/selftests $(BUILD)/bin $(BUILD)/check

.PHONY: all deps kmod lib iproute2 selftests planted-warn upstream-selftests vm-shell \
	vm-run run bench check check-quick check-debug install dkms-install clean
