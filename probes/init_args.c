/*
 * The probe as PID 1 of a guest (hintlab vm, behave, hints collect): the
 * arguments hintlab gives it come from /hintlab.args in the initramfs, one
 * per line, read after /proc is mounted.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

int read_init_args(char ***argv_out);

/* As PID 1: mount /proc, take arguments from /hintlab.args, one per line. */
int read_init_args(char ***argv_out)
{
	static char buf[4096];
	static char *args[256];
	int n = 0;
	mount("proc", "/proc", "proc", 0, NULL);
	int fd = open("/hintlab.args", O_RDONLY);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	args[n++] = "hintlab-probe";
	if (len > 0) {
		buf[len] = 0;
		for (char *line = strtok(buf, "\n"); line && n < 255; line = strtok(NULL, "\n"))
			args[n++] = line;
	}
	args[n] = NULL;
	*argv_out = args;
	return n;
}
