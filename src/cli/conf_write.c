/* conf_write.c - a slurm.conf written back from the controller's answers
 * (scontrol write config; conf_write.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/conf_write.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "proto/messages.h"
#include "common/common.h"

/* A value slurm.conf can take back as it is: not empty, no blank, not
 * "(null)". */
static int plain_value(const char *v)
{
	return v && *v && strcmp(v, "(null)") && !strpbrk(v, " \t\n#");
}

/* "300 sec", "0 min": the number alone is what slurm.conf takes (the unit
 * is the key's own); else NULL. */
static char *bare_number(const char *v)
{
	size_t n = v ? strspn(v, "0123456789") : 0;

	if (n && (!strcmp(v + n, " sec") || !strcmp(v + n, " min")))
		return xstrndup(v, n);
	return NULL;
}

static void write_globals(FILE *f, const struct config_resp *c)
{
	for (uint32_t i = 0; i < c->items_count; i++) {
		const struct kv *kv = &c->items[i];
		char *num = bare_number(kv->value);

		if (!kv->key || !*kv->key || strpbrk(kv->key, " \t\n=#")) {
			free(num);
			continue;
		}
		/* what the parser would not take back, and what is the
		 * default (the parser may derive another value from it), stay
		 * as comments */
		if ((num || plain_value(kv->value)) &&
		    conf_global_value_ok(kv->key, num ? num : kv->value) == 1)
			fprintf(f, "%s=%s\n", kv->key, num ? num : kv->value);
		else
			fprintf(f, "#%s=%s\n", kv->key,
			        num                                        ? num
			        : kv->value && strcmp(kv->value, "(null)") ? kv->value
			                                                   : "");
		free(num);
	}
}

/* A node's keys but its name; caller frees. */
static char *node_keys(const struct node_info *n, uint32_t slurmd_port)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		fatal("out of memory");
	if (n->hostname && *n->hostname && strcmp(n->hostname, n->name))
		fprintf(m, " NodeHostname=%s", n->hostname);
	if (n->addr && *n->addr && strcmp(n->addr, n->name))
		fprintf(m, " NodeAddr=%s", n->addr);
	if (n->port && n->port != slurmd_port)
		fprintf(m, " Port=%u", n->port);
	fprintf(m, " CPUs=%u", n->cpus);
	if (n->boards > 1)
		fprintf(m, " Boards=%u", n->boards);
	if (n->sockets)
		fprintf(m, " Sockets=%u", n->sockets);
	if (n->cores)
		fprintf(m, " CoresPerSocket=%u", n->cores);
	if (n->threads)
		fprintf(m, " ThreadsPerCore=%u", n->threads);
	if (n->real_memory > 1)
		fprintf(m, " RealMemory=%llu", (unsigned long long)n->real_memory);
	if (n->tmp_disk)
		fprintf(m, " TmpDisk=%llu", (unsigned long long)n->tmp_disk);
	if (n->weight != 1)
		fprintf(m, " Weight=%u", n->weight);
	if (n->features && *n->features)
		fprintf(m, " Feature=%s", n->features);
	if (n->gres && *n->gres)
		fprintf(m, " Gres=%s", n->gres);
	if (fclose(m) != 0 || !s)
		fatal("out of memory");
	return s;
}

