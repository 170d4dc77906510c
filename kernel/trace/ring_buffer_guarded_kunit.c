// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the writers of __ring_buffer_lock_reserve(), which
 * hold no recursion bit of the ring buffer: a snapshot swap of their CPU
 * buffer (ring_buffer_swap_cpu()) must not land in the middle of their
 * write.
 *
 * A swap normally comes from an IPI, at a moment no test can choose. The
 * one point where such a writer is not seen as busy is the page move, in
 * rb_move_tail(); a static stub on the hook there swaps exactly then.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>

#define RG_BUF_SIZE	(8 * 1024)
/* More events than a sub-buffer page holds, so the tail has to move */
#define RG_MAX_EVENTS	4096

static struct {
	struct trace_buffer	*a;
	struct trace_buffer	*b;
	int			cpu;
	int			swaps;
	int			swap_ret;
} rg;

static int rg_init(struct kunit *test)
{
	rg.a = ring_buffer_alloc(RG_BUF_SIZE, RB_FL_OVERWRITE);
	KUNIT_ASSERT_NOT_NULL(test, rg.a);
	rg.b = ring_buffer_alloc(RG_BUF_SIZE, RB_FL_OVERWRITE);
	if (!rg.b) {
		ring_buffer_free(rg.a);
		KUNIT_FAIL_AND_ABORT(test, "no second buffer\n");
	}
	rg.cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current,
						   cpumask_of(rg.cpu)), 0);
	rg.swaps = 0;
	rg.swap_ret = 1;
	return 0;
}

static void rg_exit(struct kunit *test)
{
	ring_buffer_free(rg.a);
	ring_buffer_free(rg.b);
}

/*
 * What an IPI from "echo 1 > per_cpu/cpuN/snapshot" does, once, in the
 * test's own writes: an interrupt that moves the tail of another buffer
 * meanwhile comes here too, as the stub follows the current task.
 */
static void rg_swap_in_gap(struct ring_buffer_per_cpu *cpu_buffer)
{
	if (!in_task() || rg.swaps++)
		return;
	rg.swap_ret = ring_buffer_swap_cpu(rg.a, rg.b, rg.cpu);
}

/*
 * Guarded writes to buffer a until the swap has happened at a page move.
 * Returns how many of them were refused.
 */
static int rg_write_until_swapped(struct kunit *test)
{
	struct ring_buffer_event *event;
	int refused = 0;
	int i;

	for (i = 0; i < RG_MAX_EVENTS && !rg.swaps; i++) {
		preempt_disable();
		event = __ring_buffer_lock_reserve(rg.a, sizeof(u32));
		if (event) {
			*(u32 *)ring_buffer_event_data(event) = i;
			__ring_buffer_unlock_commit(rg.a);
		} else {
			refused++;
		}
		preempt_enable();
	}
	KUNIT_ASSERT_EQ_MSG(test, rg.swaps, 1, "the tail never moved");
	return refused;
}

/*
 * The write that hits the swap is dropped, both buffers go on recording,
 * and neither CPU buffer is left looking busy: a swap back succeeds.
 */
static void rg_test_swap_at_page_move(struct kunit *test)
{
	int refused;

	kunit_activate_static_stub(test, rb_test_after_move_tail_commit,
				   rg_swap_in_gap);
	refused = rg_write_until_swapped(test);
	kunit_deactivate_static_stub(test, rb_test_after_move_tail_commit);

	/* The swap found no writer busy: the window exists */
	KUNIT_EXPECT_EQ(test, rg.swap_ret, 0);
	KUNIT_EXPECT_EQ(test, refused, 1);

	/* Both still record (a warning would have stopped one), and swap */
	KUNIT_EXPECT_EQ(test, ring_buffer_write(rg.a, sizeof(u32), &refused),
			0);
	KUNIT_EXPECT_EQ(test, ring_buffer_write(rg.b, sizeof(u32), &refused),
			0);
	KUNIT_EXPECT_EQ(test, ring_buffer_swap_cpu(rg.a, rg.b, rg.cpu), 0);
}

/* Without a swap, a page move costs the guarded writer nothing */
static void rg_test_page_move_no_swap(struct kunit *test)
{
	unsigned long before = ring_buffer_entries_cpu(rg.a, rg.cpu);
	struct ring_buffer_event *event;
	int i;

	for (i = 0; i < RG_MAX_EVENTS / 4; i++) {
		preempt_disable();
		event = __ring_buffer_lock_reserve(rg.a, sizeof(u32));
		KUNIT_EXPECT_NOT_NULL(test, event);
		if (event) {
			*(u32 *)ring_buffer_event_data(event) = i;
			__ring_buffer_unlock_commit(rg.a);
		}
		preempt_enable();
	}
	KUNIT_EXPECT_EQ(test, ring_buffer_entries_cpu(rg.a, rg.cpu) +
			ring_buffer_overrun_cpu(rg.a, rg.cpu) - before,
			RG_MAX_EVENTS / 4);
	KUNIT_EXPECT_EQ(test, ring_buffer_write(rg.a, sizeof(u32), &i), 0);
}

static struct kunit_case rg_cases[] = {
	KUNIT_CASE(rg_test_swap_at_page_move),
	KUNIT_CASE(rg_test_page_move_no_swap),
	{}
};

static struct kunit_suite rg_suite = {
	.name = "ring_buffer_guarded",
	.init = rg_init,
	.exit = rg_exit,
	.test_cases = rg_cases,
};

kunit_test_suites(&rg_suite);

MODULE_DESCRIPTION("KUnit tests for guarded ring buffer writers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
