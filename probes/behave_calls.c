/*
 * The calls a scenario line can make (docs/behave.md, "Calls"): each reads
 * its key=value arguments, makes exactly one syscall (or one write of a
 * debugfs knob), and reports its return value, errno and what the call
 * hands back (sched_getattr's fields, the returned fd sets, mincore's
 * vector). Pids, times and addresses are reported as classes, never as
 * numbers: `pid`, `nonzero`, `untouched`.
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

#define SCHED_DEADLINE_POLICY 6
#define NONEXISTENT_PID 0x3ffffff0

struct call_out {
	char *ret, *err, *out;
	size_t retlen, errlen, outlen;
	size_t o; /* used length of out */
	const char *bad; /* why the line cannot run */
};

static const char *arg(const struct behave_line *l, const char *key)
{
	size_t n = strlen(key);
	for (int i = 1; i < l->argc; i++)
		if (!strncmp(l->argv[i], key, n) && l->argv[i][n] == '=')
			return l->argv[i] + n + 1;
	return NULL;
}

static void add_out(struct call_out *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_out(struct call_out *c, const char *fmt, ...)
{
	if (c->o + 2 >= c->outlen)
		return;
	if (c->o)
		c->out[c->o++] = ',';
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(c->out + c->o, c->outlen - c->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->o += (size_t)n;
	if (c->o >= c->outlen)
		c->o = c->outlen - 1;
}

static const struct {
	const char *name;
	long long value;
} symbols[] = {
	{ "OTHER", SCHED_OTHER }, { "FIFO", SCHED_FIFO }, { "RR", SCHED_RR }, { "BATCH", SCHED_BATCH },
	{ "IDLE", SCHED_IDLE }, { "DEADLINE", SCHED_DEADLINE_POLICY }, { "RESET_ON_FORK_POLICY", 0x40000000 },
	/* sched_attr.sched_flags (include/uapi/linux/sched.h) */
	{ "RESET_ON_FORK", 0x01 }, { "RECLAIM", 0x02 }, { "DL_OVERRUN", 0x04 }, { "KEEP_POLICY", 0x08 },
	{ "KEEP_PARAMS", 0x10 }, { "UTIL_CLAMP_MIN", 0x20 }, { "UTIL_CLAMP_MAX", 0x40 }, { "UTIL_CLAMP", 0x60 },
};

/* A number, a symbol, or symbols and numbers joined by '+'; -1 in *ok on a word it does not know. */
static long long value_of(const char *v, int *ok)
{
	long long total = 0;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *save, *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		char *end;
		long long n = strtoll(t, &end, 0);
		if (*t && !*end) {
			total += n;
			continue;
		}
		size_t i;
		for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
			if (!strcmp(symbols[i].name, t))
				break;
		if (i == sizeof(symbols) / sizeof(symbols[0])) {
			*ok = 0;
			return 0;
		}
		total += symbols[i].value;
	}
	return total;
}

static long long num(struct call_out *c, const struct behave_line *l, const char *key, long long dflt)
{
	const char *v = arg(l, key);
	if (!v)
		return dflt;
	int ok = 1;
	long long n = value_of(v, &ok);
	if (!ok)
		c->bad = key;
	return n;
}

static pid_t pid_arg(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l)
{
	const char *v = arg(l, "pid");
	if (!v || !strcmp(v, "self"))
		return 0;
	if (!strcmp(v, "peer")) {
		if (!ctx->peer)
			c->bad = "pid=peer without 'peer' in the scenario";
		return ctx->peer;
	}
	if (!strcmp(v, "nonexistent"))
		return NONEXISTENT_PID;
	return (pid_t)num(c, l, "pid", 0);
}

/* A pointer argument: the buffer given, or NULL for key=null. */
static void *ptr_arg(const struct behave_line *l, const char *key, void *buf)
{
	const char *v = arg(l, key);
	return v && !strcmp(v, "null") ? NULL : buf;
}

static void result(struct call_out *c, long r)
{
	int e = r < 0 ? errno : 0;
	snprintf(c->ret, c->retlen, "%ld", r);
	snprintf(c->err, c->errlen, "%s", behave_errname(e));
}

/* ---- sched_* ---- */

static unsigned char attr_buf[8192] __attribute__((aligned(64)));

static void call_sched_getattr(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l)
{
	pid_t pid = pid_arg(ctx, c, l);
	unsigned size = (unsigned)num(c, l, "size", sizeof(struct hl_sched_attr));
	unsigned flags = (unsigned)num(c, l, "flags", 0);
	memset(attr_buf, 0xa5, sizeof(attr_buf));
	long r = syscall(SYS_sched_getattr, pid, ptr_arg(l, "attr", attr_buf), size, flags);
	result(c, r);
	if (r != 0)
		return;
	struct hl_sched_attr a;
	memcpy(&a, attr_buf, sizeof(a));
	add_out(c, "size=%u", a.size);
	add_out(c, "policy=%u", a.sched_policy);
	add_out(c, "flags=0x%llx", (unsigned long long)a.sched_flags);
	add_out(c, "nice=%d", a.sched_nice);
	add_out(c, "prio=%u", a.sched_priority);
	add_out(c, "runtime=%llu", (unsigned long long)a.sched_runtime);
	add_out(c, "deadline=%llu", (unsigned long long)a.sched_deadline);
	add_out(c, "period=%llu", (unsigned long long)a.sched_period);
	if (a.size >= sizeof(a))
		add_out(c, "umin=%u,umax=%u", a.sched_util_min, a.sched_util_max);
	/* what the kernel wrote past the size it reported (it must write nothing there) */
	size_t from = a.size < sizeof(attr_buf) ? a.size : sizeof(attr_buf);
	size_t to = size < sizeof(attr_buf) ? size : sizeof(attr_buf);
	int touched = 0;
	for (size_t i = from; i < to; i++)
		touched |= attr_buf[i] != 0xa5;
	add_out(c, "tail=%s", touched ? "written" : "untouched");
}

static void call_sched_setattr(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l)
{
	pid_t pid = pid_arg(ctx, c, l);
	struct hl_sched_attr a;
	memset(&a, 0, sizeof(a));
	memset(attr_buf, 0, sizeof(attr_buf));
	a.size = (uint32_t)num(c, l, "size", sizeof(a));
	a.sched_policy = (uint32_t)num(c, l, "policy", SCHED_OTHER);
	a.sched_flags = (uint64_t)num(c, l, "flags", 0);
	a.sched_nice = (int32_t)num(c, l, "nice", 0);
	a.sched_priority = (uint32_t)num(c, l, "prio", 0);
	const char *rt = arg(l, "runtime");
	if (rt && !strcmp(rt, "default")) {
		/* a custom slice equal to the default in force now */
		unsigned long long base = behave_base_slice_ns();
		a.sched_runtime = base ? base : ctx->start_slice;
	} else {
		a.sched_runtime = (uint64_t)num(c, l, "runtime", 0);
	}
	a.sched_deadline = (uint64_t)num(c, l, "deadline", 0);
	a.sched_period = (uint64_t)num(c, l, "period", 0);
	a.sched_util_min = (uint32_t)num(c, l, "umin", 0);
	a.sched_util_max = (uint32_t)num(c, l, "umax", 0);
	memcpy(attr_buf, &a, sizeof(a));
	/* a nonzero byte past the struct: a larger size must then fail with E2BIG */
	long tail = (long)num(c, l, "tail", 0);
	if (tail)
		attr_buf[sizeof(a)] = (unsigned char)tail;
	if (c->bad)
		return;
	long r = syscall(SYS_sched_setattr, pid, ptr_arg(l, "attr", attr_buf), (unsigned)num(c, l, "callflags", 0));
	result(c, r);
	struct hl_sched_attr back;
	memcpy(&back, attr_buf, sizeof(back));
	/* on E2BIG the kernel writes the size it supports into the caller's struct */
	if (back.size != a.size)
		add_out(c, "size_written=%u", back.size);
}

static void call_setscheduler(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l, int with_policy)
{
	pid_t pid = pid_arg(ctx, c, l);
	struct sched_param p = { .sched_priority = (int)num(c, l, "prio", 0) };
	int policy = (int)num(c, l, "policy", SCHED_OTHER);
	if (c->bad)
		return;
	void *pp = ptr_arg(l, "param", &p);
	long r = with_policy ? syscall(SYS_sched_setscheduler, pid, policy, pp) : syscall(SYS_sched_setparam, pid, pp);
	result(c, r);
}

static void call_get_simple(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l, const char *which)
{
	pid_t pid = pid_arg(ctx, c, l);
	if (c->bad)
		return;
	if (!strcmp(which, "sched_getscheduler")) {
		result(c, syscall(SYS_sched_getscheduler, pid));
		return;
	}
	struct sched_param p = { .sched_priority = -1 };
	long r = syscall(SYS_sched_getparam, pid, ptr_arg(l, "param", &p));
	result(c, r);
	if (r == 0)
		add_out(c, "prio=%d", p.sched_priority);
}

static void call_priority(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l, int set)
{
	pid_t pid = pid_arg(ctx, c, l);
	int which = (int)num(c, l, "which", PRIO_PROCESS);
	int nice = (int)num(c, l, "nice", 0);
	if (c->bad)
		return;
	/* the raw getpriority returns 20 - nice, never negative: no errno ambiguity */
	long r = set ? syscall(SYS_setpriority, which, pid, nice) : syscall(SYS_getpriority, which, pid);
	result(c, r);
}

static unsigned char mask_buf[1024];

static void fill_mask(struct call_out *c, const struct behave_line *l)
{
	memset(mask_buf, 0, sizeof(mask_buf));
	const char *m = arg(l, "mask");
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
	unsigned long long bits = (unsigned long long)value_of(m, &ok);
	if (!ok)
		c->bad = "mask";
	memcpy(mask_buf, &bits, sizeof(bits));
}

static void call_affinity(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l, int set)
{
	pid_t pid = pid_arg(ctx, c, l);
	long size = (long)num(c, l, "size", 128);
	fill_mask(c, l);
	if (c->bad)
		return;
	if (size < 0 || size > (long)sizeof(mask_buf))
		size = (long)sizeof(mask_buf);
	void *mp = ptr_arg(l, "mask", mask_buf);
	long r = set ? syscall(SYS_sched_setaffinity, pid, (size_t)size, mp) : syscall(SYS_sched_getaffinity, pid, (size_t)size, mp);
	result(c, r);
	if (!set && r > 0) {
		unsigned long long bits = 0;
		memcpy(&bits, mask_buf, (size_t)r < sizeof(bits) ? (size_t)r : sizeof(bits));
		add_out(c, "mask=0x%llx", bits);
	}
}

/* ---- select ---- */

static int fd_of(struct behave_ctx *ctx, const char *name)
{
	if (!strcmp(name, "rready"))
		return ctx->rready;
	if (!strcmp(name, "rempty"))
		return ctx->rempty;
	if (!strcmp(name, "wready"))
		return ctx->wready;
	if (!strcmp(name, "badfd"))
		return ctx->badfd;
	return -1;
}

static const char *fd_name(struct behave_ctx *ctx, int fd)
{
	return fd == ctx->rready ? "rready" : fd == ctx->rempty ? "rempty" : fd == ctx->wready ? "wready" : "badfd";
}

/* An fd set from "a+b" (NULL pointer when the key is absent, empty set for `none`); the highest fd in *max. */
static fd_set *fd_set_arg(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l, const char *key, fd_set *set, int *max)
{
	const char *v = arg(l, key);
	FD_ZERO(set);
	if (!v || !strcmp(v, "null"))
		return NULL;
	if (!strcmp(v, "none"))
		return set;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *save, *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		int fd = fd_of(ctx, t);
		if (fd < 0) {
			c->bad = key;
			return NULL;
		}
		FD_SET(fd, set);
		if (fd > *max)
			*max = fd;
	}
	return set;
}

