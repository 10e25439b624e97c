/*
 * Known-effect calibration in user space (--inject-work [PROFILE:]N): N
 * dependent register additions per call of a timed loop, outside the
 * syscall. inject_work() jumps into an unrolled block of WORK_MAX additions
 * so that exactly N of them run (the jump itself is the same for every N,
 * 0 included), so under qemu -icount side B runs exactly N more
 * instructions per call than side A. The additions form one dependency
 * chain (each reads the register the previous one wrote): about one cycle
 * each, whatever the CPU's width.
 *
 * Once any --inject-work is given (0 included, as side A of a known-work
 * run gets), the block is fenced: lfence before and after it. Without the
 * fences an out-of-order core runs the first few dozen additions in the
 * shadow of the syscall (measured on an AMD EPYC guest: 30 additions cost
 * 0.4 ns where 4000 cost 0.25 ns each), so a count calibrated on a long
 * block bought a fraction of the extra time it promised; with them the
 * cost per addition is the same at 30 as at 4000 within the noise. Both
 * sides run the same two fences, so under -icount B still runs exactly N
 * more instructions per call. Runs without known work are not fenced.
 *
 * N may have up to three decimals (3.55): a round then runs floor(N) or
 * floor(N) + 1 additions per call, chosen per profile by an accumulator of
 * the fractions, so that over R rounds the mean is N within 1/R. The count
 * is fixed within a round, so the jump into the block has one target for
 * 20000 calls and is predicted; a share of an addition per call (0.3 % of
 * a 95 ns getppid) is then a dither of whole rounds, not a cost of its own.
 *
 * --work-gauge K: before every block of measured rounds (every measured
 * round without --go-fifo), outside the timed part, the profile's own loop
 * runs three times on a two-hundredth of the round's calls (at least 100;
 * fewer leave the K additions in the noise), the middle run
 * with K more additions per call than the round has, and the probe prints
 * `gauge profile=P adds=K calls=C elapsed=NS` (the middle run less the
 * mean of the other two, on the round's clock): what K more additions
 * cost in this loop, now. Before the block, not after a round: hintlab
 * reads and stores a round's line just after it, and on a shared CPU that
 * work polluted the gauge's longer middle run more than its outer ones (a
 * gauge after every round read 0.28-0.33 ns per addition where B's cost
 * 0.23). A gauge of additions alone (blocks of 4096 in a row) read 5-7 %
 * below what B's additions cost between the calls. Not for profiles that
 * set up every round or need two CPUs: the pilot's figure stands for them.
 */
#include "emit.h"
#include "probe.h"

#include <stdlib.h>
#include <string.h>

#define WORK_MAX 65536
#define ADD_BYTES 3 /* add %rdx,%rcx: 48 01 d1 */
#define MAX_WORK_PROFILES 64

/* thousandths of an addition per call */
static long work_default;
/* any --inject-work given: fence the block (see above) */
static int work_fenced;
static struct {
	char name[128];
	long n;
} work_for[MAX_WORK_PROFILES];
static size_t n_work_for;
/* per profile: the fractions of an addition owed so far, in thousandths */
static struct {
	char name[128];
	long owed;
} work_owed[MAX_WORK_PROFILES];
static size_t n_work_owed;
/* bytes of the unrolled block to run, counted back from its end */
static long work_bytes;
/* --work-gauge K: additions per call the gauge adds (0: no gauge) */
static long gauge_adds;
#define GAUGE_MAX 4096
/* a gauge's runs take this share of the round's calls each, at least GAUGE_MIN_CALLS (the round's calls if fewer) */
#define GAUGE_SHARE 200
#define GAUGE_MIN_CALLS 100

/* "--inject-work N" for every profile or "--inject-work NAME:N" for one; -1 on a bad value */
int work_parse(const char *v)
{
	const char *colon = strrchr(v, ':');
	const char *num = colon ? colon + 1 : v;
	char *end;
	errno = 0;
	if (*num < '0' || *num > '9')
		return -1;
	long whole = strtol(num, &end, 10), milli = 0;
	if (*end == '.') {
		int digits = 0;
		for (end++; *end >= '0' && *end <= '9' && digits < 3; end++, digits++)
			milli = milli * 10 + (*end - '0');
		if (digits == 0)
			return -1;
		for (; digits < 3; digits++)
			milli *= 10;
	}
	if (*end || errno || whole < 0 || whole > WORK_MAX || (whole == WORK_MAX && milli > 0))
		return -1;
	long n = whole * 1000 + milli;
#if !defined(__x86_64__)
	if (n > 0)
		return -1;
#endif
	work_fenced = 1;
	if (!colon) {
		work_default = n;
		return 0;
	}
	if (n_work_for == MAX_WORK_PROFILES || (size_t)(colon - v) >= sizeof(work_for[0].name))
		return -1;
	memcpy(work_for[n_work_for].name, v, (size_t)(colon - v));
	work_for[n_work_for].name[colon - v] = 0;
	work_for[n_work_for++].n = n;
	return 0;
}

