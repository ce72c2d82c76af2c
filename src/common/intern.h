/* intern.h - one copy of each identical text, counted.
 *
 * The controller keeps every pending job's request for as long as the job
 * lives, and most of its strings are alike from job to job: a workflow's
 * submissions come from one shell with one environment, every `--wrap` of the
 * same command is the same script, and names, partitions, directories and
 * hosts repeat.  Kept once each, a pending job costs a fraction of the
 * memory (doc/performance.md).  A string or a NULL-terminated string vector
 * is handed over (owned), and the kept copy of the same text comes back: the
 * one handed over when it is new, else it is freed and the older one's count
 * goes up.  Each intern_* is matched by an intern_drop_*; the kept copy is
 * freed with its last drop.  Kept copies are shared: never changed in place.
 */
#ifndef ROTA_INTERN_H
#define ROTA_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern;

struct intern *intern_create(void);
/* Everything still kept is freed (counts or not). */
void intern_destroy(struct intern *in);

/* s or v (owned, NULL allowed: returned as is) in exchange for the kept copy. */
char *intern_str(struct intern *in, char *s);
char **intern_strv(struct intern *in, char **v);
/* n more counts on a kept copy intern_str/intern_strv returned (each to be
 * given back with a drop): what n holders of it take at once. */
void intern_hold_str(struct intern *in, const char *s, size_t n);
void intern_hold_strv(struct intern *in, char *const *v, size_t n);
/* Give back a copy intern_str/intern_strv returned (NULL allowed). */
void intern_drop_str(struct intern *in, char *s);
void intern_drop_strv(struct intern *in, char **v);

/* What a user of the kept copies notes with each (the journal: under which
 * number the text is in its file already); zero when the copy is new. */
struct intern_tag {
	uint64_t id;
	uint32_t gen;
};

/* The tag of the kept copy of the same text as s or v (a kept copy itself
 * or not: then compared by content), or NULL when no such text is kept.
 * Valid until that copy's last drop. */
struct intern_tag *intern_tag_str(struct intern *in, const char *s);
struct intern_tag *intern_tag_strv(struct intern *in, char *const *v);

/* Distinct texts kept, and the references to them. */
size_t intern_count(const struct intern *in, size_t *ret_refs);

#endif
