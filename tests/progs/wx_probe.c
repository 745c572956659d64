// SPDX-License-Identifier: MIT
/*
 * A probe the sample tests run under samples/wx.bpf.c: it tries every way
 * of getting writable and executable memory that the filter must refuse,
 * then the JIT-like sequence it must allow (map RW, write code, switch to
 * RX, run it), and prints one line with what happened.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096

/* The errno of a failed mmap, 0 if it succeeded (the mapping is undone). */
static int try_mmap(int prot)
{
	void *p = mmap(NULL, PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, PAGE);
	return 0;
}

/* The errno of mprotect (or pkey_mprotect with the default key) from RW to
 * prot, 0 if it succeeded; -1 if the RW mapping itself failed. */
static int try_mprotect(int prot, int with_pkey)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long rc;
	int e;

	if (p == MAP_FAILED)
		return -1;
	if (with_pkey)
		rc = syscall(SYS_pkey_mprotect, p, PAGE, prot, -1);
	else
		rc = mprotect(p, PAGE, prot);
	e = rc ? errno : 0;
	munmap(p, PAGE);
	return e;
}

/* Map RW, write `mov eax, 42; ret`, make it RX and call it: returns 42 on
 * success, else -errno of the step that failed. */
static int jit_rw_then_rx(void)
{
#if defined(__x86_64__)
	static const unsigned char code[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 };
#else
#error "wx_probe: no code sequence for this architecture"
#endif
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int (*fn)(void);
	int r;

	if (p == MAP_FAILED)
		return -errno;
	memcpy(p, code, sizeof(code));
	if (mprotect(p, PAGE, PROT_READ | PROT_EXEC)) {
		r = -errno;
		munmap(p, PAGE);
		return r;
	}
	fn = (int (*)(void))p;
	r = fn();
	munmap(p, PAGE);
	return r;
}

int main(void)
{
	printf("mmap_rwx=%d mmap_wx=%d mprotect_rwx=%d pkey_mprotect_rwx=%d "
	       "mmap_rw=%d mmap_rx=%d jit=%d\n",
	       try_mmap(PROT_READ | PROT_WRITE | PROT_EXEC), try_mmap(PROT_WRITE | PROT_EXEC),
	       try_mprotect(PROT_READ | PROT_WRITE | PROT_EXEC, 0),
	       try_mprotect(PROT_READ | PROT_WRITE | PROT_EXEC, 1),
	       try_mmap(PROT_READ | PROT_WRITE), try_mmap(PROT_READ | PROT_EXEC), jit_rw_then_rx());
	return 0;
}
