/* taskdist.h - srun's -m/--distribution: how a step's tasks are numbered over
 * its nodes.
 *
 * DESIGN: the number of tasks on each node is the controller's (step_alloc:
 * spread evenly, as Slurm's default block and cyclic give; plane=N: blocks
 * of N tasks dealt to the nodes in turn, taskdist_plane_counts); what the
 * distribution then decides is which task ids each node runs: block gives
 * each node consecutive ids, cyclic deals them one at a time to the nodes
 * that still have room, plane=N deals N at a time.  The word travels with
 * the step (srun -> controller -> step daemons, rotapmix) and each side
 * numbers the tasks with taskdist_gtids, so nothing else must agree.  The
 * levels after ':' (sockets, cores) and ,Pack/,NoPack are checked and
 * accepted; CPU binding does not follow them.  arbitrary (SLURM_HOSTFILE)
 * names each task's node: the map of task to node travels beside the word
 * (task_map), and taskdist_gtids_map reads it. */
#ifndef ROTA_COMMON_TASKDIST_H
#define ROTA_COMMON_TASKDIST_H

#include <stddef.h>
#include <stdint.h>

struct rota_error;

enum taskdist_type {
	TASKDIST_DEFAULT = 0, /* not given: block */
	TASKDIST_BLOCK = 1,
	TASKDIST_CYCLIC = 2,
	TASKDIST_PLANE = 3,
	TASKDIST_ARBITRARY = 4, /* the tasks' nodes listed (SLURM_HOSTFILE) */
};

/* The word: the type in bits 0-7, plane's size above. */
#define TASKDIST_TYPE(d)       ((d)&0xffu)
#define TASKDIST_PLANE_SIZE(d) ((d) >> 8)
#define TASKDIST_PLANE_MAX     0xffffffu

/* "cyclic", "block:cyclic", "plane=4", "cyclic:*:fcyclic,Pack"... into *ret;
 * plane_size: SLURM_DIST_PLANESIZE's value when the spec is "plane" alone
 * (0: none).  Returns 0, or -EINVAL with err in Slurm's words. */
int taskdist_parse(const char *spec, uint32_t plane_size, uint32_t *ret,
                   struct rota_error *err);

/* SLURM_DISTRIBUTION's value for d ("cyclic", "plane", "block"). */
const char *taskdist_name(uint32_t d);

/* plane=N: the tasks each of n nodes gets (into out[n]) for ntasks, as
 * Slurm deals them: one on each node first, then blocks of N as far as
 * cap[i] (the tasks node i has room for) allows, over it only when every
 * node is full. */
void taskdist_plane_counts(uint32_t d, uint32_t ntasks, uint32_t n, const uint32_t *cap,
                           uint32_t *out);

/* The task ids of every node, node after node: out[sum of tpn[0..n)] gets
 * node 0's ids (ascending), then node 1's, ... */
void taskdist_gtids(uint32_t d, const uint32_t *tpn, uint32_t n, uint32_t *out);

/* The same; with arbitrary, from map[nmap] (task t runs on node map[t]) when
 * it is a layout of tpn, else as taskdist_gtids. */
void taskdist_gtids_map(uint32_t d, const uint32_t *tpn, uint32_t n, const uint32_t *map,
                        size_t nmap, uint32_t *out);

#endif
