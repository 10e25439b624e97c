/*
 * The calls a scenario line can make (docs/behave-scenarios.md, "Scenario files"): each reads
 * its key=value arguments, makes exactly one syscall (or one write of a
 * debugfs knob), and reports its return value, errno and what the call
 * hands back (sched_getattr's fields, the returned fd sets, mincore's
 * vector). Pids, times and addresses are reported as classes, never as
 * numbers: `pid`, `nonzero`, `untouched`. Arguments: behave_args.c; select
 * and mincore: behave_io.c.
 */
#include "probe.h" /* first: _GNU_SOURCE */
#include "behave.h"
#include "sched_attr.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- sched_* ---- */

static unsigned char attr_buf[8192] __attribute__((aligned(64)));

static void call_sched_getattr(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l)
{
	pid_t pid = ba_pid(ctx, c, l);
	unsigned size = (unsigned)ba_num(c, l, "size", sizeof(struct hl_sched_attr));
	unsigned flags = (unsigned)ba_num(c, l, "flags", 0);
	memset(attr_buf, 0xa5, sizeof(attr_buf));
	long r = syscall(SYS_sched_getattr, pid, ba_ptr(l, "attr", attr_buf), size, flags);
	ba_result(c, r);
	if (r != 0)
		return;
	struct hl_sched_attr a;
	memcpy(&a, attr_buf, sizeof(a));
	ba_out(c, "size=%u", a.size);
	ba_out(c, "policy=%u", a.sched_policy);
	ba_out(c, "flags=0x%llx", (unsigned long long)a.sched_flags);
	ba_out(c, "nice=%d", a.sched_nice);
	ba_out(c, "prio=%u", a.sched_priority);
	ba_out(c, "runtime=%llu", (unsigned long long)a.sched_runtime);
	ba_out(c, "deadline=%llu", (unsigned long long)a.sched_deadline);
	ba_out(c, "period=%llu", (unsigned long long)a.sched_period);
	if (a.size >= sizeof(a))
		ba_out(c, "umin=%u,umax=%u", a.sched_util_min, a.sched_util_max);
	/* what the kernel wrote past the size it reported (it must write nothing there) */
	size_t from = a.size < sizeof(attr_buf) ? a.size : sizeof(attr_buf);
	size_t to = size < sizeof(attr_buf) ? size : sizeof(attr_buf);
	int touched = 0;
	for (size_t i = from; i < to; i++)
		touched |= attr_buf[i] != 0xa5;
	ba_out(c, "tail=%s", touched ? "written" : "untouched");
}

static void call_sched_setattr(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l)
{
	pid_t pid = ba_pid(ctx, c, l);
	struct hl_sched_attr a;
	memset(&a, 0, sizeof(a));
	memset(attr_buf, 0, sizeof(attr_buf));
	a.size = (uint32_t)ba_num(c, l, "size", sizeof(a));
	a.sched_policy = (uint32_t)ba_num(c, l, "policy", SCHED_OTHER);
	a.sched_flags = (uint64_t)ba_num(c, l, "flags", 0);
	a.sched_nice = (int32_t)ba_num(c, l, "nice", 0);
	a.sched_priority = (uint32_t)ba_num(c, l, "prio", 0);
	const char *rt = ba_arg(l, "runtime");
	if (rt && !strcmp(rt, "default")) {
		/* a custom slice equal to the default in force now */
		unsigned long long base = behave_base_slice_ns();
		a.sched_runtime = base ? base : ctx->start_slice;
	} else {
		a.sched_runtime = (uint64_t)ba_num(c, l, "runtime", 0);
	}
	a.sched_deadline = (uint64_t)ba_num(c, l, "deadline", 0);
	a.sched_period = (uint64_t)ba_num(c, l, "period", 0);
	a.sched_util_min = (uint32_t)ba_num(c, l, "umin", 0);
	a.sched_util_max = (uint32_t)ba_num(c, l, "umax", 0);
	memcpy(attr_buf, &a, sizeof(a));
	/* a nonzero byte past the struct: a larger size must then fail with E2BIG */
	long tail = (long)ba_num(c, l, "tail", 0);
	if (tail)
		attr_buf[sizeof(a)] = (unsigned char)tail;
	if (c->bad)
		return;
	long r = syscall(SYS_sched_setattr, pid, ba_ptr(l, "attr", attr_buf), (unsigned)ba_num(c, l, "callflags", 0));
	ba_result(c, r);
	struct hl_sched_attr back;
	memcpy(&back, attr_buf, sizeof(back));
	/* on E2BIG the kernel writes the size it supports into the caller's struct */
	if (back.size != a.size)
		ba_out(c, "size_written=%u", back.size);
}

