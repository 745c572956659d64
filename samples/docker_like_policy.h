/* SPDX-License-Identifier: MIT */
/*
 * The Docker-like policy as data, the one source for both of its builds:
 * samples/docker_like.bpf.c (secbpf, the case labels of its switch) and
 * bench/policies/docker_like.h (the same policy as libseccomp rules).
 * tests/test_libseccomp_equiv.c checks that the two decide alike. Macros
 * only, so that it compiles for the BPF target and for the host.
 */
#ifndef SECBPF_SAMPLES_DOCKER_LIKE_POLICY_H
#define SECBPF_SAMPLES_DOCKER_LIKE_POLICY_H

/* Syscalls newer than the uapi headers some distributions ship. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_map_shadow_stack
#define __NR_map_shadow_stack 453
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake 454
#endif
#ifndef __NR_futex_wait
#define __NR_futex_wait 455
#endif
#ifndef __NR_futex_requeue
#define __NR_futex_requeue 456
#endif

/* x32 syscall numbers have this bit set. */
#define DOCKER_LIKE_X32_SYSCALL_BIT 0x40000000u

/* personality(2): the personas a container may switch to, and the query
 * (LAST for the last one, so that a list can be written as an expression). */
// clang-format off
#define DOCKER_LIKE_PERSONAS(X, LAST)                             \
	X(0x0)           /* PER_LINUX */                          \
	X(0x8)           /* PER_LINUX32 */                        \
	X(0x20000)       /* PER_LINUX | UNAME26 */                \
	X(0x20008)       /* PER_LINUX32 | UNAME26 */              \
	LAST(0xffffffff) /* query the current persona */
// clang-format on

/* The namespace flags of clone(2):
 * NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET. */
#define DOCKER_LIKE_NS_CLONE_FLAGS 0x7e020000ull

/* socket(2): families from AF_VSOCK on are denied, and AF_NETLINK with
 * NETLINK_AUDIT. */
#define DOCKER_LIKE_AF_NETLINK 16
#define DOCKER_LIKE_AF_VSOCK 40
#define DOCKER_LIKE_NETLINK_AUDIT 9

