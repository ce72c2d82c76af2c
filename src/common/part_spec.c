/* part_spec.c - scontrol's partition specifications (part_spec.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/part_spec.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "common/common.h"

/* How a tag's value is read. */
enum kind {
	K_NAME,     /* PartitionName */
	K_TIME,     /* minutes, [D-]HH:MM:SS, UNLIMITED */
	K_COUNT,    /* a number, or UNLIMITED/INFINITE */
	K_NODES,    /* a node count: N, or N-M (N taken) */
	K_BOOL,     /* YES or NO, by prefix */
	K_OVERSUB,  /* NO, EXCLUSIVE, YES[:N], FORCE[:N], by prefix */
	K_PREEMPT,  /* OFF, CANCEL, REQUEUE, SUSPEND, GANG, WITHIN (a list) */
	K_PRIO,     /* Priority=: tier and job factor at once */
	K_U16,      /* a number below 65534 */
	K_U32,      /* a number */
	K_MEM,      /* megabytes; the sibling (PerCPU/PerNode) is cleared */
	K_STATE,    /* UP, DOWN, DRAIN, INACTIVE, by prefix */
	K_LIST,     /* a list kept as given; "" none */
	K_ALL_LIST, /* a list where ALL (or "") means everyone */
	K_NONE_STR, /* a name where NONE (or "") means none */
	K_NOT_ROTA, /* a Slurm key Rota does not keep */
};

/* Slurm's scontrol tests the tags in this order, each by abbreviation of at
 * least min bytes; the first that matches takes the argument. */
static const struct tag {
	const char *tag;
	size_t min;
	enum kind kind;
	const char *key;     /* slurm.conf's spelling; NULL: the tag's */
	const char *sibling; /* K_MEM: the key cleared with it */
} tags[] = {
    {"PartitionName", 2, K_NAME, NULL, NULL},
    {"MaxTime", 4, K_TIME, NULL, NULL},
    {"CpuBind", 7, K_NOT_ROTA, NULL, NULL},
    {"DefaultTime", 8, K_TIME, NULL, NULL},
    {"MaxCPUsPerNode", 4, K_COUNT, NULL, NULL},
    {"MaxNodes", 4, K_NODES, NULL, NULL},
    {"MinNodes", 2, K_NODES, NULL, NULL},
    {"Default", 7, K_BOOL, NULL, NULL},
    {"DisableRootJobs", 1, K_BOOL, NULL, NULL},
    {"ExclusiveUser", 1, K_BOOL, NULL, NULL},
    {"Hidden", 1, K_BOOL, NULL, NULL},
    {"LLN", 1, K_BOOL, NULL, NULL},
    {"RootOnly", 3, K_BOOL, NULL, NULL},
    {"ReqResv", 3, K_BOOL, NULL, NULL},
    {"OverSubscribe", 5, K_OVERSUB, NULL, NULL},
    {"Shared", 2, K_OVERSUB, "OverSubscribe", NULL},
    {"OverTimeLimit", 5, K_COUNT, NULL, NULL},
    {"PreemptMode", 3, K_PREEMPT, NULL, NULL},
    {"Priority", 3, K_PRIO, NULL, NULL},
    {"PriorityJobFactor", 3, K_U16, NULL, NULL},
    {"PriorityTier", 3, K_U16, NULL, NULL},
    {"State", 2, K_STATE, NULL, NULL},
    {"Nodes", 1, K_LIST, NULL, NULL},
    {"AllowGroups", 6, K_ALL_LIST, NULL, NULL},
    {"AllowAccounts", 6, K_ALL_LIST, NULL, NULL},
    {"AllowQos", 6, K_ALL_LIST, NULL, NULL},
    {"DenyAccounts", 5, K_LIST, NULL, NULL},
    {"DenyQos", 5, K_LIST, NULL, NULL},
    {"AllocNodes", 6, K_ALL_LIST, NULL, NULL},
    {"Alternate", 3, K_NONE_STR, NULL, NULL},
    {"GraceTime", 5, K_U32, NULL, NULL},
    {"DefMemPerCPU", 10, K_MEM, NULL, "DefMemPerNode"},
    {"DefMemPerNode", 10, K_MEM, NULL, "DefMemPerCPU"},
    {"MaxMemPerCPU", 10, K_MEM, NULL, "MaxMemPerNode"},
    {"MaxMemPerNode", 10, K_MEM, NULL, "MaxMemPerCPU"},
    {"QoS", 3, K_LIST, "QOS", NULL},
    {"JobDefaults", 4, K_NOT_ROTA, NULL, NULL},
    {"TresBillingWeights", 1, K_LIST, "TRESBillingWeights", NULL},
};

