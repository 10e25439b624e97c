/*
 * The minimal hand-written loop that kernel developers write: pin, call
 * syscall(SYS_getppid) N times, time the loop with CLOCK_MONOTONIC_RAW.
 * Usage: getppid-loop CPU N  ->  prints "<elapsed ns> <N>"
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		return 1;
	long n = atol(argv[2]);
	for (long i = 0; i < n; i++) /* warm-up: as many calls as measured */
		syscall(SYS_getppid);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	printf("%lld %ld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec), n);
	return 0;
}
