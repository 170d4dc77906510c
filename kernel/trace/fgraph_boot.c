// SPDX-License-Identifier: GPL-2.0
/*
 * Early boot function graph buffer.
 *
 * Before ftrace_init() has turned the mcount call sites into NOPs, every
 * instrumented function still calls the architecture's mcount routine.
 * An architecture that selects HAVE_FGRAPH_BOOT_BUFFER diverts those
 * calls, while fgraph_boot_armed is set, to fgraph_boot_enter(), and the
 * hooked functions return through its trampoline fgraph_boot_return,
 * which calls fgraph_boot_exit().  Both record into a static array:
 * there is one CPU, interrupts are off and nothing else writes, so a
 * plain index is all the locking needed.
 *
 * A call that returns faster than the threshold and left no record of
 * its own callees behind is removed again by moving the tail back over
 * its entry record, so the array keeps only the calls that matter and
 * their nesting.  The hook is disarmed at the end of ftrace_init(), or
 * at the end of the early parameters when the buffer is off, with
 * fgraph_boot_arch_disarm(), which may rewrite kernel text: the boot CPU
 * runs alone then.  A function graph user takes over after sched_init()
 * (see below).  A late initcall copies the records out of init memory,
 * which is then freed with the rest of it, and tracefs shows them as
 * "fgraph_boot_trace" in the text format of the function_graph tracer.
 *
 * With CONFIG_FGRAPH_BOOT_COUNT, every call that returns is also counted
 * per function, whatever the threshold and whichever task or CPU made
 * it, until the init memory is freed: trace_stat/fgraph_boot shows the
 * counts as the function profiler shows its own.
 *
 * Everything here must stay notrace: the whole directory is built
 * without -pg.  What the mcount hook runs calls nothing outside of it but
 * the architecture's counter accessors; the graph handlers may also call
 * out through arch_spin_lock(), with their task's graph tracing paused.
 */

#define pr_fmt(fmt) "fgraph_boot: " fmt

#include <linux/bitfield.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "ftrace_internal.h"
#include "trace.h"
#include "trace_stat.h"

/* How deep the hooked calls may nest; deeper calls are not hooked. */
#define FGRAPH_BOOT_DEPTH	64
/* The same for the calls the graph handlers record (driver probes nest deep) */
#define FGRAPH_BOOT_GDEPTH	128

#define FGRAPH_BOOT_EXIT	BIT(31)
/* Not a call: the boot thread became the task whose pid is in @func. */
#define FGRAPH_BOOT_SWITCH	BIT(30)
/* The CPU that took the record: 0 until SMP is up. */
#define FGRAPH_BOOT_CPU		GENMASK(29, 20)
/* The depth of an entry; the index of its entry record for an exit. */
#define FGRAPH_BOOT_INDEX	GENMASK(19, 0)

/*
 * One record: an entry, with its depth, or an exit, with the index of its
 * entry record, in @info with the flags and the CPU above.  @time is in
 * counter ticks, or a sequence number when there is no counter.
 */
struct fgraph_boot_rec {
	u64		time;
	unsigned long	func;
	u32		info;
};

#define FGRAPH_BOOT_NR_RECS \
	(CONFIG_FGRAPH_BOOT_BUFFER_SIZE * 1024 / sizeof(struct fgraph_boot_rec))

/*
 * A hooked call: where it returns to, its entry record or -1, and the
 * function and time it was entered, for the counts.
 */
struct fgraph_boot_frame {
	unsigned long	ret;
	int		rec;
	unsigned long	func;
	u64		time;
};

/* What the graph handlers keep for a call: its entry time and slot or -1 */
struct fgraph_boot_call {
	u64		time;
	int		slot;
};

/* Read by the architecture's mcount routine; cleared for good on stop. */
int fgraph_boot_armed __read_mostly = 1;

/* The return stack is used until the last hooked call has returned. */
static struct fgraph_boot_frame fgraph_boot_stack[FGRAPH_BOOT_DEPTH];
static int fgraph_boot_depth;
static bool fgraph_boot_recording = true;
/* Counting goes on after recording ends, until fgraph_boot_count_end(). */
static bool fgraph_boot_counting = IS_ENABLED(CONFIG_FGRAPH_BOOT_COUNT);

static struct fgraph_boot_rec fgraph_boot_buf[FGRAPH_BOOT_NR_RECS] __initdata;
static unsigned int fgraph_boot_tail __initdata;
static unsigned int fgraph_boot_open __initdata;
static bool fgraph_boot_started __initdata;
static bool fgraph_boot_full __initdata;
static bool fgraph_boot_on __initdata =
	IS_ENABLED(CONFIG_FGRAPH_BOOT_BUFFER_DEFAULT_ON);
static u64 fgraph_boot_seq __initdata;
static u64 fgraph_boot_thresh_ticks __initdata;
static u64 fgraph_boot_first __initdata;
static u64 fgraph_boot_last __initdata;
static unsigned int fgraph_boot_thresh_us __initdata =
	CONFIG_FGRAPH_BOOT_BUFFER_THRESH;
static bool fgraph_boot_thresh_cmdline __initdata;
static bool fgraph_boot_count_on __initdata = true;

/* Counters shown in the file's header. */
static unsigned long fgraph_boot_dropped __initdata;
static unsigned long fgraph_boot_too_deep __initdata;
static unsigned long fgraph_boot_unhooked __initdata;

/*
 * After ftrace_init() the call sites are NOPs and the mcount hook sees
 * no more calls.  Once sched_init() has set up the idle task, a function
 * graph user of this file takes over: its handlers record the calls of
 * the boot thread into the same buffer, init_task until the first call
 * of pid 1 (kernel_init()), then pid 1, until another function graph
 * user starts (ftrace=function_graph at core_initcall), the buffer is
 * full, or the late initcall copies the records out.  Only the boot
 * thread writes, but its handlers may run on any CPU once SMP is up and
 * with interrupts on, so they write under fgraph_boot_lock with
 * interrupts off (never in NMI, which they leave alone), see
 * fgraph_boot_lock_irqsave().  The calls it has open are on
 * fgraph_boot_gstack.
 */
static arch_spinlock_t fgraph_boot_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static struct task_struct *fgraph_boot_task __read_mostly = &init_task;
static int fgraph_boot_gstack[FGRAPH_BOOT_GDEPTH] __initdata;
static int fgraph_boot_gdepth __initdata;
static unsigned int fgraph_boot_base __initdata;
static bool fgraph_boot_graph __initdata;
static u64 fgraph_boot_pause_from __initdata;
static u64 fgraph_boot_pause_to __initdata;
static const char *fgraph_boot_why;
static unsigned int fgraph_boot_closed __initdata;

