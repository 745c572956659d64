// SPDX-License-Identifier: MIT
/*
 * The receiver baton of the supervisor's workers: a futex word that says
 * which one worker receives notifications, handed on before anything that
 * may block (see the comment below).
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/supervisor_internal.h"

/*
 * The receiver baton (leader/followers). The kernel wakes every thread
 * waiting in SECCOMP_IOCTL_NOTIF_RECV for each notification (the waits are
 * not exclusive), and with SYNC_WAKE_UP moves them all to the notifying
 * CPU: with several workers in RECV, each notification would cost a
 * wake-up and a context switch per idle worker. So only the worker holding
 * the baton receives. It keeps the baton while it handles a notification
 * that needs no blocking work (the common case: a cached thread, a program
 * that does not read the target's memory, an allow or errno) and receives
 * the next one; before anything that may block (reading /proc or the
 * target's memory, logging, killing, asking the agent) it hands the baton
 * to a waiting worker, so that one slow notification never holds up the
 * others. Workers waiting for the baton sleep on a futex.
 */
enum { BATON_FREE, BATON_HELD, BATON_STOPPED };

static long futex_op(int *word, int op, int val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* Wait until w holds the baton: true, or false once the supervisor stops. */
bool supervisor_baton_take(struct supervisor_worker *w)
{
	struct supervisor *sv = w->sv;
	int cur;

	if (w->has_baton)
		return true;
	for (;;) {
		cur = BATON_FREE;
		if (__atomic_compare_exchange_n(&sv->baton, &cur, BATON_HELD, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			w->has_baton = true;
			return true;
		}
		if (cur == BATON_STOPPED)
			return false;
		/* Announce the wait before sleeping; supervisor_baton_release reads the
		 * count after freeing the baton (both sequentially
		 * consistent): either it sees us and wakes us, or our futex
		 * wait sees the baton no longer HELD and returns at once. */
		__atomic_add_fetch(&sv->baton_waiters, 1, __ATOMIC_SEQ_CST);
		futex_op(&sv->baton, FUTEX_WAIT_PRIVATE, BATON_HELD);
		__atomic_sub_fetch(&sv->baton_waiters, 1, __ATOMIC_SEQ_CST);
	}
}

/* Hand the baton on if w holds it: a waiting worker becomes the receiver. */
void supervisor_baton_release(struct supervisor_worker *w)
{
	struct supervisor *sv = w->sv;

	if (!w->has_baton)
		return;
	w->has_baton = false;
	__atomic_store_n(&sv->baton, BATON_FREE, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sv->baton_waiters, __ATOMIC_SEQ_CST))
		futex_op(&sv->baton, FUTEX_WAKE_PRIVATE, 1);
}

/* The listener hung up: every worker returns (w held the baton). */
void supervisor_baton_stop(struct supervisor_worker *w)
{
	w->has_baton = false;
	__atomic_store_n(&w->sv->baton, BATON_STOPPED, __ATOMIC_SEQ_CST);
	futex_op(&w->sv->baton, FUTEX_WAKE_PRIVATE, INT_MAX);
}
