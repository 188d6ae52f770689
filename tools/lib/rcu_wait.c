// SPDX-License-Identifier: GPL-2.0
/*
 * rcu_wait_callbacks(): every RCU callback queued before the call has
 * run when it returns.
 *
 * The allocator's bounds count objects per grace period: a batch of frees
 * waits for one, then its callback hands the batch back for reuse.  A
 * grace period alone (synchronize_rcu(), which membarrier() and an
 * ARRAY_OF_MAPS update give user space) does not run the callbacks it
 * made ready: they run later, from the softirq of the CPU that queued
 * them, at a tick that a loaded host may delay by milliseconds.  A sleep
 * after the grace period makes a bound depend on the host's load.
 *
 * No system call offers rcu_barrier() as such, but deleting a network
 * device calls it before it returns to the deleting task:
 * netdev_run_todo() waits "for rcu callbacks to finish before next
 * phase" (net/core/dev.c, 6.1 to 7.2), from rtnl_unlock() of the
 * RTM_DELLINK request.  So the wait creates a dummy device (CONFIG_DUMMY,
 * uml/configs/base.config) and deletes it, over rtnetlink, without a
 * library: the two requests are all the kit needs of netlink.
 *
 * The device's memory must not be charged to the memory cgroup whose
 * growth the caller bounds (a device is a few KiB, freed in part by RCU
 * callbacks of its own, later), so the requests are made by a helper
 * process that moves itself to the root cgroup, started on the first
 * wait and ended when the caller exits (its pipe closes).
 */
#define _GNU_SOURCE	/* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

#include "rcu_wait.h"
#include "sysfs.h"

struct link_request {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[128];
};

/* Append attribute @type to @req; the start of its payload, or NULL. */
static struct rtattr *add_attr(struct link_request *req, unsigned short type,
			       const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)req + NLMSG_ALIGN(req->nh.nlmsg_len));
	size_t size = RTA_LENGTH(len);

	if (NLMSG_ALIGN(req->nh.nlmsg_len) + RTA_ALIGN(size) > sizeof(*req))
		return NULL;
	rta->rta_type = type;
	rta->rta_len = size;
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + RTA_ALIGN(size);
	return rta;
}

/* Send @req on @fd and read its acknowledgement; 0, or -errno. */
static int transact(int fd, struct link_request *req)
{
	char buf[512];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	ssize_t n;

	if (send(fd, req, req->nh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
}

static void link_request_init(struct link_request *req, unsigned short type,
			      unsigned short flags, const char *name)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(sizeof(req->ifi));
	req->nh.nlmsg_type = type;
	req->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	req->ifi.ifi_family = AF_UNSPEC;
	add_attr(req, IFLA_IFNAME, name, strlen(name) + 1);
}

/* Create and delete a dummy device; 0, or -errno. */
static int dummy_device_round(void)
{
	static const char kind[] = "dummy";
	struct link_request req;
	struct rtattr *info;
	char name[IFNAMSIZ];
	int fd, err;

	/* One helper a process: its pid names the device. */
	snprintf(name, sizeof(name), "kitrcu%d", (int)getpid() % 10000000);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;

	link_request_init(&req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, name);
	info = add_attr(&req, IFLA_LINKINFO, NULL, 0);
	if (!add_attr(&req, IFLA_INFO_KIND, kind, sizeof(kind))) {
		err = -E2BIG;
		goto out;
	}
	info->rta_len = (char *)&req + req.nh.nlmsg_len - (char *)info;
	err = transact(fd, &req);
	if (err)
		goto out;

	/* The deletion returns after netdev_run_todo()'s rcu_barrier(). */
	link_request_init(&req, RTM_DELLINK, 0, name);
	err = transact(fd, &req);
out:
	close(fd);
	return err;
}

/* The helper's ends of its pipes, in the caller: request, answer. */
static int request_fd = -1, answer_fd = -1;

static void helper(int requests, int answers)
{
	char c;
	int err;

	/* Out of the caller's memory cgroup, into the root. */
	if (sysfs_write("/sys/fs/cgroup/cgroup.procs", "0"))
		_exit(1);
	while (read(requests, &c, 1) == 1) {
		err = dummy_device_round();
		if (write(answers, &err, sizeof(err)) != sizeof(err))
			break;
	}
	_exit(0);
}

static int start_helper(void)
{
	int req[2], ans[2];
	pid_t pid;

	if (pipe2(req, O_CLOEXEC))
		return -errno;
	if (pipe2(ans, O_CLOEXEC)) {
		close(req[0]);
		close(req[1]);
		return -errno;
	}
	pid = fork();
	if (pid == 0) {
		close(req[1]);
		close(ans[0]);
		helper(req[0], ans[1]);
	}
	close(req[0]);
	close(ans[1]);
	if (pid < 0) {
		close(req[1]);
		close(ans[0]);
		return -errno;
	}
	request_fd = req[1];
	answer_fd = ans[0];
	return 0;
}

int rcu_wait_callbacks(void)
{
	int err;

	if (request_fd < 0) {
		err = start_helper();
		if (err)
			goto out;
	}
	if (write(request_fd, "w", 1) != 1 ||
	    read(answer_fd, &err, sizeof(err)) != sizeof(err))
		err = -EPIPE;	/* the helper is gone: it could not leave the cgroup */
out:
	if (err)
		errno = -err;
	return err;
}