/* tag (len bytes) abbreviates word, at least min of it */
static int abbrev(const char *tag, size_t len, const char *word, size_t min)
{
	return len >= min && len <= strlen(word) && !strncasecmp(tag, word, len);
}

/* value (as long as it is, at least one byte) abbreviates word */
static int word_is(const char *value, const char *word)
{
	size_t n = strlen(value);

	return abbrev(value, n ? n : 1, word, 1);
}

int part_spec_is_name_tag(const char *tag, size_t len)
{
	return abbrev(tag, len, "PartitionName", 3);
}

static void add(struct part_spec *s, const char *key, const char *value)
{
	char *kv = xasprintf("%s=%s", key, value);

	s->kv = strv_append(s->kv, kv);
	free(kv);
}

/* A whole unsigned decimal number no greater than max. */
static int number(const char *v, uint64_t max, uint64_t *ret)
{
	uint64_t n = 0;

	if (!*v)
		return -1;
	for (; *v; v++) {
		if (!isdigit((unsigned char)*v) || n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	if (n > max)
		return -1;
	*ret = n;
	return 0;
}

static int bad_input(struct rota_error *err, const char *arg, const char *what,
                     const char *words)
{
	errprintf(err, "Invalid input: %s\nAcceptable %s values are %s", arg, what,
	          words);
	return -EINVAL;
}

/* The node count Slurm's scontrol takes: N, or a range N-M whose N is kept,
 * each with an optional k or m (times 1024, 1048576). */
static int node_count(const char *v, uint64_t *ret)
{
	uint64_t n = 0, mult = 1;
	const char *p = v;

	for (; isdigit((unsigned char)*p); p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > UINT32_MAX)
			return -1;
	}
	if (p == v)
		return -1;
	if (*p == 'k' || *p == 'K')
		mult = 1024, p++;
	else if (*p == 'm' || *p == 'M')
		mult = 1024 * 1024, p++;
	if (*p == '-' && (node_count(p + 1, &(uint64_t){0}) < 0 || strchr(p + 1, '-')))
		return -1;
	if (*p && *p != '-')
		return -1;
	if (n * mult > UINT32_MAX - 1)
		return -1;
	*ret = n * mult;
	return 0;
}

/* PreemptMode's words, upper-cased, each one Slurm knows. */
static int preempt_words(const char *v, char *out, size_t len)
{
	static const char *const words[] = {"OFF",     "CANCEL", "REQUEUE",
	                                    "SUSPEND", "GANG",   "WITHIN"};
	char **w = strv_split(v, ",");
	size_t used = 0;
	int rc = w[0] ? 0 : -1;

	out[0] = '\0';
	for (size_t i = 0; w[i] && !rc; i++) {
		size_t k;
		for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
			if (!strcasecmp(w[i], words[k]))
				break;
		if (k == sizeof(words) / sizeof(words[0]) ||
		    used + strlen(words[k]) + 2 > len)
			rc = -1;
		else
			used += (size_t)snprintf(out + used, len - used, "%s%s",
			                         used ? "," : "", words[k]);
	}
	strv_free(w);
	return rc;
}

/* One argument arg, its tag t, value v: what it sets, added to s. */
static int read_value(struct part_spec *s, const struct tag *t, const char *arg,
                      const char *v, struct rota_error *err)
{
	const char *key = t->key ? t->key : t->tag;
	char buf[64];
	uint32_t min;
	uint64_t n;

	switch (t->kind) {
	case K_NAME:
		s->name = v;
		return 0;
	case K_TIME:
		if (timefmt_parse_limit(v, &min) < 0)
			return errprintf(err, "Invalid input %s", arg), -EINVAL;
		add(s, key, timefmt_limit(min, buf, sizeof(buf)));
		return 0;
	case K_COUNT:
		if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE"))
			add(s, key, "UNLIMITED");
		else if (number(v, UINT32_MAX - 1, &n) == 0)
			add(s, key, v);
		else
			return errprintf(err, "Invalid %s value: %s", t->tag, v), -EINVAL;
		return 0;
	case K_NODES:
		if (!strcmp(t->tag, "MaxNodes") &&
		    (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE"))) {
			add(s, key, "UNLIMITED");
			return 0;
		}
		if (node_count(v, &n) < 0)
			return errprintf(err, "Invalid input %s", arg), -EINVAL;
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)n);
		add(s, key, buf);
		return 0;
	case K_BOOL:
		if (word_is(v, "NO"))
			add(s, key, "NO");
		else if (word_is(v, "YES"))
			add(s, key, "YES");
		else
			return bad_input(err, arg, t->tag, "YES and NO");
		return 0;
	case K_OVERSUB: {
		const char *colon = strchr(v, ':');
		size_t wl = colon ? (size_t)(colon - v) : strlen(v);
		char word[16];
		uint64_t jobs = 4;

		if (wl >= sizeof(word))
			wl = sizeof(word) - 1;
		memcpy(word, v, wl);
		word[wl] = '\0';
		if (colon && number(colon + 1, 65533, &jobs) < 0)
			jobs = 0; /* not a count: refused below */
		if (word_is(word, "NO")) {
			add(s, key, "NO");
		} else if (word_is(word, "EXCLUSIVE")) {
			add(s, key, "EXCLUSIVE");
		} else if ((word_is(word, "YES") || word_is(word, "FORCE")) && jobs) {
			snprintf(buf, sizeof(buf), "%s:%llu",
			         word_is(word, "YES") ? "YES" : "FORCE",
			         (unsigned long long)jobs);
			add(s, key, buf);
		} else {
			return bad_input(err, arg, "OverSubscribe",
			                 "NO, EXCLUSIVE, YES:#, and FORCE:#");
		}
		return 0;
	}
	case K_PREEMPT:
		if (preempt_words(v, buf, sizeof(buf)) < 0)
			return errprintf(err, "Invalid input: %s", arg), -EINVAL;
		add(s, key, buf);
		return 0;
	case K_PRIO:
	case K_U16:
		if (number(v, 65533, &n) < 0)
			return errprintf(err, "Invalid %s value: %s", t->tag, v), -EINVAL;
		if (t->kind == K_PRIO) {
			add(s, "PriorityTier", v);
			add(s, "PriorityJobFactor", v);
		} else {
			add(s, key, v);
		}
		return 0;
	case K_U32:
		if (number(v, UINT32_MAX - 1, &n) < 0)
			return errprintf(err, "Invalid %s value: %s", t->tag, v), -EINVAL;
		add(s, key, v);
		return 0;
	case K_MEM:
		if (number(v, UINT64_MAX, &n) < 0)
			return errprintf(err, "Invalid %s value: %s", t->tag, v), -EINVAL;
		add(s, key, v);
		add(s, t->sibling, "0");
		return 0;
	case K_STATE:
		if (word_is(v, "INACTIVE"))
			add(s, key, "INACTIVE");
		else if (word_is(v, "DOWN"))
			add(s, key, "DOWN");
		else if (word_is(v, "UP"))
			add(s, key, "UP");
		else if (word_is(v, "DRAIN"))
			add(s, key, "DRAIN");
		else
			return bad_input(err, arg, "State",
			                 "UP, DOWN, DRAIN and INACTIVE");
		return 0;
	case K_ALL_LIST:
		add(s, key, *v ? v : "ALL");
		return 0;
	case K_NONE_STR:
		add(s, key, strcasecmp(v, "NONE") ? v : "");
		return 0;
	case K_LIST:
		if (!strcmp(key, "Nodes") && strpbrk(v, " \t")) {
			char *c = xstrdup(v);
			for (char *p = c; *p; p++)
				if (*p == ' ' || *p == '\t')
					*p = ',';
			add(s, key, c);
			free(c);
			return 0;
		}
		add(s, key, v);
		return 0;
	default: /* K_NOT_ROTA */
		break;
	}
	errprintf(err, "Update of this parameter is not supported: %s\n\nRequest aborted",
	          arg);
	return -ENOTSUP;
}

