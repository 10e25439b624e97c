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
 */
#include "emit.h"
#include "probe.h"

#include <stdlib.h>
#include <string.h>

#define WORK_MAX 65536
#define ADD_BYTES 3 /* add %rdx,%rcx: 48 01 d1 */
#define MAX_WORK_PROFILES 64

static long work_default;
/* any --inject-work given: fence the block (see above) */
static int work_fenced;
static struct {
	char name[128];
	long n;
} work_for[MAX_WORK_PROFILES];
static size_t n_work_for;
/* bytes of the unrolled block to run, counted back from its end */
static long work_bytes;

/* "--inject-work N" for every profile or "--inject-work NAME:N" for one; -1 on a bad value */
int work_parse(const char *v)
{
	const char *colon = strrchr(v, ':');
	const char *num = colon ? colon + 1 : v;
	char *end;
	errno = 0;
	long n = strtol(num, &end, 10);
	if (!*num || *end || errno || n < 0 || n > WORK_MAX)
		return -1;
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

/* The additions per call for the profile about to be timed. */
long work_select(const char *profile)
{
	long n = work_default;
	for (size_t i = 0; i < n_work_for; i++)
		if (!strcmp(work_for[i].name, profile))
			n = work_for[i].n;
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
