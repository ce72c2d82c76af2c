/* scontrol.c - Slurm's scontrol: command dispatch, job operations (hold, uhold,
 * release, requeue, update), node updates, ping, and the interactive mode used
 * when no command is given.  `show` lives in scontrol_show.c.
 *
 * Commands and entities may be abbreviated as in Slurm ("sho jo 12").  The exit
 * status is 1 when any part of the command failed.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
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
#include "common/mailtype.h"
#include "common/part_spec.h"
#include "common/strv.h"
#include "common/uid.h"
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/states.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"
#include "common/time_parse.h"

#define SCONTROL_LINE_MAX  65536 /* one interactive command line */
#define SCONTROL_WORDS_MAX 4096  /* words in one interactive command */
#define SCONTROL_IDS_MAX   65536 /* job ids in one command */

struct id_list {
	uint32_t *v;
	uint32_t *task; /* array task of v[i], NO_VAL: the whole job or array */
	char **text;    /* as written, for messages */
	size_t n;
};

static void usage(FILE *f)
{
	static const char text[] =
	    "scontrol [<OPTION>] [<COMMAND>]\n"
	    "    Valid <OPTION> values are:\n"
	    "     -a, --all       show hidden partitions and their jobs too\n"
	    "     -d, --details   more detail: the same as the \"details\" command\n"
	    "     -F, --future    show nodes in the FUTURE state as well\n"
	    "     -h, --help      this text: the same as the \"help\" command\n"
	    "     --json, --yaml  show job, node and partition records as JSON or YAML\n"
	    "     -M, --clusters  the cluster to talk to (this one alone)\n"
	    "     -o, --oneliner  each record on one line: the \"oneliner\" command\n"
	    "     -Q, --quiet     no error messages: the \"quiet\" command\n"
	    "     -u, --uid       act on jobs as this user (root only)\n"
	    "     -v, --verbose   more messages: the \"verbose\" command\n"
	    "     -V, --version   print the version: the \"version\" command\n"
	    "\n"
	    "  Without a <COMMAND>, scontrol reads commands from standard input until\n"
	    "  \"quit\" or end of file.\n"
	    "\n"
	    "    Valid <COMMAND> values are:\n"
	    "     abort                      stop the controller now, with a core file\n"
	    "     all                        show hidden partitions and their jobs too\n"
	    "     cancel_reboot <nodes>      withdraw a pending reboot of the nodes\n"
	    "     create <SPECIFICATIONS>    create a partition or a reservation\n"
	    "     delete <SPECIFICATIONS>    delete a partition or a reservation\n"
	    "     details                    more detail from here on\n"
	    "     errnumstr <ERRNO>          the text of a Slurm error number\n"
	    "     exit                       leave interactive mode\n"
	    "     help                       print this text\n"
	    "     hide                       hide hidden partitions (the default)\n"
	    "     hold <job_list>            keep pending jobs from starting\n"
	    "     listpids <job_id<.step>>   a job's processes on this node\n"
	    "     notify <job_id> <msg>      write a message to a job's standard error\n"
	    "     oneliner                   print each record on one line\n"
	    "     pidinfo <pid>              the job a process belongs to\n"
	    "     ping                       whether the controllers answer\n"
	    "     power <up|down> <nodes>    power nodes up or down\n"
	    "     quiet                      print no error messages\n"
	    "     quit                       leave interactive mode\n"
	    "     reboot [ASAP] <nodes|ALL>  reboot nodes once they are idle\n"
	    "     reconfigure                read slurm.conf again\n"
	    "     release <job_list>         let held jobs start\n"
	    "     requeue <job_id>           put a job back in the queue\n"
	    "     requeuehold <job_id>       requeue a job and hold it\n"
	    "     resume <job_list>          resume suspended jobs\n"
	    "     schedloglevel <level>      the scheduler's log level\n"
	    "     setdebug <level>           the controller's log level\n"
	    "     setdebugflags [+|-]<flag>  add or remove a debug flag\n"
	    "     show <ENTITY> [<ID>]       show an entity's records\n"
	    "     shutdown [controller]      stop the controller and the node daemons\n"
	    "     suspend <job_list>         suspend running jobs\n"
	    "     takeover                   make the backup controller the primary\n"
	    "     token [lifespan=<secs>]    a JSON web token for the REST API\n"
	    "     top <job_list>             put a user's jobs ahead of their others\n"
	    "     uhold <job_list>           hold jobs so their user may release them\n"
	    "     update <SPECIFICATIONS>    change a job, step, node, partition or "
	    "reservation\n"
	    "     verbose                    print more messages\n"
	    "     version                    print the version\n"
	    "     wait_job <job_id>          wait until a job's nodes are ready\n"
	    "     write config [file]        write the running configuration to a file\n"
	    "\n"
	    "  <ENTITY> may be \"aliases\", \"assoc_mgr\", \"config\", \"daemons\",\n"
	    "  \"hostlist\", \"hostlistsorted\", \"hostnames\", \"job\", \"licenses\",\n"
	    "  \"node\", \"partition\", \"reservation\", \"step\" or \"topology\".\n"
	    "\n"
	    "  <SPECIFICATIONS> are Key=Value pairs naming the record first:\n"
	    "  JobId=<id>, StepId=<id.step>, NodeName=<nodes>, PartitionName=<name>\n"
	    "  or ReservationName=<name>; \"scontrol show\" prints the keys there are.\n"
	    "\n"
	    "  All commands and options are case-insensitive and may be abbreviated.\n";

	fputs(text, f);
}

static void id_list_add_task(struct id_list *l, uint32_t id, uint32_t task,
                             const char *text)
{
	if (l->n == SCONTROL_IDS_MAX) {
		cli_error("more than %d job ids", SCONTROL_IDS_MAX);
		exit(1);
	}
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->task = xrealloc(l->task, (l->n + 1) * sizeof(*l->task));
	l->text = xrealloc(l->text, (l->n + 1) * sizeof(*l->text));
	l->v[l->n] = id;
	l->task[l->n] = task;
	l->text[l->n++] = xstrdup(text);
}

