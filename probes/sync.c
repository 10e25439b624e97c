/*
 * Paired designs (docs/bench.md): the probe's side of duet and alternation.
 *
 * --barrier FILE: two probe processes (side A and side B, pinned to two
 * CPUs) map the same file and meet at a two-party barrier before every
 * round, warm-ups included, so both rounds start at the same instant and
 * whatever the machine does then falls on both. A waiter spins briefly
 * (the partner is usually microseconds away) and then sleeps on a futex;
 * a partner that never comes fails the round after BARRIER_TIMEOUT_S.
 *
 * --clock thread-cpu: rounds are timed on the thread's own CPU clock, so
 * the time other tasks held the CPU is left out (a loaded machine's main
 * noise); `start` stays on CLOCK_MONOTONIC_RAW.
 *
 * --go-fifo FILE --block-rounds R: one long-lived probe measures many short
 * blocks of R rounds; before each it prints `wait block=K` and reads one
 * byte: 'g' runs the block (hintlab has switched the files to its side),
 * 's' ends the run cleanly, end of file is an error (hintlab went away).
 */
#include "emit.h"
#include "probe.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BARRIER_TIMEOUT_S 60
#define BARRIER_SPINS 20000

struct barrier {
	_Atomic uint32_t arrived;
	_Atomic uint32_t generation;
};

static struct barrier *shared;
/* what a round's elapsed time counts (--clock): wall time, or the thread's own CPU time */
static clockid_t round_clock = CLOCK_MONOTONIC_RAW;
static int go_fd = -1;
static int block_rounds;

int work_parse(const char *v);
int work_gauge_parse(const char *v);

static long parse_positive(const char *v)
{
	char *end;
	errno = 0;
	long n = v ? strtol(v, &end, 10) : 0;
	return !v || errno || *end || n < 1 ? -1 : n;
}

static int barrier_open(const char *path)
{
	int fd = open(path, O_RDWR);
	if (fd < 0)
		return -1;
	void *m = mmap(NULL, sizeof(struct barrier), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	shared = m;
	return 0;
}

/*
 * The paired-design flags: 1 when `flag` took `v`, 0 when it is not one of
 * them, -1 when its value is bad (a message in *why).
 */
int design_arg(const char *flag, const char *v, const char **why)
{
	if (!strcmp(flag, "--inject-work")) {
		*why = "--inject-work takes N or PROFILE:N, 0 <= N <= 65536 with up to three decimals (x86_64 only for N > 0)";
		return v && work_parse(v) == 0 ? 1 : -1;
	}
	if (!strcmp(flag, "--work-gauge")) {
		*why = "--work-gauge takes K, 1 <= K <= 4096 (x86_64 only)";
		return v && work_gauge_parse(v) == 0 ? 1 : -1;
	}
	if (!strcmp(flag, "--clock")) {
		*why = "--clock takes wall or thread-cpu";
		if (v && !strcmp(v, "thread-cpu"))
			round_clock = CLOCK_THREAD_CPUTIME_ID;
		return v && (!strcmp(v, "wall") || !strcmp(v, "thread-cpu")) ? 1 : -1;
	}
	if (!strcmp(flag, "--block-rounds")) {
		*why = "--block-rounds takes a positive number";
		return (block_rounds = (int)parse_positive(v)) > 0 ? 1 : -1;
	}
	if (!strcmp(flag, "--barrier")) {
		*why = "--barrier FILE: cannot map the file";
		return v && barrier_open(v) == 0 ? 1 : -1;
	}
	if (!strcmp(flag, "--go-fifo")) {
		*why = "--go-fifo FILE: cannot open it for reading";
		return v && (go_fd = open(v, O_RDONLY | O_CLOEXEC)) >= 0 ? 1 : -1;
	}
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The clock a round is timed on: CLOCK_MONOTONIC_RAW, or with --clock thread-cpu the time this thread was on a CPU. */
long long round_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(round_clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Meet the partner probe before a round: 0, or -1 with errno ETIMEDOUT. */
int barrier_wait(void)
{
	if (!shared)
		return 0;
	uint32_t gen = atomic_load(&shared->generation);
	if (atomic_fetch_add(&shared->arrived, 1) == 1) {
		/* the second to arrive opens the next generation for both */
		atomic_store(&shared->arrived, 0);
		atomic_fetch_add(&shared->generation, 1);
		syscall(SYS_futex, &shared->generation, FUTEX_WAKE, 1, NULL, NULL, 0);
		return 0;
	}
	long long deadline = now_ns() + BARRIER_TIMEOUT_S * 1000000000LL;
	for (long spin = 0; atomic_load(&shared->generation) == gen; spin++) {
		if (spin < BARRIER_SPINS) {
			cpu_relax();
			continue;
		}
		struct timespec ms = { 0, 1000000 };
		syscall(SYS_futex, &shared->generation, FUTEX_WAIT, gen, &ms, NULL, 0);
		if (now_ns() > deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
	return 0;
}

/*
 * After the barrier, both sides run 1/50 of the round's calls untimed: the
 * side that arrived first waited (spinning, then asleep while another task
 * may have run on its CPU) and would otherwise start its round with colder
 * caches than the side that arrived last, which biases a real difference
 * towards zero. Not for two-CPU profiles, whose helper counts the calls.
 */
int barrier_rewarm(struct probe_ctx *ctx, const struct profile *p)
{
	if (!shared || p->needs_two_cpus)
		return 0;
	long ops = ctx->ops, failed_at = -1;
	ctx->ops = ops / 50 > 0 ? ops / 50 : 1;
	int rc = p->loop(ctx, &failed_at);
	ctx->ops = ops;
	return rc;
}

/* Whether measured round `idx` starts a block (every round does without --go-fifo). */
int block_starts(int idx)
{
	return go_fd < 0 || block_rounds <= 0 || idx % block_rounds == 0;
}

/*
 * Before measured round `idx`: at a block boundary wait for the go byte.
 * 0 go on, 1 stop here (asked to), -1 the pipe closed or failed.
 */
int block_gate(int idx)
{
	if (go_fd < 0 || block_rounds <= 0 || idx < 0 || idx % block_rounds)
		return 0;
	emit("wait", "block=%d", idx / block_rounds);
	char c = 0;
	ssize_t n;
	do
		n = read(go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c == 'g')
		return 0;
	if (n == 1 && c == 's')
		return 1;
	if (n == 0)
		errno = EPIPE;
	return -1;
}
