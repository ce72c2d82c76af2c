/* sinfo.c - partitions and nodes as Slurm's sinfo shows them.
 *
 * DESIGN: one MSG_PART_INFO_REQ and one MSG_NODE_INFO_REQ, then records are
 * built here as in Slurm: each node of each (selected) partition joins the
 * first record of that partition whose reported attributes match its own.
 * Which attributes must match depends on the columns shown: the state when
 * %t/%T is shown, the reason for %E, features for %f...; CPUs, memory, disk
 * and weight only with -e (otherwise those columns print "min+").  Without any
 * partition column, records span partitions and each node counts once.  With
 * -N every node is its own record.  The default formats size the partition and
 * node list columns to the widest value (at least 9), which Slurm's man page
 * writes as "%#P".
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/scontrol.h"
#include "common/strv.h"
#include "common/ranksort.h"
#include "common/conf.h"
#include "common/fmtspec.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "proto/slurm_json.h"
#include "common/common.h"

#define SINFO_DEFAULT_FMT      "%P %.5a %.10l %.6D %.6t %N"
#define SINFO_LONG_FMT         "%P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define SINFO_SUMMARIZE_FMT    "%P %.5a %.10l %.16F  %N"
#define SINFO_NODE_FMT         "%N %.6D %P %6t"
#define SINFO_NODE_LONG_FMT    "%N %.6D %P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E"
#define SINFO_REASONS_FMT      "%20E %9u %19H %N"
#define SINFO_REASONS_LONG_FMT "%20E %12U %19H %6t %N"
#define SINFO_MIN_AUTO_WIDTH   9

enum {
	F_STATE_COMPLETE = 256,
	F_ALLOC_MEM,
	F_PORT,
	F_COMMENT,
	F_GRES_USED,
};

static const struct fmt_field node_fields[] = {
    {'a', 'a', "Available", "AVAIL", 0},
    {'A', 'A', "NodeAI", "NODES(A/I)", 0},
    {'b', 'b', "features_act", "ACTIVE_FEATURES", 0},
    {'B', 'B', "MaxCPUsPerNode", "MAX_CPUS_PER_NODE", 0},
    {'c', 'c', "CPUs", "CPUS", 0},
    {'C', 'C', "CPUsState", "CPUS(A/I/O/T)", 0},
    {'d', 'd', "Disk", "TMP_DISK", 0},
    {'D', 'D', "Nodes", "NODES", 0},
    {'e', 'e', "FreeMem", "FREE_MEM", 0},
    {'E', 'E', "Reason", "REASON", 0},
    {'f', 'f', "Features", "AVAIL_FEATURES", 0},
    {'F', 'F', "NodeAIOT", "NODES(A/I/O/T)", 0},
    {'g', 'g', "Groups", "GROUPS", 0},
    {'G', 'G', "Gres", "GRES", 0},
    {'h', 'h', "OverSubscribe", "OVERSUBSCRIBE", 0},
    {'H', 'H', "TimeStamp", "TIMESTAMP", 0},
    {'I', 'I', "PriorityJobFactor", "PRIO_JOB_FACTOR", 0},
    {'l', 'l', "Time", "TIMELIMIT", 0},
    {'L', 'L', "DefaultTime", "DEFAULTTIME", 0},
    {'m', 'm', "Memory", "MEMORY", 0},
    {'M', 'M', "PreemptMode", "PREEMPT_MODE", 0},
    {'n', 'n', "NodeHost", "HOSTNAMES", FMTSPEC_NOCUT},
    {'N', 'N', "NodeList", "NODELIST", FMTSPEC_NOCUT},
    {'o', 'o', "NodeAddr", "NODE_ADDR", FMTSPEC_NOCUT},
    {'O', 'O', "CPUsLoad", "CPU_LOAD", 0},
    {'p', 'p', "PriorityTier", "PRIO_TIER", 0},
    {'p', 0, "Priority", "PRIO_TIER", 0},
    {'P', 'P', "Partition", "PARTITION", 0},
    {'r', 'r', "Root", "ROOT", 0},
    {'R', 'R', "PartitionName", "PARTITION", 0},
    {'s', 's', "Size", "JOB_SIZE", 0},
    {'S', 'S', "AllocNodes", "ALLOCNODES", 0},
    {'t', 't', "StateCompact", "STATE", 0},
    {'T', 'T', "StateLong", "STATE", 0},
    {'u', 'u', "User", "USER", 0},
    {'U', 'U', "UserLong", "USER", 0},
    {'v', 'v', "Version", "VERSION", 0},
    {'V', 'V', "Cluster", "CLUSTER", 0},
    {'w', 'w', "Weight", "WEIGHT", 0},
    {'X', 'X', "Sockets", "SOCKETS", 0},
    {'Y', 'Y', "Cores", "CORES", 0},
    {'Z', 'Z', "Threads", "THREADS", 0},
    {'z', 'z', "SocketCoreThread", "S:C:T", 0},
    {F_STATE_COMPLETE, 0, "StateComplete", "STATECOMPLETE", 0},
    {F_ALLOC_MEM, 0, "AllocMem", "ALLOCMEM", 0},
    {F_PORT, 0, "Port", "PORT", 0},
    {F_COMMENT, 0, "Comment", "COMMENT", 0},
    {F_GRES_USED, 0, "GresUsed", "GRES_USED", 0},
};

/* Which attributes put nodes in separate records. */
struct match {
	int part, state, reason, reason_time, reason_user, features, features_act, gres,
	    version, hostname, addr;
	/* only with -e */
	int cpus, mem, disk, weight, sct, load, free_mem, alloc_mem, port;
};

struct sinfo_opts {
	int noheader, long_list, node_mode, summarize, list_reasons, exact, dead,
	    responding, json, verbose, resv;
	int all; /* -a, -p, SINFO_ALL, SINFO_PARTITION: hidden partitions too */
	unsigned iterate;
	const char *format, *long_format;
	char **parts;
	char **node_names; /* -n, expanded */
	char **states;     /* -t, each item "a&b" split later */
	const char *sort;  /* -S or SINFO_SORT; NULL: "#P,-t" (-N: "N") */
};

struct srec {
	const struct part_info *part; /* NULL when partitions are not a key */
	size_t part_index;
	size_t seq;
	const struct node_info **nodes;
	size_t n, cap;
	char *nodelist, *hostnames, *addrs;
};

