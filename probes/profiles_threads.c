/*
 * Profiles that need helper threads: sched_yield with a competitor,
 * sched_setaffinity on another thread. Helper threads live only for one
 * round (started in before_round, joined in after_round), so they never
 * disturb the rounds of other profiles interleaved with these.
 */
#include "probe.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int loop_yield(struct probe_ctx *ctx, long *failed_at)
{
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = sched_yield();
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

/* ---- helper thread plumbing ---- */

static pthread_t helper;
static int helper_running;
static atomic_int helper_stop;
static atomic_int helper_ready;
static atomic_long heartbeat;
static atomic_int helper_tid;
static int helper_cpu;
static int helper_pin_failed;

static void *yield_partner(void *arg)
{
	(void)arg;
	helper_tid = (int)syscall(SYS_gettid);
	if (pin_thread_to(helper_cpu) != 0)
		helper_pin_failed = errno ? errno : EINVAL;
	helper_ready = 1;
	while (!helper_stop) {
		heartbeat++;
		sched_yield();
	}
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	helper_tid = (int)syscall(SYS_gettid);
	if (pin_thread_to(helper_cpu) != 0)
		helper_pin_failed = errno ? errno : EINVAL;
	helper_ready = 1;
	while (!helper_stop)
		heartbeat++;
	return NULL;
}

static int start_helper(void *(*fn)(void *), int cpu)
{
	helper_stop = 0;
	helper_ready = 0;
	helper_pin_failed = 0;
	heartbeat = 0;
	helper_cpu = cpu;
	int rc = pthread_create(&helper, NULL, fn, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	helper_running = 1;
	while (!helper_ready)
		sched_yield();
	if (helper_pin_failed) {
		errno = helper_pin_failed;
		return -1;
	}
	return 0;
}

static int stop_helper(struct probe_ctx *ctx)
{
	(void)ctx;
	if (!helper_running)
		return 0;
	helper_stop = 1;
	pthread_join(helper, NULL);
	helper_running = 0;
	/* the helper must really have run during the round */
	if (heartbeat == 0) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

static void cleanup_helper(void)
{
	helper_stop = 1; /* the thread exits by itself; joining is not signal-safe */
}

/* sched_yield-dual: a partner thread pinned to the same CPU yields back. */
static int before_yield_dual(struct probe_ctx *ctx)
{
	return start_helper(yield_partner, ctx->cpu);
}

/*
 * sched_setaffinity-same-mask: rewrite a spinning thread's single-CPU mask
 * with the mask it already has. The target spins on the other CPU when there
 * is one (a running task), else it shares ours.
 */
static cpu_set_t target_mask;

static int before_same_mask(struct probe_ctx *ctx)
{
	int cpu = ctx->other_cpu >= 0 ? ctx->other_cpu : ctx->cpu;
	CPU_ZERO(&target_mask);
	CPU_SET(cpu, &target_mask);
	return start_helper(ctx->other_cpu >= 0 ? spinner : yield_partner, cpu);
}

static int loop_same_mask(struct probe_ctx *ctx, long *failed_at)
{
	pid_t tid = helper_tid;
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = sched_setaffinity(tid, sizeof(target_mask), &target_mask);
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

/*
 * sched_setaffinity-queued: two controllers, one per CPU, take turns pulling
 * a busy target thread onto their own CPU, where it waits queued behind the
 * controller. Before each move a controller waits (yielding its CPU) until
 * the target's heartbeat has advanced since the previous move: proof that
 * the target really ran where it was sent. One op = one move.
 */
static atomic_long turn;          /* move number whose turn it is */
static atomic_int queued_error;   /* errno of a failed move in the partner */
static pthread_t partner;
static int partner_running;
static long partner_ops;
static cpu_set_t mask_a, mask_b;

#define HEARTBEAT_TIMEOUT_NS 2000000000LL

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* wait for the target to run after the last move; -1 (ETIME) after 2 s */
static int wait_heartbeat(long since)
{
	long long deadline = 0;
	for (unsigned spins = 0; heartbeat == since; spins++) {
		sched_yield();
		if ((spins & 1023) == 1023) {
			if (!deadline)
				deadline = now_ns() + HEARTBEAT_TIMEOUT_NS;
			else if (now_ns() > deadline) {
				errno = ETIME;
				return -1;
			}
		}
	}
	return 0;
}

/* heartbeat value right after the previous move returned; -1 before the first */
static atomic_long last_move_beat;
static int partner_cpu;

/*
 * Wait until the target has run since the previous move (a heartbeat after
 * sched_setaffinity returned can only come from the new CPU), then move it.
 */
static int move_target(cpu_set_t *mask)
{
	if (wait_heartbeat(last_move_beat) != 0)
		return -1;
	int r = sched_setaffinity(helper_tid, sizeof(*mask), mask);
	last_move_beat = heartbeat;
	return r;
}

static void *queued_partner(void *arg)
{
	(void)arg;
	if (pin_thread_to(partner_cpu) != 0) {
		queued_error = errno;
		return NULL;
	}
	for (long move = 1; move < partner_ops && !helper_stop; move += 2) {
		while (turn != move && !helper_stop && !queued_error)
			sched_yield();
		if (helper_stop || queued_error)
			break;
		if (move_target(&mask_b) != 0) {
			queued_error = errno ? errno : EPROTO;
			break;
		}
		turn = move + 1;
	}
	return NULL;
}

static int before_queued(struct probe_ctx *ctx)
{
	CPU_ZERO(&mask_a);
	CPU_SET(ctx->cpu, &mask_a);
	CPU_ZERO(&mask_b);
	CPU_SET(ctx->other_cpu, &mask_b);
	turn = 0;
	queued_error = 0;
	partner_ops = ctx->ops;
	partner_cpu = ctx->other_cpu;
	last_move_beat = -1;
	/* the target starts on the partner's CPU, busy (it yields, never sleeps) */
	if (start_helper(yield_partner, ctx->other_cpu) != 0)
		return -1;
	int rc = pthread_create(&partner, NULL, queued_partner, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	partner_running = 1;
	return 0;
}

static int loop_queued(struct probe_ctx *ctx, long *failed_at)
{
	for (long move = 0; move < ctx->ops; move += 2) {
		while (turn != move && !queued_error)
			sched_yield();
		if (queued_error) {
			*failed_at = move - 1;
			errno = queued_error;
			return -1;
		}
		long r = move_target(&mask_a);
		if (r != 0)
			return fail_at(failed_at, move, r);
		turn = move + 1;
	}
	/* the partner's last move must be done before the round's clock stops */
	while (turn < ctx->ops && !queued_error)
		sched_yield();
	if (queued_error) {
		*failed_at = ctx->ops - 1;
		errno = queued_error;
		return -1;
	}
	return 0;
}

static int after_queued(struct probe_ctx *ctx)
{
	if (partner_running) {
		helper_stop = 1;
		pthread_join(partner, NULL);
		partner_running = 0;
	}
	return stop_helper(ctx);
}

const struct profile thread_profiles[] = {
	{ "sched_yield", "sched_yield() with no other runnable task on the CPU", "threads=1", "sched_yield",
	  0, NULL, NULL, NULL, NULL, loop_yield, NULL },
	{ "sched_yield-dual", "sched_yield() with a second yielding thread pinned to the same CPU",
	  "threads=2,partner=same-cpu", "sched_yield", 0, NULL, before_yield_dual, stop_helper, cleanup_helper,
	  loop_yield, NULL },
	{ "sched_setaffinity-same-mask", "sched_setaffinity(tid, mask) rewriting a running thread's unchanged single-CPU mask",
	  "target=spinning-thread,mask=unchanged", "sched_setaffinity", 0, NULL, before_same_mask, stop_helper,
	  cleanup_helper, loop_same_mask, NULL },
	{ "sched_setaffinity-queued",
	  "two controllers on two CPUs alternately pull a busy (yielding) thread onto their own CPU; one op = one move, including the wait for its heartbeat",
	  "controllers=2,target=spinning-thread", "sched_setaffinity", 1, NULL, before_queued, after_queued,
	  cleanup_helper, loop_queued, NULL },
};
const size_t n_thread_profiles = sizeof(thread_profiles) / sizeof(thread_profiles[0]);