static void report_set(struct behave_ctx *ctx, struct call_out *c, const char *key, fd_set *set)
{
	if (!set)
		return;
	char names[128] = "";
	int fds[] = { ctx->rready, ctx->rempty, ctx->wready, ctx->badfd };
	for (size_t i = 0; i < 4; i++)
		if (FD_ISSET(fds[i], set))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", names[0] ? "+" : "", fd_name(ctx, fds[i]));
	add_out(c, "%s=%s", key, names[0] ? names : "none");
}

static void call_select(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l)
{
	fd_set r, w, x;
	int max = -1;
	fd_set *rp = fd_set_arg(ctx, c, l, "read", &r, &max);
	fd_set *wp = fd_set_arg(ctx, c, l, "write", &w, &max);
	fd_set *xp = fd_set_arg(ctx, c, l, "except", &x, &max);
	const char *nf = arg(l, "nfds");
	int nfds = !nf || !strcmp(nf, "max") ? max + 1 : (int)num(c, l, "nfds", 0);
	const char *tv = arg(l, "timeout");
	struct timeval t = { 0, 0 }, orig;
	struct timeval *tp = &t;
	if (tv && !strcmp(tv, "null"))
		tp = NULL;
	else if (tv && !strcmp(tv, "bad"))
		t.tv_usec = -1;
	else if (tv) {
		long long us = num(c, l, "timeout", 0);
		t.tv_sec = us / 1000000;
		t.tv_usec = us % 1000000;
	}
	orig = t;
	if (c->bad)
		return;
	long r2 = syscall(SYS_select, nfds, rp, wp, xp, tp);
	result(c, r2);
	if (r2 < 0)
		return;
	report_set(ctx, c, "read", rp);
	report_set(ctx, c, "write", wp);
	report_set(ctx, c, "except", xp);
	if (tp) {
		/* the time left is a time: only its class is part of the trace */
		long long left = t.tv_sec * 1000000LL + t.tv_usec, was = orig.tv_sec * 1000000LL + orig.tv_usec;
		add_out(c, "left=%s", left == 0 ? "zero" : left < 0 ? "negative" : left > was ? "more" : "nonzero");
	}
}

