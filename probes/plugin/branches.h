/*
 * Per-branch direction counts of hintlab's TCG plugin: for every
 * conditional jump (Jcc, JrCXZ, LOOPcc) that ends an executed translation
 * block, how often the next block was its target (taken) and how often the
 * instruction after it (fell through). qemu ends a block at every such
 * jump, so the jump is always a block's last instruction.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HINTLAB_PLUGIN_BRANCHES_H
#define HINTLAB_PLUGIN_BRANCHES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct branch;

/*
 * The conditional jump of `size` bytes at `vaddr` (its bytes `data`), or
 * NULL when it is no conditional jump; one record per address and target,
 * shared by every block that ends with it.
 */
struct branch *branch_at(uint64_t vaddr, const uint8_t *data, size_t size);

/* 1 when the instruction's bytes are an interrupt return (iret, iretq) */
int is_iret(const uint8_t *data, size_t size);

/*
 * The block at `next` runs after a block that ended with `br` (or NULL) and
 * whose last instruction was an iret when `after_iret`; `window` is the
 * open window's index, or -1 outside windows.
 */
void branch_step(struct branch *br, int after_iret, uint64_t next, long window);

/* write `b WINDOW ADDR TARGET TAKEN FELL FALL` per branch resolved in the window, and clear their counts */
void branches_flush(FILE *out, unsigned long window);

#endif
