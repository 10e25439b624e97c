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
