// SPDX-License-Identifier: MIT
/* A large switch allowlist: clang lowers it to range checks, jump tables
 * are not available in BPF, and bit tests (1 << (nr - base)) & mask. */
#include <secbpf/filter.h>

SEC("seccomp")
int allowlist(struct seccomp_data *ctx)
{
	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	switch (ctx->nr) {
	case __NR_read: case __NR_write: case __NR_open: case __NR_close:
	case __NR_stat: case __NR_fstat: case __NR_lstat: case __NR_poll:
	case __NR_lseek: case __NR_mmap: case __NR_mprotect: case __NR_munmap:
	case __NR_brk: case __NR_rt_sigaction: case __NR_rt_sigprocmask:
	case __NR_rt_sigreturn: case __NR_ioctl: case __NR_pread64:
	case __NR_pwrite64: case __NR_readv: case __NR_writev: case __NR_access:
	case __NR_pipe: case __NR_select: case __NR_sched_yield:
	case __NR_mremap: case __NR_msync: case __NR_mincore: case __NR_madvise:
	case __NR_dup: case __NR_dup2: case __NR_nanosleep: case __NR_getpid:
	case __NR_socket: case __NR_connect: case __NR_sendto: case __NR_recvfrom:
	case __NR_clone: case __NR_fork: case __NR_vfork: case __NR_execve:
	case __NR_exit: case __NR_wait4: case __NR_kill: case __NR_uname:
	case __NR_fcntl: case __NR_flock: case __NR_fsync: case __NR_getcwd:
	case __NR_chdir: case __NR_rename: case __NR_mkdir: case __NR_rmdir:
	case __NR_unlink: case __NR_readlink: case __NR_umask:
	case __NR_gettimeofday: case __NR_getrlimit: case __NR_getuid:
	case __NR_getgid: case __NR_geteuid: case __NR_getegid:
	case __NR_arch_prctl: case __NR_gettid: case __NR_futex:
	case __NR_set_tid_address: case __NR_clock_gettime: case __NR_exit_group:
	case __NR_openat: case __NR_newfstatat: case __NR_set_robust_list:
	case __NR_prlimit64: case __NR_getrandom: case __NR_rseq:
	case __NR_statx: case __NR_pipe2: case __NR_dup3: case __NR_epoll_create1:
		return SECCOMP_RET_ALLOW;
	case __NR_ptrace:
		return SECCOMP_RET_ERRNO | EPERM;
	case __NR_reboot: case __NR_kexec_load:
		return SECCOMP_RET_KILL_THREAD;
	}
	return SECCOMP_RET_ERRNO | ENOSYS;
}

char _license[] SEC("license") = "GPL";
