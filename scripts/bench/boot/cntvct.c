// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of the boot benchmark (run.py): ties the kernel's
 * printk clock (local_clock()) to the ARM generic timer's virtual count
 * (CNTVCT), which runs from when the machine started.
 *
 * It reads CNTVCT, writes a line to /dev/kmsg, which printk stamps with
 * local_clock(), and reads CNTVCT again, then prints
 *
 *     cntvct FREQ BEFORE AFTER
 *
 * so the host can put any printk time of this boot on the counter.
 * Linux lets user space read the virtual counter (CNTKCTL.EL0VCTEN) on
 * the QEMU virt machine.
 *
 * No C library: raw ARM EABI system calls, so that the cross compiler
 * alone builds it (run.py: -nostdlib -static -ffreestanding).
 */
#define NR_EXIT		1
#define NR_WRITE	4
#define NR_OPEN		5
#define O_WRONLY	1

#define SYNC_LINE "boot-bench: sync\n"

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

	fd = sys3(NR_OPEN, (long)"/dev/kmsg", O_WRONLY, 0);
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

void __attribute__((naked, noreturn)) _start(void)
{
	__asm__ __volatile__("bl run");
}
