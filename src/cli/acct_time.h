/* acct_time.h - sacct's and sreport's time arguments (common/acct_time.h
 * parses them). */
#ifndef ROTA_CLI_ACCT_TIME_H
#define ROTA_CLI_ACCT_TIME_H

#include "common/acct_time.h"

/* acct_time_parse for a command's argument what (sacct's "start", sreport's
 * "end"): a bad one prints Slurm's "Invalid time specification (what): s"
 * and exits 1. */
time_t acct_time_arg(const char *what, const char *s, time_t now);

#endif
