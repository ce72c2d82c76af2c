/* select.h - resource selection: which nodes, how many CPUs and tasks on each.
 *
 * A pure function over a snapshot of node capacity (no I/O, no clock), so the
 * controller and `rota sim` run the same code.  Semantics follow select/cons_tres
 * with CR_Core_Memory: CPUs and memory are consumable, several jobs share a node,
 * an exclusive job needs an idle node.  Nodes are taken lowest weight first,
 * then in index order (with lln, the least loaded first within a weight: the
 * most free CPUs for the CPUs it has, as Slurm's LLN).  A job that may oversubscribe
 * (share > 1) sees the CPUs not held by non-sharing jobs, share times over, but never
 * more than the node has on one node; memory is never oversubscribed.  GRES are
 * consumable and never shared: a node takes tasks only as far as its free GRES of the
 * kinds a request names allow, lowest kind first.
 */
#ifndef ROTA_SCHED_SELECT_H
#define ROTA_SCHED_SELECT_H

#include <stddef.h>
#include <stdint.h>

/* Generic resources (GPUs, NICs, ...) are counted per kind: a kind is one
 * name:type pair of the cluster (gpu:h100, gpu:a100, nic), numbered by the
 * driver 0..SCHED_GRES_KINDS-1.  A request's item (struct sched_gres_want)
 * names the kinds that satisfy it: one for a typed request (gpu:h100:2),
 * every type of the name for an untyped one (gpu:2). */
#define SCHED_GRES_KINDS 8
#define SCHED_GRES_WANTS 4
/* Node counts of a --constraint ("gpu*2": at least 2 of the job's nodes have
 * gpu), and one more for sbatch --batch (at least 1 node has the batch host's
 * features); a node says which it matches in sched_node.feat, bit k for
 * count k. */
#define SCHED_FEATS 17

struct sched_node {
	uint32_t cpus;       /* usable CPUs */
	uint32_t alloc_cpus; /* already allocated */
	uint64_t mem;        /* MB */
	uint64_t alloc_mem;
	int usable;           /* up, not drained, in the partition, not excluded */
	int required;         /* named in --nodelist */
	uint32_t weight;      /* Weight=: lower is allocated first, ties by index */
	uint32_t shared_cpus; /* part of alloc_cpus held by jobs that share cores */
	uint32_t gres[SCHED_GRES_KINDS];       /* of each kind on the node */
	uint32_t gres_alloc[SCHED_GRES_KINDS]; /* already allocated */
	/* its layout (Sockets, CoresPerSocket, ThreadsPerCore); 0: not known,
	 * read as 1 thread a core and no limit of tasks a socket */
	uint32_t sockets, cores, threads;
	/* CPUs held on it by the jobs of the partition the job is considered
	 * in (what its MaxCPUsPerNode counts); the driver's mark sets it */
	uint32_t part_cpus;
	uint32_t feat; /* bit k: it counts toward the job's req.feat[k] */
};

#define SCHED_UNSET 0xfffffffeu

/* One GRES item of a request.  Exactly one of per_node, per_task and per_job
 * is set: on every node (--gres, --gpus-per-node), for every task placed on a
 * node (--gpus-per-task), or in all over the nodes (--gpus). */
struct sched_gres_want {
	uint32_t kinds; /* bit k: kind k satisfies it */
	uint32_t per_node;
	uint32_t per_task;
	uint32_t per_job;
};

/* A node count: at least `nodes` of the job's nodes have the feature (their
 * sched_node.feat bit); own: nodes that no other own count takes ("[a*2&b*1]":
 * 2 nodes with a and 1 more with b). */
struct sched_feat {
	uint32_t nodes;
	int own;
};

