/*
 * hintlab-cost: a qemu TCG plugin that counts what a measured loop costs the
 * emulated machine, per window. The guest program opens a window with the
 * marker instruction `xchg %bx,%bx` (66 87 db) and closes it with
 * `xchg %cx,%cx` (66 87 c9), both in user space; the plugin recognises them
 * by their bytes when qemu translates them.
 *
 * Per window it writes one line to the file given as out=PATH:
 *   w idx=N kinsn= uinsn= blocks= taken= fetches= misses= mispred= klines= kentries=
 * and, for every kernel translation block executed in the window,
 *   t N VADDR BYTES INSNS EXECS TAKEN FETCHES MISSES MISPRED
 * (hex VADDR, the rest decimal). Instructions are counted per executed
 * block (a block cut short by a fault counts whole); a taken transfer is a
 * block that does not start where the previous one ended (branches, calls,
 * returns, interrupts, syscalls and their returns), counted at the block
 * that ended with it; fetches are the 64-byte (line=) lines each executed
 * block spans; misses and mispredictions come from model.c. Kernel code is
 * told by its address (API v1 cannot read registers).
 *
 * Arguments: out=PATH, l1i=BYTES, ways=N, line=BYTES, ubranch=1, and syms=PATH (the
 * kernel's function start addresses, hex, ascending): then a block line is
 * written per part of the block in one function, its counts exact per part
 * (taken and mispredicted on the part holding the block's last instruction).
 *
 * For every kernel conditional jump resolved in the window (branches.c),
 *   b N ADDR TARGET TAKEN FELL
 * (hex ADDR and TARGET): how often it jumped and how often it fell through.
 * With ubranch=1 the jumps of user space are counted too (a guest program's
 * own loop).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright hintlab's authors. Licensed under the GNU GPL, version 2 or
 * (at your option) any later version, as the qemu plugin API it uses.
 */
#include "api.h"
#include "branches.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = HINTLAB_PLUGIN_API_VERSION;

#define KERNEL_BASE 0xffff800000000000ULL

/*
 * A block's part in one function (syms=): instructions, fetches and misses
 * are counted per part, so a block that runs across a symbol (an assembly
 * label inside entry code) is attributed exactly, however qemu cut it.
 */
#define MAX_PARTS 8
struct part {
	uint64_t vaddr;
	uint32_t bytes, insns;
	uint64_t fetches, misses;
};

struct block {
	uint64_t vaddr, last_insn;
	uint32_t bytes, insns;
	struct part parts[MAX_PARTS];
	int nparts;
	/* the conditional jump ending the block (counted), or NULL; whether it ends with an iret */
	struct branch *br;
	int iret;
	/* counts inside the current window (taken and mispredicted belong to the last part) */
	uint64_t execs, taken, mispred;
	struct block *next_hash, *next_touched;
	int touched;
};

struct window {
	uint64_t kinsn, uinsn, blocks, taken, fetches, misses, mispred, klines, kentries;
};

#define HASH_SIZE (1u << 16)
static struct block *hash[HASH_SIZE];
static struct block *touched;
static struct window win;
static int in_window;
static unsigned ubranch;
static unsigned long window_index;
static struct block *prev;
static uint64_t entry_lines;
static unsigned line_shift;
static FILE *out;
/* sorted start addresses of the kernel's functions (syms=), or none */
static uint64_t *fstarts;
static size_t nfstarts;

/* index of the function holding a, or (size_t)-1 below the first */
static size_t func_of(uint64_t a)
{
	size_t lo = 0, hi = nfstarts, found = (size_t)-1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (fstarts[mid] <= a)
			found = mid, lo = mid + 1;
		else
			hi = mid;
	}
	return found;
}

static int is_kernel(uint64_t a)
{
	return a >= KERNEL_BASE;
}

/*
 * One record per (address, length, closing jump): a block translated again
 * (after a flush, or cut shorter by icount) adds to it; two programs' blocks
 * at one user address differ in their jump when they differ in it.
 */
static struct block *block_for(uint64_t vaddr, uint32_t bytes, uint32_t insns, uint64_t last, struct branch *br)
{
	unsigned h = (unsigned)((vaddr ^ (vaddr >> 16) ^ bytes) * 2654435761u) & (HASH_SIZE - 1);
	for (struct block *b = hash[h]; b; b = b->next_hash)
		if (b->vaddr == vaddr && b->bytes == bytes && b->insns == insns && b->br == br)
			return b;
	struct block *b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr, b->bytes = bytes, b->insns = insns, b->last_insn = last, b->br = br;
	b->next_hash = hash[h];
	hash[h] = b;
	return b;
}

static void touch(struct block *b)
{
	if (!b->touched) {
		b->touched = 1;
		b->next_touched = touched;
		touched = b;
	}
}

