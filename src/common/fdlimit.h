/* fdlimit.h - raise this process's descriptor limit (RLIMIT_NOFILE) to its hard
 * limit at start, so that a daemon serving many peers does not run out of
 * descriptors first (daemons call it before opening their sockets). */
#ifndef ROTA_FDLIMIT_H
#define ROTA_FDLIMIT_H

/* Returns the soft limit now in force, or a negative errno. */
long fdlimit_raise(void);

#endif