static void id_list_add(struct id_list *l, uint32_t id, const char *text)
{
	id_list_add_task(l, id, NO_VAL, text);
}

/* "N", "N_T" or "N_[spec]" (as squeue prints an array: 5-7, 1,3, 2-9:2%4):
 * added to l.  Returns 0 or -1 (nothing added). */
static int id_list_add_word(struct id_list *l, const char *w)
{
	char *end, *spec;
	unsigned long id, task;
	struct arrayspec a;
	size_t len;

	if (!isdigit((unsigned char)*w))
		return -1;
	id = strtoul(w, &end, 10);
	if (!id || id >= NO_VAL)
		return -1;
	if (!*end) {
		id_list_add(l, (uint32_t)id, w);
		return 0;
	}
	if (*end == '+' && isdigit((unsigned char)end[1])) { /* N+K */
		unsigned long k = strtoul(end + 1, &end, 10);
		uint32_t comp = !*end && k < HET_MAX
		                    ? call_het_component((uint32_t)id, (uint32_t)k)
		                    : 0;
		if (!comp)
			return -1;
		id_list_add(l, comp, w);
		return 0;
	}
	if (*end++ != '_')
		return -1;
	if (isdigit((unsigned char)*end)) {
		task = strtoul(end, &end, 10);
		if (*end || task >= NO_VAL)
			return -1;
		id_list_add_task(l, (uint32_t)id, (uint32_t)task, w);
		return 0;
	}
	len = strlen(end);
	if (*end != '[' || len < 3 || end[len - 1] != ']')
		return -1;
	spec = xstrdup(end + 1);
	spec[len - 2] = '\0';
	if (arrayspec_parse(spec, ARRAYSPEC_LIMIT, &a, NULL) < 0) {
		free(spec);
		return -1;
	}
	free(spec);
	for (int64_t k = arrayspec_first(&a); k >= 0; k = arrayspec_next(&a, k)) {
		char text[32];

		snprintf(text, sizeof(text), "%lu_%u", id, (uint32_t)k);
		id_list_add_task(l, (uint32_t)id, (uint32_t)k, text);
	}
	arrayspec_release(&a);
	return 0;
}

/* Split a job list at the commas outside brackets ("12,13_[1,3]").  Caller
 * frees with fmt_strv_free. */
static char **split_ids(const char *s)
{
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0;
	int depth = 0;

	for (const char *p = s, *start = s;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth)
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		if (p > start) {
			if (n == SCONTROL_IDS_MAX) {
				cli_error("more than %d job ids", SCONTROL_IDS_MAX);
				exit(1);
			}
			v = xrealloc(v, (n + 2) * sizeof(*v));
			v[n++] = xstrndup(start, (size_t)(p - start));
			v[n] = NULL;
		}
		if (!*p)
			break;
		start = p + 1;
	}
	return v;
}

static void id_list_release(struct id_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->text[i]);
	free(l->text);
	free(l->task);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static struct job_info_resp *load_jobs(uint16_t *ret_type)
{
	struct job_info_req req = {0};
	char *msg = NULL;
	void *body = NULL;

	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
		fprintf(stderr, "slurm_load_jobs error: %s\n", msg);
		free(msg);
		return NULL;
	}
	*ret_type = MSG_JOB_INFO_RESP;
	return body;
}

/* The jobs (not ended) named name, of user uid (NO_VAL: anyone's), added to
 * ids.  Returns how many, or -1 when the jobs could not be loaded. */
static int ids_by_name(const char *name, uint32_t uid, struct id_list *ids)
{
	struct job_info_resp *jobs;
	uint16_t type;
	int n = 0;

	if (!(jobs = load_jobs(&type)))
		return -1;
	for (uint32_t j = 0; j < jobs->jobs_count; j++) {
		const struct job_info *ji = &jobs->jobs[j];
		char text[16];

		if (!ji->name || strcmp(ji->name, name) ||
		    job_state_is_finished(ji->state) || (uid != NO_VAL && ji->uid != uid))
			continue;
		snprintf(text, sizeof(text), "%u", ji->job_id);
		id_list_add(ids, ji->job_id, text);
		n++;
	}
	msg_body_free(type, jobs);
	return n;
}

/* Job ids from words like "12", "12,13", "12_3", "12_[3-5]", "jobname=foo".
 * Bad ids are reported and make *bad 1. */
static void collect_ids(int argc, char **argv, struct id_list *ids, int *bad)
{
	for (int i = 0; i < argc; i++) {
		char **words = split_ids(argv[i]);

		for (size_t k = 0; words[k]; k++) {
			const char *w = words[k];

			if (!strncasecmp(w, "jobname=", 8) ||
			    !strncasecmp(w, "name=", 5)) {
				if (ids_by_name(strchr(w, '=') + 1, NO_VAL, ids) < 0)
					*bad = 1;
			} else if (id_list_add_word(ids, w) < 0) {
				fprintf(stderr, "%s for job %s\n",
				        slurm_strerror(ESLURM_INVALID_JOB_ID), w);
				*bad = 1;
			}
		}
		fmt_strv_free(words);
	}
}

/* One MSG_JOB_UPDATE_REQ for entry i of ids.  Returns the controller's rc,
 * with *ret_msg (caller frees) set when it is an error. */
static int job_update(const struct id_list *ids, size_t i, uint32_t op, char **kv,
                      uint32_t flags, char **ret_msg)
{
	struct job_update_req req = {
	    .job_id = ids->v[i], .op = op, .kv = kv, .flags = flags};
	void *body = NULL;

	if (ids->task[i] != NO_VAL) {
		req.flags |= JOB_UPDATE_F_ARRAY_TASK;
		req.array_task_id = ids->task[i];
	}
	if (ids->text[i] && strchr(ids->text[i], '+')) /* N+K: that record */
		req.flags |= JOB_UPDATE_F_ONE;
	return call_ctld(MSG_JOB_UPDATE_REQ, &req, MSG_RC, &body, ret_msg);
}

