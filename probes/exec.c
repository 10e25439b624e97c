/*
 * --exec PATH: run a user's static program as the workload (fork, execve
 * with no arguments and an empty environment, wait), between the profiles
 * and --dump-gcov. Its own output goes to the same console; only framed
 * lines are read by the host.
 */
#include "probe.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run the program; its exit status (0-255), 128+signal, or -1 with errno set when it could not start. */
int run_program(const char *path)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL };
		char *envp[] = { NULL };
		execve(path, argv, envp);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
