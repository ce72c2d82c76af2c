/* signame.c - signals by name (signame.h), from the C library's own list of
 * abbreviations (sigabbrev_np: "USR1", "IOT", ...). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/signame.h"

int signal_parse(const char *s)
{
	char *end;
	long v;

	if (*s >= '0' && *s <= '9') {
		v = strtol(s, &end, 10);
		return *end || v < 1 || v >= NSIG ? -1 : (int)v;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	if (!strcasecmp(s, "IOT"))
		return SIGIOT;
	if (!strcasecmp(s, "POLL"))
		return SIGPOLL;
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *name = sigabbrev_np(sig);
		if (name && !strcasecmp(s, name))
			return sig;
	}
	return -1;
}
