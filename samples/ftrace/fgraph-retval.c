// SPDX-License-Identifier: GPL-2.0-only
/*
 * Known return values for the function graph tracer's funcgraph-retval
 * option, and a known call chain for stack traces taken while the graph
 * tracer's return trampoline sits in the return addresses.
 *
 * Writing 1 to /sys/module/fgraph_retval/parameters/run calls each
 * fgraph_retval_*() function once:
 *
 *   fgraph_retval_zero()	int 0
 *   fgraph_retval_int()	int 1234567 (0x12d687)
 *   fgraph_retval_errno()	int -EINVAL
 *   fgraph_retval_short()	s16 -1234, which the callee must sign-extend
 *   fgraph_retval_ptr()	the address of fgraph_retval_object
 *   fgraph_retval_u64()	u64 0x1122334455667788
 *   fgraph_retval_outer()	calls fgraph_retval_inner(), which dumps the
 *				stack to the kernel log
 *
 * The values are read with READ_ONCE() so that the compiler can neither
 * fold them into the callers nor drop the return values.
 */

#include <linux/errno.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/types.h>

static struct {
	int zero;
	int pos;
	int err;
	s16 neg_short;
	u64 wide;
} fgraph_retval_values = {
	.zero = 0,
	.pos = 1234567,
	.err = -EINVAL,
	.neg_short = -1234,
	.wide = 0x1122334455667788ULL,
};

/* The object whose address fgraph_retval_ptr() returns */
static int fgraph_retval_object;

/* The callers store every return value here, so none is unused */
static unsigned long fgraph_retval_sink;

static noinline int fgraph_retval_zero(void)
{
	return READ_ONCE(fgraph_retval_values.zero);
}

static noinline int fgraph_retval_int(void)
{
	return READ_ONCE(fgraph_retval_values.pos);
}

static noinline int fgraph_retval_errno(void)
{
	return READ_ONCE(fgraph_retval_values.err);
}

static noinline s16 fgraph_retval_short(void)
{
	return READ_ONCE(fgraph_retval_values.neg_short);
}

static noinline void *fgraph_retval_ptr(void)
{
	void *p = &fgraph_retval_object;

	/* Hide where p points to from the compiler */
	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline u64 fgraph_retval_u64(void)
{
	return READ_ONCE(fgraph_retval_values.wide);
}

static noinline int fgraph_retval_inner(void)
{
	dump_stack();
	return READ_ONCE(fgraph_retval_values.pos);
}

static noinline int fgraph_retval_outer(void)
{
	return fgraph_retval_inner() + 1;
}

static void fgraph_retval_call_all(void)
{
	unsigned long sum;

	sum = fgraph_retval_zero();
	sum += fgraph_retval_int();
	sum += fgraph_retval_errno();
	sum += fgraph_retval_short();
	sum += (unsigned long)fgraph_retval_ptr();
	sum += (unsigned long)fgraph_retval_u64();
	sum += fgraph_retval_outer();
	WRITE_ONCE(fgraph_retval_sink, sum);
}

static int fgraph_retval_run_set(const char *val, const struct kernel_param *kp)
{
	bool run;
	int ret;

	ret = kstrtobool(val, &run);
	if (ret)
		return ret;
	if (run)
		fgraph_retval_call_all();
	return 0;
}

static const struct kernel_param_ops fgraph_retval_run_ops = {
	.set = fgraph_retval_run_set,
};

module_param_cb(run, &fgraph_retval_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "Write 1 to call every fgraph_retval_*() function once");

static int __init fgraph_retval_init(void)
{
	return 0;
}

static void __exit fgraph_retval_exit(void)
{
}

module_init(fgraph_retval_init);
module_exit(fgraph_retval_exit);

MODULE_DESCRIPTION("Known return values and call chain for the function graph tracer");
MODULE_LICENSE("GPL");
