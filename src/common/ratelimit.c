/* ratelimit.c - see ratelimit.h. */
#include <stddef.h>
#include "common/ratelimit.h"

int ratelimit_pass(struct ratelimit *rl, double now, unsigned long *ret_suppressed)
{
	if (rl->start <= 0 || now - rl->start >= rl->interval) {
		rl->start = now > 0 ? now : 1e-9;
		rl->count = 0;
	}
	if (rl->count >= rl->burst) {
		rl->suppressed++;
		return 0;
	}
	rl->count++;
	if (ret_suppressed)
		*ret_suppressed = rl->suppressed;
	rl->suppressed = 0;
	return 1;
}
