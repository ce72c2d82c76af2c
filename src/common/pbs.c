/* pbs.c - #PBS directives as sbatch options (see pbs.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/pbs.h"
#include "common/strv.h"
#include "common/common.h"

/* qsub's options that take a value (the others take none) */
static const char PBS_WITH_VALUE[] = "aAcCeJjklmMNopqrStuvW";
static const char PBS_NO_VALUE[] = "hIVz";

struct out {
	char **words;
	unsigned long nodes, tasks, gpus_per_node, accel;
	unsigned long select, ncpus, mpiprocs;
	int have_select, have_ncpus, have_mpiprocs, have_ppn;
	char *hosts;  /* "a,b" from nodes=a+b */
	char *export; /* -v's, all of them */
};

static void add(struct out *o, const char *opt, const char *value)
{
	char *w = value ? xasprintf("--%s=%s", opt, value) : xasprintf("--%s", opt);
	o->words = strv_append(o->words, w);
	free(w);
}

static void addu(struct out *o, const char *opt, unsigned long v)
{
	char num[32];
	snprintf(num, sizeof(num), "%lu", v);
	add(o, opt, num);
}

/* Torque's sizes end in "b" ("4gb", "512mb"): sbatch's do not. */
static char *size_value(const char *v)
{
	char *s = xstrdup(v);
	size_t n = strlen(s);

	if (n > 1 && (s[n - 1] == 'b' || s[n - 1] == 'B'))
		s[n - 1] = '\0';
	return s;
}

static int number(const char *v, unsigned long *ret)
{
	char *end;
	unsigned long n;

	if (!v || !isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n > 1000000000ul)
		return -1;
	*ret = n;
	return 0;
}

/* "+key=value" continues the group before it, as Slurm reads it
 * ("nodes=3+ppn=2" is "nodes=3:ppn=2"): only a count or a host name starts
 * one. */
static void plus_properties(char *spec)
{
	for (char *p = strchr(spec, '+'); p; p = strchr(p + 1, '+')) {
		if (memchr(p + 1, '=', strcspn(p + 1, "+:")))
			*p = ':';
	}
}

/* nodes=2:ppn=4+1:ppn=2:gpus=1, or nodes=host1+host2 */
static int nodes_spec(struct out *o, char *spec, struct rota_error *err)
{
	char *save = NULL;

	plus_properties(spec);

	/* the last nodes= counts, as a later -N would */
	o->nodes = o->tasks = o->gpus_per_node = 0;
	o->have_ppn = 0;
	free(o->hosts);
	o->hosts = NULL;
	for (char *part = strtok_r(spec, "+", &save); part;
	     part = strtok_r(NULL, "+", &save)) {
		char *save2 = NULL, *first = strtok_r(part, ":", &save2);
		unsigned long count = 1, ppn = 1, v;
		if (!first)
			continue;
		if (isdigit((unsigned char)*first)) {
			if (number(first, &count) < 0 || !count)
				return errprintf(err, "Invalid #PBS nodes count: %s",
				                 first),
				       -EINVAL;
		} else { /* a host name */
			char *h = o->hosts ? xasprintf("%s,%s", o->hosts, first)
			                   : xstrdup(first);
			free(o->hosts);
			o->hosts = h;
		}
		for (char *p = strtok_r(NULL, ":", &save2); p;
		     p = strtok_r(NULL, ":", &save2)) {
			if (!strncasecmp(p, "ppn=", 4)) {
				if (number(p + 4, &ppn) < 0 || !ppn)
					return errprintf(err, "Invalid #PBS ppn: %s",
					                 p + 4),
					       -EINVAL;
				o->have_ppn = 1;
			} else if (!strncasecmp(p, "gpus=", 5)) {
				if (number(p + 5, &v) < 0)
					return errprintf(err, "Invalid #PBS gpus: %s",
					                 p + 5),
					       -EINVAL;
				o->gpus_per_node = v;
			} /* node properties: left alone */
		}
		o->nodes += count;
		o->tasks += count * ppn;
	}
	return 0;
}

