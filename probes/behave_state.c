/*
 * What the scheduler shows of a task, for the runner's state lines: its
 * sched_getattr, sched_getscheduler, sched_getparam, getpriority and
 * affinity, and, when debugfs has it, its line of /sys/kernel/debug/sched/debug
 * (the custom-slice 'S' column, the slice and prio; no times, no counters).
 */
#include "probe.h" /* first: _GNU_SOURCE */
#include "behave.h"
#include "sched_attr.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEBUGFS_SCHED "/sys/kernel/debug/sched"

const char *behave_errname(int e)
{
	static char buf[16];
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ 0, "0" },	      { EPERM, "EPERM" },   { ENOENT, "ENOENT" },   { ESRCH, "ESRCH" },	  { EINTR, "EINTR" },	{ EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
		{ EINVAL, "EINVAL" }, { E2BIG, "E2BIG" },   { ENOSYS, "ENOSYS" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EOVERFLOW, "EOVERFLOW" }, { ERANGE, "ERANGE" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

static ssize_t read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	ssize_t n;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = 0;
	return (ssize_t)got;
}

unsigned long long behave_base_slice_ns(void)
{
	char buf[64];
	if (read_file(DEBUGFS_SCHED "/base_slice_ns", buf, sizeof(buf)) <= 0)
		return 0;
	return strtoull(buf, NULL, 10);
}

void behave_base_slice(char *buf, size_t len)
{
	unsigned long long ns = behave_base_slice_ns();
	if (ns)
		snprintf(buf, len, "%llu", ns);
	else
		snprintf(buf, len, "absent");
}

int behave_set_base_slice(unsigned long long ns)
{
	int fd = open(DEBUGFS_SCHED "/base_slice_ns", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char v[32];
	int n = snprintf(v, sizeof(v), "%llu\n", ns);
	ssize_t w = write(fd, v, (size_t)n);
	int e = errno;
	close(fd);
	errno = e;
	return w == n ? 0 : -1;
}

/*
 * The task's line of sched/debug: " S  comm  pid  vruntime  E  deadline  S  slice ..."
 * in 6.12 (the custom-slice column after the deadline); older kernels have
 * no such column. Reports the state letter, the custom flag, slice and prio
 * from the fields that are neither times nor counters.
 */
static void debug_line(pid_t pid, char *buf, size_t len)
{
	static char text[1 << 20];
	if (read_file(DEBUGFS_SCHED "/debug", text, sizeof(text)) <= 0) {
		snprintf(buf, len, "absent");
		return;
	}
	char want[16];
	snprintf(want, sizeof(want), "%d", (int)pid);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *tok[24];
		int n = 0;
		int current = line[0] == '>';
		for (char *t = strtok_r(line + 1, " ", &line); t && n < 24; t = strtok_r(NULL, " ", &line))
			tok[n++] = t;
		/* state, comm, pid, vruntime, eligible, deadline, [S,] slice, ... */
		if (n < 8 || strcmp(tok[2], want) != 0)
			continue;
		int has_custom = strcmp(tok[6], "S") == 0;
		int eevdf = (strcmp(tok[4], "E") == 0 || strcmp(tok[4], "N") == 0);
		if (!eevdf) {
			snprintf(buf, len, "state:%s%s,format:pre-eevdf", current ? ">" : "", tok[0]);
			return;
		}
		const char *slice = has_custom ? tok[7] : tok[6];
		snprintf(buf, len, "state:%s,custom:%d,slice:%s", tok[0], has_custom, slice);
		return;
	}
	snprintf(buf, len, "no-line");
}

/* The effective priority, /proc/PID/stat's 18th field (negative while RT or PI-boosted), or "?". */
static void effective_prio(pid_t pid, char *out, size_t len)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)(pid ? pid : getpid()));
	snprintf(out, len, "?");
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return;
	char *p = strrchr(buf, ')');
	/* after "pid (comm)": state is field 3, priority field 18 */
	for (int field = 2; p && field < 18; field++)
		p = strchr(p + 1, ' ');
	if (p)
		snprintf(out, len, "%ld", strtol(p + 1, NULL, 10));
}

/* Append " KEY=VALUE" to buf, or " KEY=ERRNAME" when reading it failed with err. */
static void put(char *buf, size_t len, size_t *o, const char *key, int err, const char *value)
{
	if (*o < len)
		*o += (size_t)snprintf(buf + *o, len - *o, " %s=%s", key, err ? behave_errname(err) : value);
}

void behave_task_state(pid_t pid, char *buf, size_t len)
{
	struct hl_sched_attr a;
	memset(&a, 0, sizeof(a));
	long r = syscall(SYS_sched_getattr, pid, &a, sizeof(a), 0);
	int attr_err = r ? errno : 0;
	errno = 0;
	int policy = sched_getscheduler(pid);
	int pol_err = policy < 0 ? errno : 0;
	struct sched_param p = { 0 };
	int param_err = sched_getparam(pid, &p) ? errno : 0;
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, (id_t)pid);
	int nice_err = errno;
	cpu_set_t mask;
	CPU_ZERO(&mask);
	int aff_err = sched_getaffinity(pid, sizeof(mask), &mask) ? errno : 0;
	unsigned long long bits = 0;
	for (int c = 0; c < 64; c++)
		if (CPU_ISSET(c, &mask))
			bits |= 1ULL << c;
	char dbg[128], eprio[16];
	debug_line(pid ? pid : getpid(), dbg, sizeof(dbg));
	effective_prio(pid, eprio, sizeof(eprio));
	size_t o = 0;
	if (attr_err)
		o += (size_t)snprintf(buf + o, len - o, "attr=%s", behave_errname(attr_err));
	else
		o += (size_t)snprintf(buf + o, len - o,
				      "policy=%u prio=%u nice=%d runtime=%llu deadline=%llu period=%llu flags=0x%llx umin=%u umax=%u",
				      a.sched_policy, a.sched_priority, a.sched_nice, (unsigned long long)a.sched_runtime,
				      (unsigned long long)a.sched_deadline, (unsigned long long)a.sched_period,
				      (unsigned long long)a.sched_flags, a.sched_util_min, a.sched_util_max);
	char v[32];
	snprintf(v, sizeof(v), "%d", policy);
	put(buf, len, &o, "getscheduler", pol_err, v);
	snprintf(v, sizeof(v), "%d", p.sched_priority);
	put(buf, len, &o, "getparam", param_err, v);
	snprintf(v, sizeof(v), "%d", nice);
	put(buf, len, &o, "getpriority", nice_err, v);
	snprintf(v, sizeof(v), "0x%llx", bits);
	put(buf, len, &o, "affinity", aff_err, v);
	put(buf, len, &o, "eprio", 0, eprio);
	put(buf, len, &o, "debug", 0, dbg);
}
