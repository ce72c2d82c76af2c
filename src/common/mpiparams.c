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

	/* its ports= item; the others (another Slurm's keys) are not Rota's */
	for (p = text; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strncasecmp(p, "ports=", 6))
			continue;
		p += 6;
		if (port_num(p, &end, min) < 0 || *end != '-' ||
		    port_num(end + 1, &end, max) < 0 || (*end && *end != ',') ||
		    *min > *max)
			return errprintf(
			    err,
			    "MpiParams=%.64s: ports must be MIN-MAX between 1 "
			    "and %u",
			    text, MPI_PORTS_MAX);
		return 1;
	}
	return 0;
}
