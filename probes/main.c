/*
 * hintlab-probe main: arguments, pinning, the round-robin of profiles,
 * per-round state checks, framed output, and restoring the task's state
 * on every exit path (normal, failure, SIGINT, SIGTERM).
 *
 * Usage: hintlab-probe [--list] [--cpu N] [--other-cpu N] [--ops N] [--warmups N]
 *                      [--rounds N] [--inject-seccomp N] --profile NAME[:OPS] ...
 *                      [--exec PATH] [--reset-gcov] [--dump-gcov DIR]
 *                      [--run-plan FILE] [--dump-files DIR] [--stdin-lease SECONDS]
 *                      [--behave FILE]
 * As PID 1 (inside a VM initramfs) arguments come from /hintlab.args, one
 * per line, and the guest is rebooted (qemu -no-reboot then exits) at the end.
 */
#include "emit.h"
#include "probe.h"
#include "sched_attr.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

extern const struct profile sched_profiles[], io_profiles[], thread_profiles[];
extern const size_t n_sched_profiles, n_io_profiles, n_thread_profiles;

/* every profile table, in --list order; a new table is one more line here */
static const struct {
	const struct profile *list;
	const size_t *n;
} profile_tables[] = {
	{ sched_profiles, &n_sched_profiles },
	{ io_profiles, &n_io_profiles },
	{ thread_profiles, &n_thread_profiles },
};
#define N_PROFILE_TABLES (sizeof(profile_tables) / sizeof(profile_tables[0]))

int seccomp_inject(int instructions);
int restore_init_state(void);
int save_init_state(void);
int gcov_reset(const char *dir);
int gcov_dump(const char *dir);
int run_program(const char *path, int windowed);
int run_plan(const char *file, int windowed);
int run_behave(const char *file, int pid1);
int files_dump(const char *dir);
int stdin_lease_start(int seconds, int cpu);
void mount_for_programs(void);
int read_init_args(char ***argv_out);
/* paired designs and known work (sync.c, work.c, docs/bench.md, docs/bench-power.md) */
int design_arg(const char *flag, const char *v, const char **why);
int barrier_wait(void);
int block_gate(int idx);
long work_select(const char *profile);
int work_gauge(struct probe_ctx *ctx, const struct profile *p, long long (*now)(void));
int block_starts(int idx);
long long round_clock_ns(void);
int barrier_rewarm(struct probe_ctx *ctx, const struct profile *p);

#define MAX_SELECTED 64
static const struct profile *selected[MAX_SELECTED];
static long selected_ops[MAX_SELECTED]; /* per-profile --profile NAME:OPS, 0 = --ops */
static size_t n_selected;

/* the task's state after every round (state.c) */
int check_state(const struct probe_ctx *ctx, const char **what);

/* ---- profiles ---- */

static const struct profile *find_profile(const char *name)
{
	for (size_t t = 0; t < N_PROFILE_TABLES; t++)
		for (size_t i = 0; i < *profile_tables[t].n; i++)
			if (strcmp(profile_tables[t].list[i].name, name) == 0)
				return &profile_tables[t].list[i];
	return NULL;
}

/* A profile's fixed params followed by those its describe hook reads at run time. */
static void prepared_params(const struct profile *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s", p->params);
	size_t used = strlen(buf);
	if (!p->describe || used + 2 >= len)
		return;
	char extra[256] = "";
	p->describe(extra, sizeof(extra));
	if (extra[0])
		snprintf(buf + used, len - used, "%s%s", used ? "," : "", extra);
}

static void list_profiles(void)
{
	for (size_t t = 0; t < N_PROFILE_TABLES; t++)
		for (size_t i = 0; i < *profile_tables[t].n; i++) {
			const struct profile *p = &profile_tables[t].list[i];
			emit("profile", "name=%s call=%s cpus=%d params=%s description=%s", esc(p->name), esc(p->call),
			     p->needs_two_cpus ? 2 : 1, esc(p->params), esc(p->description));
		}
}

static void cleanup_all(void)
{
	for (size_t i = 0; i < n_selected; i++)
		if (selected[i]->cleanup)
			selected[i]->cleanup();
	restore_init_state();
}