/* The syscalls allowed whatever their arguments. */
// clang-format off
#define DOCKER_LIKE_ALLOWED(X) \
	/* Files and directories. */                             \
	X(read) X(write) X(open) X(close)                        \
	X(stat) X(fstat) X(lstat) X(lseek)                       \
	X(pread64) X(pwrite64) X(readv) X(writev)                \
	X(preadv) X(pwritev) X(preadv2) X(pwritev2)              \
	X(access) X(faccessat) X(faccessat2)                     \
	X(openat) X(openat2) X(creat)                            \
	X(dup) X(dup2) X(dup3) X(close_range)                    \
	X(fcntl) X(flock) X(fsync) X(fdatasync)                  \
	X(truncate) X(ftruncate) X(fallocate)                    \
	X(getdents) X(getdents64) X(getcwd)                      \
	X(chdir) X(fchdir)                                       \
	X(rename) X(renameat) X(renameat2)                       \
	X(mkdir) X(mkdirat) X(rmdir)                             \
	X(link) X(linkat) X(unlink) X(unlinkat)                  \
	X(symlink) X(symlinkat)                                  \
	X(readlink) X(readlinkat)                                \
	X(chmod) X(fchmod) X(fchmodat) X(fchmodat2)              \
	X(chown) X(fchown) X(lchown) X(fchownat)                 \
	X(umask) X(mknod) X(mknodat)                             \
	X(newfstatat) X(statx) X(statfs) X(fstatfs)              \
	X(utime) X(utimes) X(utimensat) X(futimesat)             \
	X(sync) X(syncfs) X(sync_file_range)                     \
	X(readahead) X(fadvise64)                                \
	X(sendfile) X(splice) X(tee) X(vmsplice)                 \
	X(copy_file_range) X(cachestat)                          \
	X(name_to_handle_at)                                     \
	X(setxattr) X(lsetxattr) X(fsetxattr)                    \
	X(getxattr) X(lgetxattr) X(fgetxattr)                    \
	X(listxattr) X(llistxattr) X(flistxattr)                 \
	X(removexattr) X(lremovexattr) X(fremovexattr)           \
	X(inotify_init) X(inotify_init1)                         \
	X(inotify_add_watch) X(inotify_rm_watch)                 \
	X(fanotify_mark)                                         \
	X(chroot)                                                \
	X(ioctl)                                                 \
	/* Polling, events and asynchronous I/O. */              \
	X(poll) X(ppoll) X(select) X(pselect6)                   \
	X(epoll_create) X(epoll_create1) X(epoll_ctl)            \
	X(epoll_ctl_old) X(epoll_wait) X(epoll_wait_old)         \
	X(epoll_pwait) X(epoll_pwait2)                           \
	X(eventfd) X(eventfd2)                                   \
	X(signalfd) X(signalfd4)                                 \
	X(timerfd_create) X(timerfd_settime) X(timerfd_gettime)  \
	X(pipe) X(pipe2)                                         \
	X(io_setup) X(io_destroy) X(io_getevents)                \
	X(io_pgetevents) X(io_submit) X(io_cancel)               \
	/* Memory. */                                            \
	X(brk) X(mmap) X(munmap) X(mremap)                       \
	X(mprotect) X(madvise) X(mincore) X(msync)               \
	X(mlock) X(mlock2) X(munlock)                            \
	X(mlockall) X(munlockall)                                \
	X(remap_file_pages) X(membarrier)                        \
	X(memfd_create) X(memfd_secret)                          \
	X(pkey_alloc) X(pkey_free) X(pkey_mprotect)              \
	X(map_shadow_stack)                                      \
	/* Processes, threads and scheduling. */                 \
	X(fork) X(vfork) X(execve) X(execveat)                   \
	X(exit) X(exit_group) X(wait4) X(waitid)                 \
	X(getpid) X(getppid) X(gettid)                           \
	X(getpgid) X(setpgid) X(getpgrp)                         \
	X(getsid) X(setsid)                                      \
	X(set_tid_address) X(set_robust_list) X(get_robust_list) \
	X(futex) X(futex_waitv)                                  \
	X(futex_wake) X(futex_wait) X(futex_requeue)             \
	X(rseq) X(arch_prctl) X(prctl)                           \
	X(set_thread_area) X(get_thread_area)                    \
	X(sched_yield) X(sched_setaffinity) X(sched_getaffinity) \
	X(sched_setparam) X(sched_getparam)                      \
	X(sched_setscheduler) X(sched_getscheduler)              \
	X(sched_get_priority_max) X(sched_get_priority_min)      \
	X(sched_rr_get_interval)                                 \
	X(sched_setattr) X(sched_getattr)                        \
	X(getpriority) X(setpriority)                            \
	X(ioprio_get) X(ioprio_set)                              \
	X(getrlimit) X(setrlimit) X(prlimit64)                   \
	X(getrusage) X(times) X(getcpu)                          \
	X(capget) X(capset)                                      \
	X(ptrace) X(process_vm_readv) X(process_vm_writev)       \
	X(pidfd_open) X(pidfd_send_signal) X(process_mrelease)   \
	X(seccomp) X(restart_syscall)                            \
	X(landlock_create_ruleset) X(landlock_add_rule)          \
	X(landlock_restrict_self)                                \
	/* Credentials. */                                       \
	X(getuid) X(geteuid) X(getgid) X(getegid)                \
	X(setuid) X(setgid) X(setreuid) X(setregid)              \
	X(setresuid) X(getresuid) X(setresgid) X(getresgid)      \
	X(setfsuid) X(setfsgid)                                  \
	X(getgroups) X(setgroups)                                \
	/* Signals. */                                           \
	X(rt_sigaction) X(rt_sigprocmask) X(rt_sigreturn)        \
	X(rt_sigpending) X(rt_sigtimedwait) X(rt_sigqueueinfo)   \
	X(rt_sigsuspend) X(rt_tgsigqueueinfo) X(sigaltstack)     \
	X(kill) X(tkill) X(tgkill) X(pause)                      \
	/* Time. */                                              \
	X(nanosleep) X(clock_nanosleep)                          \
	X(clock_gettime) X(clock_getres) X(clock_adjtime)        \
	X(gettimeofday) X(time) X(adjtimex)                      \
	X(alarm) X(getitimer) X(setitimer)                       \
	X(timer_create) X(timer_settime) X(timer_gettime)        \
	X(timer_getoverrun) X(timer_delete)                      \
	/* Sockets (socket itself has a rule). */                \
	X(socketpair) X(connect) X(accept) X(accept4)            \
	X(bind) X(listen) X(shutdown)                            \
	X(getsockname) X(getpeername)                            \
	X(setsockopt) X(getsockopt)                              \
	X(sendto) X(recvfrom) X(sendmsg) X(recvmsg)              \
	X(sendmmsg) X(recvmmsg)                                  \
	/* System V and POSIX IPC. */                            \
	X(shmget) X(shmat) X(shmctl) X(shmdt)                    \
	X(semget) X(semop) X(semctl) X(semtimedop)               \
	X(msgget) X(msgsnd) X(msgrcv) X(msgctl)                  \
	X(mq_open) X(mq_unlink) X(mq_timedsend)                  \
	X(mq_timedreceive) X(mq_notify) X(mq_getsetattr)         \
	/* Miscellaneous. */                                     \
	X(uname) X(sysinfo) X(getrandom)
// clang-format on

#endif
