// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * link_refnic.so: iproute2 plugin for the "refnic" link kind.
 *
 *   ip link add NAME type refnic [ queues N ] [ rx-ring N ] [ tx-ring N ]
 *                                [ peer [ name NAME ] [ <iplink options> ] ]
 *   ip -d [-j] link show DEV
 *   ip link help refnic
 *
 * For a kind it does not know, ip dlopen()s $IP_LIB_DIR/link_KIND.so
 * (Debian 12: /usr/lib/x86_64-linux-gnu/ip) and dlsym()s "KIND_link_util",
 * a struct link_util.  The plugin calls back into helpers that /usr/bin/ip
 * exports dynamically (addattr_*, iplink_parse, get_u32, invarg,
 * print_color_uint, ...).  Nothing here is a stable ABI: iproute2 ships no
 * development headers, so the declarations below are copied from iproute2
 * 6.1 (ip/ip_common.h, include/utils.h, include/libnetlink.h,
 * include/json_print.h, include/color.h) and were checked against Debian
 * 12's 6.1.0 binary (relocations of bridge_link_util, call sites of
 * print_color_uint and iplink_parse).  Before ip may use any of it,
 * refnic_ip_compatible() checks that the running ip is that version with
 * that layout; see refnic_link_util below for how loading is refused.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <linux/if_refnic.h>
#include <linux/refnic.h>	/* REFNIC_QUEUES_MAX, REFNIC_RING_MIN/MAX */

#ifndef REFNIC_IPROUTE2_VERSION
#define REFNIC_IPROUTE2_VERSION "6.1.0"
#endif

/* ---- iproute2 6.1 declarations (see the header comment) ---------------- */

/* ip/ip_common.h; every field is read by ip, so the order is ABI */
struct link_util {
	struct link_util	*next;
	const char		*id;
	int			maxattr;
	int			(*parse_opt)(struct link_util *, int, char **,
					     struct nlmsghdr *);
	void			(*print_opt)(struct link_util *, FILE *,
					     struct rtattr *[]);
	void			(*print_xstats)(struct link_util *, FILE *,
						struct rtattr *);
	void			(*print_help)(struct link_util *, int, char **,
					      FILE *);
	int			(*parse_ifla_xstats)(struct link_util *,
						     int, char **);
	int			(*print_ifla_xstats)(struct nlmsghdr *, void *);
};

/* only ever passed back to ip, so it can stay incomplete */
struct iplink_req;

int iplink_parse(int argc, char **argv, struct iplink_req *req, char **type);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int get_u32(__u32 *val, const char *arg, int base);
void invarg(const char *msg, const char *arg) __attribute__((noreturn));
void duparg(const char *key, const char *arg) __attribute__((noreturn));
void incomplete_command(void) __attribute__((noreturn));

/* include/json_print.h: print_uint() is a static inline around this one */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

/* include/color.h: the last enum color_attr value, "no colour" */
#define COLOR_NONE 6

int print_color_uint(enum output_type t, int color, const char *key,
		     const char *fmt, unsigned int value);

/* include/utils.h */
#define NEXT_ARG() do {					\
		argv++;					\
		if (--argc <= 0)			\
			incomplete_command();		\
	} while (0)

/*
 * Bound for our attributes, as veth uses: ip builds the request in a
 * struct iplink_req, a header plus a 1024-byte buffer, and the peer's
 * attributes nest inside the same buffer.
 */
#define REFNIC_REQ_MAXLEN	1024

/* ---- parsing -------------------------------------------------------- */

static void refnic_print_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link <options> type refnic [ queues QUEUES ]\n"
		"\t\t\t[ rx-ring ENTRIES ] [ tx-ring ENTRIES ]\n"
		"\t\t\t[ peer [ name NAME ] <options> ]\n"
		"\n"
		"Where:\tQUEUES  := queue pairs, 1..%u\n"
		"\tENTRIES := descriptors per RX (TX) ring, a power of two, %u..%u\n"
		"\tpeer must come last: everything after it sets up the peer,\n"
		"\te.g. \"peer name r1 netns ns1 mtu 9000\".\n"
		"To get <options> type 'ip link add help'.\n",
		REFNIC_QUEUES_MAX, REFNIC_RING_MIN, REFNIC_RING_MAX);
}