static void on_signal(int sig)
{
	stop_requested = sig;
	cleanup_all();
	emit("interrupted", "signal=%d", sig);
	_exit(128 + sig);
}

static int is_pid1;

static void finish(int code)
{
	if (is_pid1) {
		sync();
		emit("poweroff", "status=%d", code);
		/*
		 * write() to the console returns once the bytes are in the tty
		 * buffer; the UART sends them later. Rebooting before it has would
		 * cut off the end of the output (seen as a transfer ending mid-file).
		 */
		drain_console();
		/* RB_AUTOBOOT with qemu -no-reboot ends qemu on every kernel */
		reboot(RB_AUTOBOOT);
	}
	exit(code);
}

static void fail(const struct probe_ctx *ctx, const struct profile *p, const char *stage, long call, int err,
		 const char *what)
{
	emit("error", "profile=%s round=%d warmup=%d stage=%s call=%ld syscall=%s errno=%d message=%s",
	     esc(p ? p->name : "-"), ctx->round, ctx->warmup, stage, call, esc(p ? p->call : "-"), err,
	     esc(what ? what : strerror(err)));
	cleanup_all();
	finish(3);
}

static long long mono_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- arguments ---- */

struct options {
	int cpu, other_cpu, list, seccomp;
	/* stop when stdin ends or stays quiet this long (lease.c); 0 = not asked for */
	int stdin_lease;
	long ops;
	int warmups, rounds;
	/* coverage collection (gcov_dump.c, exec.c): NULL / 0 when not asked for */
	const char *dump_gcov, *exec_path;
	int reset_gcov;
	/* --window-exec: one cost window around each program --exec or --run-plan starts (exec.c) */
	int window_exec;
	/* programs run from a plan file, their output files sent back (plan.c): NULL when not asked for */
	const char *run_plan, *dump_files;
	/* behaviour scenarios (behave.c): NULL when not asked for */
	const char *behave;
};

static void usage_error(const char *msg, const char *arg)
{
	emit("error", "stage=arguments message=%s", esc(msg));
	fprintf(stderr, "hintlab-probe: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	finish(2);
}

static long parse_long(const char *flag, const char *v, long min)
{
	char *end;
	errno = 0;
	long n = v ? strtol(v, &end, 10) : 0;
	if (!v || errno || *end || n < min)
		usage_error("bad number for flag", flag);
	return n;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--list")) {
			o->list = 1;
		} else if (!strcmp(a, "--cpu")) {
			o->cpu = (int)parse_long(a, v, -1), i++;
		} else if (!strcmp(a, "--other-cpu")) {
			o->other_cpu = (int)parse_long(a, v, -1), i++;
		} else if (!strcmp(a, "--ops")) {
			o->ops = parse_long(a, v, 1), i++;
		} else if (!strcmp(a, "--warmups")) {
			o->warmups = (int)parse_long(a, v, 0), i++;
		} else if (!strcmp(a, "--rounds")) {
			o->rounds = (int)parse_long(a, v, 1), i++;
		} else if (!strcmp(a, "--stdin-lease")) {
			o->stdin_lease = (int)parse_long(a, v, 1), i++;
		} else if (!strcmp(a, "--inject-seccomp")) {
			o->seccomp = (int)parse_long(a, v, 2), i++;
		} else if (!strcmp(a, "--dump-gcov") || !strcmp(a, "--exec")) {
			if (!v || !*v)
				usage_error("flag needs a path", a);
			*(a[2] == 'd' ? &o->dump_gcov : &o->exec_path) = v;
			i++;
		} else if (!strcmp(a, "--run-plan") || !strcmp(a, "--dump-files")) {
			if (!v || !*v)
				usage_error("flag needs a path", a);
			*(a[2] == 'r' ? &o->run_plan : &o->dump_files) = v;
			i++;
		} else if (!strcmp(a, "--behave")) {
			if (!v || !*v)
				usage_error("flag needs a path", a);
			o->behave = v;
			i++;
		} else if (!strcmp(a, "--reset-gcov")) {
			o->reset_gcov = 1;
		} else if (!strcmp(a, "--window-exec")) {
			o->window_exec = 1;
		} else if (!strcmp(a, "--profile")) {
			if (!v)
				usage_error("--profile needs a name", NULL);
			char name[128];
			snprintf(name, sizeof(name), "%s", v);
			char *colon = strchr(name, ':');
			long ops = 0;
			if (colon) {
				*colon = 0;
				ops = parse_long(a, colon + 1, 1);
			}
			const struct profile *p = find_profile(name);
			if (!p)
				usage_error("unknown profile", v);
			if (n_selected == MAX_SELECTED)
				usage_error("too many profiles", v);
			selected_ops[n_selected] = ops;
			selected[n_selected++] = p;
			i++;
		} else {
			const char *why = NULL;
			int took = design_arg(a, v, &why);
			if (took < 0)
				usage_error(why, v);
			if (took == 0)
				usage_error("unknown argument", a);
			i++;
		}
	}
}

