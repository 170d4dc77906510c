// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of the boot benchmark (run.py): ties the kernel's
 * printk clock (local_clock()) to the ARM generic timer's virtual count
 * (CNTVCT, CNTVCT_EL0 on arm64), which runs from when the machine
 * started.
 *
 * It reads CNTVCT, writes a line to /dev/kmsg, which printk stamps with
 * local_clock(), and reads CNTVCT again, then prints
 *
 *     cntvct FREQ BEFORE AFTER
 *
 * so the host can put any printk time of this boot on the counter.
 * Linux lets user space read the virtual counter (CNTKCTL.EL0VCTEN) on
 * the QEMU virt machine, 32-bit and 64-bit.
 *
 * No C library: raw system calls (ARM EABI, or aarch64's), so that the
 * cross compiler alone builds it (run.py: -nostdlib -static
 * -ffreestanding).
 */
#define O_WRONLY	1

#define SYNC_LINE "boot-bench: sync\n"

#ifdef __aarch64__

/* aarch64 has no open(): openat() relative to the working directory */
#define NR_OPENAT	56
#define NR_WRITE	64
#define NR_EXIT		93
#define AT_FDCWD	-100

static long sys3(long nr, long a, long b, long c)
{
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x8 __asm__("x8") = nr;

	__asm__ __volatile__("svc #0"
			     : "+r" (x0) : "r" (x1), "r" (x2), "r" (x8)
			     : "memory");
	return x0;
}

static long open_wronly(const char *path)
{
	return sys3(NR_OPENAT, AT_FDCWD, (long)path, O_WRONLY);
}

static unsigned long long read_cntvct(void)
{
	unsigned long long cnt;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0"
			     : "=r" (cnt) : : "memory");
	return cnt;
}

static unsigned int read_cntfrq(void)
{
	unsigned long long freq;

	__asm__ __volatile__("isb\n\tmrs %0, cntfrq_el0" : "=r" (freq));
	return (unsigned int)freq;
}

#else /* 32-bit ARM */

#define NR_EXIT		1
#define NR_WRITE	4
#define NR_OPEN		5

static long sys3(long nr, long a, long b, long c)
{
	register long r0 __asm__("r0") = a;
	register long r1 __asm__("r1") = b;
	register long r2 __asm__("r2") = c;
	register long r7 __asm__("r7") = nr;

	__asm__ __volatile__("svc #0"
			     : "+r" (r0) : "r" (r1), "r" (r2), "r" (r7)
			     : "memory");
	return r0;
}

static long open_wronly(const char *path)
{
	return sys3(NR_OPEN, (long)path, O_WRONLY, 0);
}

static unsigned long long read_cntvct(void)
{
	unsigned int lo, hi;

	__asm__ __volatile__("isb\n\tmrrc p15, 1, %0, %1, c14"
			     : "=r" (lo), "=r" (hi) : : "memory");
	return ((unsigned long long)hi << 32) | lo;
}

static unsigned int read_cntfrq(void)
{
	unsigned int freq;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r" (freq));
	return freq;
}

#endif

/* Append " N" to BUF at *LEN, in decimal. */
static void put_num(char *buf, int *len, unsigned long long n)
{
	char digits[24];
	int i = 0;

	do {
		/* 64-bit division needs libgcc: divide by 10 in halves. */
		unsigned long long q = 0, r = 0;
		int bit;

		for (bit = 63; bit >= 0; bit--) {
			r = (r << 1) | ((n >> bit) & 1);
			if (r >= 10) {
				r -= 10;
				q |= 1ULL << bit;
			}
		}
		digits[i++] = '0' + (char)r;
		n = q;
	} while (n);
	buf[(*len)++] = ' ';
	while (i)
		buf[(*len)++] = digits[--i];
}

static void __attribute__((used)) run(void)
{
	static const char head[] = "cntvct";
	unsigned long long before, after;
	char out[96];
	int len = 0;
	long fd;

	fd = open_wronly("/dev/kmsg");
	if (fd < 0)
		sys3(NR_EXIT, 1, 0, 0);
	before = read_cntvct();
	if (sys3(NR_WRITE, fd, (long)SYNC_LINE, sizeof(SYNC_LINE) - 1) < 0)
		sys3(NR_EXIT, 1, 0, 0);
	after = read_cntvct();

	while (head[len])
		out[len] = head[len], len++;
	put_num(out, &len, read_cntfrq());
	put_num(out, &len, before);
	put_num(out, &len, after);
	out[len++] = '\n';
	sys3(NR_WRITE, 1, (long)out, len);
	sys3(NR_EXIT, 0, 0, 0);
}

#ifdef __aarch64__
/* GCC has no naked functions on aarch64: the entry is plain assembly. */
__asm__(".text\n\t.globl _start\n_start:\n\tbl run\n");
#else
void __attribute__((naked, noreturn)) _start(void)
{
	__asm__ __volatile__("bl run");
}
#endif