/* What the late initcall keeps for the tracefs file. */
struct fgraph_boot_copy {
	struct fgraph_boot_rec	*recs;
	unsigned int		nr;
	unsigned int		open;
	const char		*why;
	u64			pause_from;
	u64			pause_to;
	char			comm[TASK_COMM_LEN];
	pid_t			pid;
	int			cpu_width;
	u32			freq;
	unsigned int		thresh_us;
	bool			thresh_cmdline;
	unsigned long		dropped;
	unsigned long		too_deep;
	unsigned long		unhooked;
	u64			first;
	u64			last;
	u64			clock_ticks;
	u64			clock_local;
};

static struct fgraph_boot_copy fgraph_boot_out;

static u32 fgraph_boot_freq __initdata;

/* The CPU field of a record taken now */
static __always_inline u32 fgraph_boot_cpu(void)
{
	BUILD_BUG_ON(FIELD_MAX(FGRAPH_BOOT_CPU) < CONFIG_NR_CPUS - 1);
	BUILD_BUG_ON(FIELD_MAX(FGRAPH_BOOT_INDEX) < FGRAPH_BOOT_NR_RECS - 1);
	return FIELD_PREP(FGRAPH_BOOT_CPU, raw_smp_processor_id());
}

static __init notrace u64 fgraph_boot_now(void)
{
	if (fgraph_boot_freq)
		return fgraph_boot_arch_clock();
	return ++fgraph_boot_seq;
}

#ifdef CONFIG_FGRAPH_BOOT_COUNT
/*
 * The calls counted per function, in open addressing hash tables keyed
 * by the address the hook or the graph handler gave:
 * fgraph_boot_count_end() merges those of one function and keeps them.
 * A table is filled to three quarters at most, so that a probe always
 * ends soon; the calls of the functions that found no slot are counted
 * apart.
 *
 * The mcount hook counts on the boot CPU alone, before SMP is up, into
 * a table in init memory.  The graph handlers count from sched_init()
 * on, on every CPU: each CPU into a table of its own, with interrupts
 * off and no lock, so that the calls of one CPU neither wait for nor
 * bounce the cache lines of another.  Those tables are vmalloc()
 * memory, and the code that writes them is not __init: a handler may
 * still be running when kernel_init() frees the init memory, and the
 * tables are only merged after a tasks-rude RCU grace period.
 */
#define FGRAPH_BOOT_COUNT_SLOTS	BIT(CONFIG_FGRAPH_BOOT_COUNT_BITS)

struct fgraph_boot_count {
	unsigned long	func;
	unsigned long	hits;
	u64		ticks;
	u64		ticks_sq;
};

struct fgraph_boot_count_table {
	struct fgraph_boot_count	*slots;
	unsigned int			used;
	unsigned long			uncounted;
};

static struct fgraph_boot_count
	fgraph_boot_counts[FGRAPH_BOOT_COUNT_SLOTS] __initdata;
static struct fgraph_boot_count_table fgraph_boot_early_counts __initdata = {
	.slots	= fgraph_boot_counts,
};

/* One per possible CPU from fgraph_boot_resume() on */
static struct fgraph_boot_count_table *fgraph_boot_cpu_counts;

/* Add @add to @sum, and stay at the largest value instead of wrapping */
static __always_inline void fgraph_boot_add_sat(u64 *sum, u64 add)
{
	if (check_add_overflow(*sum, add, sum))
		*sum = U64_MAX;
}

static notrace void fgraph_boot_count_add(struct fgraph_boot_count_table *t,
					  unsigned long func, u64 ticks)
{
	unsigned int i = hash_long(func, CONFIG_FGRAPH_BOOT_COUNT_BITS);
	struct fgraph_boot_count *c;

	for (;; i = (i + 1) & (FGRAPH_BOOT_COUNT_SLOTS - 1)) {
		c = &t->slots[i];
		if (c->func == func)
			break;
		if (c->func)
			continue;
		if (t->used >= FGRAPH_BOOT_COUNT_SLOTS / 4 * 3) {
			t->uncounted++;
			return;
		}
		t->used++;
		c->func = func;
		break;
	}
	if (c->hits != ULONG_MAX)
		c->hits++;
	fgraph_boot_add_sat(&c->ticks, ticks);
	/* Saturated, the variance is not shown: a call of 2^32 ticks or more */
	fgraph_boot_add_sat(&c->ticks_sq, ticks > U32_MAX ? U64_MAX : ticks * ticks);
}

/* A call of the mcount hook, on the boot CPU before SMP is up */
static __init notrace void fgraph_boot_count(unsigned long func, u64 ticks)
{
	fgraph_boot_count_add(&fgraph_boot_early_counts, func, ticks);
}

/* A call that the mcount hook could not hook, and so is not counted */
static __init notrace void fgraph_boot_count_lost(void)
{
	if (fgraph_boot_counting)
		fgraph_boot_early_counts.uncounted++;
}

/*
 * A call of the graph handlers, or one they could not hook (@lost), on
 * this CPU's table.  Interrupts are off while it counts: after counting
 * ends, a tasks-rude grace period lets every CPU finish with its table.
 */
static notrace void fgraph_boot_count_cpu(unsigned long func, u64 ticks,
					  bool lost)
{
	struct fgraph_boot_count_table *t;
	unsigned long flags;

	raw_local_irq_save(flags);
	if (READ_ONCE(fgraph_boot_counting)) {
		t = &fgraph_boot_cpu_counts[raw_smp_processor_id()];
		if (lost)
			t->uncounted++;
		else
			fgraph_boot_count_add(t, func, ticks);
	}
	raw_local_irq_restore(flags);
}

static void fgraph_boot_free_cpu_counts(void)
{
	unsigned int cpu;

	if (!fgraph_boot_cpu_counts)
		return;
	for_each_possible_cpu(cpu)
		vfree(fgraph_boot_cpu_counts[cpu].slots);
	kfree(fgraph_boot_cpu_counts);
	fgraph_boot_cpu_counts = NULL;
}

/* The tables of the graph handlers: false if there is no memory for them */
static __init bool fgraph_boot_alloc_cpu_counts(void)
{
	unsigned int cpu;

	fgraph_boot_cpu_counts = kcalloc(nr_cpu_ids,
					 sizeof(*fgraph_boot_cpu_counts),
					 GFP_KERNEL);
	if (!fgraph_boot_cpu_counts)
		return false;
	for_each_possible_cpu(cpu) {
		struct fgraph_boot_count_table *t = &fgraph_boot_cpu_counts[cpu];

		t->slots = vzalloc(array_size(FGRAPH_BOOT_COUNT_SLOTS,
					      sizeof(*t->slots)));
		if (!t->slots) {
			fgraph_boot_free_cpu_counts();
			return false;
		}
	}
	return true;
}
#else
static inline void fgraph_boot_count(unsigned long func, u64 ticks) { }
static inline void fgraph_boot_count_lost(void) { }
static inline void fgraph_boot_count_cpu(unsigned long func, u64 ticks,
					 bool lost) { }
