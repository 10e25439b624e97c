/* Profiles for select() over 1000 descriptors and mincore() on a 256 KiB mapping. */
#include "probe.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <unistd.h>

#define SELECT_FDS 1000

static int select_fds[SELECT_FDS];
static int select_nfds;
static int select_pipe[2] = { -1, -1 };
static fd_set select_template;

/*
 * 1000 descriptors, all duplicates of an empty pipe's read end, so
 * select() with a zero timeout scans every one and finds none ready.
 */
static int prepare_select(struct probe_ctx *ctx)
{
	(void)ctx;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < SELECT_FDS + 16) {
		rl.rlim_cur = rl.rlim_max < SELECT_FDS + 16 ? rl.rlim_max : SELECT_FDS + 16;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (pipe(select_pipe) != 0)
		return -1;
	FD_ZERO(&select_template);
	select_nfds = 0;
	for (int i = 0; i < SELECT_FDS; i++) {
		int fd = dup(select_pipe[0]);
		if (fd < 0)
			return -1;
		if (fd >= FD_SETSIZE) {
			close(fd);
			errno = EMFILE;
			return -1;
		}
		select_fds[i] = fd;
		FD_SET(fd, &select_template);
		if (fd + 1 > select_nfds)
			select_nfds = fd + 1;
	}
	return 0;
}

/* the descriptors select() scans depend on what the process had open before */
static void describe_select(char *buf, size_t len)
{
	snprintf(buf, len, "nfds=%d,fd_first=%d,fd_last=%d", select_nfds, select_fds[0], select_fds[SELECT_FDS - 1]);
}

static int loop_select(struct probe_ctx *ctx, long *failed_at)
{
	fd_set set;
	struct timeval tv;
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		/* select() overwrites both the set and the timeout: reset them each call */
		memcpy(&set, &select_template, sizeof(set));
		tv.tv_sec = 0;
		tv.tv_usec = 0;
		long r = select(select_nfds, &set, NULL, NULL, &tv);
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

/*
 * select-1000-empty: nfds = 1000 with an empty read set, so the kernel copies
 * in and scans the 1000-bit bitmap but polls no file: the argument checks and
 * bitmap handling around core_sys_select, without per-file poll costs.
 */
static int loop_select_empty(struct probe_ctx *ctx, long *failed_at)
{
	fd_set set;
	struct timeval tv;
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		FD_ZERO(&set);
		tv.tv_sec = 0;
		tv.tv_usec = 0;
		long r = select(SELECT_FDS, &set, NULL, NULL, &tv);
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

static void cleanup_select(void)
{
	for (int i = 0; i < SELECT_FDS; i++) {
		if (select_fds[i] > 0)
			close(select_fds[i]);
		select_fds[i] = 0;
	}
	for (int i = 0; i < 2; i++) {
		if (select_pipe[i] >= 0)
			close(select_pipe[i]);
		select_pipe[i] = -1;
	}
}

#define MINCORE_BYTES (256 * 1024)

static unsigned char *mincore_map;
static unsigned char mincore_vec[MINCORE_BYTES / 4096 + 1];
static long page_size;
static long mincore_pages;

static int count_resident(void)
{
	if (mincore(mincore_map, MINCORE_BYTES, mincore_vec) != 0)
		return -1;
	int n = 0;
	for (long i = 0; i < mincore_pages; i++)
		n += mincore_vec[i] & 1;
	return n;
}

#define PMD_SPAN (2UL * 1024 * 1024)

/*
 * The mapping starts on a 2 MiB boundary, so it lies under one page-middle
 * directory in every process. Where the address space layout puts a plain
 * mmap varies per process and per boot, and a mapping that crosses a 2 MiB
 * boundary walks two page tables: about 200 instructions more per call
 * (3660 -> 3850 under qemu -icount on 6.12), a cost of where ASLR put the
 * mapping, not of the kernel. MADV_NOHUGEPAGE keeps it in 4 KiB pages and
 * unmerged with its neighbours.
 */
static int map_inside_one_pmd(void)
{
	size_t span = MINCORE_BYTES + PMD_SPAN;
	unsigned char *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return -1;
	uintptr_t start = ((uintptr_t)r + PMD_SPAN - 1) & ~(uintptr_t)(PMD_SPAN - 1);
	size_t head = start - (uintptr_t)r;
	if (head)
		munmap(r, head);
	if (span - head - MINCORE_BYTES)
		munmap((unsigned char *)start + MINCORE_BYTES, span - head - MINCORE_BYTES);
	mincore_map = mmap((void *)start, MINCORE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (mincore_map == MAP_FAILED) {
		int e = errno;
		munmap((void *)start, MINCORE_BYTES);
		mincore_map = NULL;
		errno = e;
		return -1;
	}
	madvise(mincore_map, MINCORE_BYTES, MADV_NOHUGEPAGE); /* EINVAL without THP support: nothing to keep off */
	return 0;
}

/* A private anonymous mapping with every other page touched: half resident. */
static int prepare_mincore(struct probe_ctx *ctx)
{
	(void)ctx;
	page_size = sysconf(_SC_PAGESIZE);
	mincore_pages = MINCORE_BYTES / page_size;
	if (mincore_pages > (long)sizeof(mincore_vec)) {
		errno = EINVAL;
		return -1;
	}
	if (map_inside_one_pmd() != 0)
		return -1;
	for (long i = 0; i < mincore_pages; i += 2)
		mincore_map[i * page_size] = 1;
	return count_resident() == mincore_pages / 2 ? 0 : (errno = EPROTO, -1);
}

static void describe_mincore(char *buf, size_t len)
{
	snprintf(buf, len, "page_size=%ld,pages=%ld,resident_pages=%ld,start_aligned=2MiB", page_size, mincore_pages, mincore_pages / 2);
}

static int loop_mincore(struct probe_ctx *ctx, long *failed_at)
{
	for (long i = 0; i < ctx->ops; i++) {
		inject_work();
		long r = mincore(mincore_map, MINCORE_BYTES, mincore_vec);
		if (__builtin_expect(r != 0, 0))
			return fail_at(failed_at, i, r);
	}
	return 0;
}

/* the residency the profile promises must still hold after every round */
static int after_mincore(struct probe_ctx *ctx)
{
	(void)ctx;
	int n = count_resident();
	if (n < 0)
		return -1;
	if (n != mincore_pages / 2) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static void cleanup_mincore(void)
{
	if (mincore_map)
		munmap(mincore_map, MINCORE_BYTES);
	mincore_map = NULL;
}

const struct profile io_profiles[] = {
	{ "select-1000", "select() over 1000 descriptors (an empty pipe's read end, duplicated), zero timeout",
	  "fds=1000,timeout=0", "select", 0, prepare_select, NULL, NULL, cleanup_select, loop_select, describe_select },
	{ "select-1000-empty", "select(1000, empty read set, NULL, NULL, zero timeout): bitmap copy and scan, no file polled",
	  "nfds=1000,fds_set=0,timeout=0", "select", 0, NULL, NULL, NULL, NULL, loop_select_empty, NULL },
	{ "mincore-256k", "mincore() on a 256 KiB private anonymous mapping starting on a 2 MiB boundary, half of its pages resident",
	  "bytes=262144,resident=half", "mincore", 0, prepare_mincore, NULL, after_mincore, cleanup_mincore,
	  loop_mincore, describe_mincore },
};
const size_t n_io_profiles = sizeof(io_profiles) / sizeof(io_profiles[0]);
