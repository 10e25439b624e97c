/*
 * The probe's output and its stop flag, on their own so every part of the
 * probe (main.c, plan.c, gcov_dump.c) writes the same framed lines without
 * calling back into main.c:
 *   @hl1 <type> key=value ... #<crc32 of everything before " #", 8 hex>
 * (docs/probe-protocol.md).
 */
#ifndef HINTLAB_EMIT_H
#define HINTLAB_EMIT_H

/* emit one framed line; fields is "key=value key=value" (already escaped) */
void emit(const char *type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* percent-escape spaces, '%', '#', '=' and control characters */
const char *esc(const char *s);

/* flag raised by SIGINT/SIGTERM; loops check it between rounds */
extern volatile int stop_requested;

#endif