struct sinfo_data {
	struct part_info_resp *parts;
	struct node_info_resp *nodes;
	const struct node_info **by_name; /* nodes sorted by name, for lookups */
	struct srec *recs;
	size_t nrecs, cap;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: sinfo [-o format] [-O fields] [-p partitions] [-n nodes]\n"
	           "             [-t states] [-S fields] [-i seconds] [--json|--yaml]\n"
	           "             [-adehlNrRsvV] [--usage] [--help]\n");
}

static void __attribute__((noreturn)) help(void)
{
	printf("Usage: sinfo [OPTIONS]\n"
	       "  -d, --dead               only nodes that do not respond\n"
	       "  -e, --exact              group nodes only when their sizes are equal\n"
	       "  -h, --noheader           no header line\n"
	       "  -i, --iterate=seconds    repeat every so many seconds\n"
	       "      --json               nodes and partitions as JSON\n"
	       "      --yaml               the same as YAML\n"
	       "  -l, --long               more columns\n"
	       "  -n, --nodes=hosts        only these nodes\n"
	       "  -N, --Node               one line per node\n"
	       "  -o, --format=format      columns as %%[.][size]type[suffix]\n"
	       "  -O, --Format=fields      columns as Field[:[.][size][suffix]],...\n"
	       "  -p, --partition=parts    only these partitions\n"
	       "  -r, --responding         only nodes that respond\n"
	       "  -R, --list-reasons       why nodes are down or drained\n"
	       "  -s, --summarize          partition summaries\n"
	       "  -t, --states=states      only nodes in these states\n"
	       "  -v, --verbose            say more\n"
	       "  -V, --version            print the version\n"
	       "\nHelp options:\n"
	       "      --help               show this help message\n"
	       "      --usage              display brief usage message\n");
	exit(0);
}

/* ---- node state filters ---- */

static int base_of(uint32_t state)
{
	return (int)(state & NODE_STATE_BASE);
}

/* -1: unknown name; else whether state matches. */
static int state_word_matches(const char *w, uint32_t st)
{
	static const char *const never[] = {
	    "planned", "npc", "perfctrs", "inval", "power_up", NULL,
	};
	static const struct {
		const char *word;
		uint32_t flag;
	} flags[] = {
	    {"maint", NODE_MAINT},
	    {"resv", NODE_RESERVED},
	    {"reserved", NODE_RESERVED},
	    {"cloud", NODE_CLOUD},
	    {"power_down", NODE_POWER_DOWN},
	    {"powered_down", NODE_POWERED_DOWN},
	    {"pow_dn", NODE_POWERED_DOWN},
	    {"powering_down", NODE_POWERING_DOWN},
	    {"powering_up", NODE_POWERING_UP},
	    {"pow_up", NODE_POWERING_UP},
	    {"reboot_requested", NODE_REBOOT_REQUESTED},
	    {"reboot_issued", NODE_REBOOT_ISSUED},
	};
	int base = base_of(st), busy = base == NODE_ALLOCATED || base == NODE_MIXED;

	if (!strcasecmp(w, "drain"))
		return !!(st & NODE_DRAIN);
	if (!strcasecmp(w, "drained"))
		return (st & NODE_DRAIN) && !busy;
	if (!strcasecmp(w, "draining") || !strcasecmp(w, "drng"))
		return (st & NODE_DRAIN) && busy;
	if (!strcasecmp(w, "fail"))
		return !!(st & NODE_FAIL);
	if (!strcasecmp(w, "failing") || !strcasecmp(w, "failg"))
		return (st & NODE_FAIL) && (busy || (st & NODE_COMPLETING));
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcasecmp(w, flags[i].word))
			return !!(st & flags[i].flag);
	if (!strcasecmp(w, "comp") || !strcasecmp(w, "completing"))
		return !!(st & NODE_COMPLETING);
	if (!strcasecmp(w, "no_respond") || !strcasecmp(w, "not_responding"))
		return !!(st & NODE_NO_RESPOND);
	if (!strcasecmp(w, "down"))
		return base == NODE_DOWN;
	if (!strcasecmp(w, "idle"))
		return base == NODE_IDLE;
	if (!strcasecmp(w, "alloc") || !strcasecmp(w, "allocated"))
		return base == NODE_ALLOCATED;
	if (!strcasecmp(w, "mix") || !strcasecmp(w, "mixed"))
		return base == NODE_MIXED;
	if (!strcasecmp(w, "future") || !strcasecmp(w, "futr"))
		return base == NODE_FUTURE;
	if (!strcasecmp(w, "unk") || !strcasecmp(w, "unknown"))
		return base == NODE_UNKNOWN;
	if (!strcasecmp(w, "err") || !strcasecmp(w, "error"))
		return base == NODE_ERROR;
	for (size_t i = 0; never[i]; i++)
		if (!strcasecmp(w, never[i]))
			return 0;
	return -1;
}

/* One -t item: "a" or "a&b&c" (all must hold). */
static int state_item_matches(const char *item, uint32_t st)
{
	char **words = fmt_split(item, "&");
	int ok = 1;

	for (size_t i = 0; words[i]; i++)
		if (state_word_matches(words[i], st) <= 0)
			ok = 0;
	fmt_strv_free(words);
	return ok;
}

static void check_states(char **states)
{
	for (size_t i = 0; states[i]; i++) {
		char **words = fmt_split(states[i], "&");

		for (size_t k = 0; words[k]; k++) {
			if (state_word_matches(words[k], 0) < 0) {
				cli_error("Invalid node state specified: %s", words[k]);
				exit(1);
			}
		}
		fmt_strv_free(words);
	}
}

static int node_down_or_drained(const struct node_info *n)
{
	return base_of(n->state) == NODE_DOWN || (n->state & (NODE_DRAIN | NODE_FAIL));
}

static int node_selected(const struct sinfo_opts *o, const struct node_info *n)
{
	if (o->node_names && !strv_has(o->node_names, n->name, 0))
		return 0;
	if (o->dead && !(n->state & NODE_NO_RESPOND))
		return 0;
	if (o->responding && (n->state & NODE_NO_RESPOND))
		return 0;
	if (o->list_reasons && !node_down_or_drained(n))
		return 0;
	if (o->states) {
		size_t i;

		for (i = 0; o->states[i] && !state_item_matches(o->states[i], n->state);
		     i++)
			;
		if (!o->states[i])
			return 0;
	}
	return 1;
}

