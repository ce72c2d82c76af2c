/* error.h - optional human-readable error detail that travels with a -errno.
 *
 * Functions that can fail return a negative value and, when given a non-NULL
 * struct rota_error, fill in its text.  errprintf() returns -1 so that
 * "report and return" is one statement:  return errprintf(err, "bad %s", x);
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