/* One key=value of -l (a select chunk's parts come as more of them). */
static int resource(struct out *o, const char *key, const char *v, struct rota_error *err)
{
	unsigned long n;

	if (!strcasecmp(key, "walltime") || !strcasecmp(key, "cput") ||
	    !strcasecmp(key, "pcput")) {
		add(o, "time", v);
	} else if (!strcasecmp(key, "mem") || !strcasecmp(key, "file")) {
		char *s = size_value(v);
		add(o, strcasecmp(key, "mem") ? "tmp" : "mem", s);
		free(s);
	} else if (!strcasecmp(key, "nice")) {
		add(o, "nice", v);
	} else if (!strcasecmp(key, "proc")) {
		add(o, "constraint", v);
	} else if (!strcasecmp(key, "accelerator")) {
		if (!strcasecmp(v, "true") && !o->accel)
			o->accel = 1;
	} else if (!strcasecmp(key, "naccelerators") || !strcasecmp(key, "select") ||
	           !strcasecmp(key, "ncpus") || !strcasecmp(key, "mpiprocs")) {
		if (number(v, &n) < 0)
			return errprintf(err, "Invalid #PBS %s: %s", key, v), -EINVAL;
		if (!strcasecmp(key, "naccelerators"))
			o->accel = n;
		else if (!strcasecmp(key, "select"))
			o->select = n, o->have_select = 1;
		else if (!strcasecmp(key, "ncpus"))
			o->ncpus = n, o->have_ncpus = 1;
		else
			o->mpiprocs = n, o->have_mpiprocs = 1;
	} /* arch, host, opsys, other, pmem, pvmem, software, vmem...: left */
	return 0;
}

/* -l list: "nodes=...,walltime=...", "select=2:ncpus=8:mpiprocs=8" */
static int resources(struct out *o, const char *list, struct rota_error *err)
{
	char *copy = xstrdup(list), *save = NULL;
	int rc = 0;

	for (char *item = strtok_r(copy, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save)) {
		if (!strncasecmp(item, "nodes=", 6)) {
			rc = nodes_spec(o, item + 6, err);
			continue;
		}
		for (char *save2 = NULL, *kv = strtok_r(item, ":", &save2); kv && !rc;
		     kv = strtok_r(NULL, ":", &save2)) {
			char *eq = strchr(kv, '=');
			if (!eq) /* walltime=01:00:00 is split here: mend it */
				continue;
			*eq = '\0';
			if (!strcasecmp(kv, "walltime") || !strcasecmp(kv, "cput") ||
			    !strcasecmp(kv, "pcput")) {
				char *rest = save2 ? save2 : (char *)"";
				char *t = *rest ? xasprintf("%s:%s", eq + 1, rest)
				                : xstrdup(eq + 1);
				rc = resource(o, kv, t, err);
				free(t);
				break; /* the time took the rest */
			}
			rc = resource(o, kv, eq + 1, err);
		}
	}
	free(copy);
	return rc;
}

static char *mail_types(const char *v)
{
	if (strpbrk(v, "nN"))
		return xstrdup("NONE");
	return xasprintf("%s%s%s", strpbrk(v, "bB") ? "BEGIN," : "",
	                 strpbrk(v, "eE") ? "END," : "", strpbrk(v, "aA") ? "FAIL," : "");
}