static inline bool fgraph_boot_alloc_cpu_counts(void) { return true; }
static inline void fgraph_boot_free_cpu_counts(void) { }
#endif

static __init notrace void fgraph_boot_set_thresh(void)
{
	u64 ticks = (u64)fgraph_boot_thresh_us * fgraph_boot_freq;

	do_div(ticks, USEC_PER_SEC);
	fgraph_boot_thresh_ticks = ticks;
}

static __init notrace void fgraph_boot_start(void)
{
	fgraph_boot_started = true;
	fgraph_boot_freq = fgraph_boot_arch_clock_freq();
	/* Counted calls without times would be all the cost for little */
	if (!fgraph_boot_freq)
		fgraph_boot_counting = false;
	fgraph_boot_set_thresh();
	fgraph_boot_first = fgraph_boot_now();
}

/**
 * fgraph_boot_enter - record the entry of an early boot function
 * @parent: where the function keeps the address it returns to, or NULL
 *	if the architecture could not find it
 * @self: an address inside the function
 *
 * Called by the architecture's mcount routine while fgraph_boot_armed is
 * set.  Hooks the return of the function and records its entry.
 */
void __ref notrace fgraph_boot_enter(unsigned long *parent, unsigned long self)
{
	struct fgraph_boot_frame *frame;
	struct fgraph_boot_rec *rec;

	if (!fgraph_boot_recording && !fgraph_boot_counting)
		return;
	if (unlikely(!fgraph_boot_started))
		fgraph_boot_start();
	/* Nothing to record or count: leave the call alone */
	if (!fgraph_boot_counting && fgraph_boot_full) {
		fgraph_boot_dropped++;
		return;
	}
	if (!parent || fgraph_boot_depth >= FGRAPH_BOOT_DEPTH) {
		if (!parent)
			fgraph_boot_unhooked++;
		else
			fgraph_boot_too_deep++;
		fgraph_boot_count_lost();
		return;
	}

	frame = &fgraph_boot_stack[fgraph_boot_depth++];
	frame->ret = *parent;
	frame->rec = -1;
	frame->func = self;
	frame->time = fgraph_boot_now();
	*parent = (unsigned long)fgraph_boot_return;

	/*
	 * Keep room for this entry, its exit and the exits of the calls
	 * already open, so that every recorded entry gets its exit.  Once
	 * the buffer is full, no new call is recorded, even if a rewind
	 * makes room again: the records must not have holes.  The call is
	 * still counted.
	 */
	if (!fgraph_boot_recording)
		return;
	if (fgraph_boot_full ||
	    fgraph_boot_tail + fgraph_boot_open + 2 > FGRAPH_BOOT_NR_RECS) {
		fgraph_boot_full = true;
		fgraph_boot_dropped++;
		return;
	}

	frame->rec = fgraph_boot_tail;
	rec = &fgraph_boot_buf[fgraph_boot_tail++];
	rec->func = self;
	rec->info = fgraph_boot_depth - 1;
	rec->time = frame->time;
	fgraph_boot_open++;
}

/*
 * The exit of a recorded call.  A call shorter than the threshold whose
 * entry is still the last record (none of its callees was kept) is
 * removed by moving the tail back over its entry.  Returns whether an
 * exit record was written.
 */
static __init notrace bool fgraph_boot_record_exit(int entry)
{
	struct fgraph_boot_rec *rec;
	u64 now = fgraph_boot_now();

	fgraph_boot_open--;
	if (entry + 1 == fgraph_boot_tail &&
	    now - fgraph_boot_buf[entry].time < fgraph_boot_thresh_ticks) {
		fgraph_boot_tail = entry;
		return false;
	}
	/* fgraph_boot_enter() kept room for this record. */
	rec = &fgraph_boot_buf[fgraph_boot_tail++];
	rec->func = fgraph_boot_buf[entry].func;
	rec->info = FGRAPH_BOOT_EXIT | fgraph_boot_cpu() | entry;
	rec->time = now;
	return true;
}

/**
 * fgraph_boot_exit - a hooked function returned
 *
 * Called by fgraph_boot_return.  Records the exit while recording is on,
 * and returns the address the function really returns to.
 */
unsigned long __ref notrace fgraph_boot_exit(void)
{
	struct fgraph_boot_frame *frame;

	frame = &fgraph_boot_stack[--fgraph_boot_depth];
	/*
	 * No lock: the hooked calls return on the boot CPU before SMP is
	 * up, but for start_kernel(), which never returns.
	 */
	if (fgraph_boot_counting)
		fgraph_boot_count(frame->func, fgraph_boot_now() - frame->time);
	if (fgraph_boot_recording && frame->rec >= 0)
		fgraph_boot_record_exit(frame->rec);
	return frame->ret;
}

/*
 * Apply a new threshold to the records already taken: remove the calls
 * that ended and are now too short, and the calls that enclosed only
 * those.  The entries still open keep their order, so the return stack
 * only needs their new indexes.
 */
static __init notrace void fgraph_boot_refilter(void)
{
	int open[FGRAPH_BOOT_DEPTH];
	unsigned int i, out = 0;
	int n = 0, f;

	for (i = 0; i < fgraph_boot_tail; i++) {
		struct fgraph_boot_rec rec = fgraph_boot_buf[i];
		int entry;

		if (!(rec.info & FGRAPH_BOOT_EXIT)) {
			open[n++] = out;
			fgraph_boot_buf[out++] = rec;
			continue;
		}
		entry = open[--n];
		if (entry + 1 == out &&
		    rec.time - fgraph_boot_buf[entry].time <
		    fgraph_boot_thresh_ticks) {
			out = entry;
			continue;
		}
		rec.info = (rec.info & FGRAPH_BOOT_CPU) | FGRAPH_BOOT_EXIT | entry;
		fgraph_boot_buf[out++] = rec;
	}
	fgraph_boot_tail = out;

	/* What is still open matches the recorded frames, in order. */
	for (f = 0, i = 0; f < fgraph_boot_depth; f++)
		if (fgraph_boot_stack[f].rec >= 0)
			fgraph_boot_stack[f].rec = open[i++];
}

/*
 * Close the calls of the boot thread that are still open, innermost
 * first: those its graph handlers took, then those the mcount hook
 * took.  Each is treated as if it returned now.  Their real returns
 * will not record anything.
 */