/* The transfer from the previous block into `b`: taken or fall-through, predicted or not. */
static void transfer(struct block *b)
{
	if (!prev)
		return;
	int taken = b->vaddr != prev->vaddr + prev->bytes;
	int wrong = predictor_update(prev->last_insn, b->vaddr, taken);
	int from_kernel = is_kernel(prev->vaddr), to_kernel = is_kernel(b->vaddr);
	if (from_kernel && !to_kernel) {
		if (in_window)
			win.klines += entry_lines, win.kentries++;
		entry_lines = 0;
	} else if (!from_kernel && to_kernel) {
		lines_reset();
		entry_lines = 0;
	}
	if (!in_window)
		return;
	win.taken += (uint64_t)taken;
	win.mispred += (uint64_t)wrong;
	prev->taken += (uint64_t)taken;
	prev->mispred += (uint64_t)wrong;
	touch(prev);
}

static struct part *part_at(struct block *b, uint64_t addr)
{
	int i = b->nparts - 1;
	while (i > 0 && b->parts[i].vaddr > addr)
		i--;
	return &b->parts[i];
}

static void on_block(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	struct block *b = udata;
	transfer(b);
	/* most blocks end with neither: no call for them */
	if (prev && (prev->br || prev->iret))
		branch_step(prev->br, prev->iret, b->vaddr, in_window ? (long)window_index : -1);
	uint64_t first = b->vaddr >> line_shift, last = (b->vaddr + b->bytes - 1) >> line_shift;
	for (uint64_t l = first; l <= last; l++) {
		int miss = l1i_access(l << line_shift);
		if (in_window && is_kernel(b->vaddr))
			entry_lines += (uint64_t)lines_add(l);
		if (!in_window)
			continue;
		uint64_t at = l << line_shift < b->vaddr ? b->vaddr : l << line_shift;
		struct part *p = part_at(b, at);
		p->fetches++;
		p->misses += (uint64_t)miss;
		win.fetches++;
		win.misses += (uint64_t)miss;
	}
	prev = b;
	if (!in_window)
		return;
	*(is_kernel(b->vaddr) ? &win.kinsn : &win.uinsn) += b->insns;
	win.blocks++;
	b->execs++;
	touch(b);
}

static void window_open(unsigned int vcpu, void *udata)
{
	(void)vcpu, (void)udata;
	memset(&win, 0, sizeof(win));
	in_window = 1;
}

static void window_close(unsigned int vcpu, void *udata)
{
	(void)vcpu, (void)udata;
	if (!in_window)
		return;
	in_window = 0;
	fprintf(out,
		"w idx=%lu kinsn=%" PRIu64 " uinsn=%" PRIu64 " blocks=%" PRIu64 " taken=%" PRIu64 " fetches=%" PRIu64
		" misses=%" PRIu64 " mispred=%" PRIu64 " klines=%" PRIu64 " kentries=%" PRIu64 "\n",
		window_index, win.kinsn, win.uinsn, win.blocks, win.taken, win.fetches, win.misses, win.mispred, win.klines,
		win.kentries);
	for (struct block *b = touched, *next; b; b = next) {
		next = b->next_touched;
		for (int i = 0; is_kernel(b->vaddr) && i < b->nparts; i++) {
			struct part *p = &b->parts[i];
			int lastp = i == b->nparts - 1;
			fprintf(out, "t %lu %" PRIx64 " %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				window_index, p->vaddr, p->bytes, p->insns, b->execs, lastp ? b->taken : 0, p->fetches,
				p->misses, lastp ? b->mispred : 0);
			p->fetches = p->misses = 0;
		}
		b->execs = b->taken = b->mispred = 0;
		b->touched = 0;
		b->next_touched = NULL;
	}
	touched = NULL;
	branches_flush(out, window_index);
	fflush(out);
	window_index++;
}

/* Cut the block where its instructions enter another function; past MAX_PARTS the last part takes the rest. */
static void split_parts(struct block *b, struct qemu_plugin_tb *tb, size_t n, uint64_t end)
{
	size_t fn = (size_t)-2;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
		size_t f = nfstarts ? func_of(a) : 0;
		if (f != fn && b->nparts < MAX_PARTS) {
			b->parts[b->nparts++].vaddr = a;
			fn = f;
		}
		b->parts[b->nparts - 1].insns++;
	}
	for (int i = 0; i < b->nparts; i++)
		b->parts[i].bytes = (uint32_t)((i + 1 < b->nparts ? b->parts[i + 1].vaddr : end) - b->parts[i].vaddr);
}