static int cmd_job_op(const struct scontrol_opts *o, const char *what, uint32_t op,
                      int argc, char **argv)
{
	struct id_list ids = {0};
	int rc = 0, incomplete = 0;

	if (op == JOB_OP_REQUEUE) {
		if (!strcasecmp(what, "requeuehold"))
			op = JOB_OP_REQUEUE_HOLD;
		/* Incomplete (or a prefix of it), State=SpecialExit (or SE) */
		while (argc) {
			if (*argv[0] &&
			    !strncasecmp(argv[0], "incomplete", strlen(argv[0])))
				incomplete = 1;
			else if (!strncasecmp(argv[0], "state=specialexit", 17) ||
			         !strncasecmp(argv[0], "state=se", 8))
				op = JOB_OP_REQUEUE_SE;
			else
				break;
			argc--;
			argv++;
		}
	}
	if (!argc) {
		fprintf(stderr, "too few arguments for keyword:%s\n", what);
		return 1;
	}
	collect_ids(argc, argv, &ids, &rc);
	for (size_t k = 0; k < ids.n; k++) {
		/* top: each one goes above the others, so the last first and
		 * the first listed ends highest (Slurm's order) */
		size_t i = op == JOB_OP_TOP ? ids.n - 1 - k : k;
		char *msg = NULL;

		/* incomplete: the controller passes over each record (each
		 * task of an array) that is not running or suspended */
		job_update(&ids, i, op, NULL, incomplete ? JOB_UPDATE_F_INCOMPLETE : 0,
		           &msg);
		if (msg) {
			if (!o->quiet)
				fprintf(stderr, "%s for job %s\n", msg, ids.text[i]);
			free(msg);
			rc = 1;
		}
	}
	id_list_release(&ids);
	return rc;
}

static int cmd_hold(const struct scontrol_opts *o, int argc, char **argv)
{
	return cmd_job_op(o, "hold", JOB_OP_HOLD, argc, argv);
}

static int cmd_uhold(const struct scontrol_opts *o, int argc, char **argv)
{
	return cmd_job_op(o, "uhold", JOB_OP_UHOLD, argc, argv);
}

static int cmd_release(const struct scontrol_opts *o, int argc, char **argv)
{
	return cmd_job_op(o, "release", JOB_OP_RELEASE, argc, argv);
}

static int cmd_top(const struct scontrol_opts *o, int argc, char **argv)
{
	return cmd_job_op(o, "top", JOB_OP_TOP, argc, argv);
}

static int cmd_requeue(const struct scontrol_opts *o, int argc, char **argv)
{
	return cmd_job_op(o, "requeue", JOB_OP_REQUEUE, argc, argv);
}

static int cmd_requeuehold(const struct scontrol_opts *o, int argc, char **argv)
{
	return cmd_job_op(o, "requeuehold", JOB_OP_REQUEUE, argc, argv);
}

/* ---- update ---- */

static int invalid_input(const char *arg)
{
	fprintf(stderr, "Invalid input: %s\nRequest aborted\n", arg);
	return 1;
}

/* StartTime= / BeginTime= must parse as --begin does (checked here, as Slurm's
 * scontrol does, and again by the controller). */
static int begin_ok(const char *arg, const char *eq)
{
	size_t kl = (size_t)(eq - arg);
	time_t t;

	if (!((kl == 9 && !strncasecmp(arg, "StartTime", 9)) ||
	      (kl == 9 && !strncasecmp(arg, "BeginTime", 9))))
		return 1;
	return time_parse(eq + 1, time(NULL), 0, &t, NULL) == 0;
}

/* Does the update change the job's size (NumNodes=, MinNodes=)? */
static int resizes(char **kv)
{
	for (size_t i = 0; kv[i]; i++)
		if (!strncasecmp(kv[i], "NumNodes=", 9) ||
		    !strncasecmp(kv[i], "MinNodes=", 9))
			return 1;
	return 0;
}

/* A word of a job update that takes the next one as its value ("job 7",
 * "TimeLimit 10", as Slurm's scontrol): not Nice or ResetAccrueTime, which
 * stand alone there. */
static int takes_next(const char *a)
{
	size_t len = strlen(a);

	return !strchr(a, '=') && !(len >= 2 && !strncasecmp(a, "Nice", len)) &&
	       !(len >= 3 && len <= 15 && !strncasecmp(a, "ResetAccrueTime", len));
}

/* argv with each "Tag Value" pair made "Tag=Value" (caller frees with
 * strv_free); *ret_n: its length. */
static char **join_pairs(int argc, char **argv, int *ret_n)
{
	char **out = xcalloc((size_t)argc + 1, sizeof(*out));
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (takes_next(argv[i]) && i + 1 < argc) {
			out[n++] = xasprintf("%s=%s", argv[i], argv[i + 1]);
			i++;
		} else {
			out[n++] = xstrdup(argv[i]);
		}
	}
	*ret_n = n;
	return out;
}

/* Is arg (eq its '=') tag, or its first min letters or more? */
static int tag_is(const char *arg, const char *eq, const char *tag, size_t min)
{
	size_t len = (size_t)(eq - arg);

	return len >= min && len <= strlen(tag) && !strncasecmp(arg, tag, len);
}

/* No JobId=: the jobs named as JobName= says (of UserID= only, when
 * given), as Slurm's scontrol finds them; 0, or 1 said why not. */
static int ids_of_update(const char *name, uint32_t uid, struct id_list *ids)
{
	int n;

	if (!name) {
		fprintf(stderr, "scontrol: error: No job ID specified\n");
		return 1;
	}
	if ((n = ids_by_name(name, uid, ids)) < 0)
		return 1;
	if (n == 0 && uid == NO_VAL)
		fprintf(stderr, "scontrol: error: No jobs with name '%s'\n", name);
	else if (n == 0)
		fprintf(stderr,
		        "scontrol: error: No jobs with user ID %u and name '%s'\n", uid,
		        name);
	return n == 0;
}

