/* acct_time.c - sacct's and sreport's time arguments (acct_time.h). */
#include <stdlib.h>
#include "cli/acct_time.h"
#include "cli/cli.h"

time_t acct_time_arg(const char *what, const char *s, time_t now)
{
	time_t t;

	if (acct_time_parse(s, now, &t) < 0) {
		cli_error("Invalid time specification (%s): %s", what, s);
		exit(1);
	}
	return t;
}