/*
 * Parse a count: a u32 read with base 0 as elsewhere in ip (so 0x10 is hex
 * and, as in C, 010 is octal), within the limits the kernel has
 * (uapi/linux/refnic.h): queues from 1 to REFNIC_QUEUES_MAX, rings a power
 * of two from REFNIC_RING_MIN to REFNIC_RING_MAX.  A message naming the
 * option beats the kernel's bare range error.  invarg() exits ip.
 */
static __u32 refnic_get_queues(const char *arg)
{
	char msg[96];
	__u32 val;

	if (get_u32(&val, arg, 0) || val < 1 || val > REFNIC_QUEUES_MAX) {
		snprintf(msg, sizeof(msg),
			 "\"queues\" must be from 1 to %u", REFNIC_QUEUES_MAX);
		invarg(msg, arg);
	}
	return val;
}

static __u32 refnic_get_ring(const char *opt, const char *arg)
{
	char msg[96];
	__u32 val;

	if (get_u32(&val, arg, 0) || val < REFNIC_RING_MIN ||
	    val > REFNIC_RING_MAX || (val & (val - 1)) != 0) {
		snprintf(msg, sizeof(msg),
			 "\"%s\" must be a power of two from %u to %u",
			 opt, REFNIC_RING_MIN, REFNIC_RING_MAX);
		invarg(msg, arg);
	}
	return val;
}

/*
 * "peer ...": the rest of the command line describes the peer device.
 * This is veth_parse_opt() of iproute2 6.1: IFLA_REFNIC_PEER carries a
 * struct ifinfomsg and then ordinary IFLA_* attributes, so the peer can
 * take every iplink option (name, netns, address, mtu, up, ...), parsed by
 * ip's own iplink_parse() into the nest we opened.
 *
 * iplink_parse() writes its flags (e.g. "up") and "index" into the
 * request's top-level ifinfomsg, which belongs to the first device.  So we
 * save that and clear it, let iplink_parse() fill it for the peer, copy the
 * result into the peer's ifinfomsg, and restore the first device's.
 */
static int refnic_parse_peer(int argc, char **argv, struct nlmsghdr *n)
{
	struct ifinfomsg *ifm = NLMSG_DATA(n), *peer_ifm;
	unsigned int ifi_flags, ifi_change;
	struct rtattr *peer;
	char *type = NULL;
	int ifi_index;
	int err;

	ifi_flags = ifm->ifi_flags;
	ifi_change = ifm->ifi_change;
	ifi_index = ifm->ifi_index;
	ifm->ifi_flags = 0;
	ifm->ifi_change = 0;
	ifm->ifi_index = 0;

	peer = addattr_nest(n, REFNIC_REQ_MAXLEN, IFLA_REFNIC_PEER);
	if (!peer)
		return -1;
	/* room for the peer's ifinfomsg, filled in below */
	n->nlmsg_len += sizeof(struct ifinfomsg);

	/* skip "peer"; returns the index of the first unparsed argument */
	err = iplink_parse(argc - 1, argv + 1, (struct iplink_req *)n, &type);
	if (err < 0)
		return err;

	/* the peer's kind is ours; "type" would start another link_util */
	if (type)
		duparg("type", argv[err]);

	peer_ifm = RTA_DATA(peer);
	memset(peer_ifm, 0, sizeof(*peer_ifm));
	peer_ifm->ifi_index = ifm->ifi_index;
	peer_ifm->ifi_flags = ifm->ifi_flags;
	peer_ifm->ifi_change = ifm->ifi_change;
	ifm->ifi_flags = ifi_flags;
	ifm->ifi_change = ifi_change;
	ifm->ifi_index = ifi_index;

	addattr_nest_end(n, peer);
	/* ip treats any non-zero return as failure: 0 = all consumed */
	return argc - 1 - err;
}

/*
 * Called by iplink_modify() with the arguments after "type refnic" (only
 * if there are any), inside the IFLA_INFO_DATA nest it opened.  Returns 0
 * on success; anything else makes ip fail without sending.
 */
