/*
 * --dump-gcov DIR: send every *.gcda file under DIR to the host as framed
 * lines, so kernel coverage leaves a guest through the serial console.
 *
 *   @hl1 file id=N path=<escaped> size=BYTES crc=<crc32 of the whole file>
 *   @hl1 chunk id=N off=BYTES data=<base64 of at most CHUNK_BYTES>
 *   @hl1 files count=N bytes=TOTAL
 *
 * The kernel's gcov files in debugfs report size 0 and are generated on
 * read (Documentation/dev-tools/gcov.rst warns that cp may copy them
 * incompletely), so each file is read until EOF into one buffer before a
 * byte of it is sent: size and crc describe exactly what was read.
 *
 * --dump-files DIR sends every regular file under DIR the same way
 * (`hintlab vm --macro`: stress-ng's YAML and log files; `hints collect
 * --branch-profiler`: /sys/kernel/debug/tracing/trace_stat, debugfs mounted
 * first like for --dump-gcov).
 *
 * --reset-gcov writes DIR/reset first, so counts come from the workload
 * only and not from the boot.
 */
#include "emit.h"
#include "probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* 512 raw bytes = 684 base64 characters: a chunk line stays well under 1 KiB */
#define CHUNK_BYTES 512
#define DEBUGFS "/sys/kernel/debug"

struct dump_state {
	int files;
	long long bytes;
	int failed;
};

static void base64(const unsigned char *in, size_t len, char *out)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16;
		if (i + 1 < len)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[o++] = tbl[(v >> 18) & 63];
		out[o++] = tbl[(v >> 12) & 63];
		out[o++] = i + 1 < len ? tbl[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? tbl[v & 63] : '=';
	}
	out[o] = 0;
}

/* Read a whole file until EOF; returns a malloc'd buffer or NULL with errno set. */
static unsigned char *read_whole(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	size_t cap = 64 * 1024, n = 0;
	unsigned char *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			unsigned char *bigger = realloc(buf, cap *= 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = bigger;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			buf = NULL;
			errno = e;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

static void send_file(const char *path, struct dump_state *st)
{
	size_t len;
	unsigned char *data = read_whole(path, &len);
	if (!data) {
		emit("error", "stage=dump-gcov errno=%d message=%s", errno, esc(path));
		st->failed = 1;
		return;
	}
	int id = st->files++;
	emit("file", "id=%d path=%s size=%zu crc=%08x", id, esc(path), len, crc32_update(0, data, len));
	char text[CHUNK_BYTES / 3 * 4 + 8];
	for (size_t off = 0; off < len; off += CHUNK_BYTES) {
		size_t n = len - off < CHUNK_BYTES ? len - off : CHUNK_BYTES;
		base64(data + off, n, text);
		emit("chunk", "id=%d off=%zu data=%s", id, off, text);
	}
	st->bytes += (long long)len;
	free(data);
}

/* Whether name ends in suffix; a NULL suffix takes every file. */
static int wanted(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = suffix ? strlen(suffix) : 0;
	return !suffix || (n > k && strcmp(name + n - k, suffix) == 0);
}

/* Depth-first, entries sorted by name so two runs send files in the same order. */
static void walk(const char *dir, const char *suffix, struct dump_state *st)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		emit("error", "stage=dump-gcov errno=%d message=%s", errno, esc(dir));
		st->failed = 1;
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char path[4096];
		struct stat sb;
		/* after a failure nothing more is data (the host rejects the dump): stop reading */
		if (!st->failed && strcmp(name, ".") && strcmp(name, "..") &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path) && lstat(path, &sb) == 0) {
			/* lstat: the .gcno entries in debugfs are symlinks to the build tree */
			if (S_ISDIR(sb.st_mode))
				walk(path, suffix, st);
			else if (S_ISREG(sb.st_mode) && wanted(name, suffix))
				send_file(path, st);
		}
		free(names[i]);
	}
	free(names);
}

/* A guest's debugfs is not mounted yet: mount sysfs and debugfs under it. */
static void mount_debugfs_for(const char *dir)
{
	struct stat sb;
	if (strncmp(dir, DEBUGFS, strlen(DEBUGFS)) != 0 || stat(dir, &sb) == 0)
		return;
	mkdir("/sys", 0755);
	if (stat("/sys/kernel", &sb) != 0)
		mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
}

/* Zero the kernel's counters (DIR/reset); 0 or -1 with errno set. */
int gcov_reset(const char *dir)
{
	char path[4096];
	mount_debugfs_for(dir);
	snprintf(path, sizeof(path), "%s/reset", dir);
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, "1\n", 2);
	int e = errno;
	close(fd);
	errno = e;
	return w == 2 ? 0 : -1;
}

/* Send every .gcda under dir; 0 when all were read, -1 otherwise (error lines say which). */
int gcov_dump(const char *dir)
{
	struct dump_state st = { 0, 0, 0 };
	mount_debugfs_for(dir);
	walk(dir, ".gcda", &st);
	emit("files", "count=%d bytes=%lld", st.files, st.bytes);
	return st.failed ? -1 : 0;
}

/* --dump-files DIR: send every regular file under DIR the same way (a missing DIR sends none). */
int files_dump(const char *dir)
{
	struct dump_state st = { 0, 0, 0 };
	struct stat sb;
	mount_debugfs_for(dir);
	if (stat(dir, &sb) == 0)
		walk(dir, NULL, &st);
	emit("files", "count=%d bytes=%lld", st.files, st.bytes);
	return st.failed ? -1 : 0;
}
