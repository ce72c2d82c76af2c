/* mcs_label.h - jobs' and nodes' Multi-Category Security labels
 * (MCSPlugin, MCSParameters: common/mcs.h).
 *
 * A job's label is decided once, at submit, and kept in its request
 * (job_desc.mcs_label), which the journal holds.  A job that keeps its nodes
 * to its label (mcs_job_selects) gives them its label while it runs there
 * (struct node's mcs_label, counted by mcs_jobs): such a node takes only jobs
 * of that label that keep it so too, and a job that keeps its nodes starts
 * only on nodes of its label or with nothing running. */
#ifndef ROTA_CTLD_MCS_LABEL_H
#define ROTA_CTLD_MCS_LABEL_H

#include <stdbool.h>
#include "common/mcs.h"

struct ctld;
struct caller;
struct job;
struct job_desc;
struct node;

/* The running configuration's MCS settings (read again after reconfigure). */
const struct mcs_conf *mcs_ctld_conf(struct ctld *ctld);
void mcs_ctld_release(struct ctld *ctld);

/* Decide the label of job d, submitted by who (the job's user, named
 * user): check the one it asks for, or give it its default where the
 * settings say it has one.  0, or -ESLURM_INVALID_MCS_LABEL. */
int mcs_submit_label(struct ctld *ctld, struct caller *who, const char *user,
                     struct job_desc *d);

/* Does the job keep the nodes it starts on to its label? */
int mcs_job_keeps_nodes(struct ctld *ctld, const struct job *job);

/* May the job start on node n, as far as labels go? */
bool mcs_node_fits(const struct node *n, const struct job *job, int keeps);

/* A job that keeps its nodes to label starts on n / leaves it. */
void mcs_node_take(struct node *n, const char *label);
void mcs_node_give(struct node *n);

/* May who use label (PrivateData with MCSParameters=privatedata: the jobs
 * and nodes it may see)?  A NULL label: anyone. */
bool mcs_label_usable(struct ctld *ctld, struct caller *who, const char *label);

/* Is job (node) hidden from who by PrivateData=jobs (nodes) with
 * MCSParameters=privatedata: not who's own job, and of a label who may not
 * use?  Operators see everything. */
bool mcs_job_hidden(struct ctld *ctld, struct caller *who, const struct job *job);
bool mcs_node_hidden(struct ctld *ctld, struct caller *who, const struct node *n);

#endif
