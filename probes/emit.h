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

/*
 * Wait until every byte written to stdout and stderr has left the machine,
 * when they are terminals (a guest's serial console); a no-op on pipes and
 * files. write() returns once the bytes are in the tty buffer and the UART
 * sends them later by interrupt: called before a measured window opens, it
 * keeps those transmit interrupts (serial8250_tx_chars) out of the window.
 */
void drain_console(void);

/* flag raised by SIGINT/SIGTERM; loops check it between rounds */
extern volatile int stop_requested;

#endif
