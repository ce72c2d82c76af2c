/* owner.c - who a job belongs to, kept once (owner.h). */
#include "ctld/owner.h"

#include <stdlib.h>
#include "common/intern.h"
#include "common/xmalloc.h"

struct owner_table {
	struct intern *texts;
	struct owner **hash;
	size_t size; /* buckets, a power of two */
	size_t count;
};

#define OWNER_TABLE_MIN 64

struct owner_table *owner_table_create(struct intern *texts)
{
	struct owner_table *t = xcalloc(1, sizeof(*t));

	t->texts = texts;
	t->size = OWNER_TABLE_MIN;
	t->hash = xcalloc(t->size, sizeof(*t->hash));
	return t;
}

static void owner_free(struct owner_table *t, struct owner *o)
{
	intern_drop_str(t->texts, o->user);
	intern_drop_str(t->texts, o->group);
	free(o);
}

void owner_table_destroy(struct owner_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->size; i++)
		for (struct owner *o = t->hash[i], *n; o; o = n) {
			n = o->next;
			owner_free(t, o);
		}
	free(t->hash);
	free(t);
}

/* The names are kept once, so the same names are the same pointers. */
static size_t owner_hash(const struct owner_table *t, uid_t uid, gid_t gid,
                         const char *user, const char *group)
{
	uint64_t h =
	    ((uint64_t)uid << 32 | gid) ^ (uintptr_t)user ^ ((uintptr_t)group << 7);

	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (t->size - 1);
}

static void owner_grow(struct owner_table *t)
{
	size_t old = t->size;
	struct owner **from = t->hash;

	t->size *= 2;
	t->hash = xcalloc(t->size, sizeof(*t->hash));
	for (size_t i = 0; i < old; i++)
		for (struct owner *o = from[i], *n; o; o = n) {
			size_t h = owner_hash(t, o->uid, o->gid, o->user, o->group);
			n = o->next;
			o->next = t->hash[h];
			t->hash[h] = o;
		}
	free(from);
}

const struct owner *owner_get(struct owner_table *t, uid_t uid, gid_t gid, char *user,
                              char *group)
{
	char *u = intern_str(t->texts, user);
	char *g = intern_str(t->texts, group);
	size_t h = owner_hash(t, uid, gid, u, g);
	struct owner *o;

	for (o = t->hash[h]; o; o = o->next)
		if (o->uid == uid && o->gid == gid && o->user == u && o->group == g) {
			/* the record holds the names once already */
			intern_drop_str(t->texts, u);
			intern_drop_str(t->texts, g);
			o->refs++;
			return o;
		}
	o = xcalloc(1, sizeof(*o));
	o->uid = uid;
	o->gid = gid;
	o->user = u;
	o->group = g;
	o->refs = 1;
	o->next = t->hash[h];
	t->hash[h] = o;
	if (++t->count > 2 * t->size)
		owner_grow(t);
	return o;
}

const struct owner *owner_ref(const struct owner *o)
{
	((struct owner *)o)->refs++;
	return o;
}

void owner_drop(struct owner_table *t, const struct owner *o)
{
	struct owner **pp;

	if (!o || --((struct owner *)o)->refs)
		return;
	pp = &t->hash[owner_hash(t, o->uid, o->gid, o->user, o->group)];
	while (*pp != o)
		pp = &(*pp)->next;
	*pp = o->next;
	t->count--;
	owner_free(t, (struct owner *)o);
}
