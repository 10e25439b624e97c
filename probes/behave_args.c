/*
 * The arguments of a scenario line (KEY=VALUE words: numbers, names joined
 * by '+', pids by role, NULL pointers) and a call's report (return value,
 * errno's name, its outputs as k=v,k=v), shared by behave_calls.c and
 * behave_io.c.
 */
#include "probe.h" /* first: _GNU_SOURCE */
#include "behave.h"
#include "sched_attr.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char *ba_arg(const struct behave_line *l, const char *key)
{
	size_t n = strlen(key);
	for (int i = 1; i < l->argc; i++)
		if (!strncmp(l->argv[i], key, n) && l->argv[i][n] == '=')
			return l->argv[i] + n + 1;
	return NULL;
}

void ba_out(struct behave_out *c, const char *fmt, ...)
{
	if (c->o + 2 >= c->outlen)
		return;
	if (c->o)
		c->out[c->o++] = ',';
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(c->out + c->o, c->outlen - c->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->o += (size_t)n;
	if (c->o >= c->outlen)
		c->o = c->outlen - 1;
}

static const struct {
	const char *name;
	long long value;
} symbols[] = {
	{ "OTHER", SCHED_OTHER }, { "FIFO", SCHED_FIFO }, { "RR", SCHED_RR }, { "BATCH", SCHED_BATCH },
	{ "IDLE", SCHED_IDLE }, { "DEADLINE", BEHAVE_DEADLINE_POLICY }, { "RESET_ON_FORK_POLICY", 0x40000000 },
	/* sched_attr.sched_flags (include/uapi/linux/sched.h) */
	{ "RESET_ON_FORK", 0x01 }, { "RECLAIM", 0x02 }, { "DL_OVERRUN", 0x04 }, { "KEEP_POLICY", 0x08 },
	{ "KEEP_PARAMS", 0x10 }, { "UTIL_CLAMP_MIN", 0x20 }, { "UTIL_CLAMP_MAX", 0x40 }, { "UTIL_CLAMP", 0x60 },
};

/* A number, a symbol, or symbols and numbers joined by '+'; -1 in *ok on a word it does not know. */
long long ba_value(const char *v, int *ok)
{
	long long total = 0;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *save, *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		char *end;
		long long n = strtoll(t, &end, 0);
		if (*t && !*end) {
			total += n;
			continue;
		}
		size_t i;
		for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
			if (!strcmp(symbols[i].name, t))
				break;
		if (i == sizeof(symbols) / sizeof(symbols[0])) {
			*ok = 0;
			return 0;
		}
		total += symbols[i].value;
	}
	return total;
}

long long ba_num(struct behave_out *c, const struct behave_line *l, const char *key, long long dflt)
{
	const char *v = ba_arg(l, key);
	if (!v)
		return dflt;
	int ok = 1;
	long long n = ba_value(v, &ok);
	if (!ok)
		c->bad = key;
	return n;
}

pid_t ba_pid(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l)
{
	const char *v = ba_arg(l, "pid");
	if (!v || !strcmp(v, "self"))
		return 0;
	if (!strcmp(v, "peer")) {
		if (!ctx->peer)
			c->bad = "pid=peer without 'peer' in the scenario";
		return ctx->peer;
	}
	if (!strcmp(v, "nonexistent"))
		return BEHAVE_NONEXISTENT_PID;
	return (pid_t)ba_num(c, l, "pid", 0);
}

/* A pointer argument: the buffer given, or NULL for key=null. */
void *ba_ptr(const struct behave_line *l, const char *key, void *buf)
{
	const char *v = ba_arg(l, key);
	return v && !strcmp(v, "null") ? NULL : buf;
}

void ba_result(struct behave_out *c, long r)
{
	int e = r < 0 ? errno : 0;
	snprintf(c->ret, c->retlen, "%ld", r);
	snprintf(c->err, c->errlen, "%s", behave_errname(e));
}