static int update_job(const struct scontrol_opts *o, int in_argc, char **in_argv)
{
	struct id_list ids = {0};
	int argc, have_ids = 0;
	char **argv = join_pairs(in_argc, in_argv, &argc);
	char **kv = xcalloc((size_t)argc + 1, sizeof(*kv));
	const char *name = NULL;
	uint32_t uid = NO_VAL;
	size_t nkv = 0;
	int rc = 0;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (!eq) {
			rc = invalid_input(argv[i]);
			goto out;
		}
		/* JobId, as Slurm from its first three letters ("Job=") */
		if ((size_t)(eq - argv[i]) >= 3 && (size_t)(eq - argv[i]) <= 5 &&
		    !strncasecmp(argv[i], "jobid", (size_t)(eq - argv[i]))) {
			char *words[] = {(char *)eq + 1};

			collect_ids(1, words, &ids, &rc);
			if (rc)
				goto out;
			have_ids = 1;
		} else if (tag_is(argv[i], eq, "UserID", 3)) {
			/* whose JobName= jobs: a filter, not a change */
			uid_t u;
			if (name_to_uid(eq + 1, &u) < 0) {
				fprintf(stderr, "Invalid UserID: %s\nRequest aborted\n",
				        eq + 1);
				rc = 1;
				goto out;
			}
			uid = (uint32_t)u;
		} else if (tag_is(argv[i], eq, "SiteFactor", 5) &&
		           llabs(strtoll(eq + 1, NULL, 10)) > 2147483645LL) {
			fprintf(stderr, "scontrol: error: SiteFactor value out of range "
			                "(+/- 2147483645). Value ignored\n");
			rc = 1;
			goto out;
		} else if (!begin_ok(argv[i], eq)) {
			rc = invalid_input(argv[i]);
			goto out;
		} else if (eq - argv[i] == 8 && !strncasecmp(argv[i], "MailType", 8) &&
		           mail_type_parse(eq + 1) < 0) {
			fprintf(stderr, "Invalid MailType: %s\n", eq + 1);
			rc = 1;
			goto out;
		} else {
			if (tag_is(argv[i], eq, "JobName", 4) ||
			    tag_is(argv[i], eq, "Name", 2))
				name = eq + 1;
			kv[nkv++] = argv[i];
		}
	}
	if (!nkv) {
		fprintf(stderr, "No changes specified\n");
		rc = 1;
		goto out;
	}
	if (!have_ids && (rc = ids_of_update(name, uid, &ids)))
		goto out;
	for (size_t i = 0; i < ids.n; i++) {
		char *msg = NULL;

		if (job_update(&ids, i, JOB_OP_UPDATE, kv, 0, &msg)) {
			if (!o->quiet)
				fprintf(stderr, "slurm_update error: %s\n", msg);
			free(msg);
			rc = 1;
		} else if (ids.n == 1 && ids.task[i] == NO_VAL && resizes(kv)) {
			scontrol_resize_files(ids.v[i]);
		}
	}
out:
	free(kv);
	strv_free(argv);
	id_list_release(&ids);
	return rc;
}

/* Canonical node state for `update NodeName= State=`, or NULL. */
static const char *node_state_word(const char *s)
{
	static const struct {
		const char *name;
		size_t min;
	} states[] = {
	    {"DOWN", 3},
	    {"DRAIN", 3},
	    {"FAILING", 5},
	    {"FAIL", 3},
	    {"RESUME", 3},
	    {"UNDRAIN", 3},
	    {"IDLE", 3},
	    {"FUTURE", 3},
	    {"NORESP", 3},
	    {"POWER_DOWN", 7},
	    {"POWER_UP", 7},
	    {"CANCEL_REBOOT", 6},
	    {"POWER_DOWN_ASAP", 12},
	    {"POWER_DOWN_FORCE", 12},
	};

	if (!strcasecmp(s, "NO_RESP"))
		return "NORESP";
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (scontrol_abbrev(s, states[i].name, states[i].min))
			return states[i].name;
	return NULL;
}

static int update_node(const struct scontrol_opts *o, int argc, char **argv)
{
	struct node_update_req req = {0};
	char *msg = NULL;
	void *body = NULL;
	int rc;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t klen;

		if (!eq)
			return invalid_input(argv[i]);
		klen = (size_t)(eq - argv[i]);
		if ((klen == 8 && !strncasecmp(argv[i], "nodename", 8)) ||
		    (klen == 4 && !strncasecmp(argv[i], "node", 4))) {
			req.nodes = (char *)eq + 1;
		} else if (klen == 5 && !strncasecmp(argv[i], "state", 5)) {
			const char *st = node_state_word(eq + 1);

			if (!st) {
				fprintf(stderr, "Invalid input: %s\nRequest aborted\n",
				        argv[i]);
				fprintf(
				    stderr,
				    "Valid states are: NoResp DRAIN FAIL FAILING FUTURE "
				    "RESUME UNDRAIN DOWN IDLE POWER_DOWN POWER_UP "
				    "CANCEL_REBOOT\n");
				return 1;
			}
			req.state = (char *)st;
		} else if (klen == 6 && !strncasecmp(argv[i], "reason", 6)) {
			req.reason = (char *)eq + 1;
		} else if (klen >= 3 && !strncasecmp(argv[i], "ActiveFeatures", klen)) {
			req.features_act = (char *)eq + 1;
			req.feat_set |= NODE_FEAT_ACTIVE;
		} else if ((klen >= 1 && !strncasecmp(argv[i], "Features", klen)) ||
		           (klen >= 3 &&
		            !strncasecmp(argv[i], "AvailableFeatures", klen))) {
			req.features = (char *)eq + 1;
			req.feat_set |= NODE_FEAT_AVAIL;
		} else {
			fprintf(stderr, "Update of this parameter is not supported: %s\n",
			        argv[i]);
			fprintf(stderr, "Request aborted\n");
			return 1;
		}
	}
	if (!req.nodes || !*req.nodes)
		return invalid_input("NodeName");
	if (req.state &&
	    (!strcmp(req.state, "DOWN") || !strcmp(req.state, "DRAIN") ||
	     !strcmp(req.state, "FAIL") || !strcmp(req.state, "FAILING")) &&
	    (!req.reason || !*req.reason)) {
		fprintf(stderr,
		        "You must specify a reason when DOWNING or DRAINING a node. "
		        "Request denied\n");
		return 1;
	}
	if (!req.state && !req.reason && !req.feat_set) {
		fprintf(stderr, "No changes specified\n");
		return 1;
	}
	if ((rc = call_ctld(MSG_NODE_UPDATE_REQ, &req, MSG_RC, &body, &msg)) != 0 &&
	    !o->quiet)
		fprintf(stderr, "slurm_update error: %s\n", msg);
	free(msg);
	return rc ? 1 : 0;
}