/* ---- mincore ---- */

static void call_mincore(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l)
{
	const char *a = arg(l, "addr");
	char *addr = ctx->map;
	if (a && !strcmp(a, "null"))
		addr = NULL;
	else if (a && !strcmp(a, "unaligned"))
		addr = ctx->map + 1;
	else if (a && !strcmp(a, "unmapped"))
		addr = ctx->map + BEHAVE_MAP_PAGES * ctx->page;
	else if (a && !strcmp(a, "kernel"))
		addr = (char *)0xffff888000000000ULL;
	else if (a && !strncmp(a, "map+", 4))
		addr = ctx->map + atol(a + 4) * ctx->page;
	else if (a && strcmp(a, "map"))
		c->bad = "addr";
	long pages = (long)num(c, l, "pages", BEHAVE_MAP_PAGES);
	long long bytes = num(c, l, "bytes", (long long)pages * ctx->page);
	unsigned char vec[4 * BEHAVE_MAP_PAGES];
	memset(vec, 0xee, sizeof(vec));
	if (c->bad)
		return;
	long r = syscall(SYS_mincore, addr, (size_t)bytes, ptr_arg(l, "vec", vec));
	result(c, r);
	if (r != 0)
		return;
	char bits[4 * BEHAVE_MAP_PAGES + 1];
	long n = (long)((bytes + ctx->page - 1) / ctx->page);
	if (n > (long)sizeof(vec))
		n = (long)sizeof(vec);
	for (long i = 0; i < n; i++)
		bits[i] = vec[i] == 0xee ? '-' : (vec[i] & 1) ? '1' : '0';
	bits[n] = 0;
	add_out(c, "vec=%s", n ? bits : "empty");
}

