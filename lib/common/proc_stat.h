/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/stat: when a process started, which tells it from a later
 * process that reuses its PID (the supervisor keys per-process state by
 * PID and start time, docs/architecture.md).
 */
#ifndef SECBPF_COMMON_PROC_STAT_H
#define SECBPF_COMMON_PROC_STAT_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The start time of process pid (field 22 of /proc/PID/stat: clock ticks
 * after boot) into *start. Returns 0, -ESRCH when there is no such
 * process, or another negative errno (-EINVAL: the file does not parse).
 */
int proc_stat_start_time(pid_t pid, uint64_t *start);

#endif