/* As Slurm's scontrol: the entity is found among all the arguments, a job
 * first, then a step, a reservation (it may name a partition), a node, a
 * partition. */
static int cmd_update(const struct scontrol_opts *o, int argc, char **argv)
{
	enum { E_JOB = 1, E_STEP = 2, E_RESV = 4, E_NODE = 8, E_PART = 16, E_FRONT = 32 };
	unsigned seen = 0;

	if (!argc) {
		fprintf(stderr, "too few arguments for keyword:update\n");
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		size_t len = strcspn(a, "=");

		/* "job 7": a job's id as the next word (Slurm) */
		if (a[len] != '=' && !(i + 1 < argc && len >= 3 && len <= 5 &&
		                       !strncasecmp(a, "jobid", len)))
			continue;
		if ((len >= 3 && len <= 5 && !strncasecmp(a, "jobid", len)) ||
		    (len >= 4 && len <= 7 && !strncasecmp(a, "JobName", len)))
			seen |= E_JOB; /* JobName=: the jobs of that name */
		else if ((len == 8 && !strncasecmp(a, "nodename", 8)) ||
		         (len == 4 && !strncasecmp(a, "node", 4)))
			seen |= E_NODE;
		else if (len >= 3 && len <= 15 && !strncasecmp(a, "ReservationName", len))
			seen |= E_RESV;
		else if (part_spec_is_name_tag(a, len))
			seen |= E_PART;
		else if (len >= 4 && len <= 6 && !strncasecmp(a, "stepid", len))
			seen |= E_STEP;
		else if (len >= 2 && len <= 12 && !strncasecmp(a, "FrontendName", len))
			seen |= E_FRONT; /* no front-end nodes in Rota */
	}
	if (seen & E_JOB)
		return update_job(o, argc, argv);
	if (seen & E_STEP)
		return scontrol_update_step(o, argc, argv);
	if (seen & E_FRONT) {
		fprintf(stderr, "slurm_update error: %s\n",
		        slurm_strerror(ESLURM_NOT_SUPPORTED));
		return 1;
	}
	if (seen & E_RESV)
		return scontrol_resv_update(argc, argv);
	if (seen & E_NODE)
		return update_node(o, argc, argv);
	if (seen & E_PART)
		return scontrol_part_update(o, argc, argv);
	fprintf(stderr, "No valid entity in update command\n");
	fprintf(stderr, "Input line must include \"NodeName\", \"PartitionName\", "
	                "\"Reservation\", \"JobId\" or \"StepId\"\n");
	return 1;
}

/* scontrol power {up|down [asap|force]} NODELIST (Slurm 23.02's syntax):
 * the same request as update nodename=NODELIST state=power_up|power_down. */
static int cmd_power(const struct scontrol_opts *o, int argc, char **argv)
{
	struct node_update_req req = {0};
	char *msg = NULL;
	void *body = NULL;
	int rc, i = 1;

	if (argc < 2 || (strcasecmp(argv[0], "up") && strcasecmp(argv[0], "down"))) {
		fprintf(stderr, "Invalid power command, expected: power "
		                "{up|down [asap|force]} NODELIST\n");
		return 1;
	}
	if (!strcasecmp(argv[0], "down") && argc > 2 &&
	    (!strcasecmp(argv[1], "asap") || !strcasecmp(argv[1], "force")))
		i = 2;
	if (i + 1 != argc) {
		fprintf(stderr, "Invalid power command, expected: power "
		                "{up|down [asap|force]} NODELIST\n");
		return 1;
	}
	req.nodes = argv[i];
	req.state = !strcasecmp(argv[0], "up") ? "POWER_UP" : "POWER_DOWN";
	if ((rc = call_ctld(MSG_NODE_UPDATE_REQ, &req, MSG_RC, &body, &msg)) != 0 &&
	    !o->quiet)
		fprintf(stderr, "slurm_update error: %s\n", msg);
	free(msg);
	return rc ? 1 : 0;
}

/* ---- suspend, resume (operators; ctld/suspend.h) ---- */

/* Each job of the comma list in argv[0] ("jobid=" or "job=" may lead; N,
 * N_T, N_[spec] or N+K), in Slurm's words: "<error> for job <id>" for each
 * that fails.  An array's id stands for all its tasks. */
