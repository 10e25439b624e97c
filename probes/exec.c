/*
 * --exec PATH: run a user's static program as the workload (fork, execve
 * with no arguments and an empty environment, wait), between the profiles
 * and --dump-gcov. Its own output goes to the same console; only framed
 * lines are read by the host.
 *
 * With --window-exec the probe opens a cost window (probe.h) before the
 * fork and closes it after the wait, so the cost plugin counts every kernel
 * branch the program drives, its exec and exit included (`hintlab hints
 * collect --exact`). A program that opens windows of its own is then
 * measured in those: the plugin restarts its counts at every open, and the
 * probe's close finds no window open.
 */
#include "probe.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run the program; its exit status (0-255), 128+signal, or -1 with errno set when it could not start. */
int run_program(const char *path, int windowed)
{
	if (windowed)
		COST_WINDOW_OPEN();
	pid_t pid = fork();
	if (pid < 0) {
		if (windowed)
			COST_WINDOW_CLOSE();
		return -1;
	}
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL };
		char *envp[] = { NULL };
		execve(path, argv, envp);
		_exit(127);
	}
	return wait_program(pid, windowed);
}
