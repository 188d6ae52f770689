/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waits for the guest kernel's RCU from user space, for checks whose
 * bounds count what a grace period and its callbacks give back.
 */
#ifndef KIT_RCU_WAIT_H
#define KIT_RCU_WAIT_H

/*
 * Return once every RCU callback queued before the call has run
 * (rcu_barrier() in the kernel); 0, or -errno with errno set.
 */
int rcu_wait_callbacks(void);

#endif /* KIT_RCU_WAIT_H */