static int suspend_jobs(const struct scontrol_opts *o, int argc, char **argv, int suspend)
{
	struct id_list ids = {0};
	const char *s;
	char **words;
	int rc = 0;

	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:%s\n",
		        suspend ? "suspend" : "resume");
		return 1;
	}
	s = argv[0];
	if (!strncasecmp(s, "jobid=", 6))
		s += 6;
	else if (!strncasecmp(s, "job=", 4))
		s += 4;
	words = split_ids(s);
	for (size_t k = 0; words[k]; k++) {
		/* N+K: a heterogeneous job is suspended whole (Slurm) */
		int e = strchr(words[k], '+')                  ? ESLURM_NOT_WHOLE_HET_JOB
		        : id_list_add_word(&ids, words[k]) < 0 ? ESLURM_INVALID_JOB_ID
		                                               : 0;
		if (e) {
			rc = 1;
			if (!o->quiet)
				fprintf(stderr, "%s for job %s\n", slurm_strerror(e),
				        words[k]);
		}
	}
	if (!words[0]) {
		rc = 1;
		fprintf(stderr, "%s for job %s\n", slurm_strerror(ESLURM_INVALID_JOB_ID),
		        s);
	}
	fmt_strv_free(words);
	for (size_t i = 0; i < ids.n; i++) {
		struct job_suspend_req req = {.job_id = ids.v[i],
		                              .suspend = (uint32_t)suspend};
		char *msg = NULL;
		void *body = NULL;
		int e;

		if (ids.task[i] != NO_VAL) {
			req.flags = JOB_UPDATE_F_ARRAY_TASK;
			req.array_task_id = ids.task[i];
		}
		e = call_ctld(MSG_JOB_SUSPEND_REQ, &req, MSG_RC, &body, &msg);
		if (e) {
			rc = 1;
			if (!o->quiet)
				fprintf(stderr, "%s for job %s\n", slurm_strerror(e),
				        ids.text[i]);
		}
		free(msg);
	}
	id_list_release(&ids);
	return rc;
}

static int cmd_suspend(const struct scontrol_opts *o, int argc, char **argv)
{
	return suspend_jobs(o, argc, argv, 1);
}

static int cmd_resume(const struct scontrol_opts *o, int argc, char **argv)
{
	return suspend_jobs(o, argc, argv, 0);
}

/* ---- create, delete: reservations (scontrol_resv.c), partitions
 * (scontrol_part.c) ---- */

static int cmd_create(const struct scontrol_opts *o, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		size_t len = strcspn(argv[i], "=");
		if (len >= 3 && len <= 15 &&
		    !strncasecmp(argv[i], "ReservationName", len))
			return scontrol_resv_create(argc, argv);
		if (part_spec_is_name_tag(argv[i], len))
			return scontrol_part_create(o, argc, argv);
		if (len >= 3 && len <= 8 && !strncasecmp(argv[i], "NodeName", len)) {
			fprintf(stderr, "slurm_create error: %s\n",
			        slurm_strerror(ESLURM_NOT_SUPPORTED));
			return 1;
		}
	}
	fprintf(stderr, "scontrol: error: Invalid creation entity: %s\n",
	        argc ? argv[0] : "");
	return 1;
}

static int cmd_delete(const struct scontrol_opts *o, int argc, char **argv)
{
	const char *tag, *val;
	size_t len;

	if (argc == 1 && (val = strchr(argv[0], '='))) {
		tag = argv[0];
		len = (size_t)(val - tag);
		val++;
	} else if (argc == 2) {
		tag = argv[0];
		len = strlen(tag);
		val = argv[1];
	} else {
		fprintf(stderr,
		        "scontrol: error: Proper format is 'delete <ENTITY>=<ID>' or "
		        "'delete <ENTITY> <ID>'\n");
		return 1;
	}
	if (len >= 3 && len <= 15 && !strncasecmp(tag, "ReservationName", len))
		return scontrol_resv_delete(argv[0], val);
	if (part_spec_is_name_tag(tag, len))
		return scontrol_part_delete(o, argv[0], val);
	fprintf(stderr, "Invalid deletion entity: %s\n", argv[0]);
	return 1;
}

/* ---- small commands ---- */

static int cmd_ping(const struct scontrol_opts *o, int argc, char **argv)
{
	return scontrol_ping(stdout);
}

static int cmd_show(const struct scontrol_opts *o, int argc, char **argv)
{
	return scontrol_show(o, argc, argv);
}

static int cmd_version(const struct scontrol_opts *o, int argc, char **argv)
{
	printf("slurm %s\n", ROTA_SLURM_VERSION);
	return 0;
}

static int cmd_help(const struct scontrol_opts *o, int argc, char **argv)
{
	usage(stdout);
	return 0;
}

static int cmd_errnumstr(const struct scontrol_opts *o, int argc, char **argv)
{
	char *end;
	long n;

	if (argc != 1) {
		fprintf(stderr, "invalid number of arguments for keyword:errnumstr\n");
		return 1;
	}
	n = strtol(argv[0], &end, 10);
	if (*end || end == argv[0]) {
		fprintf(stderr, "invalid errno: %s\n", argv[0]);
		return 1;
	}
	printf("%s\n", slurm_strerror((int)n));
	return 0;
}

/* scontrol reconfigure: the controller reads slurm.conf again (admins). */
static int cmd_reconfigure(const struct scontrol_opts *o, int argc, char **argv)
{
	struct empty_msg req = {0};
	void *none = NULL;
	char *msg = NULL;
	int rc = call_ctld(MSG_RECONFIG_REQ, &req, MSG_RC, &none, &msg);

	if (rc) {
		fprintf(stderr, "slurm_reconfigure error: %s\n", msg);
		free(msg);
		return 1;
	}
	return 0;
}

/* scontrol takeover [INDEX]: controller INDEX (default 1, the first backup)
 * takes over from the one that serves (admins). */
