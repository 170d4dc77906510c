// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for ring_buffer_rewind_tail(): the removal of the last
 * committed event of a CPU buffer.
 *
 * The "ring_buffer_rewind" suite checks each rule with a private buffer
 * and a fake clock, so that sizes and time stamps can be asserted
 * exactly. The "ring_buffer_rewind_stress" suite runs writers in task and
 * hard interrupt context on every CPU against a consuming reader, and
 * checks afterwards that no rewound event was ever read and that every
 * event read back is intact and in time order.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/trace_clock.h>
#include <linux/vmalloc.h>
#include <asm/local.h>

#define RW_BUF_SIZE	(16 * 1024)
/* A data event with a four byte payload: header plus payload */
#define RW_EVENT_SIZE	8
/* The data of the smallest event that can become padding in place */
#define RW_PAD_DATA	12
/* The data of an event of about a quarter of a sub-buffer page */
#define RW_BIG_DATA	1024
/* A time extend that precedes an event whose delta does not fit */
#define RW_EXTEND_SIZE	8
/* The header of a sub-buffer page: its time stamp and commit index */
#define RW_PAGE_HDR_SIZE	(sizeof(u64) + sizeof(local_t))

static u64 rw_now;

static u64 rw_clock(void)
{
	return rw_now;
}

struct rw_ctx {
	struct trace_buffer	*buffer;
	int			cpu;
};

static int rw_init(struct kunit *test)
{
	struct rw_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->buffer = ring_buffer_alloc(RW_BUF_SIZE, RB_FL_OVERWRITE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->buffer);
	ring_buffer_set_clock(ctx->buffer, rw_clock);
	rw_now = 1000;
	/* Every write and rewind of a test happens on this CPU */
	ctx->cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current,
						   cpumask_of(ctx->cpu)), 0);
	test->priv = ctx;
	return 0;
}

static void rw_exit(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;

	ring_buffer_free(ctx->buffer);
}

/* Write one event at time @ts; fill @mark around it when given */
static bool rw_write(struct kunit *test, u32 val, u64 ts,
		     struct ring_buffer_rewind_mark *mark)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_event *event;
	bool marked = true;

	rw_now = ts;
	preempt_disable();
	if (mark)
		ring_buffer_rewind_mark_start(ctx->buffer, mark);
	event = ring_buffer_lock_reserve(ctx->buffer, sizeof(val));
	if (!event) {
		preempt_enable();
		KUNIT_FAIL_AND_ABORT(test, "no room for event %u\n", val);
	}
	*(u32 *)ring_buffer_event_data(event) = val;
	ring_buffer_unlock_commit(ctx->buffer);
	if (mark)
		marked = ring_buffer_rewind_mark_end(ctx->buffer, mark);
	preempt_enable();
	return marked;
}

/* Write one marked event of @len bytes of data at time @ts */
static void rw_write_len(struct kunit *test, u32 val, u64 ts, unsigned int len,
			 struct ring_buffer_rewind_mark *mark)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_event *event;

	rw_now = ts;
	preempt_disable();
	ring_buffer_rewind_mark_start(ctx->buffer, mark);
	event = ring_buffer_lock_reserve(ctx->buffer, len);
	if (!event) {
		preempt_enable();
		KUNIT_FAIL_AND_ABORT(test, "no room for event %u\n", val);
	}
	memset(ring_buffer_event_data(event), 0, len);
	*(u32 *)ring_buffer_event_data(event) = val;
	ring_buffer_unlock_commit(ctx->buffer);
	KUNIT_EXPECT_TRUE(test, ring_buffer_rewind_mark_end(ctx->buffer, mark));
	preempt_enable();
}

static int rw_rewind(struct kunit *test, struct ring_buffer_rewind_mark *mark)
{
	struct rw_ctx *ctx = test->priv;
	int ret;

	preempt_disable();
	ret = ring_buffer_rewind_tail(ctx->buffer, mark);
	preempt_enable();
	return ret;
}

/* Consume the next event and check its value and time stamp */
static void rw_expect_event(struct kunit *test, u32 val, u64 ts)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_event *event;
	u64 got_ts = 0;

	event = ring_buffer_consume(ctx->buffer, ctx->cpu, &got_ts, NULL);
	KUNIT_ASSERT_NOT_NULL(test, event);
	KUNIT_EXPECT_EQ(test, *(u32 *)ring_buffer_event_data(event), val);
	KUNIT_EXPECT_EQ(test, got_ts, ts);
}

static void rw_expect_empty(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;

	KUNIT_EXPECT_NULL(test, ring_buffer_consume(ctx->buffer, ctx->cpu,
						    NULL, NULL));
}

static unsigned long rw_entries(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;

	return ring_buffer_entries_cpu(ctx->buffer, ctx->cpu);
}

static unsigned long rw_bytes(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;

	return ring_buffer_bytes_cpu(ctx->buffer, ctx->cpu);
}

static void rw_expect_padded(struct kunit *test, unsigned long padded)
{
	struct rw_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test,
			ring_buffer_padded_events_cpu(ctx->buffer, ctx->cpu),
			padded);
}

static void rw_expect_page_ends(struct kunit *test, unsigned long page_ends)
{
	struct rw_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test,
			ring_buffer_padded_page_ends_cpu(ctx->buffer, ctx->cpu),
			page_ends);
}

static void rw_expect_counts(struct kunit *test, unsigned long done,
			     unsigned long refused)
{
	struct rw_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test, ring_buffer_rewinds_cpu(ctx->buffer, ctx->cpu),
			done);
	KUNIT_EXPECT_EQ(test,
			ring_buffer_rewinds_refused_cpu(ctx->buffer, ctx->cpu),
			refused);
}

/*
 * The basic case: the last event goes away, the counts drop back, and
 * the next event is stamped relative to the event before the removed
 * one, with no extra time stamp.
 */
static void rw_test_after_commit(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;
	unsigned long bytes;

	rw_write(test, 1, 1000, NULL);
	bytes = rw_bytes(test);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 2000, &mark));
	KUNIT_EXPECT_EQ(test, rw_entries(test), 2UL);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes + RW_EVENT_SIZE);

	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 1UL);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes);
	rw_expect_counts(test, 1, 0);

	/* A mark is used up by a successful rewind */
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 1UL);
	rw_expect_counts(test, 1, 1);

	rw_write(test, 3, 3000, NULL);
	/* Same size as before: the delta from event 1 was usable */
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes + RW_EVENT_SIZE);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 3, 3000);
	rw_expect_empty(test);
}

/* A removed event that needed a time extend takes the extend with it */
static void rw_test_time_extend(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;
	unsigned long bytes;

	rw_write(test, 1, 1000, NULL);
	bytes = rw_bytes(test);
	/* A delta of 2^30 ns does not fit in the event header */
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 1000 + (1ULL << 30), &mark));
	KUNIT_EXPECT_EQ(test, rw_bytes(test),
			bytes + RW_EVENT_SIZE + RW_EXTEND_SIZE);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes);

	rw_write(test, 3, 1500, NULL);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes + RW_EVENT_SIZE);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 3, 1500);
	rw_expect_empty(test);
}

/* Events nested like calls come back off in stack order */
static void rw_test_nested(struct kunit *test)
{
	struct ring_buffer_rewind_mark outer, inner;

	rw_write(test, 1, 1000, NULL);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 1100, &outer));
	KUNIT_ASSERT_TRUE(test, rw_write(test, 3, 1200, &inner));

	KUNIT_EXPECT_EQ(test, rw_rewind(test, &inner), 0);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &outer), 0);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 1UL);
	rw_expect_counts(test, 2, 0);
	rw_expect_padded(test, 0);

	rw_write(test, 4, 1300, NULL);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 4, 1300);
	rw_expect_empty(test);
}

