/*
 * --behave FILE: the scenario runner (behave.h, docs/behave.md). FILE is
 * the compiled form hintlab writes from scenario text:
 *
 *   scenario NAME [peer]      a scenario starts (with a peer task)
 *   step LINE CALL K=V ...    one call; LINE is its line in the source
 *   nobody LINE / endnobody   the steps between run in a child that dropped to uid/gid 65534
 *   end                       the scenario ends
 *   program NAME PATH         run a static program; each line it prints is one step
 *
 * Every scenario runs in a process of its own, forked from the runner, so
 * it starts from the runner's own state and leaves nothing behind; a
 * global knob it turned (base_slice_ns, in a guest only) is put back after it.
 */
#include "emit.h"
#include "probe.h" /* first: _GNU_SOURCE */
#include "behave.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LINES 4096
#define NOBODY 65534

static struct behave_line lines[MAX_LINES];
static int n_lines;
static char *text;

static int read_plan(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !(text = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -1;
	}
	ssize_t got = 0, n;
	while (got < st.st_size && (n = read(fd, text + got, (size_t)(st.st_size - got))) > 0)
		got += n;
	close(fd);
	text[got] = 0;
	for (char *save, *ln = strtok_r(text, "\n", &save); ln && n_lines < MAX_LINES; ln = strtok_r(NULL, "\n", &save)) {
		struct behave_line *l = &lines[n_lines++];
		for (char *s2, *t = strtok_r(ln, " ", &s2); t && l->argc < BEHAVE_MAX_TOKENS; t = strtok_r(NULL, " ", &s2))
			l->argv[l->argc++] = t;
		if (l->argc == 0)
			n_lines--;
	}
	return 0;
}

static int is(const struct behave_line *l, const char *word)
{
	return l->argc > 0 && !strcmp(l->argv[0], word);
}

/* A `step` line seen as its call: argv from the call's name on, the source line kept. */
static struct behave_line call_of(const struct behave_line *l)
{
	struct behave_line c = { .lineno = l->argc > 1 ? atoi(l->argv[1]) : 0 };
	for (int i = 2; i < l->argc; i++)
		c.argv[c.argc++] = l->argv[i];
	return c;
}

static void emit_state(const char *scenario, int n, const struct behave_ctx *ctx)
{
	char st[768], base[32];
	behave_task_state(0, st, sizeof(st));
	behave_base_slice(base, sizeof(base));
	emit("state", "scenario=%s n=%d who=self %s base=%s", esc(scenario), n, st, base);
	if (ctx->peer) {
		behave_task_state(ctx->peer, st, sizeof(st));
		emit("state", "scenario=%s n=%d who=peer %s", esc(scenario), n, st);
	}
}

static void run_step(const char *scenario, int n, struct behave_ctx *ctx, const struct behave_line *l)
{
	struct behave_line c = call_of(l);
	char ret[32], err[32], out[512], call[512] = "";
	for (int i = 0; i < c.argc; i++)
		snprintf(call + strlen(call), sizeof(call) - strlen(call), "%s%s", i ? " " : "", c.argv[i]);
	if (c.argc == 0 || behave_call(ctx, &c, ret, sizeof(ret), err, sizeof(err), out, sizeof(out)) != 0) {
		char why[700];
		snprintf(why, sizeof(why), "scenario %s line %d: cannot run the step (%s)", scenario, c.lineno, c.argc ? out : "empty step");
		emit("error", "stage=behave message=%s", esc(why));
		_exit(3);
	}
	emit("step", "scenario=%s n=%d line=%d call=%s ret=%s errno=%s out=%s", esc(scenario), n, c.lineno, esc(call), ret, err,
	     esc(out[0] ? out : "-"));
	emit_state(scenario, n, ctx);
}

/* The steps of a `nobody` block, in a child that gave up root; returns the index after `endnobody`. */
static int run_nobody(const char *scenario, int *n, struct behave_ctx *ctx, int i)
{
	int end = i + 1, steps = 0;
	while (end < n_lines && !is(&lines[end], "endnobody"))
		steps += is(&lines[end++], "step");
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 || setresuid(NOBODY, NOBODY, NOBODY) != 0) {
			emit("error", "stage=behave scenario=%s message=%s", esc(scenario), esc("cannot drop to uid 65534"));
			_exit(3);
		}
		int k = *n;
		for (int j = i + 1; j < end; j++)
			if (is(&lines[j], "step"))
				run_step(scenario, ++k, ctx, &lines[j]);
		_exit(0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		_exit(3);
	*n += steps;
	return end + 1;
}