/* ---- the run ---- */

/* The user's workload program, after the profiles: a failure to start it fails the run. */
static void run_exec(struct probe_ctx *ctx, const char *path, int windowed)
{
	/* the program may open cost windows of its own: none of our output may still be sending */
	drain_console();
	int status = run_program(path, windowed);
	if (status < 0)
		fail(ctx, NULL, "exec", -1, errno, path);
	emit("exec", "path=%s status=%d", esc(path), status);
}

/*
 * In a guest boot, spin until the coarse clock moves: a timer tick has just
 * been handled, so the window opens at the same point of the tick period in
 * every boot. How long the console took to drain depends on the host, and
 * without this the ticks would land in different rounds (or calls) of
 * different boots; a window shorter than a tick period then holds none.
 */
static void wait_for_tick(void)
{
	if (!is_pid1)
		return;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &a);
	do
		clock_gettime(CLOCK_MONOTONIC_COARSE, &b);
	while (b.tv_sec == a.tv_sec && b.tv_nsec == a.tv_nsec);
}

static void run_round(struct probe_ctx *ctx, const struct profile *p, int idx)
{
	const char *what = NULL;
	long failed_at = -1;
	if (p->before_round && p->before_round(ctx) != 0)
		fail(ctx, p, "before-round", -1, errno, NULL);
	/* the last round's line must have left the UART before the window opens, outside the timed part */
	drain_console();
	wait_for_tick();
	errno = 0;
	long long start = mono_raw_ns(), t0 = round_clock_ns();
	COST_WINDOW_OPEN();
	int rc = p->loop(ctx, &failed_at);
	COST_WINDOW_CLOSE();
	long long t1 = round_clock_ns();
	if (rc != 0)
		fail(ctx, p, "loop", failed_at, errno, NULL);
	if (p->after_round && p->after_round(ctx) != 0)
		fail(ctx, p, "after-round", -1, errno, NULL);
	if (check_state(ctx, &what) != 0)
		fail(ctx, p, "state-check", -1, EPROTO, what);
	emit("round", "profile=%s idx=%d warmup=%d ops=%ld elapsed=%lld cpu=%d start=%lld", esc(p->name), idx,
	     ctx->warmup, ctx->ops, t1 - t0, sched_getcpu(), start);
}

/* One profile's round with its known work, started together with a duet partner's. */
static void paired_round(struct probe_ctx *ctx, const struct profile *p, int idx)
{
	work_select(p->name);
	if (!ctx->warmup && block_starts(idx) && work_gauge(ctx, p, round_clock_ns) != 0)
		fail(ctx, p, "gauge", -1, errno, "the --work-gauge calls before the round failed");
	if (barrier_wait() != 0)
		fail(ctx, p, "barrier", -1, errno, "the partner probe did not reach the barrier");
	if (barrier_rewarm(ctx, p) != 0)
		fail(ctx, p, "loop", -1, errno, "the untimed calls after the barrier failed");
	run_round(ctx, p, idx);
}

