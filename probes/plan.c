/*
 * --run-plan FILE: run the invocations FILE lists, one per line, in order:
 *
 *   LOGPATH PROGRAM ARG...        (separated by single spaces)
 *
 * Each runs with stdout and stderr in LOGPATH, /tmp as its working
 * directory and a minimal environment; an `exec` line carries its exit
 * status. The first failure ends the plan: later invocations would only
 * add rounds the host throws away. `hintlab vm --macro` runs stress-ng
 * this way and fetches the YAML and log files with --dump-files.
 */
#include "emit.h"
#include "probe.h"

#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 64

/*
 * As PID 1 nothing is mounted but /proc. stress-ng reads /sys, opens
 * /dev/null and /dev/shm, and writes under its working directory. A mount
 * that fails (a kernel without devtmpfs) is left to the stressor that needs
 * it: stress-ng's own message then says what is missing.
 */
void mount_for_programs(void)
{
	mkdir("/sys", 0755);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/dev/shm", 01777);
	mount("tmpfs", "/dev/shm", "tmpfs", 0, NULL);
	mkdir("/tmp", 01777);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
}

/*
 * Run argv with its output in log; exit status (0-255), 128+signal, or -1
 * with errno set. `windowed`: inside one cost window, fork to wait (exec.c).
 */
static int run_logged(char **argv, const char *log, int windowed)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", log);
	mkdir(dirname(dir), 0755);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (windowed) {
		/* the last exec line must have left the UART before the window opens */
		drain_console();
		COST_WINDOW_OPEN();
	}
	pid_t pid = fork();
	if (pid < 0) {
		if (windowed)
			COST_WINDOW_CLOSE();
		close(fd);
		return -1;
	}
	if (pid == 0) {
		char *envp[] = { "PATH=/usr/bin:/bin", "HOME=/tmp", NULL };
		dup2(fd, 1);
		dup2(fd, 2);
		if (chdir("/tmp") != 0)
			_exit(126);
		execve(argv[0], argv, envp);
		dprintf(2, "hintlab-probe: cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	int rc = wait_program(pid, windowed);
	if (rc < 0)
		return -1;
	/* as PID 1 the probe inherits the program's orphans: reap them */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return rc;
}

/* Run every line of the plan until one fails; 0, or -1 with errno set when the plan cannot be read. */
int run_plan(const char *file, int windowed)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return -1;
	char line[8192];
	while (!stop_requested && fgets(line, sizeof(line), f)) {
		char *argv[MAX_ARGS + 1];
		int n = 0;
		for (char *tok = strtok(line, " \n"); tok && n < MAX_ARGS; tok = strtok(NULL, " \n"))
			argv[n++] = tok;
		argv[n] = NULL;
		if (n < 2)
			continue;
		int status = run_logged(argv + 1, argv[0], windowed);
		if (status < 0) {
			int e = errno;
			fclose(f);
			errno = e;
			return -1;
		}
		emit("exec", "path=%s status=%d", esc(argv[1]), status);
		if (status != 0)
			break;
	}
	fclose(f);
	return 0;
}
