#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "common/seqfile.h"
#include "common/common.h"

#define SEQ_MAGIC 0x52534551u /* "RSEQ" */
#define SLOT      32

struct seqfile {
	int fd;
	uint32_t gen;
};

static void put(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

/* 1 when slot p checks (then *gen, *value are set). */
static int slot_read(const uint8_t *p, uint32_t *gen, uint64_t *value)
{
	if (get(p, 4) != SEQ_MAGIC ||
	    (uint32_t)crc32(0L, p, 16) != (uint32_t)get(p + 16, 4))
		return 0;
	*gen = (uint32_t)get(p + 4, 4);
	*value = get(p + 8, 8);
	return 1;
}

static int slot_write(int fd, uint32_t gen, uint64_t value)
{
	uint8_t p[SLOT] = {0};

	put(p, SEQ_MAGIC, 4);
	put(p + 4, gen, 4);
	put(p + 8, value, 8);
	put(p + 16, (uint32_t)crc32(0L, p, 16), 4);
	if (pwrite(fd, p, SLOT, (off_t)(gen & 1) * SLOT) != SLOT)
		return errno ? -errno : -EIO;
	if (fdatasync(fd) < 0)
		return -errno;
	return 0;
}

static int sync_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int fd, rc = 0;

	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

int seqfile_open(const char *path, struct seqfile **ret, uint64_t *ret_value,
                 struct rota_error *err)
{
	uint8_t buf[2 * SLOT];
	uint32_t gen = 0, g;
	uint64_t value = 0, v;
	ssize_t n;
	int fd, any = 0, rc;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return errprintf(err, "open %s: %s", path, strerror(errno));
	n = pread(fd, buf, sizeof(buf), 0);
	for (int i = 0; n > 0 && i < 2; i++) {
		if ((i + 1) * SLOT > n || !slot_read(buf + i * SLOT, &g, &v))
			continue;
		if (!any || v > value)
			value = v;
		if (!any || g > gen)
			gen = g;
		any = 1;
	}
	if (!any) {
		/* new (or both slots unreadable): both slots, so that the file has
		 * its blocks before the disk may fill; then its directory entry */
		if ((rc = slot_write(fd, 0, 0)) < 0 || (rc = slot_write(fd, 1, 0)) < 0 ||
		    (rc = sync_parent(path)) < 0) {
			close(fd);
			return errprintf(err, "write %s: %s", path, strerror(-rc));
		}
		gen = 1;
	}
	*ret = xcalloc(1, sizeof(**ret));
	(*ret)->fd = fd;
	(*ret)->gen = gen;
	*ret_value = value;
	return 0;
}

void seqfile_destroy(struct seqfile *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s);
}

int seqfile_store(struct seqfile *s, uint64_t value)
{
	int rc = slot_write(s->fd, s->gen + 1, value);

	if (rc == 0)
		s->gen++;
	return rc;
}