static int filtering(const struct sinfo_opts *o)
{
	return o->node_names || o->dead || o->responding || o->list_reasons || o->states;
}

/* ---- grouping ---- */

static void match_from_layout(const struct fmt_layout *l, int exact, struct match *m)
{
	static const char part_ids[] = "PRalLsrhgpIMSBV";

	memset(m, 0, sizeof(*m));
	for (const char *p = part_ids; *p; p++)
		m->part |= fmt_layout_has(l, *p);
	m->state = fmt_layout_has(l, 't') || fmt_layout_has(l, 'T') ||
	           fmt_layout_has(l, F_STATE_COMPLETE);
	m->reason = fmt_layout_has(l, 'E');
	m->reason_time = fmt_layout_has(l, 'H');
	m->reason_user = fmt_layout_has(l, 'u') || fmt_layout_has(l, 'U');
	m->features = fmt_layout_has(l, 'f');
	m->features_act = fmt_layout_has(l, 'b');
	m->gres = fmt_layout_has(l, 'G');
	m->version = fmt_layout_has(l, 'v');
	/* %n, %o: one record per host name, per address (as Slurm) */
	m->hostname = fmt_layout_has(l, 'n');
	m->addr = fmt_layout_has(l, 'o');
	if (!exact)
		return;
	m->cpus = fmt_layout_has(l, 'c');
	m->mem = fmt_layout_has(l, 'm');
	m->disk = fmt_layout_has(l, 'd');
	m->weight = fmt_layout_has(l, 'w');
	m->sct = fmt_layout_has(l, 'z') || fmt_layout_has(l, 'X') ||
	         fmt_layout_has(l, 'Y') || fmt_layout_has(l, 'Z');
	m->load = fmt_layout_has(l, 'O');
	m->free_mem = fmt_layout_has(l, 'e');
	m->alloc_mem = fmt_layout_has(l, F_ALLOC_MEM);
	m->port = fmt_layout_has(l, F_PORT);
}

static int str_eq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static int node_matches(const struct match *m, const struct node_info *a,
                        const struct node_info *b)
{
	char s1[64], s2[64], l1[64], l2[64];

	if (m->state && (strcmp(node_state_short(a->state, s1, sizeof(s1)),
	                        node_state_short(b->state, s2, sizeof(s2))) ||
	                 strcmp(node_state_long(a->state, l1, sizeof(l1)),
	                        node_state_long(b->state, l2, sizeof(l2)))))
		return 0;
	if ((m->reason && !str_eq(a->reason, b->reason)) ||
	    (m->reason_time && a->reason_time != b->reason_time) ||
	    (m->reason_user && a->reason_uid != b->reason_uid) ||
	    (m->features && !str_eq(a->features, b->features)) ||
	    (m->features_act && !str_eq(a->features_act, b->features_act)) ||
	    (m->gres && !str_eq(a->gres, b->gres)) ||
	    (m->version && !str_eq(a->version, b->version)) ||
	    (m->hostname && !str_eq(a->hostname, b->hostname)) ||
	    (m->addr && !str_eq(a->addr, b->addr)))
		return 0;
	if ((m->cpus && a->cpus != b->cpus) ||
	    (m->mem && a->real_memory != b->real_memory) ||
	    (m->disk && a->tmp_disk != b->tmp_disk) ||
	    (m->weight && a->weight != b->weight) ||
	    (m->sct && (a->sockets != b->sockets || a->cores != b->cores ||
	                a->threads != b->threads)) ||
	    (m->load && a->cpu_load != b->cpu_load) ||
	    (m->free_mem && a->free_memory != b->free_memory) ||
	    (m->alloc_mem && a->alloc_memory != b->alloc_memory) ||
	    (m->port && a->port != b->port))
		return 0;
	return 1;
}

static struct srec *rec_new(struct sinfo_data *d, const struct part_info *part,
                            size_t part_index)
{
	struct srec *r;

	if (d->nrecs == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->recs = xrealloc(d->recs, d->cap * sizeof(*d->recs));
	}
	r = &d->recs[d->nrecs];
	memset(r, 0, sizeof(*r));
	r->part = part;
	r->part_index = part_index;
	r->seq = d->nrecs++;
	return r;
}

static void rec_add(struct srec *r, const struct node_info *n)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->nodes = xrealloc(r->nodes, r->cap * sizeof(*r->nodes));
	}
	r->nodes[r->n++] = n;
}

