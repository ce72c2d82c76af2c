/* jobctl.h - how sbatch, srun and salloc talk to the controller: connect, one
 * request, an interactive allocation (kept on its own connection), handing it
 * back, and signalling a step.
 *
 * Failures are printed the way each Slurm command words them: the caller passes
 * its prefix, e.g. "Batch job submission failed: " (sbatch), "Unable to
 * allocate resources: " (srun), "Job submit/allocate failed: " (salloc).
 * CLI code: fatal failures print "PROG: error: ..." and exit 1.
 */
#ifndef ROTA_CLI_JOBCTL_H
#define ROTA_CLI_JOBCTL_H

#include <signal.h>
#include <stdint.h>
#include "proto/messages.h"

/* Connect to the controller.  On failure print "PROG: error: <prefix>Unable to
 * contact slurm controller (connect failure)" and exit 1. */
int jobctl_connect(const char *prefix);

/* One request and its reply on a new connection.  On a transport failure print
 * "PROG: error: <prefix><why>" and exit 1.  *ret_body: msg_body_free(). */
void jobctl_rpc(const char *prefix, uint16_t type, const void *body, uint16_t *ret_type,
                void **ret_body);

/* Block sigs[0..n) and return a signalfd (O_CLOEXEC|O_NONBLOCK) that reports
 * them; *ret_old gets the previous mask (children restore it before exec). */
int jobctl_signalfd(const int *sigs, size_t n, sigset_t *ret_old);

/* Read one pending signal from a signalfd; 0 when none. */
int jobctl_signal_read(int sig_fd);

enum jobctl_style { JOBCTL_SRUN, JOBCTL_SALLOC };

struct jobctl_alloc {
	int fd;                  /* kept open: the job ends when it closes */
	struct alloc_resp *resp; /* owned */
};

/* Send req_type (MSG_ALLOC_REQ {job_desc}, or MSG_ALLOC_HET_REQ {submit_het})
 * and wait for the allocation, printing what srun or salloc print while
 * waiting (unless quiet).  A signal on sig_fd (-1: none) while
 * waiting gives the request up: "PROG: Job allocation N has been revoked." and
 * exit 1.  A refusal prints "PROG: error: <prefix><why>" and exits 1. */
void jobctl_allocate(uint16_t req_type, const void *req, enum jobctl_style style,
                     int quiet, uint32_t immediate, int sig_fd, struct jobctl_alloc *ret);

/* Hand the allocation back: MSG_JOB_COMPLETE_REQ {job, status} and wait up to
 * 10 s for MSG_RC; closes the connection.  Returns the controller's rc (or -1
 * when it could not be asked). */
int jobctl_complete(struct jobctl_alloc *a, uint32_t status);

/* Close (if still open) and free. */
void jobctl_alloc_release(struct jobctl_alloc *a);

/* MSG_CANCEL_REQ {job, step, signal, flags (CANCEL_F_*)} on a new connection
 * (signal 0: cancel, i.e. SIGTERM then SIGKILL).  Best effort: returns the
 * controller's rc, or -1. */
int jobctl_signal_step(uint32_t job_id, uint32_t step_id, uint32_t signal,
                       uint32_t flags);

/* --test-only (sbatch, srun): MSG_WILL_RUN_REQ for each of descs[0..n) (a
 * heterogeneous job's components; borrowed) and print on stderr "PROG: Job N
 * to start at TIME using C processors on nodes HOSTS in partition P"; for
 * components one line: the first's id, the latest start, the CPUs and nodes
 * of all ("... processors on HOSTS").  A refusal prints "PROG: error:
 * allocation failure: <why>" and exits 1.  Nothing is submitted. */
void jobctl_will_run(const struct job_desc *const *descs, size_t n);

/* Slurm's words for a transport failure (a negative errno from net_*). */
const char *jobctl_strerror(int rc);

#endif