/*
 * An event with anything written after it cannot be removed: it becomes
 * padding in place, keeps its room, and the later events their stamps.
 */
static void rw_test_later_event(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;
	unsigned long bytes;

	rw_write(test, 1, 1000, NULL);
	rw_write_len(test, 2, 2000, RW_PAD_DATA, &mark);
	rw_write(test, 3, 3000, NULL);
	bytes = rw_bytes(test);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 2UL);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes);
	rw_expect_counts(test, 0, 0);
	rw_expect_padded(test, 1);
	/* A mark is used up by padding too */
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EINVAL);
	rw_write(test, 4, 4000, NULL);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 3, 3000);
	rw_expect_event(test, 4, 4000);
	rw_expect_empty(test);
}

/* An 8 byte event cannot keep its time delta as padding: it stays */
static void rw_test_later_event_small(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;

	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	rw_write(test, 2, 2000, NULL);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	rw_expect_counts(test, 0, 1);
	rw_expect_padded(test, 0);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 2, 2000);
	rw_expect_empty(test);
}

/*
 * A rewind takes back the padding that follows its event: the entries of
 * a call's children that had to be padded go with the call's entry.
 */
static void rw_test_padding_run(struct kunit *test)
{
	struct ring_buffer_rewind_mark outer, inner, irq;
	unsigned long bytes;

	rw_write(test, 1, 1000, NULL);
	bytes = rw_bytes(test);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 1100, &outer));
	rw_write_len(test, 3, 1200, RW_PAD_DATA, &inner);
	/* Something else that writes after the inner event, and goes */
	KUNIT_ASSERT_TRUE(test, rw_write(test, 4, 1300, &irq));
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &inner), 0);
	rw_expect_padded(test, 1);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &irq), 0);
	/* Now only the padded inner event follows the outer one */
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &outer), 0);
	rw_expect_counts(test, 2, 0);
	/* The padding went with it: none is left in the buffer */
	rw_expect_padded(test, 0);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 1UL);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes);

	/* The next event is stamped from event 1, with no extra stamp */
	rw_write(test, 5, 1500, NULL);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes + RW_EVENT_SIZE);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 5, 1500);
	rw_expect_empty(test);
}

/* Data after the padding keeps the outer event in place: padded too */
static void rw_test_padding_then_data(struct kunit *test)
{
	struct ring_buffer_rewind_mark outer, inner;

	rw_write_len(test, 1, 1000, RW_PAD_DATA, &outer);
	rw_write_len(test, 2, 1100, RW_PAD_DATA, &inner);
	rw_write(test, 3, 1200, NULL);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &inner), 0);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &outer), 0);
	rw_expect_counts(test, 0, 0);
	rw_expect_padded(test, 2);
	rw_expect_event(test, 3, 1200);
	rw_expect_empty(test);
}

/*
 * Padding alone is nothing to read: the buffer is empty for its readers,
 * which would otherwise ask for an event again and again (trace_pipe
 * spun in the kernel).
 */
static void rw_test_padding_alone(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark first, second;

	rw_write_len(test, 1, 1000, RW_PAD_DATA, &first);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 1100, &second));
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &first), 0);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &second), 0);
	rw_expect_padded(test, 1);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 0UL);
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty(ctx->buffer));
	rw_expect_empty(test);

	rw_write(test, 3, 1200, NULL);
	KUNIT_EXPECT_FALSE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	rw_expect_event(test, 3, 1200);
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
}

/* A consuming reader took the page: it may have read the event */
static void rw_test_consumed(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;

	rw_write(test, 1, 1000, NULL);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 2000, &mark));
	rw_expect_event(test, 1, 1000);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	rw_expect_counts(test, 0, 1);
	rw_expect_event(test, 2, 2000);
	rw_expect_empty(test);
}

/* A peek swaps the page in too, even without consuming */
static void rw_test_peeked(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;

	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	KUNIT_ASSERT_NOT_NULL(test, ring_buffer_peek(ctx->buffer, ctx->cpu,
						     NULL, NULL));
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	rw_expect_event(test, 1, 1000);
}

/*
 * The page boundary is never crossed backwards. The event that opened a
 * page is removed by emptying that page; the last event of the page
 * before is behind the boundary and becomes padding.
 */
static void rw_test_page_boundary(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark last, first, second;
	unsigned int room = ring_buffer_subbuf_size_get(ctx->buffer) -
			    RW_PAGE_HDR_SIZE;
	u32 n = room / RW_EVENT_SIZE;
	unsigned long bytes;
	u32 i;

	/* Fill the first page (the last event takes two slots) */
	for (i = 1; i < n - 1; i++)
		rw_write(test, i, 1000 + i, NULL);
	rw_write_len(test, n - 1, 1000 + n - 1, RW_PAD_DATA, &last);
	/* The next event does not fit, and opens the next page */
	KUNIT_ASSERT_TRUE(test, rw_write(test, n, 1000 + n, &first));
	bytes = rw_bytes(test) - RW_EVENT_SIZE;
	KUNIT_ASSERT_TRUE(test, rw_write(test, n + 1, 1000 + n + 1, &second));

	KUNIT_EXPECT_EQ(test, rw_rewind(test, &second), 0);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &first), 0);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes);
	/* Padding is left at the page end when the page was not full */
	rw_expect_page_ends(test, room % RW_EVENT_SIZE ? 1 : 0);
	/* The tail stays on the new page: the last event is padded */
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &last), 0);
	rw_expect_counts(test, 2, 0);
	rw_expect_padded(test, 1);

	rw_write(test, n + 2, 1000 + n + 2, NULL);
	KUNIT_EXPECT_EQ(test, rw_entries(test), (unsigned long)n - 1);
	for (i = 1; i < n - 1; i++)
		rw_expect_event(test, i, 1000 + i);
	rw_expect_event(test, n + 2, 1000 + n + 2);
	rw_expect_empty(test);
}

/*
 * An event that did not fit in the room left on a page opened the next
 * one and left that room as padding. Removing the event empties the new
 * page; the padding stays, in the bytes, and is counted as a page end.
 */
static void rw_test_page_end_padding(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark first;
	unsigned int room = ring_buffer_subbuf_size_get(ctx->buffer) -
			    RW_PAGE_HDR_SIZE;
	/* Leave 8 to 15 bytes: room for padding, not for the next event */
	u32 n = (room - RW_EVENT_SIZE) / RW_EVENT_SIZE;
	unsigned int left = room - n * RW_EVENT_SIZE;
	unsigned long bytes;
	u32 i;

	for (i = 1; i <= n; i++)
		rw_write(test, i, 1000 + i, NULL);
	bytes = rw_bytes(test);
	rw_write_len(test, n + 1, 1000 + n + 1, RW_PAD_DATA, &first);
	KUNIT_EXPECT_EQ(test, rw_bytes(test),
			bytes + left + sizeof(u32) + RW_PAD_DATA);
	rw_expect_page_ends(test, 0);

	KUNIT_EXPECT_EQ(test, rw_rewind(test, &first), 0);
	rw_expect_counts(test, 1, 0);
	rw_expect_padded(test, 0);
	rw_expect_page_ends(test, 1);
	KUNIT_EXPECT_EQ(test, rw_entries(test), (unsigned long)n);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes + left);

	for (i = 1; i <= n; i++)
		rw_expect_event(test, i, 1000 + i);
	rw_expect_empty(test);
}

/* Reserve and commit an event of @len bytes of data; false if it failed */
static bool rw_try_write(struct kunit *test, u64 ts, unsigned int len)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_event *event;

	rw_now = ts;
	preempt_disable();
	event = ring_buffer_lock_reserve(ctx->buffer, len);
	if (event) {
		memset(ring_buffer_event_data(event), 0, len);
		ring_buffer_unlock_commit(ctx->buffer);
	}
	preempt_enable();
	return !!event;
}

