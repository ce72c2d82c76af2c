/* script_job.h - what a node's Prolog and Epilog are told of a job
 * (common/script.h), taken from the launch request of its first step there. */
#ifndef ROTA_STEPD_SCRIPT_JOB_H
#define ROTA_STEPD_SCRIPT_JOB_H

#include "common/script.h"
#include "proto/messages.h"

/* A script_job of r's job (deep copies; script_job_free() releases it).  The
 * standard streams are the batch script's, when r launches it. */
struct script_job *script_job_of(const struct launch_req *r);

#endif
