/* owner.h - who a job belongs to, kept once for all the jobs of one owner.
 *
 * Every job carries its user and group ids and names.  A deep queue is the
 * jobs of few owners, so a job points to one shared, counted record instead
 * of holding the four itself (doc/performance.md: 16 bytes of each pending
 * job).  Records are never changed in place.
 */
#ifndef ROTA_OWNER_H
#define ROTA_OWNER_H

#include <stdint.h>
#include <sys/types.h>

struct intern;

struct owner {
	uid_t uid;
	gid_t gid;
	char *user; /* kept once in the table's texts: never changed */
	char *group;
	uint32_t refs;
	struct owner *next; /* hash chain */
};

struct owner_table;

/* texts: where the names are kept (borrowed; outlives the table). */
struct owner_table *owner_table_create(struct intern *texts);
/* Records still counted are freed too.  NULL allowed. */
void owner_table_destroy(struct owner_table *t);

/* The record of uid, gid and these names (user and group: owned, handed
 * over), counted once more: give it back with owner_drop. */
const struct owner *owner_get(struct owner_table *t, uid_t uid, gid_t gid, char *user,
                              char *group);
/* One more count on a record owner_get returned. */
const struct owner *owner_ref(const struct owner *o);
/* Give one count back (NULL allowed); the record goes with its last. */
void owner_drop(struct owner_table *t, const struct owner *o);

#endif
