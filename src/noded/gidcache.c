#include <stdlib.h>
#include <string.h>
#include "common/grouplist.h"
#include "noded/gidcache.h"
#include "common/common.h"

struct gid_entry {
	char *user; /* NULL: a free slot */
	gid_t gid;
	time_t found;
	gid_t *gids;
	uint32_t n;
};

struct gid_cache {
	struct gid_entry e[GID_CACHE_ENTRIES];
};

struct gid_cache *gid_cache_create(void)
{
	return xcalloc(1, sizeof(struct gid_cache));
}

static void entry_release(struct gid_entry *e)
{
	free(e->user);
	free(e->gids);
	memset(e, 0, sizeof(*e));
}

void gid_cache_destroy(struct gid_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < GID_CACHE_ENTRIES; i++)
		entry_release(&c->e[i]);
	free(c);
}

static struct gid_entry *entry_find(struct gid_cache *c, const char *user, gid_t gid)
{
	for (size_t i = 0; i < GID_CACHE_ENTRIES; i++)
		if (c->e[i].user && c->e[i].gid == gid && !strcmp(c->e[i].user, user))
			return &c->e[i];
	return NULL;
}

void gid_cache_put(struct gid_cache *c, const char *user, gid_t gid, const gid_t *gids,
                   uint32_t n, time_t now)
{
	struct gid_entry *e;

	if (!user || !*user || !n || n > GROUPLIST_MAX)
		return;
	if (!(e = entry_find(c, user, gid))) {
		e = &c->e[0];
		for (size_t i = 0; i < GID_CACHE_ENTRIES && e->user; i++)
			if (!c->e[i].user || c->e[i].found < e->found)
				e = &c->e[i];
	}
	entry_release(e);
	e->user = xstrdup(user);
	e->gid = gid;
	e->found = now;
	e->gids = xcalloc(n, sizeof(gid_t));
	memcpy(e->gids, gids, n * sizeof(gid_t));
	e->n = n;
}

int gid_cache_get(struct gid_cache *c, const char *user, gid_t gid, time_t now,
                  const gid_t **ret_gids)
{
	struct gid_entry *e = user ? entry_find(c, user, gid) : NULL;

	if (!e || now - e->found >= GID_CACHE_TTL_S || now < e->found)
		return -1;
	*ret_gids = e->gids;
	return (int)e->n;
}
