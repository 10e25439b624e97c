/*
 * hintlab-supervise: run one command so that nothing it starts outlives
 * hintlab, even after `kill -9` of hintlab.
 *
 *   hintlab-supervise PROGRAM [ARG...]     (fd 3: the control channel)
 *
 * hintlab holds the other end of fd 3 and never writes to it. The command
 * runs in its own process group; this process is a child subreaper, so a
 * descendant whose parent dies is re-parented here instead of to init, and
 * stays reachable however it detached itself (setsid, double fork).
 *
 * - EOF on fd 3 (hintlab died, or closed its end to stop the command), or
 *   PR_SET_PDEATHSIG after the parent really changed: SIGKILL the command's
 *   process group and every descendant, reap them all, then die of SIGKILL
 *   as the command did. The pipe is the trigger that counts: PDEATHSIG fires
 *   when the *thread* that forked us exits, not the process, so it is only
 *   believed when getppid() changed; the pipe also covers a parent that died
 *   before prctl() ran.
 * - SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to this
 *   process go to the command's process group.
 * - When the command ends, descendants still running are killed and reaped,
 *   then this process exits with the command's status or dies of its signal.
 *   stdin, stdout and stderr are the command's own (inherited, not copied).
 * - Lines written to fd 3: "started PID" once the command runs, or
 *   "exec-failed ERRNO" when it could not be started (then exit 127).
 *
 * Exit 125 for its own usage errors.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONTROL_FD 3

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
#define N_FORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static void say(const char *fmt, ...)
{
	char line[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* hintlab may be gone already: a failed write changes nothing */
	if (n > 0 && write(CONTROL_FD, line, (size_t)n) < 0)
		return;
}

/* SIGKILL every process whose parent is this one (children and adopted orphans). */
static void kill_children(pid_t self)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return;
	struct dirent *e;
	while ((e = readdir(proc)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		char path[64], stat[512];
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (n <= 0)
			continue;
		stat[n] = '\0';
		/* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
		char *rparen = strrchr(stat, ')');
		char state;
		long ppid;
		if (rparen && sscanf(rparen + 1, " %c %ld", &state, &ppid) == 2 && ppid == self)
			kill((pid_t)pid, SIGKILL);
	}
	closedir(proc);
}

/*
 * Kill and reap every descendant. A killed process's own children are
 * re-parented here when it dies, so each round finds the next level. A pid
 * is signalled only while it is our unreaped child, so it cannot have been
 * reused by an unrelated process.
 */
static void kill_descendants(pid_t command, int *command_status)
{
	pid_t self = getpid();
	for (;;) {
		kill_children(self);
		int status;
		pid_t r = waitpid(-1, &status, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return; /* ECHILD: nothing left */
		if (r == command)
			*command_status = status;
	}
}

/* Exit as the command did: its exit status, or death by its signal (without a core file). */
static void exit_like(int status)
{
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	int sig = WTERMSIG(status);
	struct rlimit none = { 0, 0 };
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	_exit(128 + sig);
}

/* Fork and exec the command in its own process group; returns its pid, or exits 127 if it cannot run. */
static pid_t start(char **argv, const sigset_t *original_mask)
{
	int err_pipe[2];
	if (pipe2(err_pipe, O_CLOEXEC) != 0) {
		say("exec-failed %d\n", errno);
		exit(127);
	}
	pid_t supervisor = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		say("exec-failed %d\n", errno);
		exit(127);
	}
	if (pid == 0) {
		setpgid(0, 0);
		/* last resort if the supervisor itself is SIGKILLed: the command goes with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != supervisor)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, original_mask, NULL);
		execvp(argv[0], argv);
		int e = errno;
		if (write(err_pipe[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	/* both sides set the group, so a signal sent right after fork reaches it */
	setpgid(pid, pid);
	close(err_pipe[1]);
	int e;
	ssize_t n;
	while ((n = read(err_pipe[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(err_pipe[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		say("exec-failed %d\n", e);
		exit(127);
	}
	say("started %d\n", (int)pid);
	return pid;
}

/* Reap what has exited; true when the command itself has (its status in *status). */
static int reap(pid_t command, int *status)
{
	int done = 0, st;
	pid_t r;
	while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
		if (r == command) {
			*status = st;
			done = 1;
		}
	}
	return done;
}

/* True when fd 3 says hintlab is gone (EOF or error); data, if any, is ignored. */
static int control_closed(void)
{
	char buf[64];
	ssize_t n = read(CONTROL_FD, buf, sizeof(buf));
	return n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
}

int main(int argc, char **argv)
{
	if (argc < 2 || fcntl(CONTROL_FD, F_SETFD, FD_CLOEXEC) != 0) {
		fprintf(stderr, "usage: hintlab-supervise PROGRAM [ARG...] with fd 3 open as the control channel\n");
		return 125;
	}
	pid_t parent = getppid();
	const int parent_died = SIGRTMIN + 1;
	sigset_t mask, original;
	sigemptyset(&mask);
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaddset(&mask, forwarded[i]);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, parent_died);
	sigprocmask(SIG_BLOCK, &mask, &original);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	/* a write to a closed control channel must not kill us; the command gets SIGPIPE back */
	signal(SIGPIPE, SIG_IGN);
	if (sfd < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 || prctl(PR_SET_PDEATHSIG, parent_died) != 0) {
		perror("hintlab-supervise: setting up");
		return 125;
	}
	pid_t command = start(argv + 1, &original);
	int status = 0;
	struct pollfd fds[2] = { { .fd = sfd, .events = POLLIN }, { .fd = CONTROL_FD, .events = POLLIN } };
	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[1].revents && control_closed())
			break;
		struct signalfd_siginfo si;
		if (!(fds[0].revents & POLLIN) || read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD) {
			if (reap(command, &status)) {
				/* the command is gone: only leftovers remain to be killed */
				kill_descendants(-1, &status);
				exit_like(status);
			}
		} else if (sig == parent_died) {
			if (getppid() != parent)
				break;
		} else {
			kill(-command, sig);
		}
	}
	/* hintlab is gone: the command is not reaped yet, so its group id is still its own */
	kill(-command, SIGKILL);
	kill_descendants(command, &status);
	exit_like(status);
}