/*
 * A reservation that failed after the event, in a full buffer that does
 * not overwrite, left padding up to the end of the page. The rewind
 * takes it back with the event, but no event was padded there: the
 * count of padded events stays as it was.
 */
static void rw_test_failed_reserve(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	unsigned long bytes;
	u32 i, n;

	ring_buffer_free(ctx->buffer);
	ctx->buffer = ring_buffer_alloc(RW_BUF_SIZE, 0);
	KUNIT_ASSERT_NOT_NULL(test, ctx->buffer);
	ring_buffer_set_clock(ctx->buffer, rw_clock);

	/* How many events of a quarter page fit */
	for (n = 0; rw_try_write(test, 1000 + n, RW_BIG_DATA); n++)
		;
	KUNIT_ASSERT_GT(test, n, 1U);
	ring_buffer_reset_cpu(ctx->buffer, ctx->cpu);

	/* As many again, the last one marked, and one more that fails */
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_TRUE(test, rw_try_write(test, 1000 + i, RW_BIG_DATA));
	bytes = rw_bytes(test);
	rw_write_len(test, n, 1000 + n, RW_BIG_DATA, &mark);
	KUNIT_ASSERT_FALSE(test, rw_try_write(test, 2000 + n, RW_BIG_DATA));

	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	rw_expect_counts(test, 1, 0);
	rw_expect_padded(test, 0);
	rw_expect_page_ends(test, 0);
	KUNIT_EXPECT_EQ(test, rw_entries(test), (unsigned long)n - 1);
	KUNIT_EXPECT_EQ(test, rw_bytes(test), bytes);
}

/* A "reader" that consumes events from the padding's test hook */
static struct {
	struct trace_buffer	*buffer;
	int			cpu;
	int			events;
} rw_leaver;

static void rw_reader_leaves(struct trace_buffer *buffer,
			     enum rb_rewind_point point)
{
	if (buffer != rw_leaver.buffer || point != RB_PAD_BEFORE_TAKES)
		return;
	for (; rw_leaver.events > 0; rw_leaver.events--)
		if (!ring_buffer_consume(buffer, rw_leaver.cpu, NULL, NULL))
			break;
}

/*
 * Quarter page events after the marked one, enough to fill its page and
 * open the next one; returns how many.
 */
static int rw_fill_past_page(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	int i, n = ring_buffer_subbuf_size_get(ctx->buffer) / RW_BIG_DATA + 1;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_TRUE(test, rw_try_write(test, 3000 + i,
						     RW_BIG_DATA));
	return n;
}

/*
 * The reader takes the page being written, then reads the marked event,
 * the smallest that can become padding, on it. Returns how many events
 * follow it, on its page and the next.
 */
static int rw_read_marked(struct kunit *test,
			  struct ring_buffer_rewind_mark *mark)
{
	rw_write(test, 1, 1000, NULL);
	rw_expect_event(test, 1, 1000);
	rw_write_len(test, 2, 2000, RW_PAD_DATA, mark);
	rw_expect_event(test, 2, 2000);
	return rw_fill_past_page(test);
}

/*
 * The reader would leave the page of the event it read while the
 * padding is tested, between the test of the reader page and that of
 * the page's takes: the padding must be refused by the first, before the
 * reader moves. Tested the other way round, the takes would be loaded
 * before the reader moves and the reader page after, and neither would
 * show the reader.
 */
static void rw_test_pad_reader_leaves(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	int n = rw_read_marked(test, &mark);

	rw_leaver.buffer = ctx->buffer;
	rw_leaver.cpu = ctx->cpu;
	rw_leaver.events = n;
	kunit_activate_static_stub(test, rb_test_rewind_point,
				   rw_reader_leaves);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	kunit_deactivate_static_stub(test, rb_test_rewind_point);
	KUNIT_EXPECT_EQ(test, rw_leaver.events, n);
	rw_expect_counts(test, 0, 1);
	rw_expect_padded(test, 0);
}

/* The reader read the event and left its page: the takes show it */
static void rw_test_pad_reader_left(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;
	int i, n = rw_read_marked(test, &mark);

	for (i = 0; i < n; i++)
		rw_expect_event(test, 0, 3000 + i);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	rw_expect_counts(test, 0, 1);
	rw_expect_padded(test, 0);
}

/* A reset in between: the same position means a different event now */
static void rw_test_reset(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;

	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	ring_buffer_reset_cpu(ctx->buffer, ctx->cpu);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 0UL);
	/* Same size at the same place as the marked event */
	rw_write(test, 2, 2000, NULL);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 1UL);
	rw_expect_counts(test, 0, 1);
	rw_expect_event(test, 2, 2000);
	rw_expect_empty(test);
}

/* Nothing is taken back while recording is off or an iterator reads */
static void rw_test_disabled(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	struct ring_buffer_iter *iter;

	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	ring_buffer_record_disable_cpu(ctx->buffer, ctx->cpu);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	ring_buffer_record_enable_cpu(ctx->buffer, ctx->cpu);

	iter = ring_buffer_read_start(ctx->buffer, ctx->cpu, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, iter);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	ring_buffer_read_finish(iter);

	rw_expect_counts(test, 0, 2);
	/* Both gone: the mark still works */
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	rw_expect_empty(test);
}

/*
 * An "NMI" that writes one event at a given point of a rewind, through a
 * static stub on the rewind's test hook: the moments no interrupt can
 * reach, since the rewind runs with interrupts off.
 */
static struct {
	struct trace_buffer	*buffer;
	enum rb_rewind_point	point;
	u32			val;
	u64			ts;
	int			written;
} rw_nmi;

static void rw_nmi_write(struct trace_buffer *buffer,
			 enum rb_rewind_point point)
{
	struct ring_buffer_event *event;

	if (buffer != rw_nmi.buffer || point != rw_nmi.point || rw_nmi.written)
		return;
	rw_now = rw_nmi.ts;
	event = ring_buffer_lock_reserve(buffer, sizeof(u32));
	if (!event)
		return;
	*(u32 *)ring_buffer_event_data(event) = rw_nmi.val;
	ring_buffer_unlock_commit(buffer);
	rw_nmi.written = 1;
}

/* Have the "NMI" write @val at time @ts once the code reaches @point */
static void rw_nmi_arm(struct kunit *test, enum rb_rewind_point point,
		       u32 val, u64 ts)
{
	struct rw_ctx *ctx = test->priv;

	rw_nmi.buffer = ctx->buffer;
	rw_nmi.point = point;
	rw_nmi.val = val;
	rw_nmi.ts = ts;
	rw_nmi.written = 0;
	kunit_activate_static_stub(test, rb_test_rewind_point, rw_nmi_write);
}

static int rw_rewind_with_nmi(struct kunit *test,
			      struct ring_buffer_rewind_mark *mark,
			      enum rb_rewind_point point, u32 val, u64 ts)
{
	int ret;

	rw_nmi_arm(test, point, val, ts);
	ret = rw_rewind(test, mark);
	kunit_deactivate_static_stub(test, rb_test_rewind_point);
	KUNIT_EXPECT_EQ(test, rw_nmi.written, 1);
	return ret;
}

/*
 * An interrupt event after the tests of a mark's end, before the end is
 * read: the mark must not take it in, or removing the marked event would
 * remove the interrupt's too.
 */
static void rw_test_irq_in_mark_end(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;
	bool marked;

	rw_write(test, 1, 1000, NULL);
	rw_nmi_arm(test, RB_MARK_END_BEFORE_END, 3, 3000);
	marked = rw_write(test, 2, 2000, &mark);
	kunit_deactivate_static_stub(test, rb_test_rewind_point);
	KUNIT_EXPECT_EQ(test, rw_nmi.written, 1);
	KUNIT_EXPECT_FALSE(test, marked);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EINVAL);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 2, 2000);
	rw_expect_event(test, 3, 3000);
	rw_expect_empty(test);
}

