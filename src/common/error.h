/* error.h - Rota's one error convention, and the optional human-readable
 * detail that travels with an error.
 *
 * A function that can fail returns 0 (or a count, an id) on success and a
 * negative number on failure:
 *   -errno        what the system said, or the errno that fits (-EINVAL);
 *   -ESLURM_*     a failure Slurm has a number for, that a client shows
 *                 (common/states.h: -ESLURM_JOB_NOT_PENDING);
 *   -1            (SLURM_ERROR) failed, the text says why.
 * Only the wire carries Slurm's positive numbers: the controller's replies
 * (chan_send_rc) turn the negative error into one, and nothing inside returns
 * a positive error.  When given a non-NULL struct rota_error, a function
 * fills in its text.  errprintf() returns -1 so that "report and return" is
 * one statement:  return errprintf(err, "bad %s", x);
 */
#ifndef ROTA_ERROR_H
#define ROTA_ERROR_H

#define ROTA_ERROR_TEXT 256

struct rota_error {
	char text[ROTA_ERROR_TEXT];
};

/* Fill err (may be NULL) and return -1. */
int errprintf(struct rota_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