static int cmd_takeover(const struct scontrol_opts *o, int argc, char **argv)
{
	struct conf *conf = cli_conf();
	struct rota_error err = {""};
	struct auth *auth = NULL;
	struct empty_msg req = {0};
	struct rc_msg *rc = NULL;
	uint16_t type = 0;
	unsigned long idx = 1;
	char *end;
	int fd, ok;

	if (argc == 1)
		idx = strtoul(argv[0], &end, 10);
	if (argc > 1 || (argc == 1 && (!isdigit((unsigned char)argv[0][0]) || *end))) {
		fprintf(stderr, "invalid takeover specification\n");
		return 1;
	}
	if (idx >= conf_ctld_count(conf)) {
		fprintf(stderr, "slurm_takeover error: %s\n",
		        "No backup controller configured with that index");
		return 1;
	}
	auth_create(conf, 0, &auth, NULL);
	fd = client_connect_to(conf, auth, NULL, idx, &err);
	auth_destroy(auth);
	if (fd < 0) {
		fprintf(stderr, "slurm_takeover error: %s\n",
		        slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR));
		return 1;
	}
	ok = net_rpc(fd, MSG_TAKEOVER_REQ, &req, &type, (void **)&rc, 60000, &err) == 0 &&
	     type == MSG_RC;
	close(fd);
	if (!ok || rc->rc) {
		fprintf(stderr, "slurm_takeover error: %s\n",
		        ok ? slurm_strerror(rc->rc)
		           : slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR));
		msg_body_free(type, rc);
		return 1;
	}
	msg_body_free(type, rc);
	return 0;
}

/* scontrol shutdown [slurmctld|controller]: everything, or the controller
 * only (admins). */
static int cmd_shutdown(const struct scontrol_opts *o, int argc, char **argv)
{
	struct shutdown_req req = {0};
	void *none = NULL;
	char *msg = NULL;
	int rc;

	if (argc > 1 || (argc == 1 && strcasecmp(argv[0], "slurmctld") &&
	                 strcasecmp(argv[0], "controller"))) {
		fprintf(stderr, "invalid shutdown specification: %s\n",
		        argc ? argv[0] : "");
		return 1;
	}
	if (argc == 1)
		req.flags |= SHUTDOWN_F_CTLD_ONLY;
	rc = call_ctld(MSG_SHUTDOWN_REQ, &req, MSG_RC, &none, &msg);
	if (rc) {
		fprintf(stderr, "slurm_shutdown error: %s\n", msg);
		free(msg);
		return 1;
	}
	return 0;
}

/* scontrol abort: the controller stops at once (shutdown_req). */
static int cmd_abort(const struct scontrol_opts *o, int argc, char **argv)
{
	struct shutdown_req req = {.flags = SHUTDOWN_F_ABORT};
	void *none = NULL;
	char *msg = NULL;

	if (argc) {
		fprintf(stderr, "too many arguments for keyword:abort\n");
		return 1;
	}
	if (call_ctld(MSG_SHUTDOWN_REQ, &req, MSG_RC, &none, &msg)) {
		if (!o->quiet)
			fprintf(stderr, "slurm_shutdown error: %s\n", msg);
		free(msg);
		return 1;
	}
	return 0;
}

static int cmd_wait_job(const struct scontrol_opts *o, int argc, char **argv)
{
	uint32_t id;

	if (argc != 1 || fmt_parse_job_id(argv[0], &id) < 0) {
		fprintf(stderr, "invalid job id for keyword:wait_job\n");
		return 1;
	}
	for (;;) {
		struct job_info_req req = {.job_ids = {&id, 1}};
		const struct job_info *j = NULL;
		struct job_info_resp *resp;
		void *body = NULL;
		char *msg = NULL;
		int done;

		if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
			fprintf(stderr, "slurm_load_jobs error: %s\n", msg);
			free(msg);
			return 1;
		}
		resp = body;
		for (uint32_t i = 0; i < resp->jobs_count; i++)
			if (resp->jobs[i].job_id == id)
				j = &resp->jobs[i];
		done = !j || (j->state & JOB_STATE_BASE) != JOB_PENDING;
		msg_body_free(MSG_JOB_INFO_RESP, body);
		if (done)
			return j ? 0 : 1;
		sleep(1);
	}
}

/* scontrol token [lifespan=SECONDS] [username=NAME]: a JWT for REST
 * (AuthAltTypes=auth/jwt), printed as SLURM_JWT=...; another user's for
 * admins only. */
static int cmd_token(const struct scontrol_opts *o, int argc, char **argv)
{
	struct token_req req = {0};
	struct token_resp *resp = NULL;
	char *msg = NULL, *end;
	int rc;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);

		if (eq && klen && !strncasecmp(argv[i], "lifespan", klen) &&
		    klen <= strlen("lifespan")) {
			unsigned long v;
			errno = 0;
			v = strtoul(eq + 1, &end, 10);
			if (errno || end == eq + 1 || *end || !v || v > UINT32_MAX ||
			    eq[1] == '-') {
				fprintf(stderr, "Invalid lifespan value: %s\n", eq + 1);
				return 1;
			}
			req.lifespan = (uint32_t)v;
		} else if (eq && klen && !strncasecmp(argv[i], "username", klen) &&
		           klen <= strlen("username")) {
			req.username = (char *)eq + 1;
		} else {
			fprintf(stderr, "Invalid parameter %s\n", argv[i]);
			return 1;
		}
	}
	rc = call_ctld(MSG_TOKEN_REQ, &req, MSG_TOKEN_RESP, (void **)&resp, &msg);
	if (rc) {
		fprintf(stderr, "Unable to fetch JWT token: %s\n", msg);
		free(msg);
		return 1;
	}
	printf("SLURM_JWT=%s\n", resp->token);
	msg_body_free(MSG_TOKEN_RESP, resp);
	return 0;
}

typedef int (*cmd_f)(const struct scontrol_opts *o, int argc, char **argv);