/*
 * An NMI event after the checks, before the write index moves back: the
 * move fails, the event's commit comes back and both events are read.
 */
static void rw_test_nmi_before_move(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;

	rw_write(test, 1, 1000, NULL);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 2000, &mark));
	KUNIT_EXPECT_EQ(test, rw_rewind_with_nmi(test, &mark,
						 RB_REWIND_BEFORE_MOVE,
						 3, 3000), -EBUSY);
	rw_expect_counts(test, 0, 1);
	KUNIT_EXPECT_EQ(test, rw_entries(test), 3UL);
	rw_write(test, 4, 4000, NULL);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 2, 2000);
	rw_expect_event(test, 3, 3000);
	rw_expect_event(test, 4, 4000);
	rw_expect_empty(test);
}

/*
 * An NMI event where the removed one was, before the time stamps are
 * restored: they must not be, or the next event would be stamped
 * relative to the event before the removed one instead of the NMI's.
 */
static void rw_test_nmi_after_move(struct kunit *test)
{
	struct ring_buffer_rewind_mark mark;

	rw_write(test, 1, 1000, NULL);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 2000, &mark));
	KUNIT_EXPECT_EQ(test, rw_rewind_with_nmi(test, &mark,
						 RB_REWIND_AFTER_MOVE,
						 3, 3000), 0);
	rw_expect_counts(test, 1, 0);
	rw_write(test, 4, 4000, NULL);
	rw_expect_event(test, 1, 1000);
	rw_expect_event(test, 3, 3000);
	rw_expect_event(test, 4, 4000);
	rw_expect_empty(test);
}

/*
 * The marked event fills its page exactly, and an NMI event before the
 * move goes to the next page: the page's write index stays where the
 * checks expect it, so the event is still removed, but the time stamps
 * must not come back, since the NMI's event follows the one before.
 */
static void rw_test_nmi_exact_fill(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	unsigned int room = ring_buffer_subbuf_size_get(ctx->buffer) -
			    RW_PAGE_HDR_SIZE;
	unsigned int n = (room - 64) / RW_EVENT_SIZE;
	unsigned int last = room - n * RW_EVENT_SIZE;
	u32 i;

	/* The first event of the page has no delta: n events of 8 bytes */
	for (i = 1; i <= n; i++)
		rw_write(test, i, 1000 + i, NULL);
	/* And one with the 4 byte header that takes the rest of the page */
	rw_write_len(test, n + 1, 1000 + n + 1, last - 4, &mark);
	KUNIT_ASSERT_EQ(test, rw_bytes(test),
			(unsigned long)n * RW_EVENT_SIZE + last);

	KUNIT_EXPECT_EQ(test, rw_rewind_with_nmi(test, &mark,
						 RB_REWIND_BEFORE_MOVE,
						 n + 2, 5000), 0);
	rw_write(test, n + 3, 6000, NULL);
	for (i = 1; i <= n; i++)
		rw_expect_event(test, i, 1000 + i);
	rw_expect_event(test, n + 2, 5000);
	rw_expect_event(test, n + 3, 6000);
	rw_expect_empty(test);
}

/* A snapshot swap of the CPU buffer, or a resize, comes in between */
static void rw_test_swapped(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	struct trace_buffer *other;

	if (!IS_ENABLED(CONFIG_RING_BUFFER_ALLOW_SWAP))
		kunit_skip(test, "needs CONFIG_RING_BUFFER_ALLOW_SWAP");
	other = ring_buffer_alloc(RW_BUF_SIZE, RB_FL_OVERWRITE);
	KUNIT_ASSERT_NOT_NULL(test, other);
	ring_buffer_set_clock(other, rw_clock);

	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	KUNIT_EXPECT_EQ(test, ring_buffer_swap_cpu(ctx->buffer, other,
						   ctx->cpu), 0);
	/* Another CPU buffer now, with a page at the same offset */
	rw_write(test, 2, 2000, NULL);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	/* And the same one again */
	KUNIT_EXPECT_EQ(test, ring_buffer_swap_cpu(ctx->buffer, other,
						   ctx->cpu), 0);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	rw_expect_event(test, 1, 1000);
	rw_expect_empty(test);
	ring_buffer_free(other);
}

static void rw_test_resized(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;

	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	KUNIT_ASSERT_EQ(test, ring_buffer_resize(ctx->buffer, 2 * RW_BUF_SIZE,
						 ctx->cpu), 0);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	rw_expect_counts(test, 0, 1);
	rw_expect_event(test, 1, 1000);
	rw_expect_empty(test);
}

/*
 * A splice reader (ring_buffer_read_page()) takes the page with the
 * event, as a consuming reader does.
 */
static void rw_test_spliced(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	struct buffer_data_read_page *rpage;
	int ret;

	rw_write(test, 1, 1000, NULL);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 2, 2000, &mark));
	KUNIT_ASSERT_EQ(test, ring_buffer_alloc_read_page(ctx->buffer,
							  ctx->cpu, &rpage),
			0);
	ret = ring_buffer_read_page(ctx->buffer, rpage,
				    ring_buffer_subbuf_size_get(ctx->buffer),
				    ctx->cpu, 0);
	KUNIT_EXPECT_GE(test, ret, 0);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), -EBUSY);
	rw_expect_counts(test, 0, 1);
	ring_buffer_free_read_page(ctx->buffer, ctx->cpu, rpage);
	rw_expect_empty(test);
}

/*
 * Fill the page being written with events i at 1000 + i, then write one
 * that opens the next page at @next_ts, marked when @mark is given.
 * Returns how many filled the page.
 */
static u32 rw_fill_page(struct kunit *test, u64 next_ts,
			struct ring_buffer_rewind_mark *mark)
{
	struct rw_ctx *ctx = test->priv;
	unsigned int room = ring_buffer_subbuf_size_get(ctx->buffer) -
			    RW_PAGE_HDR_SIZE;
	u32 n = room / RW_EVENT_SIZE;
	u32 i;

	for (i = 1; i <= n; i++)
		rw_write(test, i, 1000 + i, NULL);
	KUNIT_ASSERT_TRUE(test, rw_write(test, n + 1, next_ts, mark));
	return n;
}

/*
 * A reader that took an older page while an event was open cannot have
 * read the event: it can still be padded. Only a take of the event's own
 * page refuses that (rw_test_consumed).
 */
static void rw_test_padding_older_page(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	u32 i, n;

	n = rw_fill_page(test, 2000, NULL);
	rw_write_len(test, n + 2, 2001, RW_PAD_DATA, &mark);
	/* Written after the marked event: it can only be padded now */
	rw_write(test, n + 3, 2002, NULL);
	rw_now = 2600;
	for (i = 1; i <= n; i++)
		rw_expect_event(test, i, 1000 + i);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	rw_expect_counts(test, 0, 0);
	rw_expect_padded(test, 1);

	ring_buffer_record_off(ctx->buffer);
	rw_expect_event(test, n + 1, 2000);
	rw_expect_event(test, n + 3, 2002);
	rw_expect_empty(test);
}

/*
 * With a rewind window, a consuming reader leaves a page alone until its
 * newest event, bounded by the first event of the next page, is older
 * than the window. It does not take the page being written: a window
 * after its last event, the writer's CPU moves the writer on. What the
 * reader leaves can still be rewound. When recording stops, the reader
 * gets everything.
 */