/* Nodes alike but for their names share one NodeName= line. */
static void write_nodes(FILE *f, const struct node_info_resp *nodes, uint32_t slurmd_port)
{
	uint32_t n = nodes->nodes_count;
	char **keys = xcalloc(n ? n : 1, sizeof(*keys));
	char **names = xcalloc(n ? n : 1, sizeof(*names));
	char *done = xcalloc(n ? n : 1, 1);

	for (uint32_t i = 0; i < n; i++)
		keys[i] = node_keys(&nodes->nodes[i], slurmd_port);
	for (uint32_t i = 0; i < n; i++) {
		size_t k = 0;
		char *list;

		if (done[i] || !nodes->nodes[i].name)
			continue;
		for (uint32_t j = i; j < n; j++)
			if (!done[j] && nodes->nodes[j].name &&
			    !strcmp(keys[i], keys[j])) {
				names[k++] = nodes->nodes[j].name;
				done[j] = 1;
			}
		list = hostlist_compress(names, k);
		fprintf(f, "NodeName=%s%s\n", list ? list : nodes->nodes[i].name,
		        keys[i]);
		free(list);
	}
	for (uint32_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(names);
	free(done);
}

/* Minutes as a slurm.conf time: UNLIMITED, or [D-]HH:MM:SS. */
static const char *minutes_word(uint32_t minutes, char *buf, size_t len)
{
	if (minutes == INFINITE32)
		return "UNLIMITED";
	return timefmt_duration((long)minutes * 60, buf, len);
}

/* A string key where it is set and not ALL. */
static void write_str(FILE *f, const char *key, const char *v)
{
	if (v && *v && strcasecmp(v, "ALL"))
		fprintf(f, " %s=%s", key, v);
}

/* Who a partition lets in, and its other settings a job sees. */
static void write_part_access(FILE *f, const struct part_info *p)
{
	static const struct {
		uint32_t flag;
		const char *key;
	} flags[] = {
	    {PART_INFO_F_HIDDEN, "Hidden"},
	    {PART_INFO_F_ROOT_ONLY, "RootOnly"},
	    {PART_INFO_F_REQ_RESV, "ReqResv"},
	    {PART_INFO_F_EXCLUSIVE_USER, "ExclusiveUser"},
	    {PART_INFO_F_LLN, "LLN"},
	    {PART_INFO_F_DISABLE_ROOT_JOBS, "DisableRootJobs"},
	};

	write_str(f, "AllowAccounts", p->allow_accounts);
	write_str(f, "DenyAccounts", p->deny_accounts);
	write_str(f, "AllowQos", p->allow_qos);
	write_str(f, "DenyQos", p->deny_qos);
	write_str(f, "QOS", p->qos);
	write_str(f, "Alternate", p->alternate);
	write_str(f, "AllocNodes", p->alloc_nodes);
	write_str(f, "TRESBillingWeights", p->tres_billing_weights);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (p->flags & flags[i].flag)
			fprintf(f, " %s=YES", flags[i].key);
	if (p->max_cpus_per_node && p->max_cpus_per_node != INFINITE32 &&
	    p->max_cpus_per_node != NO_VAL)
		fprintf(f, " MaxCPUsPerNode=%u", p->max_cpus_per_node);
	if (p->def_mem_per_cpu)
		fprintf(f, " DefMemPerCPU=%llu", (unsigned long long)p->def_mem_per_cpu);
	if (p->def_mem_per_node)
		fprintf(f, " DefMemPerNode=%llu",
		        (unsigned long long)p->def_mem_per_node);
	if (p->max_mem_per_cpu)
		fprintf(f, " MaxMemPerCPU=%llu", (unsigned long long)p->max_mem_per_cpu);
	if (p->max_mem_per_node)
		fprintf(f, " MaxMemPerNode=%llu",
		        (unsigned long long)p->max_mem_per_node);
}

static void write_part(FILE *f, const struct part_info *p)
{
	char b[64];

	fprintf(f, "PartitionName=%s", p->name);
	if (p->nodes && *p->nodes)
		fprintf(f, " Nodes=%s", p->nodes);
	if (p->is_default)
		fprintf(f, " Default=YES");
	if (p->max_time != NO_VAL)
		fprintf(f, " MaxTime=%s", minutes_word(p->max_time, b, sizeof(b)));
	if (p->default_time != NO_VAL && p->default_time != INFINITE32)
		fprintf(f, " DefaultTime=%s",
		        minutes_word(p->default_time, b, sizeof(b)));
	if (p->max_nodes != NO_VAL && p->max_nodes != INFINITE32)
		fprintf(f, " MaxNodes=%u", p->max_nodes);
	if (p->min_nodes > 1)
		fprintf(f, " MinNodes=%u", p->min_nodes);
	if (p->priority_tier != 1)
		fprintf(f, " PriorityTier=%u", p->priority_tier);
	if (p->priority_job_factor != 1)
		fprintf(f, " PriorityJobFactor=%u", p->priority_job_factor);
	if (p->oversubscribe && *p->oversubscribe && strcasecmp(p->oversubscribe, "NO"))
		fprintf(f, " OverSubscribe=%s", p->oversubscribe);
	write_str(f, "AllowGroups", p->allow_groups);
	if (p->preempt_mode && *p->preempt_mode)
		fprintf(f, " PreemptMode=%s", p->preempt_mode);
	if (p->grace_time)
		fprintf(f, " GraceTime=%u", p->grace_time);
	if (p->over_time_limit == INFINITE32)
		fputs(" OverTimeLimit=UNLIMITED", f);
	else if (p->over_time_limit != NO_VAL)
		fprintf(f, " OverTimeLimit=%u", p->over_time_limit);
	write_part_access(f, p);
	fprintf(f, " State=%s\n", conf_part_state_str(p->state));
}

void conf_write(FILE *f, const char *when, const struct config_resp *config,
                const struct node_info_resp *nodes, const struct part_info_resp *parts)
{
	uint32_t slurmd_port = 0;

	for (uint32_t i = 0; i < config->items_count; i++)
		if (config->items[i].key &&
		    !strcasecmp(config->items[i].key, "SlurmdPort") &&
		    config->items[i].value)
			slurmd_port = (uint32_t)strtoul(config->items[i].value, NULL, 10);
	fprintf(f, "# slurm.conf as the controller ran it at %s\n", when);
	fprintf(f, "# (scontrol write config; '#' marks what is shown, not set)\n#\n");
	write_globals(f, config);
	fprintf(f, "#\n# NODES\n");
	write_nodes(f, nodes, slurmd_port);
	fprintf(f, "#\n# PARTITIONS\n");
	for (uint32_t i = 0; i < parts->parts_count; i++)
		if (parts->parts[i].name)
			write_part(f, &parts->parts[i]);
}