static __init notrace void fgraph_boot_close(void)
{
	unsigned int i;

	while (fgraph_boot_gdepth > 0) {
		int entry = fgraph_boot_gstack[--fgraph_boot_gdepth];

		fgraph_boot_closed += fgraph_boot_record_exit(entry);
	}
	for (i = fgraph_boot_depth; i > 0; i--) {
		struct fgraph_boot_frame *frame = &fgraph_boot_stack[i - 1];

		if (frame->rec < 0)
			continue;
		fgraph_boot_closed += fgraph_boot_record_exit(frame->rec);
		frame->rec = -1;
	}
}

/*
 * Stop recording for good, and forget the records if @discard.  @why
 * names the end in the file's header.  Called under fgraph_boot_lock
 * once the graph handlers may run.
 */
static __init notrace void fgraph_boot_end(bool discard, const char *why)
{
	if (!fgraph_boot_recording)
		return;
	fgraph_boot_armed = 0;
	if (discard || !fgraph_boot_started) {
		fgraph_boot_recording = false;
		fgraph_boot_tail = 0;
		return;
	}
	/* start_kernel() at least is still running. */
	fgraph_boot_close();
	fgraph_boot_recording = false;
	fgraph_boot_last = fgraph_boot_now();
	fgraph_boot_why = why;
}

/**
 * fgraph_boot_early_params_done - the early parameters have been parsed
 *
 * Called at the end of parse_early_param().  Without fgraph_boot=on (and
 * with CONFIG_FGRAPH_BOOT_BUFFER_DEFAULT_ON=n), recording ends here and
 * what was recorded so far is forgotten.  A threshold given on the
 * command line applies from here on and to the records already taken.
 */
void __init notrace fgraph_boot_early_params_done(void)
{
	if (!fgraph_boot_count_on)
		fgraph_boot_counting = false;
	if (!fgraph_boot_on) {
		fgraph_boot_counting = false;
		fgraph_boot_end(true, NULL);
		fgraph_boot_arch_disarm();
		return;
	}
	if (fgraph_boot_recording && fgraph_boot_started) {
		fgraph_boot_set_thresh();
		fgraph_boot_refilter();
	}
}

/**
 * fgraph_boot_stop - end early boot recording
 *
 * Called by ftrace_init() when it fails: no graph user can take over.
 */
void __init notrace fgraph_boot_stop(void)
{
	fgraph_boot_counting = false;
	fgraph_boot_end(false, "ftrace_init()");
	fgraph_boot_arch_disarm();
}

/**
 * fgraph_boot_pause - the mcount call sites are NOPs now
 *
 * Called at the end of ftrace_init(), which rewrote the call sites:
 * the mcount hook sees no more calls and is disarmed.  The calls it
 * hooked still record their exits.  Nothing new is recorded until
 * fgraph_boot_resume().
 */
void __init notrace fgraph_boot_pause(void)
{
	fgraph_boot_arch_disarm();
	if (!fgraph_boot_recording)
		return;
	fgraph_boot_armed = 0;
	fgraph_boot_pause_from = fgraph_boot_now();
}

static __init notrace void fgraph_boot_handoff(void)
{
	struct fgraph_boot_rec *rec;

	fgraph_boot_close();
	fgraph_boot_task = current;
	fgraph_boot_base = 0;
	memcpy(fgraph_boot_out.comm, current->comm, TASK_COMM_LEN);
	fgraph_boot_out.comm[TASK_COMM_LEN - 1] = 0;
	fgraph_boot_out.pid = task_pid_nr(current);
	if (fgraph_boot_full ||
	    fgraph_boot_tail + fgraph_boot_open + 1 > FGRAPH_BOOT_NR_RECS) {
		fgraph_boot_full = true;
		return;
	}
	rec = &fgraph_boot_buf[fgraph_boot_tail++];
	rec->func = task_pid_nr(current);
	rec->info = FGRAPH_BOOT_SWITCH | fgraph_boot_cpu();
	rec->time = fgraph_boot_now();
}

/*
 * Record the entry of a call of the boot thread, under fgraph_boot_lock.
 * Returns the call's place on the stack of open calls, or -1 when it is
 * not recorded.
 */
static __init notrace int fgraph_boot_graph_record(unsigned long func)
{
	struct fgraph_boot_rec *rec;

	if (!fgraph_boot_recording)
		return -1;
	if (ftrace_graph_active > 1) {
		fgraph_boot_end(false, "another function graph user started");
		return -1;
	}
	if (!fgraph_boot_pause_to)
		fgraph_boot_pause_to = fgraph_boot_now();
	if (current != fgraph_boot_task) {
		/* The boot thread moves on to pid 1 once, in task context. */
		if (fgraph_boot_task != &init_task || !is_global_init(current) ||
		    !in_task())
			return -1;
		fgraph_boot_handoff();
	}
	/*
	 * Unlike the mcount hook, end recording when the buffer is full:
	 * the end then says how far the records go.
	 */
	if (fgraph_boot_full ||
	    fgraph_boot_tail + fgraph_boot_open + 2 > FGRAPH_BOOT_NR_RECS) {
		fgraph_boot_full = true;
		fgraph_boot_dropped++;
		fgraph_boot_end(false, "the buffer filled up");
		return -1;
	}
	if (fgraph_boot_gdepth >= FGRAPH_BOOT_GDEPTH) {
		fgraph_boot_too_deep++;
		return -1;
	}
	fgraph_boot_gstack[fgraph_boot_gdepth] = fgraph_boot_tail;

	rec = &fgraph_boot_buf[fgraph_boot_tail++];
	rec->func = func;
	rec->info = fgraph_boot_cpu() | (fgraph_boot_base + fgraph_boot_gdepth);
	rec->time = fgraph_boot_now();
	fgraph_boot_open++;
	return fgraph_boot_gdepth++;
}

/*
 * fgraph_boot_lock, with interrupts off and this task's function graph
 * tracing paused: arch_spin_lock() may call a traced function out of
 * line (queued_spin_lock_slowpath() on arm64), whose entry and return
 * would run the graph handlers inside themselves, taking the lock again.
 */
static notrace unsigned long fgraph_boot_lock_irqsave(void)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	pause_graph_tracing();
	arch_spin_lock(&fgraph_boot_lock);
	return flags;
}

static notrace void fgraph_boot_unlock_irqrestore(unsigned long flags)
{
	arch_spin_unlock(&fgraph_boot_lock);
	unpause_graph_tracing();
	raw_local_irq_restore(flags);
}

/*
 * The graph handlers and their ops are not __init: a task may still be
 * in one when the init memory is freed, which then needs no grace period
 * first.  They only reach into init memory while recording, which ends
 * under fgraph_boot_lock before the init memory goes.
 */
