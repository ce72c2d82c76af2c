/* slab.c - many objects of one size, packed together (slab.h). */
#include "common/slab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK ((size_t)64 << 10) /* aligned to its size: an object finds its chunk */
#define ALIGN 8

/* At the start of each chunk; its objects follow. */
struct chunk {
	struct chunk *next, *prev; /* on s->partial while it has room, else s->full */
	void *free;                /* freed objects: each holds the next */
	unsigned used;             /* objects handed out */
	unsigned fresh;            /* objects never handed out start here */
};

struct slab {
	size_t size;  /* object size, rounded to ALIGN */
	unsigned per; /* objects per chunk */
	size_t off;   /* first object's offset in a chunk */
	struct chunk *partial, *full;
	struct chunk *spare; /* one empty chunk kept */
	size_t count, chunks;
};

struct slab *slab_create(size_t size)
{
	struct slab *s;

	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (!size || size > CHUNK / 4)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->size = size;
	s->off = (sizeof(struct chunk) + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	s->per = (unsigned)((CHUNK - s->off) / size);
	return s;
}

static struct chunk *chunk_of(const void *obj)
{
	return (struct chunk *)((uintptr_t)obj & ~(uintptr_t)(CHUNK - 1));
}

/* A CHUNK-aligned mapping of CHUNK bytes: map twice that, trim both ends. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static struct chunk *chunk_map(void)
{
	size_t len = 2 * CHUNK;
	char *p =
	    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;
	size_t head;

	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + CHUNK - 1) & ~(uintptr_t)(CHUNK - 1);
	head = a - (uintptr_t)p;
	if (head)
		munmap(p, head);
	munmap((char *)a + CHUNK, len - head - CHUNK);
	/* its pages all at once: one call instead of a fault a page (dear in
	 * a virtual machine: the restart's loading spent half its time there);
	 * a kernel without it (before 5.14) faults them in as they are used */
	madvise((void *)a, CHUNK, MADV_POPULATE_WRITE);
	return (struct chunk *)a;
}

/* The sanitizer's marks outlive a mapping: whatever is mapped here next
 * must not find them. */
static void chunk_unmap(struct chunk *c)
{
	UNPOISON(c, CHUNK);
	munmap(c, CHUNK);
}

static void unlist(struct chunk **head, struct chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = c->prev = NULL;
}

static void list_front(struct chunk **head, struct chunk *c)
{
	c->prev = NULL;
	c->next = *head;
	if (*head)
		(*head)->prev = c;
	*head = c;
}

void *slab_alloc(struct slab *s)
{
	struct chunk *c = s->partial;
	char *obj;

	if (!c) {
		c = s->spare;
		s->spare = NULL;
		if (!c) {
			c = chunk_map(); /* zeroed */
			if (!c)
				return NULL;
			POISON((char *)c + s->off, (size_t)s->per * s->size);
			s->chunks++;
		}
		list_front(&s->partial, c);
	}
	if (c->free) {
		obj = c->free;
		UNPOISON(obj, s->size);
		memcpy(&c->free, obj, sizeof(void *));
		memset(obj, 0, s->size);
	} else {
		/* never handed out: zero already (a fresh mapping, or the
		 * spare's, cleared when it became the spare) */
		obj = (char *)c + s->off + (size_t)c->fresh++ * s->size;
		UNPOISON(obj, s->size);
	}
	if (++c->used == s->per) {
		unlist(&s->partial, c);
		list_front(&s->full, c);
	}
	s->count++;
	return obj;
}

void slab_free(struct slab *s, void *obj)
{
	struct chunk *c;

	if (!obj)
		return;
	c = chunk_of(obj);
	memcpy(obj, &c->free, sizeof(void *));
	c->free = obj;
	POISON(obj, s->size); /* the link too: slab_alloc unpoisons before reading it */
	s->count--;
	if (c->used-- == s->per) {
		unlist(&s->full, c);
		list_front(&s->partial, c);
	}
	if (c->used == 0) {
		unlist(&s->partial, c);
		if (s->spare) {
			chunk_unmap(c);
			s->chunks--;
		} else {
			/* start it afresh: its pages but the header's are
			 * given back (they read as zeros after) */
			size_t keep = (size_t)sysconf(_SC_PAGESIZE);
			if (keep >= CHUNK ||
			    madvise((char *)c + keep, CHUNK - keep, MADV_DONTNEED) < 0)
				keep = CHUNK;
			/* what was not given back (the header's page) is cleared
			 * by hand: every object reads as zeros, as in a fresh
			 * chunk */
			UNPOISON((char *)c + s->off, keep - s->off);
			memset((char *)c + s->off, 0, keep - s->off);
			POISON((char *)c + s->off, (size_t)s->per * s->size);
			c->free = NULL;
			c->fresh = 0;
			s->spare = c;
		}
	}
}

size_t slab_count(const struct slab *s)
{
	return s->count;
}

size_t slab_chunks(const struct slab *s)
{
	return s->chunks;
}

static void unmap_all(struct chunk **head)
{
	while (*head) {
		struct chunk *c = *head;
		unlist(head, c);
		chunk_unmap(c);
	}
}

void slab_destroy(struct slab *s)
{
	if (!s)
		return;
	unmap_all(&s->partial);
	unmap_all(&s->full);
	if (s->spare)
		chunk_unmap(s->spare);
	free(s);
}
