/*
 * Pinning, and the task's scheduling state: saved at start and put back on
 * every exit path. restore_init_state() runs from a signal handler, so it uses only
 * syscalls (async-signal-safe) and static storage.
 */
#include "probe.h"
#include "sched_attr.h"

#include <sched.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int pin_thread_to(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static cpu_set_t saved_mask;
static struct hl_sched_attr saved_attr;
static int saved;

int save_init_state(void)
{
	if (sched_getaffinity(0, sizeof(saved_mask), &saved_mask) != 0)
		return -1;
	memset(&saved_attr, 0, sizeof(saved_attr));
	if (syscall(SYS_sched_getattr, 0, &saved_attr, sizeof(saved_attr), 0) != 0)
		return -1;
	saved = 1;
	return 0;
}

int restore_init_state(void)
{
	if (!saved)
		return 0;
	int rc = 0;
	struct hl_sched_attr attr = saved_attr;
	attr.size = sizeof(attr);
	/* sched_runtime read back is the slice in force; 0 asks for the default */
	attr.sched_runtime = 0;
	attr.sched_flags = 0;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0)
		rc = -1;
	if (sched_setaffinity(0, sizeof(saved_mask), &saved_mask) != 0)
		rc = -1;
	return rc;
}

/* After every round: SCHED_OTHER, nice 0, priority 0, still on the pinned CPU. */
int check_state(const struct probe_ctx *ctx, const char **what)
{
	struct sched_param p;
	errno = 0;
	int policy = sched_getscheduler(0);
	if (policy != SCHED_OTHER) {
		*what = "policy is not SCHED_OTHER";
		return -1;
	}
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	if (nice != 0 || errno) {
		*what = "nice is not 0";
		return -1;
	}
	if (sched_getparam(0, &p) != 0 || p.sched_priority != 0) {
		*what = "priority is not 0";
		return -1;
	}
	if (ctx->cpu >= 0 && sched_getcpu() != ctx->cpu) {
		*what = "running on another CPU than the pinned one";
		return -1;
	}
	return 0;
}