static __ref notrace int fgraph_boot_graph_entry(struct ftrace_graph_ent *trace,
						 struct fgraph_ops *gops)
{
	struct fgraph_boot_call *call;
	unsigned long flags;
	bool record;

	/*
	 * Recording and counting only ever stop: no lock needed to see
	 * that they did.  Only the boot thread is recorded; the first call
	 * of another graph user's time ends the recording (its count of
	 * users, ftrace_graph_active, is 2 then).
	 */
	record = READ_ONCE(fgraph_boot_recording) &&
		 (current == READ_ONCE(fgraph_boot_task) ||
		  is_global_init(current) || ftrace_graph_active > 1);
	if ((!record && !READ_ONCE(fgraph_boot_counting)) || in_nmi())
		return 0;

	call = fgraph_reserve_data(gops->idx, sizeof(*call));
	if (call && !record) {
		call->slot = -1;
	} else if (record) {
		flags = fgraph_boot_lock_irqsave();
		/* Still recording: the init memory is still there */
		if (!fgraph_boot_recording)
			record = false;
		if (!call) {
			if (record)
				fgraph_boot_too_deep++;
		} else {
			call->slot = record ?
				fgraph_boot_graph_record(trace->func) : -1;
		}
		fgraph_boot_unlock_irqrestore(flags);
	}

	if (!call) {
		fgraph_boot_count_cpu(0, 0, true);
		return 0;
	}
	/* Only the counts read it, and counting never starts again */
	if (READ_ONCE(fgraph_boot_counting)) {
		call->time = fgraph_boot_arch_clock();
		return 1;
	}
	return call->slot >= 0;
}

static __ref notrace void fgraph_boot_graph_return(struct ftrace_graph_ret *trace,
						   struct fgraph_ops *gops)
{
	struct fgraph_boot_call *call;
	unsigned long flags;
	int size;

	call = fgraph_retrieve_data(gops->idx, &size);
	if (!call)
		return;
	/* Counting implies an architecture counter */
	if (READ_ONCE(fgraph_boot_counting))
		fgraph_boot_count_cpu(trace->func,
				      fgraph_boot_arch_clock() - call->time,
				      false);
	if (call->slot < 0)
		return;

	flags = fgraph_boot_lock_irqsave();
	if (!fgraph_boot_recording || current != fgraph_boot_task)
		goto out;
	/* Returns come in the reverse order of the calls recorded. */
	if (call->slot + 1 != fgraph_boot_gdepth) {
		fgraph_boot_end(false, "a return that did not match the calls recorded");
		goto out;
	}
	fgraph_boot_record_exit(fgraph_boot_gstack[--fgraph_boot_gdepth]);
out:
	fgraph_boot_unlock_irqrestore(flags);
}

static struct fgraph_ops fgraph_boot_gops = {
	.entryfunc	= fgraph_boot_graph_entry,
	.retfunc	= fgraph_boot_graph_return,
};

/* End recording while paused: nothing was recorded since the pause. */
static __init void fgraph_boot_end_paused(const char *why)
{
	fgraph_boot_end(false, why);
	fgraph_boot_pause_to = fgraph_boot_last;
}

/**
 * fgraph_boot_resume - record the boot thread's calls again
 *
 * Called by start_kernel() right after sched_init(), the earliest point
 * at which a function graph user can be registered: it needs the idle
 * task of the boot CPU, whose shadow stack sched_init() sets up again.
 */
void __init fgraph_boot_resume(void)
{
	int ret;

	if (fgraph_boot_recording && fgraph_boot_full)
		fgraph_boot_end_paused("ftrace_init(), with the buffer full");
	if (!fgraph_boot_recording && !fgraph_boot_counting)
		return;
	if (fgraph_boot_counting && !fgraph_boot_alloc_cpu_counts()) {
		pr_warn("no memory for the per-CPU call counts: counting ends\n");
		fgraph_boot_counting = false;
		if (!fgraph_boot_recording)
			return;
	}
	/* The calls the mcount hook left open: start_kernel(). */
	fgraph_boot_base = fgraph_boot_depth;
	ret = register_ftrace_graph(&fgraph_boot_gops);
	if (ret) {
		pr_warn("cannot register a function graph user (%d): recording and counting end\n",
			ret);
		fgraph_boot_counting = false;
		fgraph_boot_free_cpu_counts();
		if (fgraph_boot_recording)
			fgraph_boot_end_paused("ftrace_init()");
		return;
	}
	fgraph_boot_graph = true;
}

/* Stop recording, or counting, for good; let the graph user go. */
static __init void fgraph_boot_finish(const char *why, bool counts_too)
{
	unsigned long flags;

	flags = fgraph_boot_lock_irqsave();
	fgraph_boot_end(false, why);
	if (counts_too)
		fgraph_boot_counting = false;
	fgraph_boot_unlock_irqrestore(flags);
	/*
	 * A static ops gets no grace period from unregister_ftrace_graph(),
	 * and needs none: the ops and its handlers stay, and a task still
	 * in a handler (with CONFIG_PREEMPTION, one may be preempted there)
	 * sees that recording ended before it touches init memory.  Waiting
	 * here would hold up the boot this measures.
	 */
	if (fgraph_boot_graph && !fgraph_boot_counting) {
		unregister_ftrace_graph(&fgraph_boot_gops);
		fgraph_boot_graph = false;
	}
}

/*
 * Once recording has ended, and unless it still counts the calls, the
 * graph user only costs time: every traced
 * call of every task still goes through its entry handler.  The handlers
 * end recording (buffer full) with interrupts off and cannot let it go,
 * so the initcalls check, the first places that may sleep: one early
 * initcall, then one at the end of each level.  The regular
 * function_graph tracer of ftrace=function_graph starts at core_initcall
 * and ends the recording with its first calls: the check after it lets
 * the graph user go then.
 */
static __init int fgraph_boot_let_go(void)
{
	if (fgraph_boot_graph && !fgraph_boot_counting &&
	    (!READ_ONCE(fgraph_boot_recording) || ftrace_graph_active > 1))
		fgraph_boot_finish("another function graph user started", false);
	return 0;
}
early_initcall(fgraph_boot_let_go);
core_initcall_sync(fgraph_boot_let_go);
postcore_initcall_sync(fgraph_boot_let_go);
arch_initcall_sync(fgraph_boot_let_go);
subsys_initcall_sync(fgraph_boot_let_go);
fs_initcall_sync(fgraph_boot_let_go);
device_initcall_sync(fgraph_boot_let_go);

/*
 * An on|off parameter, in those two words: another value leaves @flag as
 * it is, with a warning.
 */
