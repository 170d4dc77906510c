// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one traced function call costs in the tracer state that tracefs
 * has set up (nop, function, function_graph, filters, options...).
 *
 * Writing N to /sys/module/ftrace_call_cost/parameters/run calls the
 * traced function ftrace_call_cost_target() N times, then its notrace
 * twin N times, in batches of FTRACE_CALL_COST_BATCH calls with
 * interrupts off, so that nothing but the calls runs in the timed window.
 * Reading the parameter prints the last result:
 *
 *   calls N traced_ns T untraced_ns U overhead_ns O
 *
 * T and U are the medians over the batches of the time per call, O is
 * T - U: what tracing adds to one call.  Times come from the notrace
 * ktime_get_mono_fast_ns(), in nanoseconds with two decimals.  Under
 * QEMU with -icount shift=0 one nanosecond is one guest instruction, so
 * the numbers count instructions.
 *
 * The target calls a notrace helper, so it saves its return address on
 * the stack like most kernel functions, and every architecture's graph
 * tracer can hook it.  On 32-bit ARM kernels the timed window of the
 * traced calls is also marked with two reserved hint instructions
 * (NOPs on every ARMv7 CPU), which an instruction-level profiler
 * (a QEMU TCG plugin) can use to count only the instructions in the
 * window, per function.
 *
 * Writing N to /sys/module/ftrace_call_cost/parameters/chain makes N
 * calls of ftrace_call_cost_chain(), each slow (it waits
 * FTRACE_CALL_COST_CHAIN_MS milliseconds) around a chain of 29 fast
 * nested calls of itself: with
 * tracing_thresh in between, only the N outer calls are slow.  It is a
 * workload for the tests of funcgraph-thresh-tree, not a measurement.
 */

#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#define FTRACE_CALL_COST_BATCH	1000
#define FTRACE_CALL_COST_MAX	(100 * 1000 * 1000)

/*
 * The marks are HINT #0x80 and #0x81: reserved hints, which execute as
 * NOPs.  Always inlined: they must not add calls to the window.
 */
#if defined(CONFIG_THUMB2_KERNEL)
#define FTRACE_CALL_COST_MARK_BEGIN	".inst.w 0xf3af8080"
#define FTRACE_CALL_COST_MARK_END	".inst.w 0xf3af8081"
#elif defined(CONFIG_ARM)
#define FTRACE_CALL_COST_MARK_BEGIN	".inst 0xe320f080"
#define FTRACE_CALL_COST_MARK_END	".inst 0xe320f081"
#endif

static __always_inline void ftrace_call_cost_mark_begin(void)
{
#ifdef FTRACE_CALL_COST_MARK_BEGIN
	asm volatile(FTRACE_CALL_COST_MARK_BEGIN ::: "memory");
#else
	barrier();
#endif
}

static __always_inline void ftrace_call_cost_mark_end(void)
{
#ifdef FTRACE_CALL_COST_MARK_END
	asm volatile(FTRACE_CALL_COST_MARK_END ::: "memory");
#else
	barrier();
#endif
}

static DEFINE_MUTEX(ftrace_call_cost_lock);
static char ftrace_call_cost_result[128] = "not run\n";
static unsigned long ftrace_call_cost_sink;

static noinline notrace unsigned long ftrace_call_cost_leaf(unsigned long x)
{
	OPTIMIZER_HIDE_VAR(x);
	return x;
}

/* Global, so that the compiler neither renames nor specialises it */
unsigned long ftrace_call_cost_target(unsigned long x);

noinline unsigned long ftrace_call_cost_target(unsigned long x)
{
	return ftrace_call_cost_leaf(x) + 1;
}

#define FTRACE_CALL_COST_CHAIN_MS	20
#define FTRACE_CALL_COST_CHAIN_MAX	10000

/* Read at run time, so that no call gets a specialised copy */
static unsigned int ftrace_call_cost_chain_depth = 30;

/* Not a tail call: each level stays on the stack, and is traced */
static noinline unsigned int ftrace_call_cost_chain(unsigned int depth)
{
	unsigned int ret = 0;

	if (depth > 1)
		ret = ftrace_call_cost_chain(depth - 1);
	if (depth == READ_ONCE(ftrace_call_cost_chain_depth))
		mdelay(FTRACE_CALL_COST_CHAIN_MS);
	return ret + 1;
}

static noinline notrace unsigned long ftrace_call_cost_untraced(unsigned long x)
{
	return ftrace_call_cost_leaf(x) + 1;
}

/*
 * One batch of calls, with interrupts off.  Not inlined, so that
 * set_graph_function can pick it: its graph then holds the batch's calls
 * and nothing else (the clock reads and the interrupt that may be
 * pending when interrupts come back on happen in the caller).
 */