static int refnic_parse_opt(struct link_util *lu, int argc, char **argv,
			    struct nlmsghdr *n)
{
	bool have_queues = false, have_rx = false, have_tx = false;
	__u32 val;

	(void)lu;

	while (argc > 0) {
		if (strcmp(*argv, "queues") == 0) {
			NEXT_ARG();
			if (have_queues)
				duparg("queues", *argv);
			have_queues = true;
			val = refnic_get_queues(*argv);
			if (addattr32(n, REFNIC_REQ_MAXLEN,
				      IFLA_REFNIC_QUEUES, val))
				return -1;
		} else if (strcmp(*argv, "rx-ring") == 0) {
			NEXT_ARG();
			if (have_rx)
				duparg("rx-ring", *argv);
			have_rx = true;
			val = refnic_get_ring("rx-ring", *argv);
			if (addattr32(n, REFNIC_REQ_MAXLEN,
				      IFLA_REFNIC_RX_RING_SIZE, val))
				return -1;
		} else if (strcmp(*argv, "tx-ring") == 0) {
			NEXT_ARG();
			if (have_tx)
				duparg("tx-ring", *argv);
			have_tx = true;
			val = refnic_get_ring("tx-ring", *argv);
			if (addattr32(n, REFNIC_REQ_MAXLEN,
				      IFLA_REFNIC_TX_RING_SIZE, val))
				return -1;
		} else if (strcmp(*argv, "peer") == 0) {
			/* consumes the rest of the line, as veth does */
			return refnic_parse_peer(argc, argv, n);
		} else if (strcmp(*argv, "help") == 0) {
			refnic_print_usage(stderr);
			return -1;
		} else {
			fprintf(stderr,
				"refnic: unknown option \"%s\"; try \"ip link help refnic\"\n",
				*argv);
			return -1;
		}
		argc--;
		argv++;
	}
	return 0;
}

/* ---- printing (ip -d link show) ------------------------------------- */

static void refnic_print_u32(struct rtattr *tb[], int type, const char *key,
			     const char *fmt)
{
	/* a short attribute is a kernel bug; skip it rather than overread */
	if (!tb[type] || RTA_PAYLOAD(tb[type]) < sizeof(__u32))
		return;
	print_color_uint(PRINT_ANY, COLOR_NONE, key, fmt,
			 *(__u32 *)RTA_DATA(tb[type]));
}

/*
 * tb is NULL when the kernel sent no IFLA_INFO_DATA, and each attribute
 * may be missing: the driver decides what its fill_info() reports.  The
 * JSON keys follow ip's habit of using the option name with '_'.
 */
static void refnic_print_opt(struct link_util *lu, FILE *f,
			     struct rtattr *tb[])
{
	(void)lu;
	(void)f; /* ip's print_* helpers write to its own stream */

	if (!tb)
		return;
	refnic_print_u32(tb, IFLA_REFNIC_QUEUES, "queues", "queues %u ");
	refnic_print_u32(tb, IFLA_REFNIC_RX_RING_SIZE, "rx_ring",
			 "rx-ring %u ");
	refnic_print_u32(tb, IFLA_REFNIC_TX_RING_SIZE, "tx_ring",
			 "tx-ring %u ");
}

static void refnic_print_help(struct link_util *lu, int argc, char **argv,
			      FILE *f)
{
	(void)lu;
	(void)argc;
	(void)argv;
	refnic_print_usage(f);
}

static struct link_util refnic_lu = {
	.id		= "refnic",
	.maxattr	= IFLA_REFNIC_MAX,
	.parse_opt	= refnic_parse_opt,
	.print_opt	= refnic_print_opt,
	.print_help	= refnic_print_help,
};

/* ---- is this the ip we were written for? ---------------------------- */

struct refnic_scan {
	const void *anchor;	/* an address inside the ip binary */
	bool found_object;
	bool found_banner;
	bool found_version;
};

/* does the object described by info contain addr in a PT_LOAD segment? */
static bool refnic_object_has(struct dl_phdr_info *info, const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD &&
		    a >= start && a - start < ph->p_memsz)
			return true;
	}
	return false;
}

