/*
 * The behaviour scenario runner (--behave FILE, docs/behave.md): runs a
 * deterministic sequence of syscalls and emits, after each step, the call's
 * outcome and the observable scheduling state as framed lines. Nothing it
 * prints is a time or an address, so two runs on one kernel print the same.
 */
#ifndef HINTLAB_BEHAVE_H
#define HINTLAB_BEHAVE_H

#include <stddef.h>
#include <sys/types.h>

#define BEHAVE_MAX_TOKENS 32
#define BEHAVE_MAP_PAGES 16

/* What a scenario's calls act on; one per scenario process. */
struct behave_ctx {
	pid_t peer;          /* the peer task (a child blocked on a pipe), 0 when the scenario has none */
	int pid1;            /* running as a guest's PID 1: global knobs (base_slice_ns) may be written */
	char *map;           /* BEHAVE_MAP_PAGES anonymous pages, the first half touched; one unmapped page after */
	long page;           /* page size */
	int rready, rempty, wready, badfd; /* select's descriptors: a pipe with data, an empty pipe, a write end, a closed number */
	unsigned long long start_slice; /* the caller's slice at scenario start (default mode) */
	int peer_cmd;        /* write end of the peer's command pipe ('L': take and release the PI futex) */
	int *pi_word;        /* a PI futex shared with the peer */
};

/* One scenario line split into words: argv[0] is the call, the rest key=value. */
struct behave_line {
	int lineno;
	int argc;
	char *argv[BEHAVE_MAX_TOKENS];
};

/* A call's report as it is filled (behave_args.c). */
struct behave_out {
	char *ret, *err, *out;
	size_t retlen, errlen, outlen;
	size_t o; /* used length of out */
	const char *bad; /* why the line cannot run */
};

#define BEHAVE_DEADLINE_POLICY 6
/* a pid no task has: below the largest pid_max, never handed out in a small guest */
#define BEHAVE_NONEXISTENT_PID 0x3ffffff0

const char *ba_arg(const struct behave_line *l, const char *key);
void ba_out(struct behave_out *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
long long ba_value(const char *v, int *ok);
long long ba_num(struct behave_out *c, const struct behave_line *l, const char *key, long long dflt);
pid_t ba_pid(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l);
void *ba_ptr(const struct behave_line *l, const char *key, void *buf);
void ba_result(struct behave_out *c, long r);
void behave_select(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l);
void behave_mincore(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l);
void behave_pages(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l, int touch);

/*
 * Run one call line; fills ret (or a class like `pid`), the errno name and
 * the call's own outputs ("k=v,k=v"). Returns 0, or -1 with `out` holding
 * the reason when the line cannot be run (unknown call or key).
 */
int behave_call(struct behave_ctx *ctx, const struct behave_line *l, char *ret, size_t retlen, char *err, size_t errlen,
		char *out, size_t outlen);

/* The state of `pid` as "k=v ..." (already escaped for a line), for the state line. */
void behave_task_state(pid_t pid, char *buf, size_t len);
/* The base slice from debugfs ("absent" when the kernel has no such file). */
void behave_base_slice(char *buf, size_t len);
/* The base slice in ns, or 0 when it cannot be read. */
unsigned long long behave_base_slice_ns(void);
/* Write base_slice_ns; 0, or -1 with errno set. */
int behave_set_base_slice(unsigned long long ns);
/* Whether `pid` is asleep (state S in /proc/PID/stat). */
int behave_sleeping(pid_t pid);
/* Fork the peer and wait until it is asleep; its pid, or -1. */
pid_t behave_start_peer(struct behave_ctx *ctx);
/* The PI futex steps: pi_lock, pi_unlock (self), peer_pi_lock (the peer blocks on it); 0 or -1 with errno. */
int behave_pi(struct behave_ctx *ctx, const char *which);
/* errno's symbolic name (EINVAL), or its number. */
const char *behave_errname(int e);

#endif