struct sched_req {
	uint32_t min_nodes;       /* >= 1 */
	uint32_t max_nodes;       /* SCHED_UNSET = min_nodes or as many as needed */
	uint32_t num_tasks;       /* SCHED_UNSET: one per node (or per ntasks_per_node) */
	uint32_t ntasks_per_node; /* SCHED_UNSET if not given */
	uint32_t cpus_per_task;   /* >= 1 */
	uint64_t mem_per_node;    /* MB, 0 = not tracked */
	uint64_t mem_per_cpu;     /* MB, 0 = not tracked */
	int exclusive;
	uint32_t min_cpus; /* --mincpus: CPUs per node at least; 0 none */
	uint32_t share;    /* OverSubscribe: >1 may share cores with other sharing
	                    * jobs, up to share jobs per core; 0 or 1: no sharing */
	uint32_t ngres;    /* gres[0..ngres) */
	struct sched_gres_want gres[SCHED_GRES_WANTS];
	uint32_t switches; /* --switches: most leaf switches (topo.h); 0 any */
	int spread;        /* --spread-job: as many nodes as tasks allow, tasks
	                    * spread evenly over them */
	int contiguous;    /* --contiguous: nodes of consecutive indexes */
	int most_nodes;    /* a node range (-N 2-4): as many of it as can be had
	                    * now, as Slurm; --use-min-nodes: the fewest */
	/* the layout of tasks on cores (sched_task_cpus); 0: not given */
	uint32_t threads_per_core;  /* --threads-per-core, --hint: threads a
	                             * task uses of each of its cores */
	uint32_t ntasks_per_core;   /* --ntasks-per-core: tasks a core holds */
	uint32_t ntasks_per_socket; /* --ntasks-per-socket: tasks a socket holds */
	/* its partition's MaxCPUsPerNode: the partition's jobs hold at most
	 * that many CPUs of a node, so the job gets what they leave of it
	 * (part_cpus); a whole-node job no node of more CPUs.  0: no limit */
	uint32_t max_cpus_per_node;
	int lln; /* its partition's LLN=YES (or CR_LLN): least loaded first */
	/* --constraint's node counts: nodes that have each are taken first,
	 * lightest first, then the others; min_nodes holds them all */
	uint32_t nfeat;
	struct sched_feat feat[SCHED_FEATS];
};

/* Result for one node; caller provides arrays of n entries. */
struct sched_alloc {
	uint32_t nnodes;
	uint32_t ntasks;
	uint32_t *node_idx; /* [nnodes] indexes into the node array, ascending */
	uint32_t *cpus;     /* [nnodes] CPUs allocated on each */
	uint32_t *tasks;    /* [nnodes] tasks placed on each */
	uint64_t *mem;      /* [nnodes] MB allocated on each */
	/* [nnodes * SCHED_GRES_KINDS]: of each kind on each node; NULL when the
	 * caller does not need it (sched_select() then still checks GRES) */
	uint32_t *gres;
};

/* The CPUs one task of req is charged on nd: its --cpus-per-task, but in
 * whole cores where it may not share a core with another task: on a node of
 * several threads a core, a task that uses fewer of them than the core has
 * (--threads-per-core, --hint=nomultithread), or that --ntasks-per-core keeps
 * to fewer tasks a core than the core has threads, holds each of its cores
 * whole, as select/cons_tres allocates cores. */
uint32_t sched_task_cpus(const struct sched_req *req, const struct sched_node *nd);

/* Try to place req on nodes[0..n).  out's arrays must hold n entries.
 * Returns 0 (placed), -EAGAIN (not now: resources busy) or -EINVAL (never, even
 * on idle nodes). */
int sched_select(const struct sched_node *nodes, size_t n, const struct sched_req *req,
                 struct sched_alloc *out);

/* One try now, without the checks sched_select() makes first: 0 or -EAGAIN
 * (topo.c tries the nodes under one switch). */
int sched_select_in(const struct sched_node *nodes, size_t n, const struct sched_req *req,
                    struct sched_alloc *out);

/* Put out's entries in node index order. */
void sched_alloc_sort(struct sched_alloc *out);

/* to = a copy of from's nnodes entries, in arrays of its own (to's own are
 * freed first; zero it before the first use).  0 or -ENOMEM (to then
 * empty).  sched_alloc_free() frees them and empties it. */
int sched_alloc_dup(struct sched_alloc *to, const struct sched_alloc *from);
void sched_alloc_free(struct sched_alloc *a);

/* Make a's nodes unusable in nodes[n] (after a mark): a heterogeneous job's
 * components never share a node, as in Slurm, which starts each component
 * on nodes that the ones before it do not use. */
void sched_alloc_avoid(struct sched_node *nodes, size_t n, const struct sched_alloc *a);

#endif
