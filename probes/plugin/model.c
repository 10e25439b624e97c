/*
 * The L1i and predictor model (model.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>

static struct l1i_params l1;
static unsigned sets, line_shift;
static uint64_t *tags;   /* sets x ways; 0 = empty (line numbers are stored + 1) */
static uint64_t *stamps; /* last use of each way, for LRU */
static uint64_t clock_;

static int pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

int l1i_init(const struct l1i_params *p)
{
	if (!pow2(p->line_bytes) || !p->ways || p->size_bytes % (p->ways * p->line_bytes))
		return -1;
	l1 = *p;
	sets = p->size_bytes / (p->ways * p->line_bytes);
	if (!pow2(sets))
		return -1;
	line_shift = (unsigned)__builtin_ctz(p->line_bytes);
	tags = calloc((size_t)sets * p->ways, sizeof(*tags));
	stamps = calloc((size_t)sets * p->ways, sizeof(*stamps));
	return tags && stamps ? 0 : -1;
}

int l1i_access(uint64_t addr)
{
	uint64_t line = addr >> line_shift;
	uint64_t *t = tags + (line & (sets - 1)) * l1.ways;
	uint64_t *s = stamps + (line & (sets - 1)) * l1.ways;
	unsigned victim = 0;
	clock_++;
	for (unsigned w = 0; w < l1.ways; w++) {
		if (t[w] == line + 1) {
			s[w] = clock_;
			return 0;
		}
		if (s[w] < s[victim])
			victim = w;
	}
	t[victim] = line + 1;
	s[victim] = clock_;
	return 1;
}

static uint8_t counters[PREDICTOR_ENTRIES]; /* 0,1 predict not taken; 2,3 taken */
static uint64_t btb_tag[PREDICTOR_ENTRIES], btb_target[PREDICTOR_ENTRIES];

static unsigned slot_of(uint64_t branch)
{
	return (unsigned)((branch ^ (branch >> 12)) & (PREDICTOR_ENTRIES - 1));
}

int predictor_update(uint64_t branch, uint64_t target, int taken)
{
	unsigned i = slot_of(branch);
	int predicted_taken = counters[i] >= 2;
	int wrong;
	if (taken)
		wrong = !predicted_taken || btb_tag[i] != branch + 1 || btb_target[i] != target;
	else
		wrong = predicted_taken;
	if (taken) {
		if (counters[i] < 3)
			counters[i]++;
		btb_tag[i] = branch + 1;
		btb_target[i] = target;
	} else if (counters[i] > 0) {
		counters[i]--;
	}
	return wrong;
}

#define LINE_SET 16384
/* at most half full, so a probe ends at an empty slot soon; further lines are not counted (far above any syscall) */
#define LINE_SET_MAX (LINE_SET / 2)
static uint64_t seen[LINE_SET];
static uint32_t seen_gen[LINE_SET];
static uint32_t gen = 1;
static unsigned seen_count;

void lines_reset(void)
{
	seen_count = 0;
	if (++gen == 0) {
		memset(seen_gen, 0, sizeof(seen_gen));
		gen = 1;
	}
}

int lines_add(uint64_t line)
{
	unsigned i = (unsigned)(line * 0x9E3779B97F4A7C15ULL >> 50) & (LINE_SET - 1);
	for (unsigned n = 0; n < LINE_SET; n++, i = (i + 1) & (LINE_SET - 1)) {
		if (seen_gen[i] != gen) {
			if (seen_count >= LINE_SET_MAX)
				return 0;
			seen_count++;
			seen_gen[i] = gen;
			seen[i] = line;
			return 1;
		}
		if (seen[i] == line)
			return 0;
	}
	return 0;
}