static int cmp_node_ptr(const void *a, const void *b)
{
	const struct node_info *x = *(const struct node_info *const *)a;
	const struct node_info *y = *(const struct node_info *const *)b;

	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int cmp_node_natural(const void *a, const void *b)
{
	const struct node_info *x = *(const struct node_info *const *)a;
	const struct node_info *y = *(const struct node_info *const *)b;

	return rank_natural_cmp(x->name ? x->name : "", y->name ? y->name : "");
}

static const struct node_info *find_node(const struct sinfo_data *d, const char *name)
{
	struct node_info key = {.name = (char *)name};
	const struct node_info *kp = &key, **hit;

	if (!d->nodes->nodes_count)
		return NULL;
	hit = bsearch(&kp, d->by_name, d->nodes->nodes_count, sizeof(*d->by_name),
	              cmp_node_ptr);
	return hit ? *hit : NULL;
}

/* Put node n (of partition part, or NULL) into a record. */
static void place_node(struct sinfo_data *d, const struct sinfo_opts *o,
                       const struct match *m, const struct part_info *part,
                       size_t part_index, size_t first_rec, const struct node_info *n)
{
	if (!o->node_mode) {
		for (size_t i = first_rec; i < d->nrecs; i++) {
			struct srec *r = &d->recs[i];

			if (r->n && node_matches(m, r->nodes[0], n)) {
				rec_add(r, n);
				return;
			}
		}
	}
	rec_add(rec_new(d, part, part_index), n);
}

static int part_selected(const struct sinfo_opts *o, const struct part_info *p)
{
	if ((p->flags & PART_INFO_F_HIDDEN) && !o->all)
		return 0;
	return !o->parts || strv_has(o->parts, p->name, 0);
}

static void build_records(struct sinfo_data *d, const struct sinfo_opts *o,
                          const struct match *m)
{
	unsigned char *seen = xcalloc(d->nodes->nodes_count + 1, 1);
	int by_part = m->part || o->node_mode;

	for (uint32_t pi = 0; pi < d->parts->parts_count; pi++) {
		const struct part_info *p = &d->parts->parts[pi];
		size_t first = d->nrecs, count = 0;
		char **names = NULL;

		if (!part_selected(o, p))
			continue;
		if (p->nodes && *p->nodes &&
		    hostlist_expand(p->nodes, &names, &count, NULL) < 0)
			count = 0;
		for (size_t k = 0; k < count; k++) {
			const struct node_info *n = find_node(d, names[k]);
			size_t idx;

			if (!n || !node_selected(o, n))
				continue;
			idx = (size_t)(n - d->nodes->nodes);
			if (!by_part) {
				if (seen[idx])
					continue;
				seen[idx] = 1;
			}
			place_node(d, o, m, by_part ? p : NULL, by_part ? pi : 0,
			           by_part ? first : 0, n);
		}
		hostlist_free(names);
		/* Slurm lists a partition without nodes, unless filtering */
		if (by_part && !o->node_mode && first == d->nrecs && !filtering(o))
			rec_new(d, p, pi);
	}
	free(seen);
}

static char *compress_names(const struct srec *r, int which)
{
	char **names = xcalloc(r->n + 1, sizeof(*names));
	char *s;

	for (size_t i = 0; i < r->n; i++) {
		const struct node_info *n = r->nodes[i];
		const char *v = which == 0 ? n->name : which == 1 ? n->hostname : n->addr;

		names[i] = (char *)(v && *v ? v : n->name ? n->name : "");
	}
	/* a record's nodes share one host name and address (struct match) */
	s = hostlist_compress(names, which && r->n ? 1 : r->n);
	if (!s)
		fatal("out of memory");
	free(names);
	return s;
}

static void finish_records(struct sinfo_data *d)
{
	for (size_t i = 0; i < d->nrecs; i++) {
		struct srec *r = &d->recs[i];

		if (r->n)
			qsort(r->nodes, r->n, sizeof(*r->nodes), cmp_node_natural);
		r->nodelist = compress_names(r, 0);
		r->hostnames = compress_names(r, 1);
		r->addrs = compress_names(r, 2);
	}
}

static uint32_t rec_state(const struct srec *r)
{
	return r->n ? r->nodes[0]->state : 0;
}

static int cmp_recs_part(const void *pa, const void *pb)
{
	const struct srec *a = pa, *b = pb;
	uint32_t sa = rec_state(a), sb = rec_state(b);

	if (a->part_index != b->part_index)
		return a->part_index < b->part_index ? -1 : 1;
	if (sa != sb)
		return sa > sb ? -1 : 1; /* "-t": higher states first */
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_recs_node(const void *pa, const void *pb)
{
	const struct srec *a = pa, *b = pb;
	int c = rank_natural_cmp(a->n ? a->nodes[0]->name : "",
	                         b->n ? b->nodes[0]->name : "");

	if (c)
		return c;
	if (a->part_index != b->part_index)
		return a->part_index < b->part_index ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ---- values ---- */

struct minmax {
	uint64_t min, max;
};

static struct minmax rec_range(const struct srec *r,
                               uint64_t (*get)(const struct node_info *))
{
	struct minmax mm = {0, 0};

	for (size_t i = 0; i < r->n; i++) {
		uint64_t v = get(r->nodes[i]);

		if (!i || v < mm.min)
			mm.min = v;
		if (!i || v > mm.max)
			mm.max = v;
	}
	return mm;
}

static uint64_t get_cpus(const struct node_info *n)
{
	return n->cpus;
}
static uint64_t get_mem(const struct node_info *n)
{
	return n->real_memory;
}
static uint64_t get_disk(const struct node_info *n)
{
	return n->tmp_disk;
}
static uint64_t get_weight(const struct node_info *n)
{
	return n->weight;
}
static uint64_t get_sockets(const struct node_info *n)
{
	return n->sockets;
}
static uint64_t get_cores(const struct node_info *n)
{
	return n->cores;
}
static uint64_t get_threads(const struct node_info *n)
{
	return n->threads;
}
static uint64_t get_load(const struct node_info *n)
{
	return n->cpu_load;
}
static uint64_t get_free_mem(const struct node_info *n)
{
	return n->free_memory;
}
static uint64_t get_alloc_mem(const struct node_info *n)
{
	return n->alloc_memory;
}
static uint64_t get_port(const struct node_info *n)
{
	return n->port;
}

/* "4" or "4+" (or "4-8" when range) as Slurm prints grouped sizes. */
static const char *fmt_minmax(struct minmax mm, int range, char *buf, size_t len)
{
	if (mm.min == mm.max)
		snprintf(buf, len, "%llu", (unsigned long long)mm.min);
	else if (range)
		snprintf(buf, len, "%llu-%llu", (unsigned long long)mm.min,
		         (unsigned long long)mm.max);
	else
		snprintf(buf, len, "%llu+", (unsigned long long)mm.min);
	return buf;
}

static const char *rec_minmax(const struct srec *r,
                              uint64_t (*get)(const struct node_info *), char *buf,
                              size_t len)
{
	return fmt_minmax(rec_range(r, get), 0, buf, len);
}

static const char *rec_load(const struct srec *r, char *buf, size_t len)
{
	struct minmax mm = rec_range(r, get_load);

	if (!r->n || mm.max == NO_VAL)
		return "N/A";
	if (mm.min == mm.max)
		snprintf(buf, len, "%.2f", mm.min / 100.0);
	else
		snprintf(buf, len, "%.2f-%.2f", mm.min / 100.0, mm.max / 100.0);
	return buf;
}

static int node_other(const struct node_info *n)
{
	return base_of(n->state) == NODE_DOWN ||
	       (n->state & (NODE_DRAIN | NODE_NO_RESPOND));
}

static const char *rec_cpu_states(const struct srec *r, char *buf, size_t len)
{
	uint64_t a = 0, i = 0, o = 0, t = 0;

	for (size_t k = 0; k < r->n; k++) {
		const struct node_info *n = r->nodes[k];
		uint32_t alloc = n->alloc_cpus > n->cpus ? n->cpus : n->alloc_cpus;

		t += n->cpus;
		a += alloc;
		if (node_other(n))
			o += n->cpus - alloc;
		else
			i += n->cpus - alloc;
	}
	snprintf(buf, len, "%llu/%llu/%llu/%llu", (unsigned long long)a,
	         (unsigned long long)i, (unsigned long long)o, (unsigned long long)t);
	return buf;
}

static const char *rec_node_states(const struct srec *r, int with_other, char *buf,
                                   size_t len)
{
	size_t a = 0, i = 0, o = 0;

	for (size_t k = 0; k < r->n; k++) {
		const struct node_info *n = r->nodes[k];
		int base = base_of(n->state);

		if (node_other(n))
			o++;
		else if (base == NODE_ALLOCATED || base == NODE_MIXED || n->alloc_cpus)
			a++;
		else
			i++;
	}
	if (with_other)
		snprintf(buf, len, "%zu/%zu/%zu/%zu", a, i, o, r->n);
	else
		snprintf(buf, len, "%zu/%zu", a, i);
	return buf;
}

static const char *part_state_name(uint32_t st)
{
	switch (st) {
	case CONF_PART_UP:
		return "up";
	case CONF_PART_DOWN:
		return "down";
	case CONF_PART_DRAIN:
		return "drain";
	case CONF_PART_INACTIVE:
		return "inact";
	}
	return "unknown";
}

static const char *part_time(uint32_t minutes, int is_default, char *buf, size_t len)
{
	if (minutes == NO_VAL || (is_default && minutes == INFINITE32))
		return "n/a";
	if (minutes == INFINITE32)
		return "infinite";
	return timefmt_limit(minutes, buf, len);
}

static const char *part_job_size(const struct part_info *p, char *buf, size_t len)
{
	if (p->max_nodes == INFINITE32 || p->max_nodes == NO_VAL)
		snprintf(buf, len, "%u-infinite", p->min_nodes);
	else if (p->min_nodes == p->max_nodes)
		snprintf(buf, len, "%u", p->min_nodes);
	else
		snprintf(buf, len, "%u-%u", p->min_nodes, p->max_nodes);
	return buf;
}

static const char *part_oversubscribe(const char *os, char *buf, size_t len)
{
	size_t i;

	if (!os || !*os)
		return "NO";
	for (i = 0; os[i] && i + 1 < len; i++)
		buf[i] = (char)((os[i] >= 'a' && os[i] <= 'z') ? os[i] - 32 : os[i]);
	buf[i] = '\0';
	if ((!strcmp(buf, "YES") || !strcmp(buf, "FORCE")) && i + 3 < len)
		memcpy(buf + i, ":4", 3);
	return buf;
}

/* %P: the name, with '*' for the default partition; when it does not fit the
 * column, the '*' replaces the last visible character. */
static const char *part_name_star(const struct part_info *p, int width, char *buf,
                                  size_t len)
{
	size_t n = strlen(p->name ? p->name : "");

	if (!p->is_default)
		return p->name ? p->name : "";
	if (width > 0 && n >= (size_t)width) {
		snprintf(buf, len, "%.*s*", width - 1, p->name);
		return buf;
	}
	snprintf(buf, len, "%s*", p->name);
	return buf;
}

static const char *reason_user(const struct srec *r, int with_uid, char *buf, size_t len)
{
	const struct node_info *n = r->n ? r->nodes[0] : NULL;
	char name[128];

	if (!n || !n->reason || !*n->reason || n->reason_uid == NO_VAL)
		return "Unknown";
	if (uid_to_name(n->reason_uid, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "%u", n->reason_uid);
	if (with_uid)
		snprintf(buf, len, "%s(%u)", name, n->reason_uid);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

static const char *node_str(const struct srec *r, size_t off, const char *dflt)
{
	const char *s;

	if (!r->n)
		return dflt;
	s = *(char *const *)((const char *)r->nodes[0] + off);
	return s && *s ? s : dflt;
}

static const char *state_complete(uint32_t st, char *buf, size_t len)
{
	node_state_upper(st, buf, (int)len);
	for (char *p = buf; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p + 32);
	return buf;
}

static const char *part_value(const struct fmt_col *col, const struct part_info *p,
                              char *buf, size_t len)
{
	switch (col->field->id) {
	case 'a':
		return part_state_name(p->state);
	case 'B':
		return "UNLIMITED";
	case 'g':
		return p->allow_groups && *p->allow_groups ? p->allow_groups : "all";
	case 'h':
		return part_oversubscribe(p->oversubscribe, buf, len);
	case 'I':
		snprintf(buf, len, "%u", p->priority_job_factor);
		return buf;
	case 'l':
		return part_time(p->max_time, 0, buf, len);
	case 'L':
		return part_time(p->default_time, 1, buf, len);
	case 'M':
		return p->preempt_mode ? p->preempt_mode : "OFF";
	case 'p':
		snprintf(buf, len, "%u", p->priority_tier);
		return buf;
	case 'P':
		return part_name_star(p, col->width, buf, len);
	case 'r':
		return "no";
	case 'R':
		return p->name ? p->name : "";
	case 's':
		return part_job_size(p, buf, len);
	case 'S':
		return "all";
	}
	return NULL;
}

static const char *rec_value(const struct fmt_col *col, const void *vrec, void *ctx,
                             char *buf, size_t len)
{
	const struct srec *r = vrec;
	const struct node_info *n0 = r->n ? r->nodes[0] : NULL;
	static const char part_ids[] = "aBghIlLMpPrRsS";
	int id = col->field->id;

	if (id < 256 && strchr(part_ids, id)) {
		if (!r->part)
			return "n/a";
		return part_value(col, r->part, buf, len);
	}
	switch (id) {
	case 'A':
		return rec_node_states(r, 0, buf, len);
	case 'b':
		return node_str(r, offsetof(struct node_info, features_act), "(null)");
	case 'f':
		return node_str(r, offsetof(struct node_info, features), "(null)");
	case 'c':
		return rec_minmax(r, get_cpus, buf, len);
	case 'C':
		return rec_cpu_states(r, buf, len);
	case 'd':
		return rec_minmax(r, get_disk, buf, len);
	case 'D':
		snprintf(buf, len, "%zu", r->n);
		return buf;
	case 'e': {
		struct minmax mm = rec_range(r, get_free_mem);

		if (!r->n || mm.max == NO_VAL64)
			return "N/A";
		return fmt_minmax(mm, 1, buf, len);
	}
	case 'E':
		return node_str(r, offsetof(struct node_info, reason), "none");
	case 'F':
		return rec_node_states(r, 1, buf, len);
	case 'G':
		return node_str(r, offsetof(struct node_info, gres), "(null)");
	case 'H':
		if (!n0 || !n0->reason || !*n0->reason || n0->reason_time <= 0)
			return "Unknown";
		return timefmt_iso((time_t)n0->reason_time, buf, len);
	case 'm':
		return rec_minmax(r, get_mem, buf, len);
	case 'n':
		return r->hostnames;
	case 'N':
		return r->nodelist;
	case 'o':
		return r->addrs;
	case 'O':
		return rec_load(r, buf, len);
	case 't':
		return n0 ? node_state_short(n0->state, buf, (int)len) : "n/a";
	case 'T':
		return n0 ? node_state_long(n0->state, buf, (int)len) : "n/a";
	case 'u':
		return reason_user(r, 0, buf, len);
	case 'U':
		return reason_user(r, 1, buf, len);
	case 'v':
		return node_str(r, offsetof(struct node_info, version), "N/A");
	case 'V': {
		struct conf *conf = cli_conf();

		return conf->cluster_name ? conf->cluster_name : "N/A";
	}
	case 'w':
		return rec_minmax(r, get_weight, buf, len);
	case 'X':
		return rec_minmax(r, get_sockets, buf, len);
	case 'Y':
		return rec_minmax(r, get_cores, buf, len);
	case 'Z':
		return rec_minmax(r, get_threads, buf, len);
	case 'z': {
		char s[32], c[32], t[32];

		snprintf(buf, len, "%s:%s:%s", rec_minmax(r, get_sockets, s, sizeof(s)),
		         rec_minmax(r, get_cores, c, sizeof(c)),
		         rec_minmax(r, get_threads, t, sizeof(t)));
		return buf;
	}
	case F_STATE_COMPLETE:
		return n0 ? state_complete(n0->state, buf, len) : "n/a";
	case F_ALLOC_MEM:
		return rec_minmax(r, get_alloc_mem, buf, len);
	case F_PORT:
		return rec_minmax(r, get_port, buf, len);
	case F_GRES_USED:
		return node_str(r, offsetof(struct node_info, gres_used), "(null)");
	case F_COMMENT:
		return "(null)";
	}
	return "";
}

/* The '#' widths of the default formats: at least 9, else the widest value. */
static void auto_widths(struct fmt_layout *layout, const struct sinfo_data *d,
                        int part_col, int node_col)
{
	int pw = SINFO_MIN_AUTO_WIDTH, nw = SINFO_MIN_AUTO_WIDTH;

	for (size_t i = 0; i < d->nrecs; i++) {
		const struct srec *r = &d->recs[i];
		int w;

		if (r->part && r->part->name) {
			w = (int)strlen(r->part->name) + (r->part->is_default ? 1 : 0);
			if (w > pw)
				pw = w;
		}
		w = (int)strlen(r->nodelist);
		if (w > nw)
			nw = w;
	}
	for (size_t i = 0; i < layout->ncols; i++) {
		struct fmt_col *col = &layout->cols[i];

		if (!col->field || col->width)
			continue;
		if (part_col && col->field->id == 'P')
			col->width = pw;
		if (node_col && col->field->id == 'N')
			col->width = nw;
	}
}

/* ---- JSON ---- */

/* --json: Slurm's v0.0.38 document: the nodes and partitions rotarestd's GET
 * nodes and partitions answer (proto/slurm_json.h). */
static void print_json(const struct sinfo_data *d, int as)
{
	json_t *root = sj_response(), *nodes = json_array(), *parts = json_array();

	for (uint32_t i = 0; i < d->nodes->nodes_count; i++)
		json_array_append_new(nodes, sj_node(&d->nodes->nodes[i]));
	for (uint32_t i = 0; i < d->parts->parts_count; i++)
		json_array_append_new(parts, sj_partition(&d->parts->parts[i]));
	json_object_set_new(root, "nodes", nodes);
	json_object_set_new(root, "partitions", parts);
	cli_print_doc(root, as);
	json_decref(root);
}

/* ---- options ---- */

enum { OPT_JSON = 1000, OPT_USAGE, OPT_HELP, OPT_IGNORE, OPT_YAML, OPT_HIDE };

static void parse_args(struct sinfo_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"all", no_argument, 0, 'a'},
	    {"clusters", required_argument, 0, 'M'},
	    {"dead", no_argument, 0, 'd'},
	    {"exact", no_argument, 0, 'e'},
	    {"federation", no_argument, 0, OPT_IGNORE},
	    {"format", required_argument, 0, 'o'},
	    {"Format", required_argument, 0, 'O'},
	    {"help", no_argument, 0, OPT_HELP},
	    {"hide", no_argument, 0, OPT_HIDE},
	    {"iterate", required_argument, 0, 'i'},
	    {"json", no_argument, 0, OPT_JSON},
	    {"list-reasons", no_argument, 0, 'R'},
	    {"local", no_argument, 0, OPT_IGNORE},
	    {"long", no_argument, 0, 'l'},
	    {"noconvert", no_argument, 0, OPT_IGNORE},
	    {"Node", no_argument, 0, 'N'},
	    {"nodes", required_argument, 0, 'n'},
	    {"noheader", no_argument, 0, 'h'},
	    {"partition", required_argument, 0, 'p'},
	    {"reservation", no_argument, 0, 'T'},
	    {"responding", no_argument, 0, 'r'},
	    {"sort", required_argument, 0, 'S'},
	    {"states", required_argument, 0, 't'},
	    {"summarize", no_argument, 0, 's'},
	    {"usage", no_argument, 0, OPT_USAGE},
	    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},
	    {"yaml", no_argument, 0, OPT_YAML},
	    {0, 0, 0, 0},
	};
	int c, opt_a = 0, opt_p = 0;

	while ((c = getopt_long(argc, argv, "adehi:lM:n:No:O:p:rRsS:t:TvV", longopts,
	                        NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dead = 1;
			break;
		case 'e':
			o->exact = 1;
			break;
		case 'h':
			o->noheader = 1;
			break;
		case 'i':
			o->iterate = fmt_parse_iterate(optarg);
			break;
		case 'l':
			o->long_list = 1;
			break;
		case 'n':
			fmt_parse_nodes(&o->node_names, optarg);
			break;
		case 'N':
			o->node_mode = 1;
			break;
		case 'o':
			o->format = optarg;
			break;
		case 'O':
			o->long_format = optarg;
			break;
		case 'p':
			fmt_strv_free(o->parts);
			o->parts = fmt_split(optarg, ",");
			o->all = opt_p = 1;
			break;
		case 'r':
			o->responding = 1;
			break;
		case 'R':
			o->list_reasons = 1;
			break;
		case 's':
			o->summarize = 1;
			break;
		case 't':
			fmt_strv_free(o->states);
			o->states = fmt_split(optarg, ",");
			check_states(o->states);
			break;
		case 'T':
			o->resv = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			fmt_print_version();
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_YAML:
			o->json = CLI_DOC_YAML;
			break;
		case OPT_USAGE:
			usage(stdout);
			exit(0);
		case OPT_HELP:
			help();
		case 'M':
			cli_clusters_check(optarg, 0);
			break;
		case 'a':
			o->all = opt_a = 1;
			fmt_strv_free(o->parts);
			o->parts = NULL;
			break;
		case 'S':
			o->sort = optarg;
			break;
		case OPT_HIDE:
			o->all = 0;
			break;
		case OPT_IGNORE:
			break;
		default:
			fmt_bad_option();
		}
	}
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage(stderr);
		exit(1);
	}
	if (opt_a && opt_p) {
		cli_error("Conflicting options, -a and -p, specified. "
		          "Please choose one or the other.");
		exit(1);
	}
}

static const char *tf(int v)
{
	return v ? "true" : "false";
}

/* "name = a,b,c" (none: "n/a"). */
static void print_list(const char *name, char *const *v)
{
	printf("%-11s =", name);
	for (size_t i = 0; v && v[i]; i++)
		printf("%s%s", i ? "," : " ", v[i]);
	printf("%s\n", v && v[0] ? "" : " n/a");
}

/* -v: the options in effect, one "name = value" a line, as Slurm's sinfo
 * prints them before its report. */
static void print_options(const struct sinfo_opts *o)
{
	printf("-----------------------------\n");
	printf("dead        = %s\n", tf(o->dead));
	printf("exact       = %d\n", o->exact);
	printf("format      = %s\n", o->format ? o->format : "(null)");
	printf("Format      = %s\n", o->long_format ? o->long_format : "(null)");
	printf("iterate     = %u\n", o->iterate);
	printf("long        = %s\n", tf(o->long_list));
	printf("no_header   = %s\n", tf(o->noheader));
	printf("node_format = %s\n", tf(o->node_mode));
	print_list("nodes", o->node_names);
	print_list("partition", o->parts);
	printf("responding  = %s\n", tf(o->responding));
	print_list("states", o->states);
	printf("sort        = %s\n", o->sort ? o->sort : "(null)");
	printf("summarize   = %s\n", tf(o->summarize));
	printf("verbose     = %d\n", o->verbose);
	printf("all         = %s\n", tf(o->all));
	printf("-----------------------------\n\n");
}

/* The format to use; *auto_part / *auto_node say which columns get '#' widths. */
static const char *pick_format(const struct sinfo_opts *o, enum fmt_syntax *syntax,
                               int *auto_part, int *auto_node)
{
	const char *env;

	*syntax = FMT_SHORT;
	*auto_part = *auto_node = 0;
	if (o->format)
		return o->format;
	if (o->long_format) {
		*syntax = FMT_LONG;
		return o->long_format;
	}
	if (o->node_mode) {
		*auto_part = *auto_node = 1;
		return o->long_list ? SINFO_NODE_LONG_FMT : SINFO_NODE_FMT;
	}
	if (o->list_reasons)
		return o->long_list ? SINFO_REASONS_LONG_FMT : SINFO_REASONS_FMT;
	if ((env = getenv("SINFO_FORMAT")) && *env)
		return env;
	*auto_part = 1;
	if (o->summarize)
		return SINFO_SUMMARIZE_FMT;
	return o->long_list ? SINFO_LONG_FMT : SINFO_DEFAULT_FMT;
}

static void *load(uint16_t req_type, uint16_t resp_type, const char *what, uint16_t *ret)
{
	struct empty_msg req = {0};
	char *msg = NULL;
	void *body = NULL;

	if (call_ctld(req_type, &req, resp_type, &body, &msg)) {
		fprintf(stderr, "%s: %s\n", what, msg);
		exit(1);
	}
	*ret = resp_type;
	return body;
}

static void data_release(struct sinfo_data *d)
{
	for (size_t i = 0; i < d->nrecs; i++) {
		free(d->recs[i].nodes);
		free(d->recs[i].nodelist);
		free(d->recs[i].hostnames);
		free(d->recs[i].addrs);
	}
	free(d->recs);
	free(d->by_name);
	msg_body_free(MSG_PART_INFO_RESP, d->parts);
	msg_body_free(MSG_NODE_INFO_RESP, d->nodes);
	memset(d, 0, sizeof(*d));
}

/* -S: each key a field letter, '-' for descending, '#P' the partitions in
 * slurm.conf's order; a letter sinfo does not know is passed over, as
 * Slurm's. */
struct sort_key {
	const struct fmt_field *field; /* NULL: #P */
	int desc;
};
#define SINFO_SORT_KEYS 16

static size_t sort_keys_parse(const char *spec, struct sort_key *k)
{
	size_t n = 0;
	int desc = 0, conf_order = 0;

	for (const char *p = spec; *p && n < SINFO_SORT_KEYS; p++) {
		const struct fmt_field *f = NULL;
		if (*p == ',' || *p == '+' || *p == '-' || *p == '#') {
			desc = *p == '-' ? 1 : *p == ',' ? 0 : desc;
			conf_order = *p == '#' ? 1 : *p == ',' ? 0 : conf_order;
			continue;
		}
		for (size_t i = 0; i < sizeof(node_fields) / sizeof(node_fields[0]); i++)
			if (node_fields[i].id == *p)
				f = &node_fields[i];
		if (f || (*p == 'P' && conf_order))
			k[n++] =
			    (struct sort_key){conf_order && *p == 'P' ? NULL : f, desc};
		desc = conf_order = 0;
	}
	return n;
}

/* A number, when the whole text is one. */
static int as_number(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return *s && end != s && !*end;
}

static int cmp_key(const struct sort_key *k, const struct srec *a, const struct srec *b)
{
	struct fmt_col col = {.field = k->field};
	char ba[256], bb[256];
	const char *va, *vb;
	double na, nb;
	int c;

	if (!k->field)
		c = a->part_index < b->part_index ? -1 : a->part_index > b->part_index;
	else if (k->field->id == 't' || k->field->id == 'T')
		c = rec_state(a) < rec_state(b) ? -1 : rec_state(a) > rec_state(b);
	else {
		va = rec_value(&col, a, NULL, ba, sizeof(ba));
		vb = rec_value(&col, b, NULL, bb, sizeof(bb));
		if (as_number(va, &na) && as_number(vb, &nb))
			c = na < nb ? -1 : na > nb;
		else
			c = rank_natural_cmp(va ? va : "", vb ? vb : "");
	}
	return k->desc ? -c : c;
}

struct sort_spec {
	struct sort_key k[SINFO_SORT_KEYS];
	size_t n;
};

static int cmp_recs_spec(const void *pa, const void *pb, void *arg)
{
	const struct sort_spec *sp = arg;
	const struct srec *a = pa, *b = pb;

	for (size_t i = 0; i < sp->n; i++) {
		int c = cmp_key(&sp->k[i], a, b);
		if (c)
			return c;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void print_once(const struct sinfo_opts *o, struct fmt_layout *layout,
                       const struct match *m, int auto_part, int auto_node)
{
	struct sinfo_data d = {0};
	uint16_t type;
	time_t now;

	d.parts =
	    load(MSG_PART_INFO_REQ, MSG_PART_INFO_RESP, "slurm_load_partitions", &type);
	d.nodes = load(MSG_NODE_INFO_REQ, MSG_NODE_INFO_RESP, "slurm_load_node", &type);
	now = d.nodes->now > 0 ? (time_t)d.nodes->now : time(NULL);
	if (o->json) {
		print_json(&d, o->json);
		data_release(&d);
		return;
	}
	d.by_name = xcalloc(d.nodes->nodes_count + 1, sizeof(*d.by_name));
	for (uint32_t i = 0; i < d.nodes->nodes_count; i++)
		d.by_name[i] = &d.nodes->nodes[i];
	if (d.nodes->nodes_count)
		qsort(d.by_name, d.nodes->nodes_count, sizeof(*d.by_name), cmp_node_ptr);
	build_records(&d, o, m);
	finish_records(&d);
	if (d.nrecs && o->sort) {
		struct sort_spec sp;
		sp.n = sort_keys_parse(o->sort, sp.k);
		qsort_r(d.recs, d.nrecs, sizeof(*d.recs), cmp_recs_spec, &sp);
	} else if (d.nrecs) {
		qsort(d.recs, d.nrecs, sizeof(*d.recs),
		      o->node_mode ? cmp_recs_node : cmp_recs_part);
	}
	auto_widths(layout, &d, auto_part, auto_node);
	if (!o->noheader && (o->iterate || o->verbose || o->long_list))
		fmt_print_date(stdout, now);
	if (!o->noheader)
		fmt_print_header(stdout, layout);
	for (size_t i = 0; i < d.nrecs; i++)
		fmt_print_row(stdout, layout, rec_value, &d.recs[i], NULL);
	data_release(&d);
}

/* sinfo -T: one line a reservation, the name column as wide as the
 * longest (at least 9), in Slurm's layout. */
static int print_resvs(const struct sinfo_opts *o)
{
	struct resv_info_resp *r;
	int w = 9;

	if (scontrol_resv_load(NULL, &r) < 0)
		return 1;
	if (!r->resvs_count) {
		printf("No reservations in the system\n");
		msg_body_free(MSG_RESV_INFO_RESP, r);
		return 0;
	}
	for (uint32_t i = 0; i < r->resvs_count; i++)
		if ((int)strlen(r->resvs[i].name) > w)
			w = (int)strlen(r->resvs[i].name);
	if (!o->noheader)
		printf("%-*s  %8s  %19s  %19s  %11s  %s\n", w, "RESV_NAME", "STATE",
		       "START_TIME", "END_TIME", "DURATION", "NODELIST");
	for (uint32_t i = 0; i < r->resvs_count; i++) {
		const struct resv_info *v = &r->resvs[i];
		char s[32], e[32], d[32];
		timefmt_iso(v->start, s, sizeof(s));
		timefmt_iso(v->end, e, sizeof(e));
		timefmt_duration((long)(v->end - v->start), d, sizeof(d));
		printf("%-*s  %8s  %19s  %19s  %11s  %s\n", w, v->name,
		       v->start <= r->time && r->time < v->end ? "ACTIVE" : "INACTIVE", s,
		       e, d, v->nodes ? v->nodes : "(null)");
	}
	msg_body_free(MSG_RESV_INFO_RESP, r);
	return 0;
}

int cmd_sinfo(int argc, char **argv)
{
	struct sinfo_opts o = {0};
	struct fmt_layout *layout;
	enum fmt_syntax syntax;
	int auto_part, auto_node;
	const char *fmt, *env;
	struct match m;

	if ((env = getenv("SINFO_PARTITION")) && *env) {
		o.parts = fmt_split(env, ",");
		o.all = 1;
	}
	/* SINFO_FEDERATION, SINFO_LOCAL: one cluster */
	if (getenv("SINFO_ALL")) {
		if (o.parts) {
			cli_error("Conflicting options, SINFO_ALL and SINFO_PARTITION, "
			          "specified. Please choose one or the other.");
			exit(1);
		}
		o.all = 1;
	}
	if ((env = getenv("SINFO_SORT")) && *env)
		o.sort = env;
	parse_args(&o, argc, argv);
	if (o.verbose)
		print_options(&o);
	if (o.resv)
		return print_resvs(&o);
	fmt = pick_format(&o, &syntax, &auto_part, &auto_node);
	layout = fmt_layout_create(fmt, syntax, node_fields,
	                           sizeof(node_fields) / sizeof(node_fields[0]), "node");
	match_from_layout(layout, o.exact, &m);
	if (o.summarize && !o.format && !o.long_format)
		m.state = 0;
	for (;;) {
		/* the '#' widths are recomputed on every pass */
		if (auto_part || auto_node)
			for (size_t i = 0; i < layout->ncols; i++)
				if (layout->cols[i].field &&
				    ((auto_part && layout->cols[i].field->id == 'P') ||
				     (auto_node && layout->cols[i].field->id == 'N')))
					layout->cols[i].width = 0;
		print_once(&o, layout, &m, auto_part, auto_node);
		if (!o.iterate)
			break;
		fflush(stdout);
		sleep(o.iterate);
		putchar('\n');
	}
	fmt_layout_destroy(layout);
	fmt_strv_free(o.parts);
	fmt_strv_free(o.states);
	hostlist_free(o.node_names);
	return 0;
}