static const struct {
	const char *name;
	size_t min; /* shortest accepted abbreviation */
	cmd_f fn;
} commands[] = {
    {"ping", 2, cmd_ping},
    {"show", 3, cmd_show},
    {"hold", 2, cmd_hold},
    {"uhold", 2, cmd_uhold},
    {"release", 3, cmd_release},
    {"requeuehold", 8, cmd_requeuehold},
    {"requeue", 3, cmd_requeue},
    {"update", 1, cmd_update},
    {"power", 2, cmd_power},
    {"reconfigure", 3, cmd_reconfigure},
    {"version", 4, cmd_version},
    {"help", 2, cmd_help},
    {"errnumstr", 2, cmd_errnumstr},
    {"wait_job", 2, cmd_wait_job},
    {"suspend", 2, cmd_suspend},
    {"resume", 3, cmd_resume},
    {"top", 3, cmd_top},
    {"notify", 1, scontrol_notify},
    {"listpids", 5, scontrol_listpids},
    {"pidinfo", 3, scontrol_pidinfo},
    {"create", 2, cmd_create},
    {"delete", 3, cmd_delete},
    {"reboot_nodes", 3, scontrol_reboot},
    {"cancel_reboot", 3, scontrol_cancel_reboot},
    {"shutdown", 8, cmd_shutdown},
    {"takeover", 8, cmd_takeover},
    {"abort", 5, cmd_abort},
    {"setdebug", 2, scontrol_setdebug},
    {"setdebugflags", 9, scontrol_setdebugflags},
    {"schedloglevel", 3, scontrol_schedloglevel},
    {"token", 3, cmd_token},
    {"write", 2, scontrol_write},
    {"completing", 2, scontrol_completing},
};

static int run_command(struct scontrol_opts *o, int argc, char **argv)
{
	const char *tag = argv[0];

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (scontrol_abbrev(tag, commands[i].name, commands[i].min))
			return commands[i].fn(o, argc - 1, argv + 1);
	fprintf(stderr, "invalid keyword: %s\n", tag);
	return 1;
}

/* ---- interactive mode ---- */

/* Split a line into words; quotes group and are removed.  Returns the count
 * (words point into line, which is modified), or -1 when too many. */
static int split_words(char *line, char **words, int max)
{
	char *r = line, *w = line;
	int n = 0;

	for (;;) {
		char quote = 0;

		while (isspace((unsigned char)*r))
			r++;
		if (!*r)
			break;
		if (n == max)
			return -1;
		words[n++] = w;
		while (*r && (quote || !isspace((unsigned char)*r))) {
			if (!quote && (*r == '"' || *r == '\'')) {
				quote = *r++;
			} else if (quote && *r == quote) {
				quote = 0;
				r++;
			} else {
				*w++ = *r++;
			}
		}
		if (*r)
			r++;
		*w++ = '\0';
	}
	return n;
}

static int interactive(struct scontrol_opts *o)
{
	char *line = xmalloc(SCONTROL_LINE_MAX), *last = NULL;
	char **words = xcalloc(SCONTROL_WORDS_MAX, sizeof(*words));
	int prompt = isatty(STDIN_FILENO), rc = 0;

	for (;;) {
		int n;

		if (prompt) {
			printf("%s: ", cli_prog);
			fflush(stdout);
		}
		if (!fgets(line, SCONTROL_LINE_MAX, stdin))
			break;
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "!!")) {
			if (!last)
				continue;
			snprintf(line, SCONTROL_LINE_MAX, "%s", last);
		} else {
			free(last);
			last = xstrdup(line);
		}
		if ((n = split_words(line, words, SCONTROL_WORDS_MAX)) < 0) {
			fprintf(stderr, "too many words in command\n");
			rc = 1;
			continue;
		}
		if (!n)
			continue;
		if (scontrol_abbrev(words[0], "quit", 4) ||
		    scontrol_abbrev(words[0], "exit", 4))
			break;
		if (scontrol_abbrev(words[0], "oneliner", 1))
			o->oneliner = 1;
		else if (scontrol_abbrev(words[0], "details", 1))
			o->details = 1;
		else if (scontrol_abbrev(words[0], "quiet", 4))
			o->quiet = 1;
		else if (scontrol_abbrev(words[0], "verbose", 4))
			o->verbose = 1;
		else if (scontrol_abbrev(words[0], "all", 2))
			o->all = 1;
		else if (scontrol_abbrev(words[0], "hide", 2))
			o->all = 0;
		else
			rc = run_command(o, n, words);
		fflush(stdout);
	}
	free(last);
	free(words);
	free(line);
	return rc;
}

enum { OPT_IGNORE = 1000, OPT_USAGE, OPT_JSON, OPT_YAML };

int cmd_scontrol(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"all", no_argument, 0, 'a'},
	    {"clusters", required_argument, 0, 'M'},
	    {"details", no_argument, 0, 'd'},
	    {"federation", no_argument, 0, OPT_IGNORE},
	    {"future", no_argument, 0, 'F'},
	    {"help", no_argument, 0, 'h'},
	    {"hide", no_argument, 0, OPT_IGNORE},
	    {"json", no_argument, 0, OPT_JSON},
	    {"local", no_argument, 0, OPT_IGNORE},
	    {"oneliner", no_argument, 0, 'o'},
	    {"quiet", no_argument, 0, 'Q'},
	    {"sibling", no_argument, 0, OPT_IGNORE},
	    {"uid", required_argument, 0, 'u'},
	    {"usage", no_argument, 0, OPT_USAGE},
	    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},
	    {"yaml", no_argument, 0, OPT_YAML},
	    {0, 0, 0, 0},
	};
	struct scontrol_opts o = {0};
	int c;

	while ((c = getopt_long(argc, argv, "adFhM:oQu:vV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.details++;
			break;
		case 'h':
		case OPT_USAGE:
			usage(stdout);
			return 0;
		case 'o':
			o.oneliner = 1;
			break;
		case 'Q':
			o.quiet = 1;
			break;
		case 'v':
			o.verbose++;
			break;
		case OPT_JSON:
			o.json = 1;
			break;
		case OPT_YAML:
			o.json = CLI_DOC_YAML;
			break;
		case 'V':
			fmt_print_version();
		case 'M':
			cli_clusters_check(optarg, 0);
			break;
		case 'a':
			o.all = 1;
			break;
		case 'F':
		case 'u':
		case OPT_IGNORE:
			break;
		default:
			fmt_bad_option();
		}
	}
	if (optind < argc)
		return run_command(&o, argc - optind, argv + optind);
	return interactive(&o);
}
