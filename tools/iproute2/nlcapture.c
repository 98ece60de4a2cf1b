// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * nlcapture.so: LD_PRELOAD helper for test-parse.sh.  Every message a
 * process sends on a netlink socket (sendmsg/sendto/send) is appended to
 * $NLCAPTURE_FILE as a native-endian u32 length followed by the bytes, and
 * then sent as usual.  This shows exactly what ip built, attribute by
 * attribute, even when the kernel rejects it (no refnic on the host).
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static int is_netlink(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	return getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
	       ss.ss_family == AF_NETLINK;
}

static void record(int fd, const struct iovec *iov, size_t n)
{
	const char *path = getenv("NLCAPTURE_FILE");
	uint32_t total = 0;
	size_t i;
	int out;

	if (!path || !is_netlink(fd))
		return;
	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (out < 0)
		return;
	/* best effort: a short write shows up as a decoding error */
	if (write(out, &total, sizeof(total)) == sizeof(total))
		for (i = 0; i < n; i++)
			if (write(out, iov[i].iov_base, iov[i].iov_len) < 0)
				break;
	close(out);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);

	if (!real)
		real = (ssize_t (*)(int, const struct msghdr *, int))
			dlsym(RTLD_NEXT, "sendmsg");
	record(fd, msg->msg_iov, msg->msg_iovlen);
	return real(fd, msg, flags);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int,
				    const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	record(fd, &iov, 1);
	return real(fd, buf, len, flags, addr, alen);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}