static void __init fgraph_boot_bool_param(const char *name, char *str,
					  bool *flag)
{
	if (str && !strcmp(str, "on")) {
		*flag = true;
	} else if (str && !strcmp(str, "off")) {
		*flag = false;
	} else {
		pr_warn("%s=%s: expected on or off, keeping %s\n", name,
			str ? str : "", *flag ? "on" : "off");
	}
}

static int __init fgraph_boot_param(char *str)
{
	fgraph_boot_bool_param("fgraph_boot", str, &fgraph_boot_on);
	return 0;
}
early_param("fgraph_boot", fgraph_boot_param);

static int __init fgraph_boot_thresh_param(char *str)
{
	unsigned int us;

	if (!str || kstrtouint(str, 10, &us) || us > USEC_PER_SEC) {
		pr_warn("fgraph_boot_thresh=%s: expected microseconds from 0 to %lu, keeping %u\n",
			str ? str : "", USEC_PER_SEC, fgraph_boot_thresh_us);
		return 0;
	}
	fgraph_boot_thresh_us = us;
	fgraph_boot_thresh_cmdline = true;
	return 0;
}
early_param("fgraph_boot_thresh", fgraph_boot_thresh_param);

static int __init fgraph_boot_count_param(char *str)
{
	if (!IS_ENABLED(CONFIG_FGRAPH_BOOT_COUNT))
		pr_warn("fgraph_boot_count=: not built in (CONFIG_FGRAPH_BOOT_COUNT)\n");
	else
		fgraph_boot_bool_param("fgraph_boot_count", str,
				       &fgraph_boot_count_on);
	return 0;
}
early_param("fgraph_boot_count", fgraph_boot_count_param);

/* The tracefs file. */

static u64 fgraph_boot_ns(u64 ticks)
{
	return mul_u64_u32_div(ticks, NSEC_PER_SEC, fgraph_boot_out.freq);
}

static void fgraph_boot_print_time(struct seq_file *m, u64 ticks)
{
	u64 ns = fgraph_boot_ns(ticks);
	u32 rem = do_div(ns, NSEC_PER_SEC);

	seq_printf(m, "%5llu.%06u |  ", ns, rem / (u32)NSEC_PER_USEC);
}

/* The duration column as the function_graph tracer prints it. */
static void fgraph_boot_print_duration(struct seq_file *m, u64 ticks)
{
	u64 ns = fgraph_boot_ns(ticks);
	u32 rem = do_div(ns, NSEC_PER_USEC);
	char buf[32], nsecs[5];
	int len;

	len = snprintf(buf, sizeof(buf), "%llu", ns);
	/* At most seven digits: as many of the nanoseconds as fit. */
	if (len < 7) {
		snprintf(nsecs, min_t(size_t, sizeof(nsecs), 8 - len), "%03u",
			 rem);
		len += snprintf(buf + len, sizeof(buf) - len, ".%s", nsecs);
	}
	seq_printf(m, "%c %s us %*s|  ", trace_find_mark(ns * NSEC_PER_USEC + rem),
		   buf, len < 8 ? 8 - len : 0, "");
}

static void fgraph_boot_header(struct seq_file *m)
{
	struct fgraph_boot_copy *c = &fgraph_boot_out;

	seq_puts(m, "# tracer: function_graph\n#\n");
	seq_printf(m, "# fgraph_boot: function calls of the boot thread from start_kernel() until %s\n",
		   c->why);
	if (c->freq && c->pause_to)
		seq_printf(m, "# not recording: counter %llu to %llu (%llu us), from the end of ftrace_init() to sched_init()\n",
			   c->pause_from, c->pause_to,
			   div_u64(fgraph_boot_ns(c->pause_to - c->pause_from),
				   NSEC_PER_USEC));
	if (c->freq) {
		seq_printf(m, "# clock: architecture counter at %u Hz\n", c->freq);
		seq_printf(m, "# threshold: %u us (%s)\n", c->thresh_us,
			   c->thresh_cmdline ? "fgraph_boot_thresh=" :
			   "CONFIG_FGRAPH_BOOT_BUFFER_THRESH");
		seq_printf(m, "# recorded: %llu us, counter %llu to %llu\n",
			   div_u64(fgraph_boot_ns(c->last - c->first),
				   NSEC_PER_USEC),
			   c->first, c->last);
		seq_printf(m, "# local_clock() was %llu ns at counter %llu\n",
			   c->clock_local, c->clock_ticks);
	} else {
		seq_puts(m, "# clock: none: no architecture counter, the records are in call order without times or durations, and nothing was filtered\n");
	}
	seq_printf(m, "# records: %u of %zu (%zu bytes each), dropped calls: %lu, too deep: %lu, no return address: %lu\n",
		   c->nr, FGRAPH_BOOT_NR_RECS, sizeof(struct fgraph_boot_rec),
		   c->dropped, c->too_deep, c->unhooked);
	if (c->open)
		seq_printf(m, "# calls still running when recording stopped or moved to another task: %u, closed then\n",
			   c->open);
	seq_puts(m, "#\n");
	if (c->freq) {
		seq_puts(m, "#     TIME       CPU  DURATION                  FUNCTION CALLS\n");
		seq_puts(m, "#      |         |     |   |                     |   |   |   |\n");
	} else {
		seq_puts(m, "# CPU                  FUNCTION CALLS\n");
		seq_puts(m, "# |                     |   |   |   |\n");
	}
}

static bool fgraph_boot_is_exit_of(unsigned int exit, unsigned int entry)
{
	struct fgraph_boot_rec *rec = &fgraph_boot_out.recs[exit];

	return exit < fgraph_boot_out.nr && (rec->info & FGRAPH_BOOT_EXIT) &&
		(rec->info & FGRAPH_BOOT_INDEX) == entry;
}

/* The CPU of the line that record @i is shown on: a leaf's is its entry's */
static unsigned int fgraph_boot_line_cpu(unsigned int i)
{
	struct fgraph_boot_rec *rec = &fgraph_boot_out.recs[i];

	if (i > 0 && fgraph_boot_is_exit_of(i, i - 1))
		rec--;
	return FIELD_GET(FGRAPH_BOOT_CPU, rec->info);
}

/* As the function_graph tracer marks a context switch on @cpu */
static void fgraph_boot_banner(struct seq_file *m, unsigned int cpu)
{
	struct fgraph_boot_copy *c = &fgraph_boot_out;

	seq_printf(m, " ------------------------------------------\n %*u)   <idle>-0    =>  %s-%d\n ------------------------------------------\n\n",
		   c->cpu_width, cpu, c->comm, c->pid);
}