static noinline unsigned long ftrace_call_cost_batch(bool traced)
{
	unsigned long sum = 0;
	int i;

	if (traced) {
		ftrace_call_cost_mark_begin();
		for (i = 0; i < FTRACE_CALL_COST_BATCH; i++)
			sum += ftrace_call_cost_target(i);
		ftrace_call_cost_mark_end();
	} else {
		for (i = 0; i < FTRACE_CALL_COST_BATCH; i++)
			sum += ftrace_call_cost_untraced(i);
	}
	return sum;
}

/* Time per call of one batch, in ns * 100 */
static u64 ftrace_call_cost_time(bool traced)
{
	unsigned long sum, flags;
	u64 start, end;

	local_irq_save(flags);
	start = ktime_get_mono_fast_ns();
	sum = ftrace_call_cost_batch(traced);
	end = ktime_get_mono_fast_ns();
	local_irq_restore(flags);

	WRITE_ONCE(ftrace_call_cost_sink, sum);
	return div_u64((end - start) * 100, FTRACE_CALL_COST_BATCH);
}

static int ftrace_call_cost_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 ftrace_call_cost_median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), ftrace_call_cost_cmp, NULL);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int ftrace_call_cost_run(unsigned int calls)
{
	unsigned int i, batches = DIV_ROUND_UP(calls, FTRACE_CALL_COST_BATCH);
	u64 *traced, *untraced, t, u, d;

	traced = kcalloc(batches, sizeof(*traced), GFP_KERNEL);
	untraced = kcalloc(batches, sizeof(*untraced), GFP_KERNEL);
	if (!traced || !untraced) {
		kfree(traced);
		kfree(untraced);
		return -ENOMEM;
	}

	for (i = 0; i < batches; i++) {
		traced[i] = ftrace_call_cost_time(true);
		cond_resched();
	}
	for (i = 0; i < batches; i++) {
		untraced[i] = ftrace_call_cost_time(false);
		cond_resched();
	}
	t = ftrace_call_cost_median(traced, batches);
	u = ftrace_call_cost_median(untraced, batches);
	d = t >= u ? t - u : u - t;

	snprintf(ftrace_call_cost_result, sizeof(ftrace_call_cost_result),
		 "calls %u traced_ns %llu.%02llu untraced_ns %llu.%02llu overhead_ns %s%llu.%02llu\n",
		 batches * FTRACE_CALL_COST_BATCH,
		 t / 100, t % 100, u / 100, u % 100,
		 t >= u ? "" : "-", d / 100, d % 100);

	kfree(traced);
	kfree(untraced);
	return 0;
}

static int ftrace_call_cost_set(const char *val, const struct kernel_param *kp)
{
	unsigned int calls;
	int ret;

	ret = kstrtouint(val, 0, &calls);
	if (ret)
		return ret;
	if (!calls || calls > FTRACE_CALL_COST_MAX)
		return -EINVAL;

	mutex_lock(&ftrace_call_cost_lock);
	ret = ftrace_call_cost_run(calls);
	mutex_unlock(&ftrace_call_cost_lock);
	return ret;
}

static int ftrace_call_cost_get(char *buffer, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&ftrace_call_cost_lock);
	len = sysfs_emit(buffer, "%s", ftrace_call_cost_result);
	mutex_unlock(&ftrace_call_cost_lock);
	return len;
}

static int ftrace_call_cost_set_chain(const char *val,
				      const struct kernel_param *kp)
{
	unsigned int i, calls, depth, want;
	int ret;

	ret = kstrtouint(val, 0, &calls);
	if (ret)
		return ret;
	if (!calls || calls > FTRACE_CALL_COST_CHAIN_MAX)
		return -EINVAL;

	for (i = 0; i < calls; i++) {
		/* On one CPU, not preempted: the chains stay whole */
		want = READ_ONCE(ftrace_call_cost_chain_depth);
		preempt_disable();
		depth = ftrace_call_cost_chain(want);
		preempt_enable();
		if (depth != want)
			return -EIO;
		cond_resched();
	}
	return 0;
}

static const struct kernel_param_ops ftrace_call_cost_chain_ops = {
	.set = ftrace_call_cost_set_chain,
};

module_param_cb(chain, &ftrace_call_cost_chain_ops, NULL, 0200);
MODULE_PARM_DESC(chain, "Write N (1 to 10000) to make N slow calls around chains of fast ones");

static const struct kernel_param_ops ftrace_call_cost_ops = {
	.set = ftrace_call_cost_set,
	.get = ftrace_call_cost_get,
};

module_param_cb(run, &ftrace_call_cost_ops, NULL, 0600);
MODULE_PARM_DESC(run, "Write N (1 to 100000000) to time N traced calls; read the last result");

MODULE_DESCRIPTION("Cost of one traced function call");
MODULE_LICENSE("GPL");
