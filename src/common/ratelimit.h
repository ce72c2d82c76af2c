/* ratelimit.h - at most `burst` events per interval (for log lines an attacker
 * could otherwise repeat at will).  Embedded, no allocation; times are
 * monotonic seconds (time_mono()). */
#ifndef ROTA_RATELIMIT_H
#define ROTA_RATELIMIT_H

struct ratelimit {
	double interval; /* seconds */
	unsigned burst;  /* events that pass per interval */
	double start;    /* when the current interval began; 0: none yet */
	unsigned count;  /* events passed in it */
	unsigned long suppressed;
};

#define RATELIMIT_INIT(sec, burst)                                                       \
	{                                                                                \
		(sec), (burst), 0, 0, 0                                                  \
	}

/* 1 if an event at now may pass (then *ret_suppressed, when not NULL, is the
 * number held back before it and not reported yet), 0 if it is held back. */
int ratelimit_pass(struct ratelimit *rl, double now, unsigned long *ret_suppressed);

#endif