static void rw_test_window(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	u32 i, n;

	ring_buffer_set_rewind_window(ctx->buffer, 500);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	rw_now = 1499;
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	rw_expect_empty(test);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);

	n = rw_fill_page(test, 2000, NULL);
	/* Enough on the next page that an event cannot fill the rest */
	for (i = 2; i <= 5; i++)
		rw_write(test, n + i, 2100 + i, NULL);
	KUNIT_ASSERT_TRUE(test, rw_write(test, n + 6, 2400, &mark));
	rw_now = 2499;
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	rw_expect_empty(test);
	rw_now = 2500;
	KUNIT_EXPECT_FALSE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	for (i = 1; i <= n; i++)
		rw_expect_event(test, i, 1000 + i);
	/* The page being written holds an event younger than the window */
	rw_expect_empty(test);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	rw_expect_counts(test, 2, 0);

	/*
	 * The writer went idle: a window after its last event, its CPU is
	 * asked to move it on, and the page goes a window after the move.
	 */
	rw_now = 2604;
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	rw_now = 2605;
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	/* The move runs from an irq_work on this CPU */
	msleep(20);
	rw_now = 3104;
	KUNIT_EXPECT_TRUE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	rw_now = 3105;
	KUNIT_EXPECT_FALSE(test, ring_buffer_empty_cpu(ctx->buffer, ctx->cpu));
	rw_expect_event(test, n + 1, 2000);
	for (i = 2; i <= 5; i++)
		rw_expect_event(test, n + i, 2100 + i);
	rw_expect_empty(test);

	/* The writer now writes to the next page, where it can rewind */
	KUNIT_ASSERT_TRUE(test, rw_write(test, n + 8, 3200, &mark));
	rw_now = 3300;
	rw_expect_empty(test);
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	rw_expect_counts(test, 3, 0);

	rw_write(test, n + 9, 3400, NULL);
	rw_expect_empty(test);
	ring_buffer_record_off(ctx->buffer);
	rw_expect_event(test, n + 9, 3400);
	rw_expect_empty(test);
}

/* Tests of the counting waiter's condition: one per wakeup */
static atomic_t rw_waiter_tests;

static bool rw_count_cond(void *data)
{
	atomic_inc(&rw_waiter_tests);
	return false;
}

