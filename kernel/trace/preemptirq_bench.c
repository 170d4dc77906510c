// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one irq or preempt toggle pair costs on this kernel: the price of
 * the hooks that the irqsoff/preemptoff tracers, lockdep or the
 * preemptirq trace events put into local_irq_*() and
 * preempt_disable()/preempt_enable(), whether or not anyone listens.
 *
 * Writing N to /sys/module/preemptirq_bench/parameters/run starts one
 * kthread per online CPU.  The threads are bound to their CPUs, wait for
 * a common start signal, then each runs N pairs of every kind:
 *
 *   irq      local_irq_disable(); local_irq_enable();
 *   irqsave  local_irq_save(flags); local_irq_restore(flags);
 *   preempt  preempt_disable(); preempt_enable();
 *   loop     an empty loop body: the floor of the three above
 *
 * One pair takes a few tens of instructions, less than a tick of some
 * clocks (16 ns for the ARM generic timer of QEMU's cortex-a15), so
 * pairs are timed in batches of PREEMPTIRQ_BENCH_BATCH with the notrace
 * ktime_get_mono_fast_ns(); a batch gives one sample, its time divided
 * by the pairs in it.  The kinds take turns batch by batch, so a slow
 * spell of the machine hits all of them alike.  Interrupts stay enabled
 * between pairs: a batch that an interrupt or a preemption lands in is
 * slower, which shows in the tail, not in the median.
 *
 * Reading the parameter prints the last result, one line per kind after
 * a header line:
 *
 *   cpus C pairs N batch B
 *   irq avg_ns A median_ns M p99_ns P
 *   ...
 *
 * A is the total time over the total pairs of all CPUs; M and P are the
 * median and the 99th percentile (nearest rank) of the samples of all
 * CPUs, so P is a percentile of batch means, not of single pairs.  All
 * are in nanoseconds per pair with two decimals, and include the loop
 * that runs the pairs (the "loop" kind measures that loop alone).  Under
 * QEMU with -icount shift=0 one nanosecond is one guest instruction.
 */

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#define PREEMPTIRQ_BENCH_BATCH		1000
#define PREEMPTIRQ_BENCH_MAX_PAIRS	(10 * 1000 * 1000)
#define PREEMPTIRQ_BENCH_RESULT_SIZE	512

enum preemptirq_bench_kind {
	PIB_IRQ,
	PIB_IRQSAVE,
	PIB_PREEMPT,
	PIB_LOOP,
	PIB_KINDS
};

static const char * const preemptirq_bench_names[PIB_KINDS] = {
	[PIB_IRQ]	= "irq",
	[PIB_IRQSAVE]	= "irqsave",
	[PIB_PREEMPT]	= "preempt",
	[PIB_LOOP]	= "loop",
};

/* One per CPU of a run. */
struct preemptirq_bench_thread {
	struct completion	done;
	/* samples[kind * batches + i]: ns per pair * 100 of batch i */
	u64			*samples;
	/* sum of the batch times of each kind, in ns */
	u64			total[PIB_KINDS];
};

static DEFINE_MUTEX(preemptirq_bench_lock);
static char preemptirq_bench_result[PREEMPTIRQ_BENCH_RESULT_SIZE] =
	"not run\n";

/* Set up before the threads start, read-only while they run. */
static DECLARE_COMPLETION(preemptirq_bench_start);
static unsigned int preemptirq_bench_batches;
static bool preemptirq_bench_abort;

/* The time of one batch of pairs of KIND, in ns. */
static noinline u64 preemptirq_bench_batch(enum preemptirq_bench_kind kind)
{
	unsigned long flags;
	u64 start, end;
	int i;

	start = ktime_get_mono_fast_ns();
	switch (kind) {
	case PIB_IRQ:
		for (i = 0; i < PREEMPTIRQ_BENCH_BATCH; i++) {
			local_irq_disable();
			local_irq_enable();
		}
		break;
	case PIB_IRQSAVE:
		for (i = 0; i < PREEMPTIRQ_BENCH_BATCH; i++) {
			local_irq_save(flags);
			local_irq_restore(flags);
		}
		break;
	case PIB_PREEMPT:
		for (i = 0; i < PREEMPTIRQ_BENCH_BATCH; i++) {
			preempt_disable();
			preempt_enable();
		}
		break;
	default:
		for (i = 0; i < PREEMPTIRQ_BENCH_BATCH; i++)
			barrier();
		break;
	}
	end = ktime_get_mono_fast_ns();
	return end - start;
}

static int preemptirq_bench_thread_fn(void *arg)
{
	struct preemptirq_bench_thread *t = arg;
	unsigned int batches = preemptirq_bench_batches;
	unsigned int i, kind;
	u64 ns;

	wait_for_completion(&preemptirq_bench_start);
	if (READ_ONCE(preemptirq_bench_abort))
		kthread_complete_and_exit(&t->done, 0);

	for (i = 0; i < batches; i++) {
		for (kind = 0; kind < PIB_KINDS; kind++) {
			ns = preemptirq_bench_batch(kind);
			t->total[kind] += ns;
			t->samples[kind * batches + i] =
				div_u64(ns * 100, PREEMPTIRQ_BENCH_BATCH);
		}
		cond_resched();
	}
	kthread_complete_and_exit(&t->done, 0);
}

static int preemptirq_bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Append "NAME avg_ns A median_ns M p99_ns P" for one kind. */
static int preemptirq_bench_report(char *buf, size_t size, const char *name,
				   u64 total, u64 pairs, u64 *v, unsigned int n)
{
	u64 avg, median, p99;

	sort(v, n, sizeof(*v), preemptirq_bench_cmp, NULL);
	avg = div64_u64(total * 100, pairs);
	median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	/* nearest rank: the smallest sample with 99% at or below it */
	p99 = v[DIV_ROUND_UP(n * 99, 100) - 1];

	return scnprintf(buf, size,
			 "%s avg_ns %llu.%02llu median_ns %llu.%02llu p99_ns %llu.%02llu\n",
			 name, avg / 100, avg % 100, median / 100, median % 100,
			 p99 / 100, p99 % 100);
}

static int preemptirq_bench_collect(struct preemptirq_bench_thread *threads,
				    unsigned int nr)
{
	unsigned int batches = preemptirq_bench_batches;
	unsigned int kind, j, n = nr * batches;
	char *buf = preemptirq_bench_result;
	size_t size = sizeof(preemptirq_bench_result);
	u64 pairs = (u64)n * PREEMPTIRQ_BENCH_BATCH;
	u64 *merged, total;
	int len;

	merged = kvcalloc(n, sizeof(*merged), GFP_KERNEL);
	if (!merged)
		return -ENOMEM;

	len = scnprintf(buf, size, "cpus %u pairs %u batch %u\n", nr,
			batches * PREEMPTIRQ_BENCH_BATCH,
			PREEMPTIRQ_BENCH_BATCH);
	for (kind = 0; kind < PIB_KINDS; kind++) {
		total = 0;
		for (j = 0; j < nr; j++) {
			memcpy(merged + j * batches,
			       threads[j].samples + kind * batches,
			       batches * sizeof(*merged));
			total += threads[j].total[kind];
		}
		len += preemptirq_bench_report(buf + len, size - len,
					       preemptirq_bench_names[kind],
					       total, pairs, merged, n);
	}
	kvfree(merged);
	return 0;
}

/* Wake up now and then, so that a long run is not taken for a hung task. */
static void preemptirq_bench_wait(struct completion *done)
{
	while (!wait_for_completion_timeout(done, 10 * HZ))
		cond_resched();
}

static int preemptirq_bench_run(unsigned int pairs)
{
	unsigned int batches = DIV_ROUND_UP(pairs, PREEMPTIRQ_BENCH_BATCH);
	struct preemptirq_bench_thread *threads;
	struct task_struct *task;
	unsigned int cpu, nr = 0, started = 0, i;
	int ret = 0;

	cpus_read_lock();
	threads = kcalloc(num_online_cpus(), sizeof(*threads), GFP_KERNEL);
	if (!threads) {
		cpus_read_unlock();
		return -ENOMEM;
	}

	reinit_completion(&preemptirq_bench_start);
	preemptirq_bench_batches = batches;
	preemptirq_bench_abort = false;

	for_each_online_cpu(cpu) {
		struct preemptirq_bench_thread *t = &threads[nr++];

		init_completion(&t->done);
		t->samples = kvcalloc(PIB_KINDS * batches, sizeof(*t->samples),
				      GFP_KERNEL);
		if (!t->samples) {
			ret = -ENOMEM;
			break;
		}
		task = kthread_create(preemptirq_bench_thread_fn, t,
				      "preemptirq_bench/%u", cpu);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			break;
		}
		kthread_bind(task, cpu);
		wake_up_process(task);
		started++;
	}

	/* Every thread waits for this; on an error they leave at once. */
	WRITE_ONCE(preemptirq_bench_abort, ret != 0);
	complete_all(&preemptirq_bench_start);
	for (i = 0; i < started; i++)
		preemptirq_bench_wait(&threads[i].done);
	cpus_read_unlock();

	if (!ret)
		ret = preemptirq_bench_collect(threads, nr);

	for (i = 0; i < nr; i++)
		kvfree(threads[i].samples);
	kfree(threads);
	return ret;
}

static int preemptirq_bench_set(const char *val, const struct kernel_param *kp)
{
	unsigned int pairs;
	int ret;

	ret = kstrtouint(val, 0, &pairs);
	if (ret)
		return ret;
	if (!pairs || pairs > PREEMPTIRQ_BENCH_MAX_PAIRS)
		return -EINVAL;

	mutex_lock(&preemptirq_bench_lock);
	ret = preemptirq_bench_run(pairs);
	mutex_unlock(&preemptirq_bench_lock);
	return ret;
}

static int preemptirq_bench_get(char *buffer, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&preemptirq_bench_lock);
	len = sysfs_emit(buffer, "%s", preemptirq_bench_result);
	mutex_unlock(&preemptirq_bench_lock);
	return len;
}

static const struct kernel_param_ops preemptirq_bench_ops = {
	.set = preemptirq_bench_set,
	.get = preemptirq_bench_get,
};

module_param_cb(run, &preemptirq_bench_ops, NULL, 0600);
MODULE_PARM_DESC(run, "Write N (1 to 10000000) to time N pairs of each kind on every online CPU; read the last result");

MODULE_DESCRIPTION("Cost of irq and preempt toggle pairs");
MODULE_LICENSE("GPL");