static int fgraph_boot_show(struct seq_file *m, void *v)
{
	struct fgraph_boot_copy *c = &fgraph_boot_out;
	struct fgraph_boot_rec *rec, *entry;
	unsigned int i, depth, cpu;
	bool leaf = false;

	if (v == SEQ_START_TOKEN) {
		fgraph_boot_header(m);
		return 0;
	}
	i = (struct fgraph_boot_rec *)v - c->recs;
	rec = v;
	cpu = FIELD_GET(FGRAPH_BOOT_CPU, rec->info);
	if (rec->info & FGRAPH_BOOT_SWITCH) {
		fgraph_boot_banner(m, cpu);
		return 0;
	}
	if (rec->info & FGRAPH_BOOT_EXIT) {
		entry = &c->recs[rec->info & FGRAPH_BOOT_INDEX];
		/* Printed with its entry as a leaf line. */
		if (entry == rec - 1)
			return 0;
		depth = entry->info & FGRAPH_BOOT_INDEX;
	} else {
		entry = rec;
		depth = rec->info & FGRAPH_BOOT_INDEX;
		leaf = fgraph_boot_is_exit_of(i + 1, i);
	}
	/* The boot thread moved to another CPU: say who runs there now. */
	if (i > 0 && fgraph_boot_line_cpu(i - 1) != cpu)
		fgraph_boot_banner(m, cpu);

	if (c->freq)
		fgraph_boot_print_time(m, rec->time);
	seq_printf(m, " %*u) ", c->cpu_width, cpu);
	if (c->freq && (leaf || rec != entry))
		fgraph_boot_print_duration(m, (leaf ? rec[1].time : rec->time) -
					   entry->time);
	else if (c->freq)
		seq_puts(m, "              |  ");
	seq_printf(m, "%*s", depth * 2, "");
	if (leaf)
		seq_printf(m, "%ps();\n", (void *)rec->func);
	else if (rec == entry)
		seq_printf(m, "%ps() {\n", (void *)rec->func);
	else
		seq_printf(m, "} /* %ps */\n", (void *)rec->func);
	return 0;
}

static void *fgraph_boot_seq_start(struct seq_file *m, loff_t *pos)
{
	if (*pos == 0)
		return SEQ_START_TOKEN;
	if (*pos > fgraph_boot_out.nr)
		return NULL;
	return &fgraph_boot_out.recs[*pos - 1];
}

static void *fgraph_boot_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return fgraph_boot_seq_start(m, pos);
}

static void fgraph_boot_seq_stop(struct seq_file *m, void *v)
{
}

static const struct seq_operations fgraph_boot_seq_ops = {
	.start	= fgraph_boot_seq_start,
	.next	= fgraph_boot_seq_next,
	.stop	= fgraph_boot_seq_stop,
	.show	= fgraph_boot_show,
};

static int fgraph_boot_open_file(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;
	return seq_open(file, &fgraph_boot_seq_ops);
}

