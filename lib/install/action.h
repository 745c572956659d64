/* SPDX-License-Identifier: MIT */
/*
 * Seccomp return values: how the kernel reads them (action, data, precedence)
 * and how secbpf prints them ("ALLOW", "ERRNO(1)", ...; docs/design.md §5).
 */
#ifndef SECBPF_ACTION_H
#define SECBPF_ACTION_H

#include <stddef.h>
#include <stdint.h>

/* The largest errno the kernel passes through (MAX_ERRNO). */
#define ACTION_MAX_ERRNO 4095

/*
 * The action the kernel takes for a filter's 32-bit return value. An action
 * the kernel does not know is treated as SECCOMP_RET_KILL_PROCESS, exactly
 * as kernel/seccomp.c does.
 */
uint32_t action_effective(uint32_t ret);

/*
 * Print ret the way `secbpf test` does: one of ALLOW, ERRNO(n), KILL_PROCESS,
 * KILL_THREAD, TRAP(n), TRACE(n), LOG, USER_NOTIF. Returns buf.
 */
const char *action_format(uint32_t ret, char *buf, size_t len);

/*
 * Combine two stacked filters' results by the kernel's precedence: the lower
 * action value wins (KILL_PROCESS first); on a tie the newer filter (the one
 * installed later, which the kernel runs first) is kept. The raw value is
 * returned; pass it through action_effective to act on it.
 */
uint32_t action_combine(uint32_t newer, uint32_t older);

#endif