static const unsigned char OPEN_MARK[3] = { 0x66, 0x87, 0xdb }, CLOSE_MARK[3] = { 0x66, 0x87, 0xc9 };

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	if (n == 0)
		return;
	struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uint64_t end = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last);
	if (end <= vaddr || end - vaddr > 65536) {
		static int said;
		if (said++ < 5)
			fprintf(stderr, "hintlab-cost: odd block %" PRIx64 "..%" PRIx64 " (%zu insns)\n", vaddr, end, n);
		end = vaddr + 1;
	}
	uint64_t last_vaddr = qemu_plugin_insn_vaddr(last);
	const uint8_t *last_bytes = qemu_plugin_insn_data(last);
	size_t last_size = qemu_plugin_insn_size(last);
	struct branch *br = is_kernel(last_vaddr) || ubranch ? branch_at(last_vaddr, last_bytes, last_size) : NULL;
	struct block *b = block_for(vaddr, (uint32_t)(end - vaddr), (uint32_t)n, last_vaddr, br);
	if (b->nparts == 0) {
		split_parts(b, tb, n, end);
		b->iret = is_iret(last_bytes, last_size);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, b);
	if (is_kernel(vaddr))
		return;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		if (qemu_plugin_insn_size(insn) != 3)
			continue;
		const void *bytes = qemu_plugin_insn_data(insn);
		if (!memcmp(bytes, OPEN_MARK, 3))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_open, QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (!memcmp(bytes, CLOSE_MARK, 3))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_close, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	fprintf(out, "end windows=%lu\n", window_index);
	fclose(out);
}

/* syms=PATH: one hex function start address per line, ascending */
static int read_syms(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		perror(file);
		return -1;
	}
	size_t cap = 0;
	unsigned long long a;
	while (fscanf(f, "%llx", &a) == 1) {
		if (nfstarts == cap) {
			cap = cap ? cap * 2 : 4096;
			fstarts = realloc(fstarts, cap * sizeof(*fstarts));
			if (!fstarts)
				abort();
		}
		if (nfstarts && a < fstarts[nfstarts - 1]) {
			fprintf(stderr, "hintlab-cost: %s is not in ascending order\n", file);
			fclose(f);
			return -1;
		}
		fstarts[nfstarts++] = a;
	}
	fclose(f);
	return 0;
}

/* name=N: 1 with *v set, 0 when arg is not name=, -1 when N is not a whole number in 1..2^30 */
static int arg_uint(const char *arg, const char *name, unsigned *v)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	char *e;
	const char *digits = arg + n + 1;
	unsigned long x = strtoul(digits, &e, 10);
	if (*digits < '0' || *digits > '9' || *e || !x || x > (1ul << 30))
		return -1;
	*v = (unsigned)x;
	return 1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	struct l1i_params p = { 32768, 8, 64 };
	const char *path = NULL;
	if (info->version.min > HINTLAB_PLUGIN_API_VERSION || info->version.cur < HINTLAB_PLUGIN_API_VERSION) {
		fprintf(stderr, "hintlab-cost: qemu's plugin API is version %d..%d, this plugin needs %d\n",
			info->version.min, info->version.cur, HINTLAB_PLUGIN_API_VERSION);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
			continue;
		}
		if (!strncmp(argv[i], "syms=", 5)) {
			if (read_syms(argv[i] + 5) != 0)
				return -1;
			continue;
		}
		/* each is 1 (taken), 0 (another name) or -1 (its name, a bad value): -1 must stop here, not count as taken */
		int r = arg_uint(argv[i], "l1i", &p.size_bytes);
		if (r == 0)
			r = arg_uint(argv[i], "ways", &p.ways);
		if (r == 0)
			r = arg_uint(argv[i], "line", &p.line_bytes);
		if (r == 0)
			r = arg_uint(argv[i], "ubranch", &ubranch);
		if (r > 0)
			continue;
		if (r < 0)
			fprintf(stderr, "hintlab-cost: bad value in '%s' (a whole number in 1..2^30)\n", argv[i]);
		else
			fprintf(stderr, "hintlab-cost: bad argument '%s' (expected out=, syms=, l1i=, ways=, line=, ubranch=)\n", argv[i]);
		return -1;
	}
	if (!path || l1i_init(&p) != 0) {
		fprintf(stderr, "hintlab-cost: %s\n", path ? "l1i/ways/line do not make a cache" : "out=PATH is missing");
		return -1;
	}
	out = fopen(path, "wx"); /* never over an existing file: the host gives a fresh path */
	if (!out) {
		perror(path);
		return -1;
	}
	line_shift = (unsigned)__builtin_ctz(p.line_bytes);
	fprintf(out, "hintlab-cost 1 target=%s l1i=%u ways=%u line=%u predictor=2bit,%u\n", info->target_name,
		p.size_bytes, p.ways, p.line_bytes, PREDICTOR_ENTRIES);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