static void call_setscheduler(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l, int with_policy)
{
	pid_t pid = ba_pid(ctx, c, l);
	struct sched_param p = { .sched_priority = (int)ba_num(c, l, "prio", 0) };
	int policy = (int)ba_num(c, l, "policy", SCHED_OTHER);
	if (c->bad)
		return;
	void *pp = ba_ptr(l, "param", &p);
	long r = with_policy ? syscall(SYS_sched_setscheduler, pid, policy, pp) : syscall(SYS_sched_setparam, pid, pp);
	ba_result(c, r);
}

static void call_get_simple(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l, const char *which)
{
	pid_t pid = ba_pid(ctx, c, l);
	if (c->bad)
		return;
	if (!strcmp(which, "sched_getscheduler")) {
		ba_result(c, syscall(SYS_sched_getscheduler, pid));
		return;
	}
	struct sched_param p = { .sched_priority = -1 };
	long r = syscall(SYS_sched_getparam, pid, ba_ptr(l, "param", &p));
	ba_result(c, r);
	if (r == 0)
		ba_out(c, "prio=%d", p.sched_priority);
}

static void call_priority(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l, int set)
{
	pid_t pid = ba_pid(ctx, c, l);
	int which = (int)ba_num(c, l, "which", PRIO_PROCESS);
	int nice = (int)ba_num(c, l, "nice", 0);
	if (c->bad)
		return;
	/* the raw getpriority returns 20 - nice, never negative: no errno ambiguity */
	long r = set ? syscall(SYS_setpriority, which, pid, nice) : syscall(SYS_getpriority, which, pid);
	ba_result(c, r);
}

static unsigned char mask_buf[1024];

static void fill_mask(struct behave_out *c, const struct behave_line *l)
{
	memset(mask_buf, 0, sizeof(mask_buf));
	const char *m = ba_arg(l, "mask");
	if (!m || !strcmp(m, "null") || !strcmp(m, "none"))
		return;
	if (!strcmp(m, "all")) {
		memset(mask_buf, 0xff, sizeof(mask_buf));
		return;
	}
	if (!strncmp(m, "cpu", 3)) {
		int cpu = atoi(m + 3);
		if (cpu >= 0 && cpu < (int)sizeof(mask_buf) * 8)
			mask_buf[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
		return;
	}
	int ok = 1;
	unsigned long long bits = (unsigned long long)ba_value(m, &ok);
	if (!ok)
		c->bad = "mask";
	memcpy(mask_buf, &bits, sizeof(bits));
}

static void call_affinity(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l, int set)
{
	pid_t pid = ba_pid(ctx, c, l);
	long size = (long)ba_num(c, l, "size", 128);
	fill_mask(c, l);
	if (c->bad)
		return;
	if (size < 0 || size > (long)sizeof(mask_buf))
		size = (long)sizeof(mask_buf);
	void *mp = ba_ptr(l, "mask", mask_buf);
	long r = set ? syscall(SYS_sched_setaffinity, pid, (size_t)size, mp) : syscall(SYS_sched_getaffinity, pid, (size_t)size, mp);
	ba_result(c, r);
	if (!set && r > 0) {
		unsigned long long bits = 0;
		memcpy(&bits, mask_buf, (size_t)r < sizeof(bits) ? (size_t)r : sizeof(bits));
		ba_out(c, "mask=0x%llx", bits);
	}
}

/* ---- the rest ---- */

/* Run on the CPU for this much CPU time of the calling thread. */
static void spin_cpu_ns(long long ns)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < ns);
}

