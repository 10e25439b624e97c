/*
 * The peer task and the PI futex it shares with the scenario's task: the
 * peer blocks reading a pipe of commands ('L': take the PI futex, waiting
 * for it, then release it), and every step that involves it waits until it
 * is where it must be (asleep in its read, or blocked on the futex), so the
 * trace does not depend on when the scheduler ran it.
 */
#include "probe.h" /* first: _GNU_SOURCE */
#include "behave.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int behave_sleeping(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'S';
}

static int futex(int *word, int op)
{
	return (int)syscall(SYS_futex, word, op, 0, NULL, NULL, 0);
}

/* The peer's loop: block reading commands; 'L' takes the PI futex (waiting for it) and releases it. */
static void peer_loop(int cmd, int ready, int *pi_word)
{
	char c = 'r';
	if (write(ready, &c, 1) != 1)
		_exit(1);
	close(ready);
	while (read(cmd, &c, 1) > 0)
		if (c == 'L' && futex(pi_word, FUTEX_LOCK_PI) == 0)
			futex(pi_word, FUTEX_UNLOCK_PI);
	_exit(0);
}

/*
 * The peer: a child blocked reading a pipe of commands whose write end only
 * the scenario holds. The scenario waits until the peer is asleep in that
 * read, so its state is the same in every run, whenever the scheduler ran
 * it first.
 */
pid_t behave_start_peer(struct behave_ctx *ctx)
{
	int p[2], ready[2];
	if (pipe2(p, O_CLOEXEC) != 0 || pipe2(ready, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[1]);
		close(ready[0]);
		peer_loop(p[0], ready[1], ctx->pi_word);
	}
	close(p[0]);
	close(ready[1]);
	char c;
	if (pid < 0 || read(ready[0], &c, 1) != 1)
		return -1;
	close(ready[0]);
	for (int i = 0; i < 100000 && !behave_sleeping(pid); i++)
		sched_yield();
	ctx->peer_cmd = p[1];
	return behave_sleeping(pid) ? pid : -1;
}

/* Wait (yielding) until `done` holds; 0, or -1 with ETIMEDOUT. */
static int wait_until(struct behave_ctx *ctx, int waiters)
{
	for (int i = 0; i < 1000000; i++) {
		int w = __atomic_load_n(ctx->pi_word, __ATOMIC_SEQ_CST);
		int ok = waiters ? (w & FUTEX_WAITERS) != 0 : w == 0;
		if (ok && behave_sleeping(ctx->peer))
			return 0;
		sched_yield();
	}
	errno = ETIMEDOUT;
	return -1;
}

int behave_pi(struct behave_ctx *ctx, const char *which)
{
	if (!strcmp(which, "pi_lock"))
		return futex(ctx->pi_word, FUTEX_LOCK_PI);
	if (!ctx->peer) {
		errno = ESRCH;
		return -1;
	}
	if (!strcmp(which, "peer_pi_lock")) {
		/* the peer is blocked on the futex (and boosts its owner) once the waiters bit is set */
		if (write(ctx->peer_cmd, "L", 1) != 1)
			return -1;
		return wait_until(ctx, 1);
	}
	/* pi_unlock: the peer takes the futex, releases it and goes back to its read */
	if (futex(ctx->pi_word, FUTEX_UNLOCK_PI) != 0)
		return -1;
	return ctx->peer ? wait_until(ctx, 0) : 0;
}