static void call_pages(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l, int touch)
{
	long page = (long)num(c, l, "page", 0);
	if (c->bad)
		return;
	if (page < 0 || page >= BEHAVE_MAP_PAGES) {
		c->bad = "page";
		return;
	}
	char *p = ctx->map + page * ctx->page;
	if (touch) {
		*(volatile char *)p = 1;
		result(c, 0);
	} else {
		result(c, madvise(p, (size_t)ctx->page, MADV_DONTNEED));
	}
}

/* ---- the rest ---- */

static void call_base_slice(struct behave_ctx *ctx, struct call_out *c, const struct behave_line *l)
{
	long long ns = num(c, l, "ns", 0);
	if (c->bad)
		return;
	/* a global knob: only a guest's PID 1 may turn it (it is put back after the scenario) */
	if (!ctx->pid1) {
		snprintf(c->ret, c->retlen, "skipped");
		snprintf(c->err, c->errlen, "0");
		add_out(c, "why=not-a-guest");
		return;
	}
	result(c, behave_set_base_slice((unsigned long long)ns));
}

static void call_spin(struct call_out *c, const struct behave_line *l)
{
	/* run on the CPU for this much CPU time, so the scheduler passes the task's deadline */
	long long ms = num(c, l, "ms", 10);
	if (c->bad)
		return;
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < ms * 1000000LL);
	result(c, 0);
}

int behave_call(struct behave_ctx *ctx, const struct behave_line *l, char *ret, size_t retlen, char *err, size_t errlen,
		char *out, size_t outlen)
{
	struct call_out c = { ret, err, out, retlen, errlen, outlen, 0, NULL };
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
		result(&c, syscall(SYS_sched_yield));
	else if (!strcmp(name, "sched_setaffinity") || !strcmp(name, "sched_getaffinity"))
		call_affinity(ctx, &c, l, name[6] == 's');
	else if (!strcmp(name, "setpriority") || !strcmp(name, "getpriority"))
		call_priority(ctx, &c, l, name[0] == 's');
	else if (!strcmp(name, "select"))
		call_select(ctx, &c, l);
	else if (!strcmp(name, "mincore"))
		call_mincore(ctx, &c, l);
	else if (!strcmp(name, "touch") || !strcmp(name, "dontneed"))
		call_pages(ctx, &c, l, name[0] == 't');
	else if (!strcmp(name, "base_slice"))
		call_base_slice(ctx, &c, l);
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
