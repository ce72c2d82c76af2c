/* priority.h - a pending job's priority: priority/basic (FIFO) and
 * priority/multifactor with Slurm's weights.
 *
 * Pure: no I/O and no clock; the time comes in as an argument.  Each factor is
 * in [0, 1]; the priority is the sum of weight x factor, less the job's nice,
 * clamped to at least 1.
 */
#ifndef ROTA_SCHED_PRIORITY_H
#define ROTA_SCHED_PRIORITY_H

#include <stdint.h>
#include <time.h>

enum priority_type {
	PRIORITY_BASIC = 0,  /* 0xffff0000 - job id: first come, first served */
	PRIORITY_MULTIFACTOR /* weighted factors */
};

/* The TRES a PriorityWeightTRES weight may name, in Slurm's TRES order (the
 * order sprio lists them in). */
enum priority_tres { PRIO_TRES_CPU, PRIO_TRES_MEM, PRIO_TRES_NODE, PRIO_TRES_N };

/* TRES t's name: "cpu", "mem", "node". */
const char *priority_tres_name(enum priority_tres t);

/* PriorityWeightTRES ("cpu=1000,mem=.5G,node=20"; NULL or "" none) into
 * weights (each 0 unless named; a mem weight's unit K, M, G, T scales it to
 * per MB, as Slurm).  Returns 0, or -EINVAL with the offending item's first
 * bytes in bad (bad_len bytes, NUL-terminated) for an item that is not
 * NAME=WEIGHT or a weight that is not a finite number >= 0.  A TRES Rota
 * does not weigh (GRES/gpu, billing, ...) is left out, as 0. */
int priority_tres_weights_parse(const char *s, double weights[PRIO_TRES_N], char *bad,
                                size_t bad_len);

/* The weights and limits, from slurm.conf. */
struct priority_params {
	enum priority_type type;
	uint32_t weight_age, weight_fairshare, weight_job_size;
	uint32_t weight_partition, weight_qos, weight_assoc;
	double weight_tres[PRIO_TRES_N]; /* PriorityWeightTRES */
	uint32_t max_age;       /* PriorityMaxAge in seconds; 0 makes the age factor 1 */
	int favor_small;        /* PriorityFavorSmall=YES */
	uint32_t cluster_cpus;  /* CPUs in the whole cluster */
	uint32_t cluster_nodes; /* nodes in the whole cluster */
	uint32_t max_part_job_factor; /* largest PriorityJobFactor of any partition */
	uint32_t max_qos_priority;    /* largest Priority of any QOS */
	uint32_t max_assoc_priority;  /* largest Priority of any association */
};

/* What the computation needs to know about one job. */
struct priority_job {
	uint32_t job_id;
	time_t eligible_time;     /* when it became eligible (submit or begin time) */
	uint32_t cpus;            /* CPUs requested */
	uint32_t nodes;           /* nodes requested */
	uint32_t part_job_factor; /* its partition's PriorityJobFactor */
	uint32_t nice;            /* --nice, a signed value as u32 two's complement */
	uint32_t site_factor;     /* SiteFactor, a signed value as nice is */
	uint32_t qos_priority;    /* its QOS's Priority */
	uint32_t assoc_priority;  /* its association's Priority (inherited) */
	/* each TRES it asks for (mem in MB) and its partition has */
	uint64_t tres[PRIO_TRES_N], part_tres[PRIO_TRES_N];
	double fairshare; /* its association's factor (ctld/fairshare.h) */
};

/* Each factor in [0, 1] and each weighted value (weight x factor). */
struct priority_factors {
	double age, fairshare, job_size, partition, qos, assoc; /* normalized */
	double w_age, w_fairshare, w_job_size, w_partition, w_qos, w_assoc; /* weighted */
	double tres[PRIO_TRES_N], w_tres[PRIO_TRES_N]; /* 0: not weighted or none asked */
	int64_t nice;                                  /* the signed nice value */
	int64_t site;      /* the signed site factor (multifactor) */
	uint32_t priority; /* the result */
};

/* "priority/basic" or "priority/multifactor" (NULL: basic).  Returns the type
 * or -EINVAL for a name Rota does not know. */
int priority_type_parse(const char *name);

/* Compute job's priority at time now.  ret gets every factor; for
 * priority/basic only ret->priority is set (the other members are 0). */
void priority_compute(const struct priority_params *pp, const struct priority_job *job,
                      time_t now, struct priority_factors *ret);

/* Shorthand: only the priority. */
/* priority/basic: first come, first served (0xffff0000 less the job id), less
 * the job's nice value; within 1 .. 0xfffffffd. */
uint32_t priority_basic(uint32_t job_id, int32_t nice);
uint32_t priority_of(const struct priority_params *pp, const struct priority_job *job,
                     time_t now);

#endif
