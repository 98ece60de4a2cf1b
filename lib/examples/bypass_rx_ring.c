// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
/*
 * Receive on a refnic queue pair bound to this process, in C, on the C ring
 * interface (refnic/bypass.h): bind, map, fill, poll, peek, release, refill.
 * bypass_rx.cpp is the same with librefnic's C++ classes. Needs refnic.ko
 * and CAP_NET_ADMIN. Builds with the headers alone:
 *   cc bypass_rx_ring.c $(pkg-config --cflags refnic) -o bypass_rx_ring
 * Usage: bypass_rx_ring DEV QUEUE [FRAMES]
 */
#define _GNU_SOURCE
#include <refnic/bypass.h>

#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BUF_SIZE 2048
#define RING 1024
#define UMEM_BUFS RING

int main(int argc, char *argv[])
{
	struct refnic_ring_prod fill, tx;
	struct refnic_ring_cons rxc, txc;
	struct refnic_bypass_stats stats;
	struct refnic_bypass_bind bind;
	unsigned long frames = 0, want;
	__u32 idx, n, i;
	void *umem;
	int fd, err;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bypass_rx_ring DEV QUEUE [FRAMES]\n");
		return 2;
	}
	want = argc == 4 ? strtoul(argv[3], NULL, 0) : 1000;

	/* The umem: buffers of BUF_SIZE bytes, named by their offset. */
	umem = mmap(NULL, (size_t)UMEM_BUFS * BUF_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	fd = open(REFNIC_BYPASS_DEV, O_RDWR | O_CLOEXEC);
	if (umem == MAP_FAILED || fd < 0) {
		perror(umem == MAP_FAILED ? "mmap" : "open " REFNIC_BYPASS_DEV);
		return 1;
	}
	memset(&bind, 0, sizeof(bind));
	bind.abi_version = REFNIC_BYPASS_ABI_VERSION;
	bind.ifindex = if_nametoindex(argv[1]);
	bind.queue = (__u32)strtoul(argv[2], NULL, 0);
	bind.flags = REFNIC_BYPASS_F_WHOLE_PORT; /* every frame of the port */
	bind.umem_addr = (__u64)(uintptr_t)umem;
	bind.umem_len = (__u64)UMEM_BUFS * BUF_SIZE;
	bind.buf_size = BUF_SIZE;
	bind.fill_size = bind.rxc_size = RING;
	bind.tx_size = bind.txc_size = RING / 2;
	err = refnic_bypass_bind_queue(fd, &bind);
	if (!err)
		err = refnic_bypass_map_fill(fd, bind.fill_size, &fill);
	if (!err)
		err = refnic_bypass_map_rxc(fd, bind.rxc_size, &rxc);
	if (!err)
		err = refnic_bypass_map_tx(fd, bind.tx_size, &tx);
	if (!err)
		err = refnic_bypass_map_txc(fd, bind.txc_size, &txc);
	if (err) {
		fprintf(stderr, "bind queue %u of %s: %s\n", bind.queue, argv[1], strerror(-err));
		return 1;
	}

	/* Every buffer the fill ring holds onto it. */
	if (refnic_ring_prod__reserve(&fill, RING, &idx) == RING) {
		for (i = 0; i < RING; i++)
			*refnic_ring_prod__fill_addr(&fill, idx + i) = (__u64)i * BUF_SIZE;
		refnic_ring_prod__submit(&fill, RING);
		if (refnic_ring_prod__needs_wakeup(&fill))
			refnic_bypass_kick(fd);
	}
	/* Ready: whoever sends may start. */
	fprintf(stderr, "bypass_rx_ring: receiving on %s queue %u\n", argv[1], bind.queue);

	while (frames < want) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		n = refnic_ring_cons__peek(&rxc, 64, &idx);
		if (n == 0) {
			if (refnic_ring_cons__broken(&rxc)) {
				fprintf(stderr, "the kernel tore the session down\n");
				return 1;
			}
			/* Unbound for good (the port went down, say). */
			if (poll(&pfd, 1, 1000) == 1 && (pfd.revents & (POLLERR | POLLHUP))) {
				fprintf(stderr, "the kernel ended the session\n");
				return 1;
			}
			continue;
		}
		/* Each buffer goes straight back onto the fill ring; the fill
		 * ring is as large as rxc, so its slots are there.
		 */
		if (refnic_ring_prod__reserve(&fill, n, &i) != n)
			return 1;
		for (__u32 k = 0; k < n; k++) {
			const struct refnic_bypass_rx_desc *rx = refnic_ring_cons__rx_desc(&rxc, idx + k);

			printf("frame of %u bytes in buffer %llu%s\n", rx->len,
			       (unsigned long long)rx->addr,
			       rx->flags & REFNIC_BYPASS_RX_ERROR ? " (error)" : "");
			*refnic_ring_prod__fill_addr(&fill, i + k) = rx->addr;
		}
		refnic_ring_cons__release(&rxc, n);
		refnic_ring_prod__submit(&fill, n);
		if (refnic_ring_prod__needs_wakeup(&fill))
			refnic_bypass_kick(fd);
		frames += n;
	}
	if (refnic_bypass_get_stats(fd, &stats) == 0)
		printf("%llu frames, %llu kicks\n", (unsigned long long)stats.rx_frames,
		       (unsigned long long)stats.kicks);
	refnic_ring_prod__unmap(&fill);
	refnic_ring_cons__unmap(&rxc);
	refnic_ring_prod__unmap(&tx);
	refnic_ring_cons__unmap(&txc);
	close(fd); /* the queue pair back to the stack */
	munmap(umem, (size_t)UMEM_BUFS * BUF_SIZE);
	return 0;
}