/* The fraction's accumulator of one profile (a new one owes nothing). */
static long *owed_for(const char *profile)
{
	for (size_t i = 0; i < n_work_owed; i++)
		if (!strcmp(work_owed[i].name, profile))
			return &work_owed[i].owed;
	if (n_work_owed == MAX_WORK_PROFILES || strlen(profile) >= sizeof(work_owed[0].name))
		return NULL;
	strcpy(work_owed[n_work_owed].name, profile);
	return &work_owed[n_work_owed++].owed;
}

/* The additions per call for the round of the profile about to be timed (see the fractions above). */
long work_select(const char *profile)
{
	long milli = work_default;
	for (size_t i = 0; i < n_work_for; i++)
		if (!strcmp(work_for[i].name, profile))
			milli = work_for[i].n;
	long n = milli / 1000, *owed = milli % 1000 ? owed_for(profile) : NULL;
	if (owed) {
		*owed += milli % 1000;
		if (*owed >= 1000)
			*owed -= 1000, n++;
	}
	work_bytes = n * ADD_BYTES;
	return n;
}

/* "--work-gauge K", 1 <= K <= GAUGE_MAX (x86_64 only); -1 on a bad value */
int work_gauge_parse(const char *v)
{
	char *end;
	errno = 0;
	long k = v ? strtol(v, &end, 10) : 0;
	if (!v || errno || *end || k < 1 || k > GAUGE_MAX)
		return -1;
#if !defined(__x86_64__)
	return -1;
#endif
	gauge_adds = k;
	work_fenced = 1;
	return 0;
}

/* One run of the profile's loop with `adds` more additions per call than the round's; 0 or -1 (errno set). */
static int gauge_run(struct probe_ctx *ctx, const struct profile *p, long kept, long adds)
{
	long failed_at = -1;
	work_bytes = kept + adds * ADD_BYTES;
	return p->loop(ctx, &failed_at);
}

/*
 * With --work-gauge, before a block of measured rounds of `p`: one gauge
 * line (see above), timed on `now` (the round's clock, sync.c). 0, or -1 when
 * the loop failed (errno set).
 */
int work_gauge(struct probe_ctx *ctx, const struct profile *p, long long (*now)(void))
{
	long kept = work_bytes, ops = ctx->ops;
	if (!gauge_adds || p->needs_two_cpus || p->before_round || kept + gauge_adds * ADD_BYTES > (long)WORK_MAX * ADD_BYTES)
		return 0;
	long long t[4];
	/*
	 * untimed first: one call brings the K additions' code into the
	 * caches, and a whole run the loop's (the round's line went out in
	 * between; without it the first timed run cost about 5 % more)
	 */
	ctx->ops = 1;
	int rc = gauge_run(ctx, p, kept, gauge_adds);
	long share = ops / GAUGE_SHARE;
	ctx->ops = share >= GAUGE_MIN_CALLS ? share : (ops < GAUGE_MIN_CALLS ? ops : GAUGE_MIN_CALLS);
	if (rc == 0)
		rc = gauge_run(ctx, p, kept, 0);
	t[0] = now();
	for (int i = 0; i < 3 && rc == 0; i++) {
		rc = gauge_run(ctx, p, kept, i == 1 ? gauge_adds : 0);
		t[i + 1] = now();
	}
	long calls = ctx->ops;
	ctx->ops = ops;
	work_bytes = kept;
	if (rc != 0)
		return -1;
	emit("gauge", "profile=%s adds=%ld calls=%ld elapsed=%lld", esc(p->name), gauge_adds, calls,
	     (t[2] - t[1]) - ((t[1] - t[0]) + (t[3] - t[2])) / 2);
	return 0;
}

__attribute__((noinline)) void inject_work(void)
{
#if defined(__x86_64__)
	if (work_fenced)
		__asm__ volatile("lfence" ::: "memory");
	__asm__ volatile("lea 2f(%%rip), %%rax\n\t"
			 "sub %0, %%rax\n\t"
			 "jmp *%%rax\n\t"
			 ".rept " "65536" "\n\t"
			 "add %%rdx, %%rcx\n\t"
			 ".endr\n"
			 "2:\n\t"
			 :
			 : "r"(work_bytes)
			 : "rax", "rcx", "rdx", "cc");
	if (work_fenced)
		__asm__ volatile("lfence" ::: "memory");
#endif
}
