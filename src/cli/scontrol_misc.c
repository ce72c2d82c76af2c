/* scontrol_misc.c - scontrol's smaller commands, as Slurm 22.05's: write
 * batch_script, setdebug, setdebugflags, schedloglevel, completing, and show
 * daemons and aliases. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/conf_write.h"
#include "cli/fmt.h"
#include "cli/scontrol.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "proto/messages.h"
#include "common/common.h"

/* write batch_script JOBID [FILE|-] */
static int write_script(const struct scontrol_opts *o, int argc, char **argv)
{
	struct job_script_req req = {0};
	struct job_script_resp *r = NULL;
	char *msg = NULL, *path;
	FILE *out = stdout;
	int rc;

	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:write\n");
		return 1;
	}
	req.job_id = (uint32_t)strtoul(argv[0], NULL, 10);
	path = argc > 1 ? xstrdup(argv[1]) : xasprintf("slurm-%u.sh", req.job_id);
	if (strcmp(path, "-") && !(out = fopen(path, "w"))) {
		fprintf(stderr, "failed to open file `%s`: %s\n", path, strerror(errno));
		free(path);
		return 1;
	}
	rc = call_ctld(MSG_JOB_SCRIPT_REQ, &req, MSG_JOB_SCRIPT_RESP, (void **)&r, &msg);
	if (!rc && fputs(r->script ? r->script : "", out) < 0)
		rc = errno;
	if (out != stdout && fclose(out) != 0 && !rc)
		rc = errno;
	if (rc) {
		if (out != stdout)
			unlink(path);
		fprintf(stderr, "job script retrieval failed: %s\n",
		        msg ? msg : strerror(rc));
	} else if (out != stdout && !o->quiet) {
		printf("batch script for job %u written to %s\n", req.job_id, path);
	}
	if (r)
		msg_body_free(MSG_JOB_SCRIPT_RESP, r);
	free(msg);
	free(path);
	return rc ? 1 : 0;
}

/* write config [FILE]: FILE (or slurm.conf's path) with ".<time>" added,
 * from the controller's configuration, nodes and partitions (conf_write.h). */
static int write_config(int argc, char **argv)
{
	struct empty_msg req = {0};
	void *config = NULL, *nodes = NULL, *parts = NULL;
	char *msg = NULL, *path = NULL, when[64];
	const char *base = argc ? argv[0] : getenv("SLURM_CONF_OUT");
	FILE *f;
	int rc = 1;

	if (argc > 1) {
		fprintf(stderr, "too many arguments for keyword:write\n");
		return 1;
	}
	if (call_ctld(MSG_CONFIG_REQ, &req, MSG_CONFIG_RESP, &config, &msg))
		fprintf(stderr, "slurm_load_ctl_conf error: %s\n", msg);
	else if (call_ctld(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO_RESP, &nodes, &msg))
		fprintf(stderr, "slurm_load_node error: %s\n", msg);
	else if (call_ctld(MSG_PART_INFO_REQ, &req, MSG_PART_INFO_RESP, &parts, &msg))
		fprintf(stderr, "slurm_load_partitions error: %s\n", msg);
	else {
		timefmt_iso(time(NULL), when, sizeof(when));
		path =
		    xasprintf("%s.%s", base && *base ? base : conf_default_path(), when);
		if (!(f = fopen(path, "w"))) {
			fprintf(stderr, "Could not create file %s: %s\n", path,
			        strerror(errno));
		} else {
			conf_write(f, when, config, nodes, parts);
			if (fclose(f) != 0)
				fprintf(stderr, "Could not write file %s: %s\n", path,
				        strerror(errno));
			else
				rc = 0;
		}
		if (!rc)
			printf("Slurm config saved to %s\n", path);
	}
	free(msg);
	free(path);
	if (config)
		msg_body_free(MSG_CONFIG_RESP, config);
	if (nodes)
		msg_body_free(MSG_NODE_INFO_RESP, nodes);
	if (parts)
		msg_body_free(MSG_PART_INFO_RESP, parts);
	return rc;
}

int scontrol_write(const struct scontrol_opts *o, int argc, char **argv)
{
	if (argc >= 1 && scontrol_abbrev(argv[0], "batch_script", 5))
		return write_script(o, argc - 1, argv + 1);
	if (argc >= 1 && scontrol_abbrev(argv[0], "config", 1))
		return write_config(argc - 1, argv + 1);
	fprintf(stderr, "invalid write argument:%s\n", argc ? argv[0] : "");
	return 1;
}

