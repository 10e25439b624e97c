/* Framed output and the stop flag (see emit.h). */
#include "emit.h"
#include "probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

volatile int stop_requested;

const char *esc(const char *s)
{
	static char buf[4][1024];
	static int slot;
	char *out = buf[slot++ & 3];
	size_t o = 0;
	for (; *s && o + 4 < sizeof(buf[0]); s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= ' ' || c == '%' || c == '#' || c == '=' || c >= 0x7f)
			o += (size_t)snprintf(out + o, 4, "%%%02X", c);
		else
			out[o++] = (char)c;
	}
	out[o] = 0;
	return out;
}

void emit(const char *type, const char *fmt, ...)
{
	char line[2048];
	int n = snprintf(line, sizeof(line), "@hl1 %s", type);
	if (fmt && *fmt) {
		line[n++] = ' ';
		va_list ap;
		va_start(ap, fmt);
		n += vsnprintf(line + n, sizeof(line) - (size_t)n - 16, fmt, ap);
		va_end(ap);
	}
	uint32_t crc = crc32_update(0, line, (size_t)n);
	snprintf(line + n, sizeof(line) - (size_t)n, " #%08x\n", crc);
	/* one write per line: lines from a dying probe are whole or absent */
	ssize_t left = (ssize_t)strlen(line);
	const char *p = line;
	while (left > 0) {
		ssize_t w = write(1, p, (size_t)left);
		if (w <= 0)
			break;
		p += w;
		left -= w;
	}
}

void drain_console(void)
{
	for (int fd = 1; fd <= 2; fd++)
		if (isatty(fd))
			tcdrain(fd);
}