static int setup(struct behave_ctx *ctx, int peer)
{
	ctx->page = sysconf(_SC_PAGESIZE);
	ctx->map = mmap(NULL, (size_t)(BEHAVE_MAP_PAGES + 1) * (size_t)ctx->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ctx->map == MAP_FAILED || munmap(ctx->map + BEHAVE_MAP_PAGES * ctx->page, (size_t)ctx->page) != 0)
		return -1;
	for (int i = 0; i < BEHAVE_MAP_PAGES / 2; i++)
		ctx->map[i * ctx->page] = 1;
	int a[2], b[2];
	if (pipe(a) != 0 || pipe(b) != 0 || write(a[1], "x", 1) != 1)
		return -1;
	ctx->rready = a[0], ctx->rempty = b[0], ctx->wready = b[1];
	ctx->badfd = dup(a[1]);
	close(ctx->badfd);
	struct { uint32_t size, policy; uint64_t flags; int32_t nice; uint32_t prio; uint64_t runtime, dl, period; uint32_t umin, umax; } attr;
	memset(&attr, 0, sizeof(attr));
	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) == 0)
		ctx->start_slice = attr.runtime;
	ctx->pi_word = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctx->pi_word == MAP_FAILED)
		return -1;
	*ctx->pi_word = 0;
	ctx->peer = peer ? behave_start_peer(ctx) : 0;
	return ctx->peer < 0 ? -1 : 0;
}

/* One scenario, from its `scenario` line at index i, in this (forked) process. */
static void run_scenario(int i, int pid1)
{
	const char *name = lines[i].argc > 1 ? lines[i].argv[1] : "-";
	struct behave_ctx ctx = { .pid1 = pid1 };
	if (setup(&ctx, lines[i].argc > 2 && !strcmp(lines[i].argv[2], "peer")) != 0) {
		emit("error", "stage=behave scenario=%s message=%s", esc(name), esc("cannot set the scenario up"));
		_exit(3);
	}
	emit("scenario", "name=%s", esc(name));
	emit_state(name, 0, &ctx);
	int n = 0, j = i + 1;
	while (j < n_lines && !is(&lines[j], "end")) {
		if (is(&lines[j], "nobody"))
			j = run_nobody(name, &n, &ctx, j);
		else if (is(&lines[j], "step"))
			run_step(name, ++n, &ctx, &lines[j++]);
		else
			j++;
	}
	if (ctx.peer > 0) {
		close(ctx.peer_cmd);
		waitpid(ctx.peer, NULL, 0);
	}
	emit("scenario-end", "name=%s steps=%d status=0", esc(name), n);
	_exit(0);
}

/* A static program whose output lines are the trace, framed here so a noisy console cannot change one unseen. */
static int run_trace_program(const char *name, const char *path)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
		execve(path, argv, envp);
		dprintf(2, "cannot execute %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	emit("scenario", "name=%s", esc(name));
	FILE *f = fdopen(p[0], "r");
	char line[1024];
	int n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		emit("step", "scenario=%s n=%d line=%d call=program ret=- errno=0 out=%s", esc(name), n + 1, n + 1, esc(line[0] ? line : "-"));
		n++;
	}
	if (f)
		fclose(f);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	emit("scenario-end", "name=%s steps=%d status=%d", esc(name), n, code);
	return 0;
}

int run_behave(const char *file, int pid1)
{
	if (read_plan(file) != 0)
		return -1;
	if (pid1) {
		/* debugfs for sched/debug and base_slice_ns; a kernel without it reports `absent` */
		mkdir("/sys", 0755);
		mount("sysfs", "/sys", "sysfs", 0, NULL);
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	}
	unsigned long long base = behave_base_slice_ns();
	for (int i = 0; i < n_lines && !stop_requested; i++) {
		if (!is(&lines[i], "scenario") && !is(&lines[i], "program"))
			continue;
		pid_t pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (is(&lines[i], "program"))
				_exit(run_trace_program(lines[i].argv[1], lines[i].argc > 2 ? lines[i].argv[2] : "") ? 3 : 0);
			run_scenario(i, pid1);
		}
		int status = 0;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (pid1 && base && behave_base_slice_ns() != base)
			behave_set_base_slice(base);
		/* as PID 1 the runner inherits every orphan: reap them */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			errno = EPROTO;
			return -1;
		}
	}
	return 0;
}
