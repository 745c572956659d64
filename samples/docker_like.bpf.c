// SPDX-License-Identifier: MIT
/*
 * A container policy in the spirit of Docker's default seccomp profile,
 * written as one switch on the syscall number (x86_64 only):
 *
 *  - arch first: a foreign arch (i386 via int 0x80, ...) or an x32 number
 *    (bit 30 set) is KILL_PROCESS, as libseccomp's bad-arch action does
 *    for a profile that lists x86_64 alone. nr == -1 (what a tracer sets to
 *    skip a syscall) is not an x32 number and gets the default.
 *  - about 300 syscalls allowed outright: what ordinary programs use;
 *  - personality: only the personas Docker allows (PER_LINUX and
 *    PER_LINUX32, each with or without UNAME26) and the 0xffffffff query;
 *  - clone: denied when the flags ask for a new namespace (the mask Docker
 *    uses: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET);
 *    clone3 gets ENOSYS, because its flags sit in memory a filter cannot
 *    read, and ENOSYS makes the C library fall back to clone;
 *  - socket: address families from AF_VSOCK (40) on are denied (vsock
 *    reaches the hypervisor; KCM, QIPCRTR, SMC, XDP and MCTP are rarely
 *    needed attack surface), and so is AF_NETLINK with NETLINK_AUDIT
 *    (writing to the host's audit log). Arguments are compared on all 64
 *    bits, like Docker's profile: garbage in the upper half is denied;
 *  - everything else (mount, unshare, setns, bpf, kexec, module loading,
 *    keyrings, io_uring, ...) gets ERRNO(EPERM).
 *
 * Every decision depends only on seccomp_data, so secbpf compiles the whole
 * program to classic BPF: the allowed syscalls hit the kernel's
 * constant-allow cache and only personality, clone and socket run argument
 * checks. bench/bench_syscall.c builds the same policy with libseccomp.
 */
#include <secbpf/filter.h>

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

#define X32_SYSCALL_BIT 0x40000000u

/* The namespace flags of clone(2). */
#define NS_CLONE_FLAGS 0x7e020000ull /* NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET */

#define AF_NETLINK 16
#define AF_VSOCK 40
#define NETLINK_AUDIT 9

#define DENY (SECCOMP_RET_ERRNO | EPERM)

/* personality(2): the personas a container may switch to, and the query. */
static __always_inline int personality_allowed(__u64 persona)
{
	return persona == 0x0 ||      /* PER_LINUX */
	       persona == 0x8 ||      /* PER_LINUX32 */
	       persona == 0x20000 ||  /* PER_LINUX | UNAME26 */
	       persona == 0x20008 ||  /* PER_LINUX32 | UNAME26 */
	       persona == 0xffffffff; /* query the current persona */
}

/* socket(2): see the top of the file. */
static __always_inline int socket_allowed(__u64 family, __u64 protocol)
{
	if (family >= AF_VSOCK)
		return 0;
	if (family == AF_NETLINK && protocol == NETLINK_AUDIT)
		return 0;
	return 1;
}