/*
 * Search the read-only segments of the object that holds the anchor, i.e.
 * ip itself, for the strings behind "ip -V": the format "ip utility,
 * iproute2-%s" (so we know we look at ip) and its argument, the version
 * array from include/version.h, stored NUL-terminated on its own.
 */
static int refnic_scan_object(struct dl_phdr_info *info, size_t size,
			      void *data)
{
	static const char banner[] = "ip utility, iproute2-%s";
	static const char version[] = "\0" REFNIC_IPROUTE2_VERSION;
	struct refnic_scan *scan = data;
	int i;

	(void)size;

	if (!refnic_object_has(info, scan->anchor))
		return 0;
	scan->found_object = true;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *seg = (const char *)(info->dlpi_addr + ph->p_vaddr);

		/* the whole segment is mapped and readable; skip data */
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) ||
		    (ph->p_flags & PF_W))
			continue;
		if (memmem(seg, ph->p_memsz, banner, sizeof(banner)))
			scan->found_banner = true;
		/* sizeof(version) counts both NULs: "\0" "6.1.0" "\0" */
		if (memmem(seg, ph->p_memsz, version, sizeof(version)))
			scan->found_version = true;
	}
	return 1; /* done */
}

/*
 * A known link_util of ip 6.1 must look right through our struct layout:
 * bridge's id at .id, and the two exported xstats helpers at the two last
 * slots.  This guards the layout even if a patched ip kept the version.
 */
static bool refnic_layout_ok(void)
{
	const struct link_util *br = dlsym(RTLD_DEFAULT, "bridge_link_util");
	void *parse = dlsym(RTLD_DEFAULT, "bridge_parse_xstats");
	void *print = dlsym(RTLD_DEFAULT, "bridge_print_xstats");

	return br && parse && print &&
	       br->id && strcmp(br->id, "bridge") == 0 &&
	       br->parse_opt && br->print_opt && br->print_help &&
	       (void *)br->parse_ifla_xstats == parse &&
	       (void *)br->print_ifla_xstats == print;
}

static const char *refnic_incompatibility(void)
{
	struct refnic_scan scan = { 0 };

	scan.anchor = dlsym(RTLD_DEFAULT, "iplink_parse");
	if (!scan.anchor)
		return "the program loading it is not ip (no iplink_parse)";
	dl_iterate_phdr(refnic_scan_object, &scan);
	if (!scan.found_object || !scan.found_banner)
		return "cannot find this ip's version string";
	if (!scan.found_version)
		return "this ip is another version (see ip -V)";
	if (!refnic_layout_ok())
		return "this ip's struct link_util has another layout";
	return NULL;
}

/*
 * The symbol ip looks up.  It is a GNU indirect function rather than the
 * struct itself so that the check above runs before ip touches anything:
 * glibc's dlsym() calls the resolver, and when it returns NULL, dlsym()
 * does too, and ip carries on as if the plugin did not exist (no options
 * for "type refnic", no details in "ip -d link show") instead of
 * misreading a struct of another layout or calling into helpers whose
 * signatures changed.  dlopen() and a constructor could not refuse this
 * way: by then ip would use the struct whatever the constructor found.
 *
 * The resolver runs each time ip looks the kind up until it succeeds, so
 * the verdict and the warning happen once per process.
 */
typedef void (*refnic_ifunc_t)(void);

static refnic_ifunc_t refnic_link_util_resolve(void)
{
	static int verdict = -1; /* -1 unknown, 0 refused, 1 ok */
	const char *why;

	if (verdict < 0) {
		why = refnic_incompatibility();
		verdict = !why;
		if (why)
			fprintf(stderr,
				"link_refnic.so: not loading: built for iproute2-%s, but %s\n",
				REFNIC_IPROUTE2_VERSION, why);
		/* a failed lookup above must not linger in ip's dlerror() */
		dlerror();
	}
	return verdict ? (refnic_ifunc_t)(uintptr_t)&refnic_lu : NULL;
}

void refnic_link_util(void) __attribute__((ifunc("refnic_link_util_resolve")));