/* A request answered by a status: 0, or 1 with "what: why" said. */
static int call_status(uint16_t type, const void *req, const char *what)
{
	char *msg = NULL;
	void *body = NULL;
	int rc = call_ctld(type, req, MSG_RC, &body, &msg);

	if (body)
		msg_body_free(MSG_RC, body);
	if (rc)
		fprintf(stderr, "%s: %s\n", what, msg ? msg : slurm_strerror(rc));
	free(msg);
	return rc ? 1 : 0;
}

static int set_debug(struct set_debug_req *req, const char *what)
{
	char line[64];

	snprintf(line, sizeof(line), "%s error", what);
	return call_status(MSG_SET_DEBUG_REQ, req, line);
}

/* One argument, or Slurm's complaint; 0 when there is one. */
static int one_arg(const char *tag, int argc)
{
	if (argc == 1)
		return 0;
	fprintf(stderr, "too %s arguments for keyword:%s\n", argc > 1 ? "many" : "few",
	        tag);
	return 1;
}

int scontrol_setdebug(const struct scontrol_opts *o, int argc, char **argv)
{
	static const char *const levels[] = {"quiet",   "fatal", "error",  "info",
	                                     "verbose", "debug", "debug2", "debug3",
	                                     "debug4",  "debug5"};
	struct set_debug_req req = {.what = SET_DEBUG_LEVEL, .level = -1};
	char *end;

	(void)o;
	if (one_arg("setdebug", argc))
		return 1;
	for (int i = 0; i < 10; i++)
		if (!strcasecmp(argv[0], levels[i]))
			req.level = i;
	if (req.level < 0) {
		unsigned long n = strtoul(argv[0], &end, 10);
		if (!*argv[0] || *end || n > 9) {
			fprintf(stderr, "invalid debug level: %s\n", argv[0]);
			return 1;
		}
		req.level = (int32_t)n;
	}
	return set_debug(&req, "slurm_set_debug_level");
}

/* Slurm's DebugFlags names, each given with + or - or as the whole list. */
static int debug_flag_known(const char *name)
{
	static const char *const known[] = {"Accrue",
	                                    "Agent",
	                                    "Backfill",
	                                    "BackfillMap",
	                                    "BurstBuffer",
	                                    "Cgroup",
	                                    "CPU_Bind",
	                                    "CpuFrequency",
	                                    "Data",
	                                    "Dependency",
	                                    "Elasticsearch",
	                                    "Energy",
	                                    "ExtSensors",
	                                    "Federation",
	                                    "FrontEnd",
	                                    "Gres",
	                                    "Hetjob",
	                                    "Gang",
	                                    "JobAccountGather",
	                                    "JobComp",
	                                    "JobContainer",
	                                    "License",
	                                    "Network",
	                                    "NetworkRaw",
	                                    "NodeFeatures",
	                                    "NO_CONF_HASH",
	                                    "Power",
	                                    "Priority",
	                                    "Profile",
	                                    "Protocol",
	                                    "Reservation",
	                                    "Route",
	                                    "Script",
	                                    "SelectType",
	                                    "Steps",
	                                    "Switch",
	                                    "TimeCray",
	                                    "TraceJobs",
	                                    "Triggers",
	                                    "WorkQueue",
	                                    "AuditRPCs"};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcasecmp(name, known[i]))
			return 1;
	return 0;
}

int scontrol_setdebugflags(const struct scontrol_opts *o, int argc, char **argv)
{
	struct set_debug_req req = {.what = SET_DEBUG_FLAGS};

	(void)o;
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:setdebugflags\n");
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		char **flags = strv_split(argv[i], ",");
		int ok = 1;
		for (size_t k = 0; flags && flags[k] && ok; k++)
			ok = debug_flag_known(flags[k] +
			                      (*flags[k] == '+' || *flags[k] == '-'));
		strv_free(flags);
		if (!ok) {
			fprintf(stderr, "invalid debug flag: %s\n", argv[i]);
			return 1;
		}
	}
	req.flags = argv[0];
	return set_debug(&req, "slurm_set_debugflags");
}

int scontrol_schedloglevel(const struct scontrol_opts *o, int argc, char **argv)
{
	struct set_debug_req req = {.what = SET_DEBUG_SCHED};

	(void)o;
	if (one_arg("schedloglevel", argc))
		return 1;
	if (!strcasecmp(argv[0], "enable") || !strcmp(argv[0], "1"))
		req.level = 1;
	else if (!strcasecmp(argv[0], "disable") || !strcmp(argv[0], "0"))
		req.level = 0;
	else {
		fprintf(stderr, "invalid schedlog level: %s\n", argv[0]);
		return 1;
	}
	return set_debug(&req, "slurm_set_schedlog_level");
}

