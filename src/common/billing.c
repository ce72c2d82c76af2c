/* billing.c - TRESBillingWeights (billing.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/billing.h"
#include "common/conf.h"
#include "common/strv.h"

static double per_unit(char unit)
{
	switch (unit) {
	case 'K':
	case 'k':
		return 1.0 / 1024.0;
	case 'G':
	case 'g':
		return 1024.0;
	case 'T':
	case 't':
		return 1024.0 * 1024.0;
	default:
		return 1.0; /* M, or none: per MB */
	}
}

double billing_of(const char *weights, int max_tres, double cpus, double mem_mb,
                  double nodes)
{
	double sum = 0.0, max = 0.0;
	char **items;

	if (!weights || !*weights)
		return cpus;
	items = strv_split(weights, ",");
	for (size_t i = 0; items[i]; i++) {
		char *eq = strchr(items[i], '='), *end;
		double w, part = 0.0;
		if (!eq)
			continue;
		*eq = '\0';
		w = strtod(eq + 1, &end);
		if (!(w >= 0.0)) /* negative or NaN: counts nothing */
			continue;
		if (!strcasecmp(items[i], "CPU"))
			part = w * cpus;
		else if (!strcasecmp(items[i], "Node"))
			part = w * nodes;
		else if (!strcasecmp(items[i], "Mem"))
			part = w * mem_mb / per_unit(*end);
		sum += part;
		if (part > max)
			max = part;
	}
	strv_free(items);
	return max_tres ? max : sum;
}

int billing_flag(const char *flags, const char *flag)
{
	char **w;
	int on;

	if (!flags)
		return 0;
	w = strv_split(flags, ",");
	on = strv_has(w, flag, 1);
	strv_free(w);
	return on;
}

int billing_weights_valid(const char *weights)
{
	static const char *const plain[] = {"CPU",    "Mem",  "Node",
	                                    "Energy", "VMem", "Pages"};
	static const char *const kinds[] = {"GRES/", "License/", "BB/", "FS/", "IC/"};
	char **items = strv_split(weights, ",");
	int ok = items[0] != NULL;

	for (size_t i = 0; ok && items[i]; i++) {
		char *eq = strchr(items[i], '='), *end;
		double w;
		int known = 0;

		if (!eq || eq == items[i]) {
			ok = 0;
			break;
		}
		*eq = '\0';
		for (size_t k = 0; k < sizeof(plain) / sizeof(plain[0]); k++)
			known |= !strcasecmp(items[i], plain[k]);
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			known |= !strncasecmp(items[i], kinds[k], strlen(kinds[k])) &&
			         items[i][strlen(kinds[k])];
		w = strtod(eq + 1, &end);
		if (end != eq + 1 && *end && strchr("KkMmGgTt", *end))
			end++;
		ok = known && end != eq + 1 && !*end && w == w; /* not NaN */
	}
	strv_free(items);
	return ok;
}

uint32_t conf_billing(const struct conf *cf, const char *partition, uint32_t cpus,
                      uint64_t mem_mb, uint32_t nodes)
{
	const struct conf_part *p = NULL;
	char first[256];

	if (partition) {
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(partition, ","),
		         partition);
		p = conf_part_find(cf, first);
	}
	return (uint32_t)billing_of(p ? p->tres_billing_weights : NULL,
	                            billing_flag(cf->prio_flags, "MAX_TRES"), cpus,
	                            (double)mem_mb, nodes);
}
