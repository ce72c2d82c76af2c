#include <stdlib.h>
#include <string.h>
#include "common/mpiparams.h"
#include "common/common.h"

static int port_num(const char *s, const char **end, uint32_t *ret)
{
	char *e;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &e, 10);
	if (v < 1 || v > MPI_PORTS_MAX)
		return -1;
	*ret = (uint32_t)v;
	*end = e;
	return 0;
}

int mpi_params_ports(const char *text, uint32_t *min, uint32_t *max,
                     struct rota_error *err)
{
	const char *p, *end;

	if (!text || !*text)
		return 0;
	if (strncasecmp(text, "ports=", 6))
		return errprintf(err, "MpiParams=%.64s: expected ports=MIN-MAX", text);
	p = text + 6;
	if (port_num(p, &end, min) < 0 || *end != '-' ||
	    port_num(end + 1, &end, max) < 0 || *end || *min > *max)
		return errprintf(
		    err, "MpiParams=%.64s: ports must be MIN-MAX between 1 and %u", text,
		    MPI_PORTS_MAX);
	return 1;
}