/* The job's nodes that are still completing, and those down. */
static void completing_nodes(const struct job_info *j, const struct node_info_resp *nodes,
                             char **comp, char **down)
{
	char **names = NULL, **c = NULL, **d = NULL;
	size_t n = 0, nc = 0, nd = 0;

	if (j->nodes && hostlist_expand(j->nodes, &names, &n, NULL) < 0)
		n = 0;
	c = xcalloc(n + 1, sizeof(*c));
	d = xcalloc(n + 1, sizeof(*d));
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < nodes->nodes_count; k++) {
			const struct node_info *nd_ = &nodes->nodes[k];
			if (strcmp(nd_->name, names[i]))
				continue;
			if (nd_->state & NODE_COMPLETING)
				c[nc++] = names[i];
			else if ((nd_->state & NODE_STATE_BASE) == NODE_DOWN)
				d[nd++] = names[i];
		}
	*comp = nc ? hostlist_compress(c, nc) : NULL;
	*down = nd ? hostlist_compress(d, nd) : NULL;
	free(c);
	free(d);
	hostlist_free(names);
}

int scontrol_completing(const struct scontrol_opts *o, int argc, char **argv)
{
	struct job_info_req jreq = {0};
	struct empty_msg nreq = {0};
	struct job_info_resp *jobs = NULL;
	struct node_info_resp *nodes = NULL;
	char *msg = NULL;
	time_t now = time(NULL);

	(void)o;
	(void)argc;
	(void)argv;
	if (call_ctld(MSG_JOB_INFO_REQ, &jreq, MSG_JOB_INFO_RESP, (void **)&jobs, &msg) ||
	    call_ctld(MSG_NODE_INFO_REQ, &nreq, MSG_NODE_INFO_RESP, (void **)&nodes,
	              &msg)) {
		fprintf(stderr, "slurm_load_%s error: %s\n", jobs ? "node" : "jobs", msg);
		free(msg);
		if (jobs)
			msg_body_free(MSG_JOB_INFO_RESP, jobs);
		return 1;
	}
	for (uint32_t i = 0; i < jobs->jobs_count; i++) {
		const struct job_info *j = &jobs->jobs[i];
		char end[64], took[32], *comp, *down;
		if (!(j->state & JOB_COMPLETING))
			continue;
		completing_nodes(j, nodes, &comp, &down);
		printf("JobId=%u EndTime=%s CompletingTime=%s ", j->job_id,
		       timefmt_iso((time_t)j->end_time, end, sizeof(end)),
		       timefmt_elapsed(now > j->end_time ? (long)(now - j->end_time) : 0,
		                       took, sizeof(took)));
		if (comp)
			printf("Nodes(COMPLETING)=%s ", comp);
		if (down)
			printf("Nodes(DOWN)=%s ", down);
		printf("\n");
		free(comp);
		free(down);
	}
	msg_body_free(MSG_JOB_INFO_RESP, jobs);
	msg_body_free(MSG_NODE_INFO_RESP, nodes);
	return 0;
}

/* Does name (a host name of slurm.conf) name this host? */
static int is_here(const char *name, const char *shortname, const char *longname)
{
	return name && (!strcmp(name, shortname) || !strcmp(name, longname) ||
	                !strcasecmp(name, "localhost"));
}

/* show daemons: what runs here by slurm.conf, under Slurm's names. */
int scontrol_show_daemons(void)
{
	const struct conf *c = cli_conf();
	char longname[256] = "", shortname[256];
	int ctld = 0, d = 0;

	gethostname(longname, sizeof(longname) - 1);
	snprintf(shortname, sizeof(shortname), "%.*s", (int)strcspn(longname, "."),
	         longname);
	for (size_t i = 0; i < conf_ctld_count(c) && !ctld; i++)
		ctld = is_here(conf_ctld_host(c, i), shortname, longname);
	for (size_t i = 0; i < c->node_count && !d; i++)
		d = is_here(c->nodes[i].name, shortname, longname) ||
		    is_here(c->nodes[i].hostname, shortname, longname);
	printf("%s%s\n", ctld ? "slurmctld " : "", d ? "slurmd" : "");
	return 0;
}

