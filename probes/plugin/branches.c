/*
 * Per-branch direction counts (branches.h). The direction of a conditional
 * jump is read from the block that runs next: its target (taken) or the
 * address after the jump (fell through). Anything else means an interrupt
 * was taken between the jump and the code it chose (qemu delivers them
 * between blocks); the jump is then held on a short stack, and the first
 * block after the next iret that starts at its target or fall-through
 * resolves it, which is where the interrupted code resumes. A jump whose
 * block was left by a fault before the jump ran never resolves and is not
 * counted.
 *
 * Counts are kept per window: a jump held across a window's close is
 * dropped, never added to the next window.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "branches.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct branch {
	uint64_t addr, target, fall;
	uint64_t taken, fell;
	struct branch *next_hash, *next_touched;
	int touched;
};

#define BRANCH_HASH (1u << 16)
static struct branch *hash[BRANCH_HASH];
static struct branch *touched;

/* jumps interrupted before their next block ran, innermost last */
#define HELD_MAX 16
static struct {
	struct branch *br;
	long window;
} held[HELD_MAX];
static int nheld;

/* Legacy prefixes a jump may carry: CS/DS as static hints, F2 as Intel MPX's BND. */
static int is_jump_prefix(uint8_t b)
{
	return b == 0x2e || b == 0x3e || b == 0xf2;
}

/* The jump's displacement, 1 when the bytes are a conditional jump (rel8 or rel32), else 0. */
static int jcc_displacement(const uint8_t *p, size_t n, int64_t *rel)
{
	size_t i = 0;
	while (i < n && is_jump_prefix(p[i]))
		i++;
	if (n - i == 2 && ((p[i] & 0xf0) == 0x70 || (p[i] >= 0xe0 && p[i] <= 0xe3))) {
		*rel = (int8_t)p[i + 1];
		return 1;
	}
	if (n - i == 6 && p[i] == 0x0f && (p[i + 1] & 0xf0) == 0x80) {
		int32_t d;
		memcpy(&d, p + i + 2, sizeof(d)); /* x86 is little-endian, as the host running qemu-system-x86 here */
		*rel = d;
		return 1;
	}
	return 0;
}

struct branch *branch_at(uint64_t vaddr, const uint8_t *data, size_t size)
{
	int64_t rel;
	if (!jcc_displacement(data, size, &rel))
		return NULL;
	unsigned h = (unsigned)((vaddr ^ (vaddr >> 16)) * 2654435761u) & (BRANCH_HASH - 1);
	uint64_t fall = vaddr + size, target = fall + (uint64_t)rel;
	for (struct branch *b = hash[h]; b; b = b->next_hash)
		if (b->addr == vaddr && b->target == target && b->fall == fall)
			return b;
	struct branch *b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->addr = vaddr, b->fall = fall, b->target = target;
	b->next_hash = hash[h];
	hash[h] = b;
	return b;
}

int is_iret(const uint8_t *data, size_t size)
{
	return (size == 1 && data[0] == 0xcf) || (size == 2 && data[0] == 0x48 && data[1] == 0xcf);
}

/* Count one direction of `br` when it ran inside the open window; 0 when `next` is neither of its ways. */
static int resolve(struct branch *br, uint64_t next, int counted)
{
	if (next != br->target && next != br->fall)
		return 0;
	if (!counted)
		return 1;
	if (next == br->target)
		br->taken++;
	else
		br->fell++;
	if (!br->touched) {
		br->touched = 1;
		br->next_touched = touched;
		touched = br;
	}
	return 1;
}

void branch_step(struct branch *br, int after_iret, uint64_t next, long window)
{
	if (br) {
		if (resolve(br, next, window >= 0))
			return;
		if (nheld == HELD_MAX) /* the outermost is the oldest: it resumes last, if ever */
			memmove(held, held + 1, sizeof(held[0]) * (HELD_MAX - 1)), nheld--;
		held[nheld].br = br, held[nheld].window = window;
		nheld++;
		return;
	}
	if (after_iret && nheld) {
		struct branch *top = held[nheld - 1].br;
		if (resolve(top, next, window >= 0 && held[nheld - 1].window == window))
			nheld--;
	}
}

void branches_flush(FILE *out, unsigned long window)
{
	for (struct branch *b = touched, *next; b; b = next) {
		next = b->next_touched;
		fprintf(out, "b %lu %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIx64 "\n", window, b->addr, b->target,
			b->taken, b->fell, b->fall);
		b->taken = b->fell = 0;
		b->touched = 0;
		b->next_touched = NULL;
	}
	touched = NULL;
	nheld = 0;
}
