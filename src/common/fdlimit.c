/* fdlimit.c - see fdlimit.h. */
#include <errno.h>
#include <sys/resource.h>
#include "common/fdlimit.h"

long fdlimit_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			return -errno;
	}
	return rl.rlim_cur == RLIM_INFINITY ? (long)(~0ul >> 1) : (long)rl.rlim_cur;
}