int main(int argc, char **argv)
{
	struct options o = { .cpu = -1, .other_cpu = -1, .ops = 10000, .warmups = 3, .rounds = 15 };
	if (getpid() == 1) {
		is_pid1 = 1;
		argc = read_init_args(&argv);
	} else {
		/* a parent killed with SIGKILL must not leave the probe spinning */
		pid_t parent = getppid();
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			return 4;
	}
	parse_args(argc, argv, &o);
	if (o.list) {
		list_profiles();
		finish(0);
	}
	if (n_selected == 0 && !o.dump_gcov && !o.exec_path && !o.run_plan && !o.behave)
		usage_error("no --profile given", NULL);
	if (o.reset_gcov && !o.dump_gcov)
		usage_error("--reset-gcov needs --dump-gcov DIR", NULL);

	struct utsname u;
	uname(&u);
	emit("hello", "proto=%d kernel=%s version=%s machine=%s pid1=%d cpu=%d ops=%ld warmups=%d rounds=%d seccomp=%d",
	     PROTO_VERSION, esc(u.release), esc(u.version), esc(u.machine), is_pid1, o.cpu, o.ops, o.warmups, o.rounds,
	     o.seccomp);

	struct probe_ctx ctx = { .cpu = o.cpu, .other_cpu = o.other_cpu, .ops = o.ops };
	if (save_init_state() != 0)
		fail(&ctx, NULL, "save-state", -1, errno, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (o.stdin_lease && stdin_lease_start(o.stdin_lease, o.cpu) != 0)
		fail(&ctx, NULL, "stdin-lease", -1, errno, "cannot start the stdin watcher");

	if (o.cpu >= 0 && pin_thread_to(o.cpu) != 0)
		fail(&ctx, NULL, "pin", -1, errno, "cannot pin to the requested CPU");
	for (size_t i = 0; i < n_selected; i++) {
		const struct profile *p = selected[i];
		if (p->needs_two_cpus && (o.other_cpu < 0 || o.cpu < 0))
			fail(&ctx, p, "prepare", -1, EINVAL, "this profile needs two CPUs (--cpu and --other-cpu)");
		if (p->prepare && p->prepare(&ctx) != 0)
			fail(&ctx, p, "prepare", -1, errno, NULL);
		char params[512];
		prepared_params(p, params, sizeof(params));
		emit("prepared", "profile=%s params=%s", esc(p->name), esc(params));
	}
	if (o.seccomp && seccomp_inject(o.seccomp) != 0)
		fail(&ctx, NULL, "seccomp", -1, errno, "cannot install the seccomp filter");
	if (o.reset_gcov && gcov_reset(o.dump_gcov) != 0)
		fail(&ctx, NULL, "reset-gcov", -1, errno, "cannot write the gcov reset file (is CONFIG_GCOV_KERNEL set?)");

	/* round-robin: round r of every profile before round r+1 of any */
	int total = o.warmups + o.rounds, measured = o.rounds;
	for (int r = 0; r < total && !stop_requested; r++) {
		ctx.round = r;
		ctx.warmup = r < o.warmups;
		int idx = ctx.warmup ? r : r - o.warmups, gate = ctx.warmup ? 0 : block_gate(idx);
		if (gate < 0)
			fail(&ctx, NULL, "go", -1, errno, "the go pipe closed before the next block");
		if (gate > 0) {
			measured = idx;
			break;
		}
		for (size_t i = 0; i < n_selected; i++) {
			ctx.ops = selected_ops[i] ? selected_ops[i] : o.ops;
			paired_round(&ctx, selected[i], idx);
		}
	}
	cleanup_all();
	if (o.exec_path)
		run_exec(&ctx, o.exec_path, o.window_exec);
	if (o.run_plan) {
		if (is_pid1)
			mount_for_programs();
		if (run_plan(o.run_plan, o.window_exec) != 0)
			fail(&ctx, NULL, "run-plan", -1, errno, o.run_plan);
	}
	if (o.behave && run_behave(o.behave, is_pid1) != 0)
		fail(&ctx, NULL, "behave", -1, errno, o.behave);
	emit("done", "rounds=%d profiles=%zu", measured, n_selected);
	if (o.dump_gcov && gcov_dump(o.dump_gcov) != 0)
		finish(3);
	if (o.dump_files && files_dump(o.dump_files) != 0)
		finish(3);
	finish(0);
	return 0;
}
