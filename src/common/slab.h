/* slab.h - many objects of one size, packed together.
 *
 * A deep queue is mostly its job records: one malloc each costs a header and,
 * worse, spreads them among the short-lived allocations of the requests that
 * made them (the holes between records stay, as memory and as cache misses
 * when a listing walks every job).  A slab hands out objects of one size from
 * 64 KiB chunks of their own, reuses freed ones first, and returns a chunk to
 * the system when its last object is freed (one empty chunk is kept, so that
 * a queue going up and down around a chunk's worth does not map and unmap).
 */
#ifndef ROTA_SLAB_H
#define ROTA_SLAB_H

#include <stddef.h>

struct slab;

/* Objects of `size` bytes (at most a quarter of a chunk), 8-byte aligned.
 * NULL on ENOMEM. */
struct slab *slab_create(size_t size);
/* Every chunk is unmapped, objects still out or not.  NULL allowed. */
void slab_destroy(struct slab *s);

/* A zeroed object, or NULL on ENOMEM. */
void *slab_alloc(struct slab *s);
/* obj came from slab_alloc(s) (NULL allowed). */
void slab_free(struct slab *s, void *obj);

/* Objects handed out and not freed; chunks mapped. */
size_t slab_count(const struct slab *s);
size_t slab_chunks(const struct slab *s);

#endif