SEC("seccomp")
int docker_like(struct seccomp_data *ctx)
{
	__u32 nr = (__u32)ctx->nr;

	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	if (nr >= X32_SYSCALL_BIT && nr != 0xffffffffu)
		return SECCOMP_RET_KILL_PROCESS;

	switch (nr) {
	/* Argument checks. */
	case __NR_personality:
		return personality_allowed(ctx->args[0]) ? SECCOMP_RET_ALLOW : DENY;
	case __NR_clone:
		return ctx->args[0] & NS_CLONE_FLAGS ? DENY : SECCOMP_RET_ALLOW;
	case __NR_clone3:
		return SECCOMP_RET_ERRNO | ENOSYS;
	case __NR_socket:
		return socket_allowed(ctx->args[0], ctx->args[2]) ? SECCOMP_RET_ALLOW : DENY;

	/* Files and directories. */
	/* clang-format off */
	case __NR_read: case __NR_write: case __NR_open: case __NR_close:
	case __NR_stat: case __NR_fstat: case __NR_lstat: case __NR_lseek:
	case __NR_pread64: case __NR_pwrite64: case __NR_readv: case __NR_writev:
	case __NR_preadv: case __NR_pwritev: case __NR_preadv2: case __NR_pwritev2:
	case __NR_access: case __NR_faccessat: case __NR_faccessat2:
	case __NR_openat: case __NR_openat2: case __NR_creat:
	case __NR_dup: case __NR_dup2: case __NR_dup3: case __NR_close_range:
	case __NR_fcntl: case __NR_flock: case __NR_fsync: case __NR_fdatasync:
	case __NR_truncate: case __NR_ftruncate: case __NR_fallocate:
	case __NR_getdents: case __NR_getdents64: case __NR_getcwd:
	case __NR_chdir: case __NR_fchdir:
	case __NR_rename: case __NR_renameat: case __NR_renameat2:
	case __NR_mkdir: case __NR_mkdirat: case __NR_rmdir:
	case __NR_link: case __NR_linkat: case __NR_unlink: case __NR_unlinkat:
	case __NR_symlink: case __NR_symlinkat:
	case __NR_readlink: case __NR_readlinkat:
	case __NR_chmod: case __NR_fchmod: case __NR_fchmodat: case __NR_fchmodat2:
	case __NR_chown: case __NR_fchown: case __NR_lchown: case __NR_fchownat:
	case __NR_umask: case __NR_mknod: case __NR_mknodat:
	case __NR_newfstatat: case __NR_statx: case __NR_statfs: case __NR_fstatfs:
	case __NR_utime: case __NR_utimes: case __NR_utimensat: case __NR_futimesat:
	case __NR_sync: case __NR_syncfs: case __NR_sync_file_range:
	case __NR_readahead: case __NR_fadvise64:
	case __NR_sendfile: case __NR_splice: case __NR_tee: case __NR_vmsplice:
	case __NR_copy_file_range: case __NR_cachestat:
	case __NR_name_to_handle_at:
	case __NR_setxattr: case __NR_lsetxattr: case __NR_fsetxattr:
	case __NR_getxattr: case __NR_lgetxattr: case __NR_fgetxattr:
	case __NR_listxattr: case __NR_llistxattr: case __NR_flistxattr:
	case __NR_removexattr: case __NR_lremovexattr: case __NR_fremovexattr:
	case __NR_inotify_init: case __NR_inotify_init1:
	case __NR_inotify_add_watch: case __NR_inotify_rm_watch:
	case __NR_fanotify_mark:
	case __NR_chroot:
	case __NR_ioctl:
	/* Polling, events and asynchronous I/O. */
	case __NR_poll: case __NR_ppoll: case __NR_select: case __NR_pselect6:
	case __NR_epoll_create: case __NR_epoll_create1: case __NR_epoll_ctl:
	case __NR_epoll_ctl_old: case __NR_epoll_wait: case __NR_epoll_wait_old:
	case __NR_epoll_pwait: case __NR_epoll_pwait2:
	case __NR_eventfd: case __NR_eventfd2:
	case __NR_signalfd: case __NR_signalfd4:
	case __NR_timerfd_create: case __NR_timerfd_settime: case __NR_timerfd_gettime:
	case __NR_pipe: case __NR_pipe2:
	case __NR_io_setup: case __NR_io_destroy: case __NR_io_getevents:
	case __NR_io_pgetevents: case __NR_io_submit: case __NR_io_cancel:
	/* Memory. */
	case __NR_brk: case __NR_mmap: case __NR_munmap: case __NR_mremap:
	case __NR_mprotect: case __NR_madvise: case __NR_mincore: case __NR_msync:
	case __NR_mlock: case __NR_mlock2: case __NR_munlock:
	case __NR_mlockall: case __NR_munlockall:
	case __NR_remap_file_pages: case __NR_membarrier:
	case __NR_memfd_create: case __NR_memfd_secret:
	case __NR_pkey_alloc: case __NR_pkey_free: case __NR_pkey_mprotect:
	case __NR_map_shadow_stack:
	/* Processes, threads and scheduling. */
	case __NR_fork: case __NR_vfork: case __NR_execve: case __NR_execveat:
	case __NR_exit: case __NR_exit_group: case __NR_wait4: case __NR_waitid:
	case __NR_getpid: case __NR_getppid: case __NR_gettid:
	case __NR_getpgid: case __NR_setpgid: case __NR_getpgrp:
	case __NR_getsid: case __NR_setsid:
	case __NR_set_tid_address: case __NR_set_robust_list: case __NR_get_robust_list:
	case __NR_futex: case __NR_futex_waitv:
	case __NR_futex_wake: case __NR_futex_wait: case __NR_futex_requeue:
	case __NR_rseq: case __NR_arch_prctl: case __NR_prctl:
	case __NR_set_thread_area: case __NR_get_thread_area:
	case __NR_sched_yield: case __NR_sched_setaffinity: case __NR_sched_getaffinity:
	case __NR_sched_setparam: case __NR_sched_getparam:
	case __NR_sched_setscheduler: case __NR_sched_getscheduler:
	case __NR_sched_get_priority_max: case __NR_sched_get_priority_min:
	case __NR_sched_rr_get_interval:
	case __NR_sched_setattr: case __NR_sched_getattr:
	case __NR_getpriority: case __NR_setpriority:
	case __NR_ioprio_get: case __NR_ioprio_set:
	case __NR_getrlimit: case __NR_setrlimit: case __NR_prlimit64:
	case __NR_getrusage: case __NR_times: case __NR_getcpu:
	case __NR_capget: case __NR_capset:
	case __NR_ptrace: case __NR_process_vm_readv: case __NR_process_vm_writev:
	case __NR_pidfd_open: case __NR_pidfd_send_signal: case __NR_process_mrelease:
	case __NR_seccomp: case __NR_restart_syscall:
	case __NR_landlock_create_ruleset: case __NR_landlock_add_rule:
	case __NR_landlock_restrict_self:
	/* Credentials. */
	case __NR_getuid: case __NR_geteuid: case __NR_getgid: case __NR_getegid:
	case __NR_setuid: case __NR_setgid: case __NR_setreuid: case __NR_setregid:
	case __NR_setresuid: case __NR_getresuid: case __NR_setresgid: case __NR_getresgid:
	case __NR_setfsuid: case __NR_setfsgid:
	case __NR_getgroups: case __NR_setgroups:
	/* Signals. */
	case __NR_rt_sigaction: case __NR_rt_sigprocmask: case __NR_rt_sigreturn:
	case __NR_rt_sigpending: case __NR_rt_sigtimedwait: case __NR_rt_sigqueueinfo:
	case __NR_rt_sigsuspend: case __NR_rt_tgsigqueueinfo: case __NR_sigaltstack:
	case __NR_kill: case __NR_tkill: case __NR_tgkill: case __NR_pause:
	/* Time. */
	case __NR_nanosleep: case __NR_clock_nanosleep:
	case __NR_clock_gettime: case __NR_clock_getres: case __NR_clock_adjtime:
	case __NR_gettimeofday: case __NR_time: case __NR_adjtimex:
	case __NR_alarm: case __NR_getitimer: case __NR_setitimer:
	case __NR_timer_create: case __NR_timer_settime: case __NR_timer_gettime:
	case __NR_timer_getoverrun: case __NR_timer_delete:
	/* Sockets (socket itself is above). */
	case __NR_socketpair: case __NR_connect: case __NR_accept: case __NR_accept4:
	case __NR_bind: case __NR_listen: case __NR_shutdown:
	case __NR_getsockname: case __NR_getpeername:
	case __NR_setsockopt: case __NR_getsockopt:
	case __NR_sendto: case __NR_recvfrom: case __NR_sendmsg: case __NR_recvmsg:
	case __NR_sendmmsg: case __NR_recvmmsg:
	/* System V and POSIX IPC. */
	case __NR_shmget: case __NR_shmat: case __NR_shmctl: case __NR_shmdt:
	case __NR_semget: case __NR_semop: case __NR_semctl: case __NR_semtimedop:
	case __NR_msgget: case __NR_msgsnd: case __NR_msgrcv: case __NR_msgctl:
	case __NR_mq_open: case __NR_mq_unlink: case __NR_mq_timedsend:
	case __NR_mq_timedreceive: case __NR_mq_notify: case __NR_mq_getsetattr:
	/* Miscellaneous. */
	case __NR_uname: case __NR_sysinfo: case __NR_getrandom:
		/* clang-format on */
		return SECCOMP_RET_ALLOW;
	default:
		return DENY;
	}
}

char _license[] SEC("license") = "GPL";
