/*
 * The cost model of hintlab's TCG plugin: a set-associative LRU L1
 * instruction cache and a 2-bit branch predictor with a target table. A
 * model, not a CPU: its misses and mispredictions say how the emulated
 * execution would fare on such a structure, never how long it took.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HINTLAB_PLUGIN_MODEL_H
#define HINTLAB_PLUGIN_MODEL_H

#include <stdint.h>

struct l1i_params {
	unsigned size_bytes, ways, line_bytes;
};

/* 0 or -1 when the parameters do not make a cache (sizes powers of two, size a multiple of ways x line) */
int l1i_init(const struct l1i_params *p);
/* one fetch of the line holding addr: 1 on a miss, 0 on a hit */
int l1i_access(uint64_t addr);

/* entries of the 2-bit counter table and of the target table */
#define PREDICTOR_ENTRIES 4096

/*
 * The branch ending a block at `branch` went to `target`, taken or not:
 * 1 when the model predicted otherwise (direction, or target when taken).
 */
int predictor_update(uint64_t branch, uint64_t target, int taken);

/* distinct lines since the last reset (one kernel entry) */
void lines_reset(void);
/* 1 when the line was not yet seen since the reset */
int lines_add(uint64_t line);

#endif