/*
 * CPU time that holds at least three ticks at HZ=100 (the lowest HZ):
 * added to the old base slice, the task has passed its deadline and a
 * tick has seen it.
 */
#define BASE_SLICE_SETTLE_NS 30000000LL

static void call_base_slice(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l)
{
	long long ns = ba_num(c, l, "ns", 0);
	if (c->bad)
		return;
	/* a global knob: only a guest's PID 1 may turn it (it is put back after the scenario) */
	if (!ctx->pid1) {
		snprintf(c->ret, c->retlen, "skipped");
		snprintf(c->err, c->errlen, "0");
		ba_out(c, "why=not-a-guest");
		return;
	}
	unsigned long long old = behave_base_slice_ns();
	int r = behave_set_base_slice((unsigned long long)ns);
	ba_result(c, r);
	/*
	 * The kernel gives a task with the default slice the new base only at
	 * its next deadline (update_deadline() in kernel/sched/fair.c, from the
	 * tick), so a state read right after the write saw the old or the new
	 * slice depending on where the tick fell. The task runs past its
	 * deadline first: the state after this step is the settled one.
	 */
	if (r == 0)
		spin_cpu_ns((long long)old + ns + BASE_SLICE_SETTLE_NS);
}

static void call_spin(struct behave_out *c, const struct behave_line *l)
{
	/* run on the CPU for this much CPU time, so the scheduler passes the task's deadline */
	long long ms = ba_num(c, l, "ms", 10);
	if (c->bad)
		return;
	spin_cpu_ns(ms * 1000000LL);
	ba_result(c, 0);
}

int behave_call(struct behave_ctx *ctx, const struct behave_line *l, char *ret, size_t retlen, char *err, size_t errlen,
		char *out, size_t outlen)
{
	struct behave_out c = { ret, err, out, retlen, errlen, outlen, 0, NULL };
	const char *name = l->argv[0];
	out[0] = 0;
	snprintf(ret, retlen, "-");
	snprintf(err, errlen, "0");
	if (!strcmp(name, "getppid")) {
		long r = syscall(SYS_getppid);
		snprintf(ret, retlen, "%s", r == 0 ? "0" : r > 0 ? "pid" : "negative");
	} else if (!strcmp(name, "sched_getattr"))
		call_sched_getattr(ctx, &c, l);
	else if (!strcmp(name, "sched_setattr"))
		call_sched_setattr(ctx, &c, l);
	else if (!strcmp(name, "sched_setscheduler") || !strcmp(name, "sched_setparam"))
		call_setscheduler(ctx, &c, l, name[9] == 's');
	else if (!strcmp(name, "sched_getscheduler") || !strcmp(name, "sched_getparam"))
		call_get_simple(ctx, &c, l, name);
	else if (!strcmp(name, "sched_yield"))
		ba_result(&c, syscall(SYS_sched_yield));
	else if (!strcmp(name, "sched_setaffinity") || !strcmp(name, "sched_getaffinity"))
		call_affinity(ctx, &c, l, name[6] == 's');
	else if (!strcmp(name, "setpriority") || !strcmp(name, "getpriority"))
		call_priority(ctx, &c, l, name[0] == 's');
	else if (!strcmp(name, "select"))
		behave_select(ctx, &c, l);
	else if (!strcmp(name, "mincore"))
		behave_mincore(ctx, &c, l);
	else if (!strcmp(name, "touch") || !strcmp(name, "dontneed"))
		behave_pages(ctx, &c, l, name[0] == 't');
	else if (!strcmp(name, "base_slice"))
		call_base_slice(ctx, &c, l);
	else if (!strcmp(name, "pi_lock") || !strcmp(name, "pi_unlock") || !strcmp(name, "peer_pi_lock"))
		ba_result(&c, behave_pi(ctx, name));
	else if (!strcmp(name, "spin"))
		call_spin(&c, l);
	else
		c.bad = "unknown call";
	if (c.bad) {
		snprintf(out, outlen, "%s", c.bad);
		return -1;
	}
	return 0;
}
