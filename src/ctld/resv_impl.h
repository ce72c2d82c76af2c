/* resv_impl.h - inside the reservation table (resv.c: the table, its
 * event and what the scheduler asks; resv_pick.c: the nodes a request
 * takes, and REPLACE's replenishing). */
#ifndef ROTA_CTLD_RESV_IMPL_H
#define ROTA_CTLD_RESV_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct part;
struct resv_desc;

struct resv {
	char *name;
	time_t start, end;
	uint32_t flags, purge_comp;
	char *nodes, *partition, *users, *accounts, *licenses;
	/* a core reservation: CPUs on each node (nodes expanded); NULL: whole
	 * nodes */
	uint32_t *cores_given;
	size_t ncores_given;
	/* derived: */
	uint8_t *member; /* [nmember] node i is in it (for node generation gen) */
	uint32_t *cores; /* [nmember] CPUs it holds on node i; NULL: whole nodes */
	size_t nmember, node_cnt;
	uint32_t cpu_cnt;
	uint32_t gen;
	time_t empty_since; /* PURGE_COMP: no job of it since; 0: one runs or
	                     * none ever did */
	struct resv *next;
};

struct resv_mgr {
	struct resv *head; /* by name */
	size_t count;
};

/* The controller's table (an empty one where there is none). */
struct resv_mgr *resv_mgr_of(struct ctld *ctld);
/* By name; NULL when there is none (borrowed). */
struct resv *resv_find(const struct resv_mgr *m, const char *name);
/* r's node map for the node table as it is (a reconfiguration renumbers). */
void resv_members(struct ctld *ctld, struct resv *r);
int resv_active(const struct resv *r, time_t now);
/* Commit r (or its deletion) as an EV_RESV: 0 or negative. */
int resv_commit(struct ctld *ctld, const struct resv *r, int del, time_t now);
/* A repeating reservation's next start after s (flags: its RESV_F_*). */
time_t resv_next_start(time_t s, uint32_t flags);

/* A node list or count, checked against running jobs and other
 * reservations over [start, end) (and a week of repeats, as Slurm). */
struct pick {
	struct ctld *ctld;
	const struct resv *self; /* being updated: not in its own way */
	time_t start, end;
	uint32_t flags;
};

/* The request's flags against what it asks and what cur (NULL: a new one)
 * is, before r->flags takes them: 0 or -ESLURM_*. */
int resv_flags_check(const struct resv_desc *q, const struct resv *cur);
/* CoreCnt=: into r->nodes and r->cores_given (resv_pick.c). */
int resv_pick_cores(const struct pick *p, const char *spec, const char *expr,
                    uint32_t node_cnt, const struct part *part, struct resv *r);
/* Nodes=, NodeCnt=, a partition alone, or none (ANY_NODES), and moving:
 * r->nodes and its SPEC_NODES, ALL_NODES and PART_NODES. */
int resv_where(const struct pick *p, const struct resv_desc *q, const struct resv *cur,
               const struct part *part, struct resv *r);
/* REPLACE, REPLACE_DOWN: r less the nodes down, drained (and with
 * REPLACE, those in gone[0..n) that a job of it took), with as many idle
 * ones of its partition in their place as there are; committed when it
 * changed.  1 when it did, else 0. */
int resv_replenish(struct ctld *ctld, struct resv *r, const uint32_t *gone, size_t n,
                   time_t now);

#endif
