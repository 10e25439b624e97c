/*
 * hintlab-probe: times syscalls in pinned, validated tight loops.
 *
 * Output is a stream of framed lines (emit.h, docs/probe-protocol.md) so a
 * reader on a noisy serial console can tell a whole line from garbage.
 */
#ifndef HINTLAB_PROBE_H
#define HINTLAB_PROBE_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stddef.h>
#include <errno.h>
#include <sys/types.h>
#include <sys/wait.h>

#define PROTO_VERSION 1

struct probe_ctx {
	int cpu;          /* CPU the measuring thread is pinned to, -1 if unpinned */
	int other_cpu;    /* a second allowed CPU, -1 if there is none */
	long ops;         /* calls per round */
	int round;        /* current round number (warm-ups count from 0 too) */
	int warmup;       /* 1 while in a warm-up round */
};

struct profile {
	const char *name;
	const char *description;
	const char *params;   /* "k=v,k=v" recorded with the run */
	const char *call;     /* the syscall being timed, for error messages */
	int needs_two_cpus;
	/* once before all rounds; return 0 or set errno and return -1 */
	int (*prepare)(struct probe_ctx *);
	/* around every round, outside the timed loop */
	int (*before_round)(struct probe_ctx *);
	int (*after_round)(struct probe_ctx *);
	/* once at the end, and from the signal handler (must be async-signal-safe) */
	void (*cleanup)(void);
	/* the timed loop: run ctx->ops calls; return -1 with *failed_at and errno set */
	int (*loop)(struct probe_ctx *, long *failed_at);
	/*
	 * optional, after prepare: the parameters only known at run time
	 * ("nfds=1005,page_size=4096") as "k=v,k=v" into buf; they follow the
	 * fixed params on the prepared line, so the run records every value the
	 * loop depends on
	 */
	void (*describe)(char *buf, size_t len);
};

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

int pin_thread_to(int cpu);

/*
 * --inject-work (work.c): the known extra work of the profile being timed,
 * called once per call in every timed loop, outside the syscall. With no
 * work asked for it runs the same jump with zero additions, so side A and
 * side B differ by exactly the additions.
 */
void inject_work(void);

/*
 * Record where a timed loop failed. A syscall that returned -1 left its errno;
 * any other wrong result (wrong ppid, wrong policy) is reported as EPROTO.
 */
static inline int fail_at(long *failed_at, long i, long result)
{
	*failed_at = i;
	if (result != -1)
		errno = EPROTO;
	return -1;
}

/*
 * Marks around a measured loop for hintlab's qemu cost plugin
 * (probes/plugin/cost.c, `hintlab vm --cost`): it opens its window at
 * `xchg %bx,%bx` and closes it at `xchg %cx,%cx`, recognised by their bytes.
 * Both are no-ops on every x86 CPU and cost one instruction each.
 */
#if defined(__x86_64__) || defined(__i386__)
#define COST_WINDOW_OPEN() __asm__ volatile("xchg %%bx, %%bx" ::: "memory")
#define COST_WINDOW_CLOSE() __asm__ volatile("xchg %%cx, %%cx" ::: "memory")
#else
#define COST_WINDOW_OPEN() ((void)0)
#define COST_WINDOW_CLOSE() ((void)0)
#endif

/*
 * Wait for a program the probe forked (retrying on EINTR), close the cost
 * window opened before its fork when `windowed`, and return its exit status
 * (0-255), 128+signal, or -1 with errno set. Inline: --exec (exec.c) and
 * --run-plan (plan.c) share it without calling each other.
 */
static inline int wait_program(pid_t pid, int windowed)
{
	int status;
	int waited;
	while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (windowed)
		COST_WINDOW_CLOSE();
	if (waited < 0)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

#endif
