// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload refnic.ko 50 times. Each cycle must leave nothing behind:
 * the module's sysfs and debugfs directories go away, its reference count is
 * zero before unload, and the module memory areas in /proc/vmallocinfo return
 * to the baseline. The harness fails the test on any kernel warning; the
 * debug kernel's kmemleak scan catches slab leaks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "refnic_harness.h"

#define CYCLES 50

static const char *module_path(char *buf, size_t len)
{
	const char *ko = getenv("REFNIC_KO");
	const char *repo = getenv("REFNIC_REPO");

	if (ko)
		return ko;
	snprintf(buf, len, "%s/kmod/refnic.ko", repo ? repo : "../../..");
	return buf;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Vmalloc areas holding module text and data (6.12 allocates them through
 * execmem).
 */
static int module_vmalloc_areas(void)
{
	FILE *f = fopen("/proc/vmallocinfo", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "execmem") || strstr(line, "module_alloc") ||
		    strstr(line, "load_module"))
			n++;
	fclose(f);
	return n;
}

static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

TEST(load_unload_cycles)
{
	char buf[4096];
	const char *path = module_path(buf, sizeof(buf));
	int fd, baseline, i;

	if (exists("/sys/module/refnic"))
		ASSERT_EQ(0, syscall(SYS_delete_module, "refnic", O_NONBLOCK));

	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));

	baseline = module_vmalloc_areas();
	ASSERT_LE(0, baseline);

	for (i = 0; i < CYCLES; i++) {
		ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0))
			TH_LOG("cycle %d: finit_module: %s", i, strerror(errno));
		ASSERT_TRUE(exists("/sys/module/refnic"));
		ASSERT_TRUE(exists("/sys/kernel/debug/refnic"));
		ASSERT_EQ(0, read_int("/sys/module/refnic/refcnt"));

		ASSERT_EQ(0, syscall(SYS_delete_module, "refnic", O_NONBLOCK))
			TH_LOG("cycle %d: delete_module: %s", i, strerror(errno));
		ASSERT_FALSE(exists("/sys/module/refnic"));
		ASSERT_FALSE(exists("/sys/kernel/debug/refnic"));
	}
	close(fd);

	EXPECT_EQ(baseline, module_vmalloc_areas());
	TH_LOG("%d cycles; module vmalloc areas %d before, %d after", CYCLES,
	       baseline, module_vmalloc_areas());
}

REFNIC_HARNESS_MAIN
