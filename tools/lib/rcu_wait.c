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
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "rcu_wait.h"

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

int rcu_wait_callbacks(void)
{
	static const char kind[] = "dummy";
	struct link_request req;
	struct rtattr *info;
	char name[IFNAMSIZ];
	int fd, err;

	/* One name per thread: threads of one check may wait at once. */
	snprintf(name, sizeof(name), "kitrcu%ld", (long)syscall(SYS_gettid) % 10000000);
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
	if (err)
		errno = -err;
	return err;
}
