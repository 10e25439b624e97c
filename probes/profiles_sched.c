/*
 * Profiles for getppid and the sched_* syscalls that read or rewrite the
 * task's own (unchanged) SCHED_OTHER parameters.
 */
#include "probe.h"
#include "sched_attr.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long expected_ppid;

static int prepare_getppid(struct probe_ctx *ctx)
{
	(void)ctx;
	expected_ppid = syscall(SYS_getppid);
	return 0;
}

static int loop_getppid(struct probe_ctx *ctx, long *failed_at)
{
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = syscall(SYS_getppid);
		if (__builtin_expect(r != expected_ppid, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

static int loop_sched_getattr(struct probe_ctx *ctx, long *failed_at)
{
	struct hl_sched_attr attr;
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0);
		if (__builtin_expect(r != 0 || attr.sched_policy != SCHED_OTHER, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

static int loop_sched_setattr(struct probe_ctx *ctx, long *failed_at)
{
	struct hl_sched_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sched_policy = SCHED_OTHER;
	attr.sched_nice = 0;
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = syscall(SYS_sched_setattr, 0, &attr, 0);
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

static int loop_sched_getparam(struct probe_ctx *ctx, long *failed_at)
{
	struct sched_param p;
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = syscall(SYS_sched_getparam, 0, &p);
		if (__builtin_expect(r != 0 || p.sched_priority != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

static int loop_sched_getscheduler(struct probe_ctx *ctx, long *failed_at)
{
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = syscall(SYS_sched_getscheduler, 0);
		if (__builtin_expect(r != SCHED_OTHER, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

static int loop_sched_setscheduler(struct probe_ctx *ctx, long *failed_at)
{
	struct sched_param p = { .sched_priority = 0 };
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &p);
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

static int loop_sched_setparam(struct probe_ctx *ctx, long *failed_at)
{
	struct sched_param p = { .sched_priority = 0 };
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = syscall(SYS_sched_setparam, 0, &p);
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

/* sched_setparam-custom: a 10 ms custom slice set through sched_runtime. */
#define CUSTOM_SLICE_NS 10000000ULL

static int set_runtime(uint64_t runtime_ns)
{
	struct hl_sched_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sched_policy = SCHED_OTHER;
	attr.sched_runtime = runtime_ns;
	return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}

static int get_runtime(uint64_t *out)
{
	struct hl_sched_attr attr;
	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) != 0)
		return -1;
	*out = attr.sched_runtime;
	return 0;
}

static uint64_t default_slice_ns;

static int prepare_custom(struct probe_ctx *ctx)
{
	(void)ctx;
	if (get_runtime(&default_slice_ns) != 0)
		return -1;
	/* Kernels before custom slices (6.12) ignore sched_runtime for fair tasks. */
	if (set_runtime(CUSTOM_SLICE_NS) != 0)
		return -1;
	uint64_t got = 0;
	int rc = get_runtime(&got);
	set_runtime(0);
	if (rc != 0)
		return -1;
	if (got != CUSTOM_SLICE_NS) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

static int before_custom(struct probe_ctx *ctx)
{
	(void)ctx;
	return set_runtime(CUSTOM_SLICE_NS);
}

static int after_custom(struct probe_ctx *ctx)
{
	(void)ctx;
	uint64_t got;
	uint64_t during = 0;
	if (get_runtime(&during) != 0)
		return -1;
	if (set_runtime(0) != 0 || get_runtime(&got) != 0)
		return -1;
	/* the slice must have stayed custom while timing and be default again now */
	if (during != CUSTOM_SLICE_NS || got != default_slice_ns) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* the default slice the custom one replaces, as sched_getattr reported it before */
static void describe_custom(char *buf, size_t len)
{
	snprintf(buf, len, "default_slice_ns=%llu", (unsigned long long)default_slice_ns);
}

/* the slice sched_setparam-default runs with: whatever the kernel's default is */
static void describe_default(char *buf, size_t len)
{
	uint64_t slice = 0;
	if (get_runtime(&slice) == 0)
		snprintf(buf, len, "slice_ns=%llu", (unsigned long long)slice);
	else
		snprintf(buf, len, "slice_ns=unknown");
}

static void cleanup_custom(void)
{
	set_runtime(0);
}

const struct profile sched_profiles[] = {
	{ "getppid", "null-syscall baseline: raw syscall(SYS_getppid), no libc caching", "", "getppid",
	  0, prepare_getppid, NULL, NULL, NULL, loop_getppid, NULL },
	{ "sched_getattr", "sched_getattr(0, &attr, sizeof attr, 0)", "pid=0", "sched_getattr",
	  0, NULL, NULL, NULL, NULL, loop_sched_getattr, NULL },
	{ "sched_setattr", "sched_setattr(0, {SCHED_OTHER, nice 0}, 0), unchanged parameters", "pid=0,policy=SCHED_OTHER,nice=0",
	  "sched_setattr", 0, NULL, NULL, NULL, NULL, loop_sched_setattr, NULL },
	{ "sched_getparam", "sched_getparam(0, &param)", "pid=0", "sched_getparam",
	  0, NULL, NULL, NULL, NULL, loop_sched_getparam, NULL },
	{ "sched_getscheduler", "sched_getscheduler(0)", "pid=0", "sched_getscheduler",
	  0, NULL, NULL, NULL, NULL, loop_sched_getscheduler, NULL },
	{ "sched_setscheduler", "sched_setscheduler(0, SCHED_OTHER, {0}), unchanged parameters",
	  "pid=0,policy=SCHED_OTHER,priority=0", "sched_setscheduler", 0, NULL, NULL, NULL, NULL,
	  loop_sched_setscheduler, NULL },
	{ "sched_setparam-default", "sched_setparam(0, {0}) with the default slice", "pid=0,priority=0,slice=default",
	  "sched_setparam", 0, NULL, NULL, NULL, NULL, loop_sched_setparam, describe_default },
	{ "sched_setparam-custom", "sched_setparam(0, {0}) after sched_setattr set a 10 ms custom slice",
	  "pid=0,priority=0,slice_ns=10000000", "sched_setparam", 0, prepare_custom, before_custom, after_custom,
	  cleanup_custom, loop_sched_setparam, describe_custom },
};
const size_t n_sched_profiles = sizeof(sched_profiles) / sizeof(sched_profiles[0]);