static const struct file_operations fgraph_boot_fops = {
	.open		= fgraph_boot_open_file,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/*
 * Copy the records out of init memory before it is freed, and show them
 * in tracefs.  Nothing is kept when nothing was recorded.
 */
static __init int fgraph_boot_init_tracefs(void)
{
	struct fgraph_boot_copy *c = &fgraph_boot_out;
	size_t size;

	fgraph_boot_finish("the late initcall that copies the records out",
			   false);
	size = fgraph_boot_tail * sizeof(struct fgraph_boot_rec);
	if (!fgraph_boot_tail)
		return 0;
	if (tracing_init_dentry())
		return 0;

	c->recs = vmalloc(size);
	if (!c->recs)
		return -ENOMEM;
	memcpy(c->recs, fgraph_boot_buf, size);
	c->nr = fgraph_boot_tail;
	c->freq = fgraph_boot_freq;
	c->thresh_us = fgraph_boot_thresh_us;
	c->thresh_cmdline = fgraph_boot_thresh_cmdline;
	c->dropped = fgraph_boot_dropped;
	c->too_deep = fgraph_boot_too_deep;
	c->unhooked = fgraph_boot_unhooked;
	c->first = fgraph_boot_first;
	c->last = fgraph_boot_last;
	c->open = fgraph_boot_closed;
	c->why = fgraph_boot_why;
	c->pause_from = fgraph_boot_pause_from;
	c->pause_to = fgraph_boot_pause_to;
	c->cpu_width = snprintf(NULL, 0, "%u", nr_cpu_ids - 1);
	if (c->freq) {
		c->clock_local = local_clock();
		c->clock_ticks = fgraph_boot_arch_clock();
	}

	trace_create_file("fgraph_boot_trace", TRACE_MODE_READ, NULL, NULL,
			  &fgraph_boot_fops);
	return 0;
}
late_initcall(fgraph_boot_init_tracefs);

#ifdef CONFIG_FGRAPH_BOOT_COUNT
/* The counts kept for trace_stat/fgraph_boot, one per function */
static struct fgraph_boot_count *fgraph_boot_stats;
static unsigned int fgraph_boot_nr_stats;
static u32 fgraph_boot_stats_freq;

static u64 fgraph_boot_stat_ns(u64 ticks)
{
	return mul_u64_u32_div(ticks, NSEC_PER_SEC, fgraph_boot_stats_freq);
}

static void *fgraph_boot_stat_start(struct tracer_stat *trace)
{
	return fgraph_boot_nr_stats ? fgraph_boot_stats : NULL;
}

static void *fgraph_boot_stat_next(void *prev, int idx)
{
	struct fgraph_boot_count *c = prev;

	return c + 1 < fgraph_boot_stats + fgraph_boot_nr_stats ? c + 1 : NULL;
}

/* The most time first, as the function profiler sorts */
static int fgraph_boot_stat_cmp(const void *p1, const void *p2)
{
	const struct fgraph_boot_count *a = p1, *b = p2;

	if (a->ticks != b->ticks)
		return a->ticks < b->ticks ? -1 : 1;
	return 0;
}

static int fgraph_boot_stat_headers(struct seq_file *m)
{
	seq_puts(m, "  Function                               Hit    Time            Avg             s^2\n"
		    "  --------                               ---    ----            ---             ---\n");
	return 0;
}

/* The columns of the function profiler: total, average and variance */
static int fgraph_boot_stat_show(struct seq_file *m, void *v)
{
	/* The stat file's session lock serialises the calls */
	static struct trace_seq s;
	struct fgraph_boot_count *c = v;
	char str[KSYM_SYMBOL_LEN];
	u64 var = 0;

	/*
	 * s^2 = (sum of x^2 - (sum of x)^2 / n) / (n - 1) in counter ticks;
	 * the quotient is at most the sum of squares, so it fits.  A sum
	 * that saturated hides it.
	 */
	if (c->hits > 1 && c->hits != ULONG_MAX && c->ticks_sq != U64_MAX &&
	    c->ticks != U64_MAX)
		var = div64_ul(c->ticks_sq -
			       mul_u64_u64_div_u64(c->ticks, c->ticks, c->hits),
			       c->hits - 1);

	kallsyms_lookup(c->func, NULL, NULL, NULL, str);
	/* Whole names: the function profiler cuts them at 30 characters */
	seq_printf(m, "  %-30s  %10lu    ", str, c->hits);
	trace_seq_init(&s);
	trace_print_graph_duration(fgraph_boot_stat_ns(c->ticks), &s);
	trace_seq_puts(&s, "    ");
	trace_print_graph_duration(fgraph_boot_stat_ns(div64_ul(c->ticks,
								c->hits)), &s);
	trace_seq_puts(&s, "    ");
	/*
	 * In us^2, times 1000: trace_print_graph_duration() prints
	 * nanoseconds as microseconds
	 */
	var = mul_u64_u64_div_u64(var, 1000ULL * USEC_PER_SEC * USEC_PER_SEC,
				  (u64)fgraph_boot_stats_freq *
				  fgraph_boot_stats_freq);
	trace_print_graph_duration(var, &s);
	trace_print_seq(m, &s);
	seq_putc(m, '\n');
	return 0;
}

static struct tracer_stat fgraph_boot_stat = {
	.name		= "fgraph_boot",
	.stat_start	= fgraph_boot_stat_start,
	.stat_next	= fgraph_boot_stat_next,
	.stat_cmp	= fgraph_boot_stat_cmp,
	.stat_headers	= fgraph_boot_stat_headers,
	.stat_show	= fgraph_boot_stat_show,
};

static int fgraph_boot_count_cmp_func(const void *p1, const void *p2)
{
	const struct fgraph_boot_count *a = p1, *b = p2;

	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return 0;
}

/* The slots in use of the early table, copied out of init memory */
static struct fgraph_boot_count *fgraph_boot_early_copy;
static unsigned int fgraph_boot_early_nr;
static unsigned long fgraph_boot_early_uncounted;

static void fgraph_boot_count_merge_one(struct fgraph_boot_count *to,
					const struct fgraph_boot_count *from)
{
	to->hits = from->hits > ULONG_MAX - to->hits ? ULONG_MAX :
		   to->hits + from->hits;
	fgraph_boot_add_sat(&to->ticks, from->ticks);
	fgraph_boot_add_sat(&to->ticks_sq, from->ticks_sq);
}

/*
 * The hook and the graph handlers name a function by different
 * addresses inside it, and each CPU has counted its own calls: key each
 * count by the function's start, and merge those of one function.
 * Returns the number of functions in @out, which has room for @size.
 */
static unsigned int fgraph_boot_count_merge(struct fgraph_boot_count *out,
					    unsigned int size)
{
	unsigned long fsize, offset;
	unsigned int i, cpu, last, n = 0;

	for (i = 0; i < fgraph_boot_early_nr && n < size; i++)
		out[n++] = fgraph_boot_early_copy[i];
	for_each_possible_cpu(cpu) {
		struct fgraph_boot_count *slots = fgraph_boot_cpu_counts[cpu].slots;

		for (i = 0; i < FGRAPH_BOOT_COUNT_SLOTS && n < size; i++)
			if (slots[i].func)
				out[n++] = slots[i];
	}
	for (i = 0; i < n; i++)
		if (kallsyms_lookup_size_offset(out[i].func, &fsize, &offset))
			out[i].func -= offset;
	sort(out, n, sizeof(*out), fgraph_boot_count_cmp_func, NULL);
	for (i = 1, last = 0; i < n; i++) {
		if (out[i].func == out[last].func)
			fgraph_boot_count_merge_one(&out[last], &out[i]);
		else
			out[++last] = out[i];
	}
	return n ? last + 1 : 0;
}

/*
 * Merge the counts once every CPU is done with its table, away from
 * kernel_init(): the grace period would hold up the end of boot.
 */
static void fgraph_boot_count_work_fn(struct work_struct *work)
{
	struct fgraph_boot_count *stats;
	unsigned long uncounted = fgraph_boot_early_uncounted;
	unsigned int cpu, size = fgraph_boot_early_nr;

	/* Irqs-off writers, some in idle where RCU is not watching */
	synchronize_rcu_tasks_rude();
	for_each_possible_cpu(cpu) {
		size += fgraph_boot_cpu_counts[cpu].used;
		uncounted += fgraph_boot_cpu_counts[cpu].uncounted;
	}
	if (uncounted)
		pr_warn("%lu calls not counted: no room for their functions in the table (CONFIG_FGRAPH_BOOT_COUNT_BITS), or too deep to hook\n",
			uncounted);
	stats = size ? vmalloc(array_size(size, sizeof(*stats))) : NULL;
	if (stats) {
		fgraph_boot_nr_stats = fgraph_boot_count_merge(stats, size);
		fgraph_boot_stats = stats;
		if (register_stat_tracer(&fgraph_boot_stat)) {
			pr_warn("cannot create trace_stat/fgraph_boot\n");
			fgraph_boot_stats = NULL;
			fgraph_boot_nr_stats = 0;
			vfree(stats);
		}
	}
	fgraph_boot_free_cpu_counts();
	vfree(fgraph_boot_early_copy);
	fgraph_boot_early_copy = NULL;
}

static DECLARE_WORK(fgraph_boot_count_work, fgraph_boot_count_work_fn);

/**
 * fgraph_boot_count_end - stop counting the calls of boot and show them
 *
 * Called by kernel_init() once the async __init work is done, before
 * the init memory that holds the mcount hook's counts is freed and /init
 * runs: unregistering the graph user patches the call sites of init
 * functions too, which is refused from SYSTEM_FREEING_INITMEM on.  A
 * work item merges the counts into one per function for
 * trace_stat/fgraph_boot once no CPU can still be counting.
 */
void __init fgraph_boot_count_end(void)
{
	struct fgraph_boot_count_table *t = &fgraph_boot_early_counts;
	unsigned int i, n = 0;

	if (!fgraph_boot_counting)
		return;
	fgraph_boot_finish("the end of the counts", true);
	if (!fgraph_boot_cpu_counts)
		return;
	fgraph_boot_stats_freq = fgraph_boot_freq;
	fgraph_boot_early_uncounted = t->uncounted;
	if (t->used)
		fgraph_boot_early_copy = vmalloc(array_size(t->used,
							    sizeof(*t->slots)));
	if (fgraph_boot_early_copy) {
		for (i = 0; i < FGRAPH_BOOT_COUNT_SLOTS; i++)
			if (t->slots[i].func)
				fgraph_boot_early_copy[n++] = t->slots[i];
		fgraph_boot_early_nr = n;
	}
	schedule_work(&fgraph_boot_count_work);
}
#endif