int part_spec_parse(int argc, char *const *argv, struct part_spec *ret,
                    struct rota_error *err)
{
	memset(ret, 0, sizeof(*ret));
	ret->kv = xcalloc(1, sizeof(*ret->kv));
	if (argc > PART_SPEC_ARGS_MAX) {
		errprintf(err, "Invalid input: more than %d settings  Request aborted",
		          PART_SPEC_ARGS_MAX);
		return -EINVAL;
	}
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		const struct tag *t = NULL;
		size_t len;
		int rc;

		if (!eq) {
			errprintf(err, "Invalid input: %s  Request aborted", arg);
			return -EINVAL;
		}
		len = (size_t)(eq - arg);
		for (size_t k = 0; k < sizeof(tags) / sizeof(tags[0]) && !t; k++)
			if (abbrev(arg, len, tags[k].tag, tags[k].min))
				t = &tags[k];
		if (!t) {
			errprintf(err,
			          "Update of this parameter is not supported: %s\n\n"
			          "Request aborted",
			          arg);
			return -ENOTSUP;
		}
		if ((rc = read_value(ret, t, arg, eq + 1, err)) < 0)
			return rc;
		ret->given++;
	}
	return 0;
}

void part_spec_release(struct part_spec *s)
{
	if (!s)
		return;
	strv_free(s->kv);
	memset(s, 0, sizeof(*s));
}
