/* yamlw.h - a JSON document as YAML text, for the commands' --yaml (Slurm
 * prints the same data as --json, as YAML). */
#ifndef ROTA_YAMLW_H
#define ROTA_YAMLW_H

#include <jansson.h>

/* doc as a YAML document ("---" first), malloc'd. */
char *yaml_dumps(const json_t *doc);

#endif