/* Waits once for data on the test's CPU, as trace_pipe does */
static int rw_waiter_fn(void *arg)
{
	struct rw_ctx *ctx = arg;

	ring_buffer_wait(ctx->buffer, ctx->cpu, 0, rw_count_cond, NULL);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/*
 * With a rewind window, a writer wakes the waiters for data when it
 * moves to another page, not for every event: they could not read it.
 */
static void rw_test_window_wakeups(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct task_struct *waiter;
	int before;
	u32 i;

	/* Long enough that the window's timer does not wake the waiter */
	ring_buffer_set_rewind_window(ctx->buffer, 2 * NSEC_PER_SEC);
	atomic_set(&rw_waiter_tests, 0);
	waiter = kthread_run(rw_waiter_fn, ctx, "rb_rw_waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(waiter));
	/* Let it block */
	msleep(20);
	before = atomic_read(&rw_waiter_tests);
	for (i = 1; i <= 20; i++) {
		rw_write(test, i, 1000 + i, NULL);
		/* Let a woken waiter test its condition and wait again */
		msleep(20);
	}
	/* The first event came to a new page; the others did not */
	KUNIT_EXPECT_LE(test, atomic_read(&rw_waiter_tests) - before, 1);

	/* Without the window, the events can be read: the wait ends */
	ring_buffer_set_rewind_window(ctx->buffer, 0);
	kthread_stop(waiter);
	for (i = 1; i <= 20; i++)
		rw_expect_event(test, i, 1000 + i);
	rw_expect_empty(test);
}

/*
 * With a rewind window, a waiter that an event woke does not forbid the
 * removal of that event: the reader cannot take the page being written.
 */
static void rw_test_window_woken(struct kunit *test)
{
	struct rw_ctx *ctx = test->priv;
	struct ring_buffer_rewind_mark mark;
	struct task_struct *waiter;

	ring_buffer_set_rewind_window(ctx->buffer, 500);
	waiter = kthread_run(rw_waiter_fn, ctx, "rb_rw_waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(waiter));
	/* Let it block: the event below then wakes it */
	msleep(20);
	KUNIT_ASSERT_TRUE(test, rw_write(test, 1, 1000, &mark));
	KUNIT_EXPECT_EQ(test, rw_rewind(test, &mark), 0);
	rw_expect_counts(test, 1, 0);

	/* Something to read once the window goes, which ends the wait */
	rw_write(test, 2, 1100, NULL);
	ring_buffer_set_rewind_window(ctx->buffer, 0);
	kthread_stop(waiter);
	rw_expect_event(test, 2, 1100);
	rw_expect_empty(test);
}

static struct kunit_case rw_cases[] = {
	KUNIT_CASE(rw_test_after_commit),
	KUNIT_CASE(rw_test_time_extend),
	KUNIT_CASE(rw_test_nested),
	KUNIT_CASE(rw_test_later_event),
	KUNIT_CASE(rw_test_later_event_small),
	KUNIT_CASE(rw_test_padding_run),
	KUNIT_CASE(rw_test_padding_then_data),
	KUNIT_CASE(rw_test_padding_alone),
	KUNIT_CASE(rw_test_consumed),
	KUNIT_CASE(rw_test_peeked),
	KUNIT_CASE(rw_test_page_boundary),
	KUNIT_CASE(rw_test_page_end_padding),
	KUNIT_CASE(rw_test_failed_reserve),
	KUNIT_CASE(rw_test_pad_reader_leaves),
	KUNIT_CASE(rw_test_pad_reader_left),
	KUNIT_CASE(rw_test_reset),
	KUNIT_CASE(rw_test_disabled),
	KUNIT_CASE(rw_test_irq_in_mark_end),
	KUNIT_CASE(rw_test_nmi_before_move),
	KUNIT_CASE(rw_test_nmi_after_move),
	KUNIT_CASE(rw_test_nmi_exact_fill),
	KUNIT_CASE(rw_test_swapped),
	KUNIT_CASE(rw_test_resized),
	KUNIT_CASE(rw_test_spliced),
	KUNIT_CASE(rw_test_padding_older_page),
	KUNIT_CASE(rw_test_window),
	KUNIT_CASE(rw_test_window_wakeups),
	KUNIT_CASE(rw_test_window_woken),
	{}
};

static struct kunit_suite rw_suite = {
	.name = "ring_buffer_rewind",
	.init = rw_init,
	.exit = rw_exit,
	.test_cases = rw_cases,
};

/* ---- stress ---- */

static unsigned int stress_seconds = 10;
module_param(stress_seconds, uint, 0444);
MODULE_PARM_DESC(stress_seconds, "how long the stress test runs");

/* Ids per stream and second: about twice what a fast host writes */
#define ST_IDS_PER_SECOND	SZ_256K
#define ST_DEPTH	6
#define ST_MAGIC	0x5eed1e55U

/* Stream 2 * cpu is the CPU's kthread, 2 * cpu + 1 its hrtimer */
struct st_stream {
	unsigned long	*rewound;
	unsigned long	*seen;
	/* Rewinds that returned 0 for an event the reader had read */
	unsigned long	rewound_read;
	u32		first_rewound_read;
	bool		first_rewound_read_padded;
	u32		next_id;
	u32		last_seen;
	bool		any_seen;
};

struct st_payload {
	u32	id;
	u32	stream;
	u32	check;
	u64	clock;
};

struct st_cpu {
	struct hrtimer		timer;
	struct task_struct	*writer;
	struct rnd_state	rnd;
	struct rnd_state	irq_rnd;
	unsigned long		cycles;
	unsigned long		irq_cycles;
	unsigned long		misorders;
	u64			last_ts;
};

static struct {
	struct trace_buffer	*buffer;
	struct st_stream	*streams;
	struct st_cpu		*cpus;
	u32			ids;
	bool			stop;
	unsigned long		read;
	/* Events read although their rewind had returned 0 before */
	unsigned long		read_rewound;
	u32			first_read_rewound_stream;
	u32			first_read_rewound_id;
	unsigned long		corrupt;
	unsigned long		backwards;
	unsigned long		late;
	/* The first late and backwards events, to say what went wrong */
	u64			first_late_by;
	u64			first_back_by;
	u32			first_late_stream;
	u32			first_late_id;
	unsigned long		first_late_read;
	unsigned long		first_back_read;
} st;

static u32 st_check(u32 id, u32 stream)
{
	return (id * 2654435761U) ^ stream ^ ST_MAGIC;
}

/* Write one event of @stream, return whether it is marked */
static bool st_write(u32 stream, u32 *id, struct ring_buffer_rewind_mark *m,
		     struct ring_buffer_event **written)
{
	struct st_stream *s = &st.streams[stream];
	struct ring_buffer_event *event;
	struct st_payload *p;

	if (s->next_id >= st.ids)
		return false;
	*id = s->next_id++;
	ring_buffer_rewind_mark_start(st.buffer, m);
	event = ring_buffer_lock_reserve(st.buffer, sizeof(*p));
	if (!event) {
		m->cpu = -1;
		return false;
	}
	*written = event;
	p = ring_buffer_event_data(event);
	p->id = *id;
	p->stream = stream;
	p->check = st_check(*id, stream);
	p->clock = trace_clock_local();
	ring_buffer_unlock_commit(st.buffer);
	ring_buffer_rewind_mark_end(st.buffer, m);
	return true;
}

/*
 * A rewind said it took back an event that the reader had already read:
 * remember the first one, and whether it was removed or padded in place,
 * which turns the event's header into a time extend or padding.
 */
static void st_rewound_read(struct st_stream *s, u32 id,
			    struct ring_buffer_event *event)
{
	if (!s->rewound_read++) {
		s->first_rewound_read = id;
		s->first_rewound_read_padded =
			event->type_len > RINGBUF_TYPE_DATA_TYPE_LEN_MAX;
	}
}

/* Write up to @depth nested events, then rewind them innermost first */
static void st_cycle(u32 stream, struct rnd_state *rnd, int depth)
{
	struct ring_buffer_rewind_mark marks[ST_DEPTH];
	struct ring_buffer_event *events[ST_DEPTH];
	struct st_stream *s = &st.streams[stream];
	u32 ids[ST_DEPTH];
	bool written[ST_DEPTH];
	bool kept_inner = false;
	unsigned long flags;
	int i;

	for (i = 0; i < depth; i++)
		written[i] = st_write(stream, &ids[i], &marks[i], &events[i]);

	for (i = depth - 1; i >= 0; i--) {
		int ret;

		if (!written[i])
			continue;
		/*
		 * One call in eight is slow and stays, and so do its callers,
		 * as in the function graph tracer.
		 */
		if (kept_inner || !(prandom_u32_state(rnd) & 7)) {
			kept_inner = true;
			continue;
		}
		/*
		 * Removed, or padded where it is: it must never be read. With
		 * interrupts off until the event's header is looked at, no
		 * other write can have reused the space of a removed event.
		 */
		local_irq_save(flags);
		ret = ring_buffer_rewind_tail(st.buffer, &marks[i]);
		if (!ret && test_bit(ids[i], s->seen))
			st_rewound_read(s, ids[i], events[i]);
		local_irq_restore(flags);
		if (!ret)
			set_bit(ids[i], s->rewound);
		else
			kept_inner = true;
	}
}

static enum hrtimer_restart st_timer_fn(struct hrtimer *timer)
{
	struct st_cpu *c = container_of(timer, struct st_cpu, timer);
	int cpu = smp_processor_id();

	st_cycle(2 * cpu + 1, &c->irq_rnd,
		 1 + prandom_u32_state(&c->irq_rnd) % 3);
	c->irq_cycles++;
	if (READ_ONCE(st.stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(20 * NSEC_PER_USEC +
			    prandom_u32_state(&c->irq_rnd) % 30000));
	return HRTIMER_RESTART;
}

static int st_writer_fn(void *arg)
{
	struct st_cpu *c = arg;

	while (!kthread_should_stop()) {
		int cpu;

		/* Interrupts stay on: the hrtimer can hit any step */
		preempt_disable();
		cpu = smp_processor_id();
		st_cycle(2 * cpu, &c->rnd,
			 1 + prandom_u32_state(&c->rnd) % ST_DEPTH);
		preempt_enable();
		c->cycles++;
		if (!(c->cycles & 63))
			cond_resched();
	}
	return 0;
}

static void st_check_event(int cpu, struct ring_buffer_event *event, u64 ts)
{
	struct st_payload *p = ring_buffer_event_data(event);
	struct st_cpu *c = &st.cpus[cpu];
	struct st_stream *s;

	st.read++;
	if (ring_buffer_event_length(event) < sizeof(*p) ||
	    p->stream / 2 != cpu || p->id >= st.ids ||
	    p->check != st_check(p->id, p->stream)) {
		st.corrupt++;
		return;
	}
	s = &st.streams[p->stream];
	if (s->any_seen && p->id <= s->last_seen)
		c->misorders++;
	s->last_seen = p->id;
	s->any_seen = true;
	set_bit(p->id, s->seen);
	if (test_bit(p->id, s->rewound) && !st.read_rewound++) {
		st.first_read_rewound_stream = p->stream;
		st.first_read_rewound_id = p->id;
	}
	/* The event's time stamp is taken before the payload's clock */
	if (ts > p->clock) {
		if (!st.late) {
			st.first_late_by = ts - p->clock;
			st.first_late_stream = p->stream;
			st.first_late_id = p->id;
			st.first_late_read = st.read;
		}
		st.late++;
	}
	if (ts < c->last_ts) {
		if (!st.backwards) {
			st.first_back_by = c->last_ts - ts;
			st.first_back_read = st.read;
		}
		st.backwards++;
	}
	c->last_ts = ts;
}

static int st_drain(void)
{
	struct ring_buffer_event *event;
	int cpu, n = 0;
	u64 ts;

	for_each_online_cpu(cpu) {
		while ((event = ring_buffer_consume(st.buffer, cpu, &ts,
						    NULL))) {
			st_check_event(cpu, event, ts);
			n++;
		}
	}
	return n;
}

static int st_start_timer(void *arg)
{
	struct st_cpu *c = arg;

	hrtimer_start(&c->timer, ns_to_ktime(50 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

static void rw_test_stress(struct kunit *test)
{
	unsigned long end, cycles = 0, irq_cycles = 0, misorders = 0;
	unsigned long rewinds = 0, refused = 0, both = 0, resets = 0;
	int nstreams = 2 * nr_cpu_ids;
	int cpu, i;

	memset(&st, 0, sizeof(st));
	st.buffer = ring_buffer_alloc(32 * 1024, RB_FL_OVERWRITE);
	KUNIT_ASSERT_NOT_NULL(test, st.buffer);
	st.streams = kcalloc(nstreams, sizeof(*st.streams), GFP_KERNEL);
	st.cpus = kcalloc(nr_cpu_ids, sizeof(*st.cpus), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st.streams);
	KUNIT_ASSERT_NOT_NULL(test, st.cpus);
	st.ids = max(stress_seconds, 10U) * ST_IDS_PER_SECOND;
	for (i = 0; i < nstreams; i++) {
		st.streams[i].rewound = vzalloc(BITS_TO_LONGS(st.ids) *
						sizeof(long));
		st.streams[i].seen = vzalloc(BITS_TO_LONGS(st.ids) *
					     sizeof(long));
		KUNIT_ASSERT_NOT_NULL(test, st.streams[i].rewound);
		KUNIT_ASSERT_NOT_NULL(test, st.streams[i].seen);
	}

	for_each_online_cpu(cpu) {
		struct st_cpu *c = &st.cpus[cpu];

		prandom_seed_state(&c->rnd, 0x1234 + cpu);
		prandom_seed_state(&c->irq_rnd, 0x4321 + cpu);
		c->writer = kthread_create_on_cpu(st_writer_fn, c, cpu,
						  "rb_rewind/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(c->writer));
		hrtimer_init(&c->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		c->timer.function = st_timer_fn;
	}
	for_each_online_cpu(cpu) {
		struct st_cpu *c = &st.cpus[cpu];

		wake_up_process(c->writer);
		/* The timer is pinned to the CPU that starts it */
		smp_call_on_cpu(cpu, st_start_timer, c, false);
	}

	end = jiffies + stress_seconds * HZ;
	for (i = 0; time_before(jiffies, end); i++) {
		if (!st_drain())
			usleep_range(200, 400);
		/* Now and then, reset a CPU buffer under the writers */
		if ((i & 1023) == 1023) {
			ring_buffer_reset_cpu(st.buffer, i / 1024 %
					      num_online_cpus());
			for (cpu = 0; cpu < nr_cpu_ids; cpu++)
				st.cpus[cpu].last_ts = 0;
			resets++;
		}
	}

	WRITE_ONCE(st.stop, true);
	for_each_online_cpu(cpu) {
		kthread_stop(st.cpus[cpu].writer);
		hrtimer_cancel(&st.cpus[cpu].timer);
	}
	st_drain();

	for_each_online_cpu(cpu) {
		cycles += st.cpus[cpu].cycles;
		irq_cycles += st.cpus[cpu].irq_cycles;
		misorders += st.cpus[cpu].misorders;
		rewinds += ring_buffer_rewinds_cpu(st.buffer, cpu);
		refused += ring_buffer_rewinds_refused_cpu(st.buffer, cpu);
	}
	for (i = 0; i < nstreams; i++) {
		unsigned long *a = st.streams[i].rewound;
		unsigned long *b = st.streams[i].seen;
		unsigned long w;

		for (w = 0; w < BITS_TO_LONGS(st.ids); w++)
			both += hweight_long(a[w] & b[w]);
		if (st.streams[i].rewound_read)
			kunit_info(test, "stream %d: %lu events rewound after they were read, the first id %u, %s\n",
				   i, st.streams[i].rewound_read,
				   st.streams[i].first_rewound_read,
				   st.streams[i].first_rewound_read_padded ?
				   "padded in place" : "removed");
	}
	if (st.read_rewound)
		kunit_info(test, "%lu events read after their rewind, the first stream %u id %u\n",
			   st.read_rewound, st.first_read_rewound_stream,
			   st.first_read_rewound_id);

	kunit_info(test,
		   "%lu task cycles, %lu irq cycles, %lu events read, %lu resets\n",
		   cycles, irq_cycles, st.read, resets);
	kunit_info(test, "checks: %lu rewound events read, %lu corrupt, %lu out of order, %lu backwards, %lu late\n",
		   both, st.corrupt, misorders, st.backwards, st.late);
	kunit_info(test,
		   "rewinds since last reset %lu done, %lu refused\n",
		   rewinds, refused);
	if (st.late)
		kunit_info(test, "first late event: read #%lu, stream %u id %u, %llu ns after its writer's clock\n",
			   st.first_late_read, st.first_late_stream,
			   st.first_late_id, st.first_late_by);
	if (st.backwards)
		kunit_info(test, "first step back: read #%lu, %llu ns\n",
			   st.first_back_read, st.first_back_by);

	KUNIT_EXPECT_GT(test, cycles, 0UL);
	KUNIT_EXPECT_GT(test, irq_cycles, 0UL);
	KUNIT_EXPECT_GT(test, st.read, 0UL);
	KUNIT_EXPECT_GT(test, rewinds, 0UL);
	KUNIT_EXPECT_EQ(test, both, 0UL);
	KUNIT_EXPECT_EQ(test, st.corrupt, 0UL);
	KUNIT_EXPECT_EQ(test, misorders, 0UL);
	KUNIT_EXPECT_EQ(test, st.backwards, 0UL);
	KUNIT_EXPECT_EQ(test, st.late, 0UL);

	for (i = 0; i < nstreams; i++) {
		vfree(st.streams[i].rewound);
		vfree(st.streams[i].seen);
	}
	kfree(st.streams);
	kfree(st.cpus);
	ring_buffer_free(st.buffer);
}

/* ---- readers that wait, against a writer that goes idle ---- */

/* The rewind window of the case, and how late a waiter may return */
#define WR_WINDOW_NS	(50 * NSEC_PER_MSEC)
#define WR_SLACK_NS	(150 * NSEC_PER_MSEC)
#define WR_IDS		BIT(20)

static struct {
	struct trace_buffer	*buffer;
	int			cpu;		/* the writer's */
	unsigned long		*rewound;
	unsigned long		*seen;
	u32			last_id;	/* written last, kept */
	u64			idle_ns;	/* when the writer went idle */
	u64			got_last_ns;	/* when the reader read last_id */
	u64			full_back_ns;	/* the full waiter's first return after idle */
	unsigned long		wakeups_after_last; /* of the reader, once it had last_id */
	unsigned long		read;
	unsigned long		read_early;	/* before the writer went idle */
	unsigned long		corrupt;
	unsigned long		rewinds;
	bool			idle;
	bool			stop;
	struct completion	reader_done;
	struct completion	full_done;
} wr;

/* Write one event of id @id, marked */
static bool wr_write(u32 id, struct ring_buffer_rewind_mark *m)
{
	struct ring_buffer_event *event;

	ring_buffer_rewind_mark_start(wr.buffer, m);
	event = ring_buffer_lock_reserve(wr.buffer, sizeof(u32) * 2);
	if (!event) {
		m->cpu = -1;
		return false;
	}
	((u32 *)ring_buffer_event_data(event))[0] = id;
	((u32 *)ring_buffer_event_data(event))[1] = id ^ ST_MAGIC;
	ring_buffer_unlock_commit(wr.buffer);
	ring_buffer_rewind_mark_end(wr.buffer, m);
	return true;
}

static int wr_writer_fn(void *arg)
{
	struct ring_buffer_rewind_mark marks[ST_DEPTH];
	struct rnd_state rnd;
	u32 ids[ST_DEPTH], next = 0;
	bool written[ST_DEPTH];
	u64 end = ktime_get_ns() + 400 * NSEC_PER_MSEC;
	u64 pause;
	int i, depth;

	prandom_seed_state(&rnd, 0x5eed);
	while (ktime_get_ns() < end && next + ST_DEPTH + 1 < WR_IDS) {
		depth = 1 + prandom_u32_state(&rnd) % ST_DEPTH;
		preempt_disable();
		for (i = 0; i < depth; i++) {
			ids[i] = next++;
			written[i] = wr_write(ids[i], &marks[i]);
		}
		/* The innermost call is slow one time in eight, and stays */
		if (!(prandom_u32_state(&rnd) & 7))
			depth = 0;
		for (i = depth - 1; i >= 0; i--) {
			if (!written[i] ||
			    ring_buffer_rewind_tail(wr.buffer, &marks[i]))
				break;
			set_bit(ids[i], wr.rewound);
			wr.rewinds++;
		}
		preempt_enable();
		/*
		 * A sleep would take some 10 ms under an emulator, and leave
		 * less than a page written: wait busily, preemptible
		 */
		pause = ktime_get_ns() + 20 * NSEC_PER_USEC;
		while (ktime_get_ns() < pause)
			cpu_relax();
		cond_resched();
	}
	/* The last call is slow: it stays, and the writer goes idle */
	preempt_disable();
	WRITE_ONCE(wr.last_id, next);
	wr_write(next, &marks[0]);
	preempt_enable();
	WRITE_ONCE(wr.idle_ns, ktime_get_ns());
	/* The test reads the time once it sees the writer idle */
	smp_wmb();
	WRITE_ONCE(wr.idle, true);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/* A consuming reader that waits for any data of the writer's CPU */
static int wr_reader_fn(void *arg)
{
	struct ring_buffer_event *event;
	u32 *data;
	u64 ts;

	while (!READ_ONCE(wr.stop)) {
		ring_buffer_wait(wr.buffer, wr.cpu, 0, NULL, NULL);
		if (wr.got_last_ns)
			wr.wakeups_after_last++;
		while ((event = ring_buffer_consume(wr.buffer, wr.cpu, &ts,
						    NULL))) {
			data = ring_buffer_event_data(event);
			if (data[0] >= WR_IDS || data[1] != (data[0] ^ ST_MAGIC)) {
				wr.corrupt++;
				continue;
			}
			set_bit(data[0], wr.seen);
			wr.read++;
			if (!READ_ONCE(wr.idle))
				wr.read_early++;
			if (data[0] == READ_ONCE(wr.last_id) && !wr.got_last_ns)
				wr.got_last_ns = ktime_get_ns();
		}
	}
	complete(&wr.reader_done);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/* A waiter for a number of pages, which only waits: the first wakeup ends a wait */
static int wr_full_fn(void *arg)
{
	u64 now;

	while (!READ_ONCE(wr.stop)) {
		ring_buffer_wait(wr.buffer, wr.cpu, 50, NULL, NULL);
		now = ktime_get_ns();
		/* From the write of the last event on */
		if (READ_ONCE(wr.last_id) != U32_MAX && !wr.full_back_ns)
			wr.full_back_ns = now;
	}
	complete(&wr.full_done);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/*
 * A writer on one CPU writes and rewinds nested events, then writes one
 * that stays and goes idle, with recording still on. A consuming reader
 * and a waiter for a number of pages wait on its CPU buffer from another
 * CPU. No event that the reader consumed may be rewound or padded
 * afterwards, and both waiters must return within about one rewind
 * window after the writer went idle, the reader with the last event.
 * The reader must then sleep: nothing wakes it while the writer stays
 * idle.
 */
static void rw_test_window_waiters(struct kunit *test)
{
	struct task_struct *writer, *reader, *full;
	int other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	memset(&wr, 0, sizeof(wr));
	wr.last_id = U32_MAX;
	init_completion(&wr.reader_done);
	init_completion(&wr.full_done);
	wr.cpu = cpumask_first(cpu_online_mask);
	other = cpumask_next(wr.cpu, cpu_online_mask);
	wr.buffer = ring_buffer_alloc(256 * 1024, RB_FL_OVERWRITE);
	KUNIT_ASSERT_NOT_NULL(test, wr.buffer);
	ring_buffer_set_rewind_window(wr.buffer, WR_WINDOW_NS);
	wr.rewound = vzalloc(BITS_TO_LONGS(WR_IDS) * sizeof(long));
	wr.seen = vzalloc(BITS_TO_LONGS(WR_IDS) * sizeof(long));
	KUNIT_ASSERT_NOT_NULL(test, wr.rewound);
	KUNIT_ASSERT_NOT_NULL(test, wr.seen);

	reader = kthread_create(wr_reader_fn, NULL, "rb_wr_reader");
	full = kthread_create(wr_full_fn, NULL, "rb_wr_full");
	writer = kthread_create_on_cpu(wr_writer_fn, NULL, wr.cpu,
				       "rb_wr_writer/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(reader));
	KUNIT_ASSERT_FALSE(test, IS_ERR(full));
	KUNIT_ASSERT_FALSE(test, IS_ERR(writer));
	kthread_bind(reader, other);
	kthread_bind(full, other);
	wake_up_process(reader);
	wake_up_process(full);
	/* Let both block first */
	msleep(20);
	wake_up_process(writer);

	while (!READ_ONCE(wr.idle))
		msleep(20);
	/* Well past the limit, to tell late from never */
	msleep(4 * (WR_WINDOW_NS + WR_SLACK_NS) / NSEC_PER_MSEC);

	kunit_info(test, "read %lu events, %lu before idle, %lu rewinds, %lu corrupt\n",
		   wr.read, wr.read_early, wr.rewinds, wr.corrupt);
	kunit_info(test, "after idle: reader had the last event %lld us later, full waiter returned %lld us later\n",
		   wr.got_last_ns ?
		   div_s64(wr.got_last_ns - wr.idle_ns, NSEC_PER_USEC) : -1LL,
		   wr.full_back_ns ?
		   div_s64(wr.full_back_ns - wr.idle_ns, NSEC_PER_USEC) : -1LL);
	kunit_info(test, "reader woken %lu times after it had the last event\n",
		   wr.wakeups_after_last);
	KUNIT_EXPECT_GT(test, wr.read_early, 0UL);
	KUNIT_EXPECT_GT(test, wr.rewinds, 0UL);
	KUNIT_EXPECT_EQ(test, wr.corrupt, 0UL);
	KUNIT_EXPECT_NE(test, wr.got_last_ns, 0ULL);
	KUNIT_EXPECT_LE(test, (s64)(wr.got_last_ns - wr.idle_ns),
			(s64)(WR_WINDOW_NS + WR_SLACK_NS));
	KUNIT_EXPECT_NE(test, wr.full_back_ns, 0ULL);
	KUNIT_EXPECT_LE(test, (s64)(wr.full_back_ns - wr.idle_ns),
			(s64)(WR_WINDOW_NS + WR_SLACK_NS));
	/*
	 * Nothing is left to read: the writer's empty page must not wake
	 * the reader every window, some 15 times in the sleep above.
	 */
	KUNIT_EXPECT_LE(test, wr.wakeups_after_last, 2UL);

	/* Recording off wakes the waiters, and lets them read everything */
	WRITE_ONCE(wr.stop, true);
	ring_buffer_record_off(wr.buffer);
	while (!completion_done(&wr.reader_done) ||
	       !completion_done(&wr.full_done)) {
		ring_buffer_wake_waiters(wr.buffer, wr.cpu);
		msleep(20);
	}
	kthread_stop(reader);
	kthread_stop(full);
	kthread_stop(writer);
	/* What the reader did not read is still there: drain it */
	{
		struct ring_buffer_event *event;
		u64 ts;

		while ((event = ring_buffer_consume(wr.buffer, wr.cpu, &ts,
						    NULL))) {
			u32 *data = ring_buffer_event_data(event);

			if (data[0] < WR_IDS)
				set_bit(data[0], wr.seen);
		}
	}
	{
		unsigned long both = 0, w;

		for (w = 0; w < BITS_TO_LONGS(WR_IDS); w++)
			both += hweight_long(wr.rewound[w] & wr.seen[w]);
		kunit_info(test, "%lu rewound events read\n", both);
		KUNIT_EXPECT_EQ(test, both, 0UL);
	}
	vfree(wr.rewound);
	vfree(wr.seen);
	ring_buffer_free(wr.buffer);
}

static struct kunit_case rw_stress_cases[] = {
	KUNIT_CASE_SLOW(rw_test_stress),
	KUNIT_CASE_SLOW(rw_test_window_waiters),
	{}
};

static struct kunit_suite rw_stress_suite = {
	.name = "ring_buffer_rewind_stress",
	.test_cases = rw_stress_cases,
};

kunit_test_suites(&rw_suite, &rw_stress_suite);

MODULE_DESCRIPTION("KUnit tests for ring_buffer_rewind_tail()");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
