/*
 * select and mincore steps: descriptors named by what they are (a pipe with
 * data, an empty pipe, a write end, a closed number), the runner's mapping
 * by page, and what the calls hand back reported by name and class.
 */
#include "probe.h" /* first: _GNU_SOURCE */
#include "behave.h"
#include "sched_attr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>


static int fd_of(struct behave_ctx *ctx, const char *name)
{
	if (!strcmp(name, "rready"))
		return ctx->rready;
	if (!strcmp(name, "rempty"))
		return ctx->rempty;
	if (!strcmp(name, "wready"))
		return ctx->wready;
	if (!strcmp(name, "badfd"))
		return ctx->badfd;
	return -1;
}

static const char *fd_name(struct behave_ctx *ctx, int fd)
{
	return fd == ctx->rready ? "rready" : fd == ctx->rempty ? "rempty" : fd == ctx->wready ? "wready" : "badfd";
}

/* An fd set from "a+b" (NULL pointer when the key is absent, empty set for `none`); the highest fd in *max. */
static fd_set *fd_set_arg(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l, const char *key, fd_set *set, int *max)
{
	const char *v = ba_arg(l, key);
	FD_ZERO(set);
	if (!v || !strcmp(v, "null"))
		return NULL;
	if (!strcmp(v, "none"))
		return set;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *save, *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		int fd = fd_of(ctx, t);
		if (fd < 0) {
			c->bad = key;
			return NULL;
		}
		FD_SET(fd, set);
		if (fd > *max)
			*max = fd;
	}
	return set;
}

static void report_set(struct behave_ctx *ctx, struct behave_out *c, const char *key, fd_set *set)
{
	if (!set)
		return;
	char names[128] = "";
	int fds[] = { ctx->rready, ctx->rempty, ctx->wready, ctx->badfd };
	for (size_t i = 0; i < 4; i++)
		if (FD_ISSET(fds[i], set))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", names[0] ? "+" : "", fd_name(ctx, fds[i]));
	ba_out(c, "%s=%s", key, names[0] ? names : "none");
}

void behave_select(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l)
{
	fd_set r, w, x;
	int max = -1;
	fd_set *rp = fd_set_arg(ctx, c, l, "read", &r, &max);
	fd_set *wp = fd_set_arg(ctx, c, l, "write", &w, &max);
	fd_set *xp = fd_set_arg(ctx, c, l, "except", &x, &max);
	const char *nf = ba_arg(l, "nfds");
	int nfds = !nf || !strcmp(nf, "max") ? max + 1 : (int)ba_num(c, l, "nfds", 0);
	const char *tv = ba_arg(l, "timeout");
	struct timeval t = { 0, 0 }, orig;
	struct timeval *tp = &t;
	if (tv && !strcmp(tv, "null"))
		tp = NULL;
	else if (tv && !strcmp(tv, "bad"))
		t.tv_usec = -1;
	else if (tv) {
		long long us = ba_num(c, l, "timeout", 0);
		t.tv_sec = us / 1000000;
		t.tv_usec = us % 1000000;
	}
	orig = t;
	if (c->bad)
		return;
	long r2 = syscall(SYS_select, nfds, rp, wp, xp, tp);
	ba_result(c, r2);
	if (r2 < 0)
		return;
	report_set(ctx, c, "read", rp);
	report_set(ctx, c, "write", wp);
	report_set(ctx, c, "except", xp);
	if (tp) {
		/* the time left is a time: only its class is part of the trace */
		long long left = t.tv_sec * 1000000LL + t.tv_usec, was = orig.tv_sec * 1000000LL + orig.tv_usec;
		ba_out(c, "left=%s", left == 0 ? "zero" : left < 0 ? "negative" : left > was ? "more" : "nonzero");
	}
}

/* ---- mincore ---- */

void behave_mincore(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l)
{
	const char *a = ba_arg(l, "addr");
	char *addr = ctx->map;
	if (a && !strcmp(a, "null"))
		addr = NULL;
	else if (a && !strcmp(a, "unaligned"))
		addr = ctx->map + 1;
	else if (a && !strcmp(a, "unmapped"))
		addr = ctx->map + BEHAVE_MAP_PAGES * ctx->page;
	else if (a && !strcmp(a, "kernel"))
		addr = (char *)0xffff888000000000ULL;
	else if (a && !strncmp(a, "map+", 4))
		addr = ctx->map + atol(a + 4) * ctx->page;
	else if (a && strcmp(a, "map"))
		c->bad = "addr";
	long pages = (long)ba_num(c, l, "pages", BEHAVE_MAP_PAGES);
	long long bytes = ba_num(c, l, "bytes", (long long)pages * ctx->page);
	unsigned char vec[4 * BEHAVE_MAP_PAGES];
	memset(vec, 0xee, sizeof(vec));
	if (c->bad)
		return;
	long r = syscall(SYS_mincore, addr, (size_t)bytes, ba_ptr(l, "vec", vec));
	ba_result(c, r);
	if (r != 0)
		return;
	char bits[4 * BEHAVE_MAP_PAGES + 1];
	long n = (long)((bytes + ctx->page - 1) / ctx->page);
	if (n > (long)sizeof(vec))
		n = (long)sizeof(vec);
	for (long i = 0; i < n; i++)
		bits[i] = vec[i] == 0xee ? '-' : (vec[i] & 1) ? '1' : '0';
	bits[n] = 0;
	ba_out(c, "vec=%s", n ? bits : "empty");
}

void behave_pages(struct behave_ctx *ctx, struct behave_out *c, const struct behave_line *l, int touch)
{
	long page = (long)ba_num(c, l, "page", 0);
	if (c->bad)
		return;
	if (page < 0 || page >= BEHAVE_MAP_PAGES) {
		c->bad = "page";
		return;
	}
	char *p = ctx->map + page * ctx->page;
	if (touch) {
		*(volatile char *)p = 1;
		ba_result(c, 0);
	} else {
		ba_result(c, madvise(p, (size_t)ctx->page, MADV_DONTNEED));
	}
}