static int option(struct out *o, char opt, const char *v, struct rota_error *err)
{
	switch (opt) {
	case 'a':
		add(o, "begin", v);
		break;
	case 'A':
		add(o, "account", v);
		break;
	case 'e':
		add(o, "error", v);
		break;
	case 'o':
		add(o, "output", v);
		break;
	case 'h':
		add(o, "hold", NULL);
		break;
	case 'J': /* PBS Pro */
	case 't': /* Torque */
		add(o, "array", v);
		break;
	case 'l':
		return resources(o, v, err);
	case 'm': {
		char *m = mail_types(v);
		size_t len = strlen(m);
		if (len && m[len - 1] == ',')
			m[len - 1] = '\0';
		if (*m)
			add(o, "mail-type", m);
		free(m);
		break;
	}
	case 'M':
		add(o, "mail-user", v);
		break;
	case 'N':
		add(o, "job-name", v);
		break;
	case 'p':
		add(o, "nice", v);
		break;
	case 'q':
		add(o, "partition", v);
		break;
	case 'v': { /* the variables named, as qsub passes them */
		char *e;
		if (!*v)
			break;
		e = o->export ? xasprintf("%s,%s", o->export, v) : xstrdup(v);
		free(o->export);
		o->export = e;
		break;
	}
	case 'W':
		if (!strncasecmp(v, "depend=", 7))
			add(o, "dependency", v + 7);
		break;
	default: /* read and left alone */
		break;
	}
	return 0;
}

static void finish(struct out *o)
{
	if (o->nodes && !o->have_select)
		addu(o, "nodes", o->nodes);
	if (o->nodes && o->have_ppn)
		addu(o, "ntasks", o->tasks);
	if (o->hosts)
		add(o, "nodelist", o->hosts);
	if (o->gpus_per_node)
		addu(o, "gpus-per-node", o->gpus_per_node);
	if (o->have_select)
		addu(o, "nodes", o->select);
	if (o->have_mpiprocs)
		addu(o, "ntasks-per-node", o->mpiprocs);
	if (o->have_ncpus)
		addu(o, "mincpus", o->ncpus);
	/* select=N:ncpus=C:mpiprocs=P: C/P CPUs for each task */
	if (o->have_select && o->have_ncpus && o->have_mpiprocs && o->mpiprocs &&
	    o->ncpus > o->mpiprocs)
		addu(o, "cpus-per-task", o->ncpus / o->mpiprocs);
	if (o->accel) {
		char *g = xasprintf("gpu:%lu", o->accel);
		add(o, "gres", g);
		free(g);
	}
	if (o->export)
		add(o, "export", o->export);
}

char *pbs_lines(const char *script)
{
	return pbs_magic_lines(script, "#PBS");
}

char *pbs_magic_lines(const char *script, const char *magic)
{
	size_t len = 0, cap = 256, commands = 0, ml = strlen(magic);
	char *out = xmalloc(cap);

	out[0] = '\0';
	for (const char *p = script; *p && commands <= 100;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n >= ml && !strncmp(p, magic, ml)) {
			while (len + n + 2 > cap)
				out = xrealloc(out, cap *= 2);
			memcpy(out + len, p, n);
			len += n;
			out[len++] = '\n';
			out[len] = '\0';
		} else if (*p != '#') {
			commands++;
		}
		p += n + (nl != NULL);
	}
	return out;
}

int pbs_translate(char *const *words, char ***ret, struct rota_error *err)
{
	struct out o = {.words = xcalloc(1, sizeof(char *))};
	int rc = 0;

	for (size_t i = 0; words && words[i] && !rc; i++) {
		const char *w = words[i], *v = NULL;
		char opt;
		if (w[0] != '-' || !w[1] || w[1] == '-') {
			errprintf(err, "Invalid #PBS argument: %s", w);
			rc = -EINVAL;
			break;
		}
		opt = w[1];
		if (strchr(PBS_NO_VALUE, opt) && !w[2]) {
			rc = option(&o, opt, NULL, err);
			continue;
		}
		if (!strchr(PBS_WITH_VALUE, opt)) {
			errprintf(err, "Unrecognized #PBS option %s", w);
			rc = -EINVAL;
			break;
		}
		v = w[2] ? w + 2 : words[i + 1];
		if (!v) {
			errprintf(err, "#PBS option %s needs a value", w);
			rc = -EINVAL;
			break;
		}
		if (!w[2])
			i++;
		rc = option(&o, opt, v, err);
	}
	if (!rc)
		finish(&o);
	free(o.hosts);
	free(o.export);
	if (rc) {
		strv_free(o.words);
		return rc;
	}
	*ret = o.words;
	return 0;
}
