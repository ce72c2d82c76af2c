/* taskdist.c - task distributions (see taskdist.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/common.h"
#include "common/taskdist.h"

/* One of the levels after the first: block, cyclic, fcyclic or '*'. */
static int level_ok(const char *s, size_t n)
{
	static const char *const words[] = {"block", "cyclic", "fcyclic", "*"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !strncasecmp(s, words[i], n))
			return 1;
	return 0;
}

int taskdist_parse(const char *spec, uint32_t plane_size, uint32_t *ret,
                   struct rota_error *err)
{
	const char *p = spec, *end;
	size_t n;
	uint32_t d;
	int levels = 0;

	n = strcspn(p, ":,=");
	if ((n == 5 && !strncasecmp(p, "block", 5)) || (n == 1 && *p == '*'))
		d = TASKDIST_BLOCK;
	else if (n == 6 && !strncasecmp(p, "cyclic", 6))
		d = TASKDIST_CYCLIC;
	else if (n == 5 && !strncasecmp(p, "plane", 5))
		d = TASKDIST_PLANE;
	else if ((n == 4 && !strncasecmp(p, "pack", 4)) ||
	         (n == 6 && !strncasecmp(p, "nopack", 6))) {
		if (p[n])
			goto bad;
		*ret = TASKDIST_BLOCK; /* alone: block, packed or not */
		return 0;
	} else if ((n == 9 && !strncasecmp(p, "arbitrary", 9)) ||
	           (n == 8 && !strncasecmp(p, "hostfile", 8)))
		d = TASKDIST_ARBITRARY;
	else
		goto bad;
	p += n;
	if (d == TASKDIST_PLANE) {
		unsigned long v = plane_size;
		if (*p == '=') {
			char *e;
			v = strtoul(p + 1, &e, 10);
			if (e == p + 1)
				goto bad;
			p = e;
		}
		if (v == 0 || v > TASKDIST_PLANE_MAX)
			return errprintf(err, "Invalid plane size or size not specified"),
			       -EINVAL;
		d |= (uint32_t)v << 8;
		if (*p) /* plane takes no further levels (Slurm) */
			goto bad;
	} else if (*p == '=') {
		goto bad;
	}
	while (*p == ':') {
		p++;
		n = strcspn(p, ":,");
		if (!level_ok(p, n) || ++levels > 2)
			goto bad;
		p += n;
	}
	if (*p == ',') {
		p++;
		end = p + strlen(p);
		if (!((end - p == 4 && !strncasecmp(p, "pack", 4)) ||
		      (end - p == 6 && !strncasecmp(p, "nopack", 6))))
			goto bad;
		p = end;
	}
	if (*p)
		goto bad;
	*ret = d;
	return 0;
bad:
	return errprintf(err, "Invalid --distribution specification"), -EINVAL;
}

const char *taskdist_name(uint32_t d)
{
	switch (TASKDIST_TYPE(d)) {
	case TASKDIST_CYCLIC:
		return "cyclic";
	case TASKDIST_PLANE:
		return "plane";
	case TASKDIST_ARBITRARY:
		return "arbitrary";
	default:
		return "block";
	}
}

/* Is map[nmap] (each task's node) a layout of tpn[n]? */
static int map_fits(const uint32_t *tpn, uint32_t n, const uint32_t *map, size_t nmap)
{
	uint32_t *seen = xcalloc(n + 1, sizeof(*seen));
	size_t total = 0;
	int ok = 1;

	for (uint32_t i = 0; i < n; i++)
		total += tpn[i];
	if (!map || nmap != total)
		ok = 0;
	for (size_t t = 0; ok && t < nmap; t++)
		if (map[t] >= n || ++seen[map[t]] > tpn[map[t]])
			ok = 0;
	free(seen);
	return ok;
}

void taskdist_gtids_map(uint32_t d, const uint32_t *tpn, uint32_t n, const uint32_t *map,
                        size_t nmap, uint32_t *out)
{
	uint32_t *off;

	if (TASKDIST_TYPE(d) != TASKDIST_ARBITRARY || !map_fits(tpn, n, map, nmap)) {
		taskdist_gtids(d, tpn, n, out);
		return;
	}
	/* node i's ids from off[i] on, ascending */
	off = xcalloc(n + 1, sizeof(*off));
	for (uint32_t i = 1; i < n; i++)
		off[i] = off[i - 1] + tpn[i - 1];
	for (size_t t = 0; t < nmap; t++)
		out[off[map[t]]++] = (uint32_t)t;
	free(off);
}

void taskdist_plane_counts(uint32_t d, uint32_t ntasks, uint32_t n, const uint32_t *cap,
                           uint32_t *out)
{
	uint32_t size = TASKDIST_PLANE_SIZE(d) ? TASKDIST_PLANE_SIZE(d) : 1,
	         left = ntasks;
	int over = 0;

	memset(out, 0, n * sizeof(*out));
	/* one task on each node first, as Slurm */
	for (uint32_t i = 0; i < n && left; i++) {
		out[i]++;
		left--;
	}
	for (uint32_t round = 0; left && n; round++) {
		int room_left = 0;
		for (uint32_t i = 0; i < n && left; i++)
			/* a block of size (the first round's less the task
			 * placed), as far as the node has room */
			for (uint32_t k = round ? 0 : 1; k < size && left; k++)
				if (out[i] < cap[i] || over) {
					out[i]++;
					left--;
					if (out[i] < cap[i])
						room_left = 1;
				}
		if (!room_left)
			over = 1; /* more tasks than room: over every node */
	}
}

void taskdist_gtids(uint32_t d, const uint32_t *tpn, uint32_t n, uint32_t *out)
{
	uint32_t type = TASKDIST_TYPE(d), deal, total = 0, next = 0;
	uint32_t *off, *got;

	for (uint32_t i = 0; i < n; i++)
		total += tpn[i];
	if (type != TASKDIST_CYCLIC && type != TASKDIST_PLANE) {
		for (uint32_t t = 0; t < total; t++)
			out[t] = t;
		return;
	}
	deal =
	    type == TASKDIST_PLANE && TASKDIST_PLANE_SIZE(d) ? TASKDIST_PLANE_SIZE(d) : 1;
	off = xcalloc(n + 1, sizeof(*off));
	got = xcalloc(n + 1, sizeof(*got));
	for (uint32_t i = 1; i < n; i++)
		off[i] = off[i - 1] + tpn[i - 1];
	/* deal `deal` ids at a time to each node with room, in turn */
	while (next < total) {
		for (uint32_t i = 0; i < n && next < total; i++)
			for (uint32_t k = 0; k < deal && got[i] < tpn[i] && next < total;
			     k++)
				out[off[i] + got[i]++] = next++;
	}
	free(off);
	free(got);
}