int scontrol_show_aliases(const char *host)
{
	const struct conf *c = cli_conf();
	char me[256] = "";
	const char *sep = "";

	if (!host) {
		gethostname(me, sizeof(me) - 1);
		me[strcspn(me, ".")] = '\0';
		host = me;
	}
	for (size_t i = 0; i < c->node_count; i++) {
		const char *h =
		    c->nodes[i].hostname ? c->nodes[i].hostname : c->nodes[i].name;
		if (strcmp(h, host))
			continue;
		printf("%s%s", sep, c->nodes[i].name);
		sep = " ";
	}
	if (*sep)
		printf("\n");
	return 0;
}

/* notify JOBID MESSAGE...: the words joined by spaces, as Slurm's. */
int scontrol_notify(const struct scontrol_opts *o, int argc, char **argv)
{
	struct job_notify_req req = {0};
	char *end;
	size_t len = 0;
	unsigned long id;
	int rc;

	(void)o;
	if (argc < 2) {
		fprintf(stderr, "too few arguments for keyword:notify\n");
		return 1;
	}
	id = strtoul(argv[0], &end, 10);
	if (!id || *end || id > UINT32_MAX) {
		fprintf(stderr, "Invalid job_id %s\n", argv[0]);
		return 1;
	}
	req.job_id = (uint32_t)id;
	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	req.message = xcalloc(len + 1, 1);
	for (int i = 1, at = 0; i < argc; i++)
		at += snprintf(req.message + at, len + 1 - (size_t)at, "%s%s",
		               i > 1 ? " " : "", argv[i]);
	rc = call_status(MSG_JOB_NOTIFY_REQ, &req, "job notify failure");
	free(req.message);
	return rc;
}

/* The time limit (minutes) step job.step has now, or NO_VAL (said). */
static uint32_t step_time_now(uint32_t job, uint32_t step)
{
	struct job_info_req req = {.job_ids = {&job, 1}};
	struct step_info_resp *r;
	void *body = NULL;
	char *msg = NULL;
	uint32_t limit = NO_VAL;

	if (call_ctld(MSG_STEP_INFO_REQ, &req, MSG_STEP_INFO_RESP, &body, &msg)) {
		cli_error("Could not load state information for step %u.%u: %s", job,
		          step, msg);
		free(msg);
		return NO_VAL;
	}
	r = body;
	for (uint32_t i = 0; i < r->steps_count; i++)
		if (r->steps[i].job_id == job && r->steps[i].step_id == step)
			limit = r->steps[i].time_limit;
	msg_body_free(MSG_STEP_INFO_RESP, body);
	if (limit == NO_VAL)
		cli_error("Could not load state information for step %u.%u: %s", job,
		          step, slurm_strerror(ESLURM_INVALID_JOB_ID));
	return limit;
}

/* TimeLimit=[+|-]TIME of the step (a change needs the step's limit now). */
static int step_limit_arg(const char *val, const struct step_update_req *req,
                          uint32_t *ret)
{
	int incr = val[0] == '+', decr = val[0] == '-';
	uint32_t limit, now;

	if (timefmt_parse_limit(val + (incr || decr), &limit) < 0 || limit == NO_VAL) {
		cli_error("Invalid TimeLimit value");
		return -1;
	}
	if (incr || decr) {
		if ((now = step_time_now(req->job_id, req->step_id)) == NO_VAL)
			return -1;
		if (now == INFINITE32 || limit == INFINITE32) {
			if (decr) {
				cli_error("TimeLimit decrement of an unlimited time "
				          "limit");
				return -1;
			}
			*ret = INFINITE32;
			return 0;
		}
		if (decr && limit > now) {
			cli_error("TimeLimit decrement larger than current time limit "
			          "(%u > %u)",
			          limit, now);
			return -1;
		}
		limit = incr ? (now + (uint64_t)limit >= INFINITE32 ? INFINITE32 - 1
		                                                    : now + limit)
		             : now - limit;
	}
	*ret = limit;
	return 0;
}

