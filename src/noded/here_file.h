/* here_file.h - the jobs that have run on this node, kept in its spool.
 *
 * rotad runs a job's Prolog at its first launch here and its Epilog when it
 * ends (noded/stepd_mgr.h).  What it knows of each job (the first launch
 * request's job-wide part) is also a file of the spool, "job<ID>.here",
 * written when the job first launches here and removed after its Epilog: a
 * rotad started again (scontrol reconfigure re-executes it; a restart) reads
 * them back, so a job running across it gets no second Prolog and still its
 * Epilog.  Files of jobs that left no step here for HERE_FILE_STALE_S are
 * dropped when read (their end was missed while no rotad ran). */
#ifndef ROTA_NODED_HERE_FILE_H
#define ROTA_NODED_HERE_FILE_H

#include <stdint.h>
#include "proto/messages.h"

#define HERE_FILE_STALE_S (7 * 24 * 3600)

/* Write req's job-wide part (no script, argv, environment) for its job, in
 * the current directory (the spool).  0 or -errno (the caller logs). */
int here_file_write(const struct launch_req *req);
void here_file_remove(uint32_t job_id);

/* Each job's file in the current directory, decoded: fn(arg, req) (req
 * released after).  keep(arg, job_id) says whether a file older than
 * HERE_FILE_STALE_S is still wanted (a step of it runs); one not is removed. */
void here_file_each(void (*fn)(void *arg, const struct launch_req *req),
                    int (*keep)(void *arg, uint32_t job_id), void *arg);

#endif
