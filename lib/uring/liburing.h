/* SPDX-License-Identifier: (GPL-2.0-only OR MIT) */
/* Copyright (c) 2026 The refnic authors
 *
 * The part of liburing's API that io_uring zero-copy receive needs, over
 * the raw io_uring syscalls and the running kernel's uAPI <linux/io_uring.h>.
 * Debian's liburing (2.3 in Debian 12, 2.9 in trixie) predates
 * io_uring_register_ifq(), so Linux 7.3's iou-zcrx.c selftest helper, which
 * uses liburing's ring API, is built with this header first on its include
 * path (scripts/upstream-selftests.sh) and the upstream source unchanged.
 * (librefnic's C++ receiver speaks the syscalls itself, lib/src/zcrx.cpp.)
 *
 * Same names and semantics as liburing 2.x for what is here: a
 * single-issuer ring without SQPOLL, NO_SQARRAY, NO_MMAP or registered
 * rings (io_uring_queue_init refuses those flags with -EINVAL). Functions
 * return 0 or a positive count on success and -errno on failure, as
 * liburing's do.
 */
#ifndef REFNIC_LIBURING_H
#define REFNIC_LIBURING_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/io_uring.h>

#ifdef __cplusplus
extern "C" {
#endif

struct io_uring_sq {
	unsigned int *khead;
	unsigned int *ktail;
	unsigned int *kflags;
	unsigned int *array;
	struct io_uring_sqe *sqes;
	unsigned int sqe_head;	/* first SQE not yet submitted */
	unsigned int sqe_tail;	/* next SQE io_uring_get_sqe() hands out */
	unsigned int ring_mask;
	unsigned int ring_entries;
	size_t ring_sz;
	void *ring_ptr;
	size_t sqes_sz;
};

struct io_uring_cq {
	unsigned int *khead;
	unsigned int *ktail;
	struct io_uring_cqe *cqes;
	unsigned int ring_mask;
	unsigned int ring_entries;
	size_t ring_sz;
	void *ring_ptr;
};

struct io_uring {
	struct io_uring_sq sq;
	struct io_uring_cq cq;
	unsigned int flags;
	int ring_fd;
	unsigned int features;
};

/* The zcrx refill queue as liburing describes it: the process writes
 * struct io_uring_zcrx_rqe entries at rq_tail and publishes *ktail.
 */
struct io_uring_zcrx_rq {
	__u32 *khead;
	__u32 *ktail;
	__u32 rq_tail;
	unsigned int ring_entries;
	struct io_uring_zcrx_rqe *rqes;
	void *ring_ptr;
};

#define io_uring_smp_store_release(p, v) \
	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define io_uring_smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

static inline int io_uring_setup(unsigned int entries, struct io_uring_params *p)
{
	int fd = (int)syscall(__NR_io_uring_setup, entries, p);

	return fd < 0 ? -errno : fd;
}

static inline int io_uring_enter(unsigned int fd, unsigned int to_submit,
				 unsigned int min_complete, unsigned int flags,
				 sigset_t *sig)
{
	int ret = (int)syscall(__NR_io_uring_enter, fd, to_submit, min_complete,
			       flags, sig, _NSIG / 8);

	return ret < 0 ? -errno : ret;
}

static inline int io_uring_register(unsigned int fd, unsigned int opcode,
				    const void *arg, unsigned int nr_args)
{
	int ret = (int)syscall(__NR_io_uring_register, fd, opcode, arg, nr_args);

	return ret < 0 ? -errno : ret;
}

/* CQE32 rings have 32-byte CQEs: two struct io_uring_cqe slots each. */
static inline unsigned int io_uring__cqe_shift(const struct io_uring *ring)
{
	return (ring->flags & IORING_SETUP_CQE32) ? 1 : 0;
}

static inline void io_uring_queue_exit(struct io_uring *ring)
{
	if (ring->sq.sqes && ring->sq.sqes != MAP_FAILED)
		munmap(ring->sq.sqes, ring->sq.sqes_sz);
	if (ring->cq.ring_ptr && ring->cq.ring_ptr != ring->sq.ring_ptr &&
	    ring->cq.ring_ptr != MAP_FAILED)
		munmap(ring->cq.ring_ptr, ring->cq.ring_sz);
	if (ring->sq.ring_ptr && ring->sq.ring_ptr != MAP_FAILED)
		munmap(ring->sq.ring_ptr, ring->sq.ring_sz);
	if (ring->ring_fd >= 0)
		close(ring->ring_fd);
	memset(ring, 0, sizeof(*ring));
	ring->ring_fd = -1;
}

static inline int io_uring_queue_init_params(unsigned int entries,
					     struct io_uring *ring,
					     struct io_uring_params *p)
{
	size_t cqe_size = sizeof(struct io_uring_cqe);
	size_t sqe_size = sizeof(struct io_uring_sqe);
	unsigned int i;
	char *sq, *cq;
	int fd, err;

	memset(ring, 0, sizeof(*ring));
	ring->ring_fd = -1;
	if (p->flags & (IORING_SETUP_SQPOLL | IORING_SETUP_NO_SQARRAY |
			IORING_SETUP_NO_MMAP | IORING_SETUP_REGISTERED_FD_ONLY))
		return -EINVAL;
	fd = io_uring_setup(entries, p);
	if (fd < 0)
		return fd;
	ring->ring_fd = fd;
	ring->flags = p->flags;
	ring->features = p->features;
	if (p->flags & IORING_SETUP_CQE32)
		cqe_size *= 2;
	if (p->flags & IORING_SETUP_SQE128)
		sqe_size *= 2;

	ring->sq.ring_sz = p->sq_off.array + p->sq_entries * sizeof(__u32);
	ring->cq.ring_sz = p->cq_off.cqes + p->cq_entries * cqe_size;
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		if (ring->cq.ring_sz > ring->sq.ring_sz)
			ring->sq.ring_sz = ring->cq.ring_sz;
		ring->cq.ring_sz = ring->sq.ring_sz;
	}
	sq = (char *)mmap(NULL, ring->sq.ring_sz, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		goto err;
	ring->sq.ring_ptr = sq;
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		cq = sq;
	} else {
		cq = (char *)mmap(NULL, ring->cq.ring_sz, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_POPULATE, fd,
				  IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			goto err;
	}
	ring->cq.ring_ptr = cq;

	ring->sq.sqes_sz = p->sq_entries * sqe_size;
	ring->sq.sqes = (struct io_uring_sqe *)mmap(NULL, ring->sq.sqes_sz,
						    PROT_READ | PROT_WRITE,
						    MAP_SHARED | MAP_POPULATE,
						    fd, IORING_OFF_SQES);
	if (ring->sq.sqes == MAP_FAILED)
		goto err;

	ring->sq.khead = (unsigned int *)(sq + p->sq_off.head);
	ring->sq.ktail = (unsigned int *)(sq + p->sq_off.tail);
	ring->sq.kflags = (unsigned int *)(sq + p->sq_off.flags);
	ring->sq.array = (unsigned int *)(sq + p->sq_off.array);
	ring->sq.ring_mask = *(unsigned int *)(sq + p->sq_off.ring_mask);
	ring->sq.ring_entries = *(unsigned int *)(sq + p->sq_off.ring_entries);
	ring->cq.khead = (unsigned int *)(cq + p->cq_off.head);
	ring->cq.ktail = (unsigned int *)(cq + p->cq_off.tail);
	ring->cq.cqes = (struct io_uring_cqe *)(cq + p->cq_off.cqes);
	ring->cq.ring_mask = *(unsigned int *)(cq + p->cq_off.ring_mask);
	ring->cq.ring_entries = *(unsigned int *)(cq + p->cq_off.ring_entries);
	/* SQ slot i always names SQE i: SQEs are handed out in ring order. */
	for (i = 0; i < ring->sq.ring_entries; i++)
		ring->sq.array[i] = i;
	return 0;
err:
	err = -errno;
	io_uring_queue_exit(ring);
	return err;
}

static inline int io_uring_queue_init(unsigned int entries,
				      struct io_uring *ring, unsigned int flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	return io_uring_queue_init_params(entries, ring, &p);
}

/* The next free SQE, or NULL when the submission queue is full. */
static inline struct io_uring_sqe *io_uring_get_sqe(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned int head = io_uring_smp_load_acquire(sq->khead);
	unsigned int shift = (ring->flags & IORING_SETUP_SQE128) ? 1 : 0;
	struct io_uring_sqe *sqe;

	if (sq->sqe_tail - head >= sq->ring_entries)
		return NULL;
	/* The slot holds its last use: what prep functions do not set is
	 * cleared here, as liburing's io_uring_initialize_sqe() does, so a
	 * caller may set sqe->flags before prep or after.
	 */
	sqe = &sq->sqes[(sq->sqe_tail++ & sq->ring_mask) << shift];
	sqe->flags = 0;
	sqe->ioprio = 0;
	sqe->rw_flags = 0;
	sqe->buf_index = 0;
	sqe->personality = 0;
	sqe->file_index = 0;
	sqe->addr3 = 0;
	sqe->__pad2[0] = 0;
	return sqe;
}

static inline void io_uring_prep_rw(int op, struct io_uring_sqe *sqe, int fd,
				    const void *addr, unsigned int len,
				    __u64 offset)
{
	sqe->opcode = (__u8)op;
	sqe->fd = fd;
	sqe->off = offset;
	sqe->addr = (unsigned long)addr;
	sqe->len = len;
}

static inline void io_uring_prep_accept(struct io_uring_sqe *sqe, int fd,
					struct sockaddr *addr,
					socklen_t *addrlen, int flags)
{
	io_uring_prep_rw(IORING_OP_ACCEPT, sqe, fd, addr, 0,
			 (__u64)(unsigned long)addrlen);
	sqe->accept_flags = (__u32)flags;
}

static inline void io_uring_sqe_set_data64(struct io_uring_sqe *sqe, __u64 data)
{
	sqe->user_data = data;
}

static inline __u64 io_uring_cqe_get_data64(const struct io_uring_cqe *cqe)
{
	return cqe->user_data;
}

/* Publishes the SQEs handed out since the last call; returns how many
 * the kernel has yet to consume.
 */
static inline unsigned int io_uring__flush_sq(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;

	if (sq->sqe_head != sq->sqe_tail) {
		sq->sqe_head = sq->sqe_tail;
		io_uring_smp_store_release(sq->ktail, sq->sqe_tail);
	}
	return sq->sqe_tail - __atomic_load_n(sq->khead, __ATOMIC_RELAXED);
}

static inline int io_uring_submit_and_wait(struct io_uring *ring,
					   unsigned int wait_nr)
{
	unsigned int submitted = io_uring__flush_sq(ring);
	unsigned int flags = 0;

	/* DEFER_TASKRUN rings run their completions' task work only in
	 * io_uring_enter(IORING_ENTER_GETEVENTS).
	 */
	if (wait_nr || (ring->flags & IORING_SETUP_DEFER_TASKRUN))
		flags |= IORING_ENTER_GETEVENTS;
	return io_uring_enter(ring->ring_fd, submitted, wait_nr, flags, NULL);
}

static inline int io_uring_submit(struct io_uring *ring)
{
	return io_uring_submit_and_wait(ring, 0);
}

#define io_uring_for_each_cqe(ring, head, cqe)				\
	for ((head) = *(ring)->cq.khead;				\
	     ((cqe) = ((head) != io_uring_smp_load_acquire((ring)->cq.ktail) ? \
		&(ring)->cq.cqes[((head) & (ring)->cq.ring_mask) <<	\
				 io_uring__cqe_shift(ring)] : NULL));	\
	     (head)++)

static inline void io_uring_cq_advance(struct io_uring *ring, unsigned int nr)
{
	if (nr)
		io_uring_smp_store_release(ring->cq.khead,
					   *ring->cq.khead + nr);
}

static inline void io_uring_cqe_seen(struct io_uring *ring,
				     struct io_uring_cqe *cqe)
{
	if (cqe)
		io_uring_cq_advance(ring, 1);
}

/* Waits for one completion; *cqe_ptr points at it (not yet seen). -EINTR
 * when a signal ends the wait, as liburing's.
 */
static inline int io_uring_wait_cqe(struct io_uring *ring,
				    struct io_uring_cqe **cqe_ptr)
{
	unsigned int head;
	int ret;

	for (;;) {
		head = *ring->cq.khead;
		if (head != io_uring_smp_load_acquire(ring->cq.ktail)) {
			*cqe_ptr = &ring->cq.cqes[(head & ring->cq.ring_mask) <<
						  io_uring__cqe_shift(ring)];
			return 0;
		}
		ret = io_uring_enter(ring->ring_fd, io_uring__flush_sq(ring), 1,
				     IORING_ENTER_GETEVENTS, NULL);
		if (ret < 0)
			return ret;
	}
}

/* Registers a zcrx interface queue (struct io_uring_zcrx_ifq_reg). */
static inline int io_uring_register_ifq(struct io_uring *ring, void *reg)
{
	return io_uring_register(ring->ring_fd, IORING_REGISTER_ZCRX_IFQ, reg, 1);
}

#ifdef __cplusplus
}
#endif

#endif /* REFNIC_LIBURING_H */
