/* SPDX-License-Identifier: MIT */
/*
 * The one parser of /proc/PID/status (proc_pid_status() in the kernel's
 * fs/proc/array.c): "Key:\tvalue" lines, read by the supervisor, the
 * helpers and the policy. Fields are found only at the start of a line.
 */
#ifndef SECBPF_PROC_STATUS_H
#define SECBPF_PROC_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Enough for every field: a status file is about 1.5 KiB, more only with
 * a long Groups line (the fields after it are then cut off: -ENOENT). */
#define PROC_STATUS_SIZE 8192

/*
 * Read the status file at path (relative to dirfd, or AT_FDCWD) into buf,
 * NUL-terminated: until its end or until buf is full (what does not fit is
 * left out, and a line cut there counts as missing). Returns the length,
 * or -errno.
 */
ssize_t proc_status_read(int dirfd, const char *path, char *buf, size_t size);

/*
 * The value of field key ("Tgid", without the colon) in status, the text
 * of a status file: *value points after "Key:", *len runs to the end of the
 * line. Returns 0; -ENOENT if no line starts with "Key:"; -EIO if one that
 * does is not ended by a newline (cut off) or if two do. Only the kernel
 * writes the lines, and it escapes a newline in the task's name (the Name
 * line), so a name can never start a line: a second line for a key means
 * the text is not a status file, and nothing of it is trusted.
 */
int proc_status_field(const char *status, const char *key, const char **value, size_t *len);

/*
 * The numbers of field key: the first n whitespace-separated ones, in base
 * 10 or 16 (SigBlk, CapEff), into out[0..n-1]. Returns 0, an error of
 * proc_status_field, -EIO if the field has fewer than n numbers or one is
 * not entirely digits, or -ERANGE if one exceeds max.
 */
int proc_status_numbers(const char *status, const char *key, int base, uint64_t max, uint64_t *out,
			size_t n);

/* The first number of field key (proc_status_numbers with n = 1, max
 * UINT64_MAX). */
int proc_status_u64(const char *status, const char *key, int base, uint64_t *out);

/* proc_status_u64 of field key in /proc/self/status (decimal, or base). */
int proc_status_self_u64(const char *key, int base, uint64_t *out);

#endif
