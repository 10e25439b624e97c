/*
 * --stdin-lease SECONDS: the probe runs only while whoever started it is
 * still there. A thread watches stdin: at its end (the ssh session that
 * started the probe on a remote box closed, or hintlab died), or when
 * nothing arrived on it for SECONDS (the laptop vanished without closing
 * the connection; hintlab writes a newline every few seconds), it sends
 * SIGTERM to the main thread, whose handler restores the task's state and
 * exits as on any SIGTERM. Without a pty, sshd signals nothing to a remote
 * command when its client goes away: this is what stops a probe spinning
 * on a pinned CPU.
 *
 * The thread keeps off the measuring CPU (its mask is the original one
 * without that CPU, when another is allowed), so its wake-ups never land
 * on a timed loop, and it blocks the stop signals so the handler runs on
 * the main thread. Should the handler not end the process (a write
 * to a full pipe nobody reads), the thread ends it 5 s later.
 */
#include "probe.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

static pthread_t main_thread;
static int lease_ms;
static int avoid_cpu;

static void *watch_stdin(void *arg)
{
	(void)arg;
	char buf[256];
	cpu_set_t mask;
	if (avoid_cpu >= 0 && sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_ISSET(avoid_cpu, &mask) &&
	    CPU_COUNT(&mask) > 1) {
		CPU_CLR(avoid_cpu, &mask);
		sched_setaffinity(0, sizeof(mask), &mask);
	}
	for (;;) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		int n = poll(&p, 1, lease_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* quiet for too long, or poll failed */
		ssize_t got = read(STDIN_FILENO, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break; /* end of stdin */
	}
	pthread_kill(main_thread, SIGTERM);
	sleep(5);
	_exit(128 + SIGTERM);
	return NULL;
}

/* Start the watcher, off CPU `cpu` (-1: anywhere); 0, or -1 with errno set. */
int stdin_lease_start(int seconds, int cpu)
{
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	main_thread = pthread_self();
	lease_ms = seconds * 1000;
	avoid_cpu = cpu;
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, watch_stdin, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	pthread_detach(t);
	return 0;
}