/* update StepId=J[.S] TimeLimit=[+|-]TIME, as Slurm's scontrol. */
int scontrol_update_step(const struct scontrol_opts *o, int argc, char **argv)
{
	struct step_update_req req = {.step_id = NO_VAL};
	const char *limit_arg = NULL;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t tl = eq ? (size_t)(eq - argv[i]) : 0;

		if (!eq) {
			fprintf(stderr, "Invalid input: %s\nRequest aborted\n", argv[i]);
			return 1;
		}
		if (tl >= 4 && tl <= 6 && !strncasecmp(argv[i], "StepId", tl)) {
			/* "J" (every step of J) or "J.S" */
			if (fmt_parse_step_id(eq + 1, &req.job_id, &req.step_id) < 0 ||
			    req.step_id == STEP_BATCH || req.step_id == STEP_EXTERN) {
				fprintf(stderr,
				        "Invalid StepID parameter: %s\nRequest aborted\n",
				        argv[i]);
				return 1;
			}
		} else if (tl >= 2 && tl <= 9 && !strncasecmp(argv[i], "TimeLimit", tl)) {
			limit_arg = eq + 1;
		} else {
			fprintf(stderr,
			        "Update of this parameter is not supported: %s\n"
			        "Request aborted\n",
			        argv[i]);
			return 1;
		}
	}
	if (!limit_arg) {
		fprintf(stderr, "No changes specified\n");
		return 1;
	}
	if (step_limit_arg(limit_arg, &req, &req.time_limit) < 0)
		return 1;
	return call_status(MSG_STEP_UPDATE_REQ, &req, "slurm_update error");
}

/* One variable in both shells' syntax, where the job's environment has it. */
static void resize_var(FILE *sh, FILE *csh, const char *name, const char *value)
{
	if (!getenv(name))
		return;
	fprintf(sh, "export %s=\"%s\"\n", name, value);
	fprintf(csh, "setenv %s \"%s\"\n", name, value);
}

void scontrol_resize_files(uint32_t job_id)
{
	struct job_info_req req = {.job_ids = {&job_id, 1}};
	struct job_info_resp *r;
	const struct job_info *j;
	void *body = NULL;
	char *msg = NULL, *sh_name, *csh_name, *cpus, count[16];
	FILE *sh = NULL, *csh = NULL;

	if (!getenv("SLURM_JOBID"))
		return; /* no job's environment here to set again */
	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
		fprintf(stderr, "slurm_allocation_lookup: %s\n", msg);
		free(msg);
		return;
	}
	r = body;
	if (!r->jobs_count || ((r->jobs[0].state & JOB_STATE_BASE) != JOB_RUNNING &&
	                       (r->jobs[0].state & JOB_STATE_BASE) != JOB_SUSPENDED)) {
		msg_body_free(MSG_JOB_INFO_RESP, body);
		return;
	}
	j = &r->jobs[0];
	sh_name = xasprintf("slurm_job_%u_resize.sh", job_id);
	csh_name = xasprintf("slurm_job_%u_resize.csh", job_id);
	unlink(sh_name);
	unlink(csh_name);
	if (!(csh = fopen(csh_name, "w")))
		fprintf(stderr, "Could not create file %s: %s\n", csh_name,
		        strerror(errno));
	else if (!(sh = fopen(sh_name, "w")))
		fprintf(stderr, "Could not create file %s: %s\n", sh_name,
		        strerror(errno));
	if (sh && csh) {
		chmod(sh_name, 0700);
		chmod(csh_name, 0700);
		snprintf(count, sizeof(count), "%u", j->num_nodes);
		cpus = jobfmt_counts(j->cpus_per_node.v, j->cpus_per_node.n);
		resize_var(sh, csh, "SLURM_NODELIST", j->nodes ? j->nodes : "");
		resize_var(sh, csh, "SLURM_JOB_NODELIST", j->nodes ? j->nodes : "");
		resize_var(sh, csh, "SLURM_NNODES", count);
		resize_var(sh, csh, "SLURM_JOB_NUM_NODES", count);
		resize_var(sh, csh, "SLURM_JOB_CPUS_PER_NODE", cpus ? cpus : "");
		free(cpus);
		if (getenv("SLURM_TASKS_PER_NODE")) { /* not known again: gone */
			fprintf(sh, "unset SLURM_NPROCS\nunset SLURM_NTASKS\n"
			            "unset SLURM_TASKS_PER_NODE\n");
			fprintf(csh, "unsetenv SLURM_NPROCS\nunsetenv SLURM_NTASKS\n"
			             "unsetenv SLURM_TASKS_PER_NODE\n");
		}
		printf("To reset Slurm environment variables, execute\n");
		printf("  For bash or sh shells:  . ./%s\n", sh_name);
		printf("  For csh shells:         source ./%s\n", csh_name);
	}
	if (sh)
		fclose(sh);
	if (csh)
		fclose(csh);
	free(sh_name);
	free(csh_name);
	msg_body_free(MSG_JOB_INFO_RESP, body);
}
