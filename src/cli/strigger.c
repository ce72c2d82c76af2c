/* strigger.c - set, get and clear event triggers, as Slurm 22.05's strigger
 * does (the controller keeps and fires them: ctld/trigger.h).  The triggers
 * about the database behind rotadbd, burst buffers and front-end nodes need
 * what Rota does not have and are refused by name. */
#include <ctype.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/states.h"
#include "common/trigtype.h"
#include "proto/messages.h"
#include "common/common.h"

enum { M_SET = 1, M_GET = 2, M_CLEAR = 4 };

struct strigger_opts {
	int modes, nmodes;
	uint32_t types;      /* TRIG_T_* asked for */
	const char *refused; /* an option Rota cannot honour */
	uint32_t job_id;     /* 0: none */
	uint32_t trigger_id; /* 0: none */
	uint32_t uid;        /* --user; NO_VAL: none */
	const char *node;    /* -n: NULL none, "" every node */
	int noheader, quiet, verbose, perm;
	long offset;
	const char *program;
};

static void usage(void)
{
	printf("Usage: strigger [--set | --get | --clear | --version] "
	       "[-aAbBcCdDefFgGhHiIjnNopQrtuv]\n");
}

static void help(void)
{
	printf(
	    "Usage: strigger [--set | --get | --clear] [OPTIONS]\n"
	    "      --set           create a trigger\n"
	    "      --get           get trigger information\n"
	    "      --clear         delete a trigger\n\n"
	    "      --burst_buffer  trigger event on burst buffer error\n"
	    "      --front_end     trigger event on FrontEnd node state changes\n"
	    "  -a, --primary_slurmctld_failure\n"
	    "                      trigger event when primary slurmctld fails\n"
	    "  -A, --primary_slurmctld_resumed_operation\n"
	    "                      trigger event on primary slurmctld resumed operation\n"
	    "                      after failure\n"
	    "  -b, --primary_slurmctld_resumed_control\n"
	    "                      trigger event on primary slurmctld resumed control\n"
	    "  -B, --backup_slurmctld_failure\n"
	    "                      trigger event when backup slurmctld fails\n"
	    "  -c, --backup_slurmctld_resumed_operation\n"
	    "                      trigger event when backup slurmctld resumed "
	    "operation\n"
	    "                      after failure\n"
	    "  -C, --backup_slurmctld_assumed_control\n"
	    "                      trigger event when backup slurmctld assumed control\n"
	    "  -d, --down          trigger event when node goes DOWN\n"
	    "  -D, --drained       trigger event when node becomes DRAINED\n"
	    "  -e, --primary_slurmctld_acct_buffer_full\n"
	    "                      trigger event when primary slurmctld acct buffer "
	    "full\n"
	    "  -F, --fail          trigger event when node is expected to FAIL\n"
	    "  -f, --fini          trigger event when job finishes\n"
	    "      --flags=perm    trigger event flag (perm = permanent)\n\n"
	    "  -g, --primary_slurmdbd_failure\n"
	    "                      trigger when primary slurmdbd fails\n"
	    "  -G, --primary_slurmdbd_resumed_operation\n"
	    "                      trigger when primary slurmdbd resumed operation "
	    "after\n"
	    "                      failure\n"
	    "  -h, --primary_database_failure\n"
	    "                      trigger when primary database fails\n"
	    "  -H, --primary_database_resumed_operation\n"
	    "                      trigger when primary database resumed operation "
	    "after\n"
	    "                      failure\n"
	    "  -i, --id=#          a trigger's ID number\n"
	    "  -I, --idle          trigger event when node remains IDLE\n"
	    "  -j, --jobid=#       trigger related to specific jobid\n"
	    "  -M, --cluster=name  cluster to issue commands to (this one only)\n"
	    "  -n, --node[=host]   trigger related to specific node, all nodes by "
	    "default\n"
	    "  -N, --noheader      Do not print the message header\n"
	    "  -o, --offset=#      trigger's offset time from event, negative to "
	    "precede\n"
	    "  -p, --program=path  pathname of program to execute when triggered\n"
	    "  -Q, --quiet         quiet mode (suppress informational messages)\n"
	    "  -r, --reconfig      trigger event on configuration changes\n"
	    "  -t, --time          trigger event on job's time limit\n"
	    "  -u, --up            trigger event when node returned to service from "
	    "DOWN\n"
	    "                      state\n"
	    "      --user          a user name or ID to filter triggers by\n"
	    "  -v, --verbose       print detailed event logging\n"
	    "  -V, --version       print version information and exit\n"
	    "\nHelp options:\n"
	    "  --help              show this help message\n"
	    "  --usage             display brief usage message\n");
}

enum {
	O_SET = 256,
	O_GET,
	O_CLEAR,
	O_BB,
	O_FE,
	O_FLAGS,
	O_USER,
	O_HELP,
	O_USAGE,
};

static const struct option lo[] = {
    {"primary_slurmctld_failure", no_argument, NULL, 'a'},
    {"primary_slurmctld_resumed_operation", no_argument, NULL, 'A'},
    {"primary_slurmctld_resumed_control", no_argument, NULL, 'b'},
    {"backup_slurmctld_failure", no_argument, NULL, 'B'},
    {"backup_slurmctld_resumed_operation", no_argument, NULL, 'c'},
    {"backup_slurmctld_assumed_control", no_argument, NULL, 'C'},
    {"down", no_argument, NULL, 'd'},
    {"drained", no_argument, NULL, 'D'},
    {"primary_slurmctld_acct_buffer_full", no_argument, NULL, 'e'},
    {"fail", no_argument, NULL, 'F'},
    {"fini", no_argument, NULL, 'f'},
    {"primary_slurmdbd_failure", no_argument, NULL, 'g'},
    {"primary_slurmdbd_resumed_operation", no_argument, NULL, 'G'},
    {"primary_database_failure", no_argument, NULL, 'h'},
    {"primary_database_resumed_operation", no_argument, NULL, 'H'},
    {"id", required_argument, NULL, 'i'},
    {"idle", no_argument, NULL, 'I'},
    {"jobid", required_argument, NULL, 'j'},
    {"cluster", required_argument, NULL, 'M'},
    {"clusters", required_argument, NULL, 'M'},
    {"node", optional_argument, NULL, 'n'},
    {"noheader", no_argument, NULL, 'N'},
    {"offset", required_argument, NULL, 'o'},
    {"program", required_argument, NULL, 'p'},
    {"quiet", no_argument, NULL, 'Q'},
    {"reconfig", no_argument, NULL, 'r'},
    {"time", no_argument, NULL, 't'},
    {"up", no_argument, NULL, 'u'},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    {"set", no_argument, NULL, O_SET},
    {"get", no_argument, NULL, O_GET},
    {"clear", no_argument, NULL, O_CLEAR},
    {"burst_buffer", no_argument, NULL, O_BB},
    {"front_end", no_argument, NULL, O_FE},
    {"flags", required_argument, NULL, O_FLAGS},
    {"user", required_argument, NULL, O_USER},
    {"help", no_argument, NULL, O_HELP},
    {"usage", no_argument, NULL, O_USAGE},
    {NULL, 0, NULL, 0}};

/* An option's trigger type bit, or 0. */
static uint32_t type_of(int c)
{
	switch (c) {
	case 'a':
		return TRIG_T_PRI_CTLD_FAIL;
	case 'A':
		return TRIG_T_PRI_CTLD_RES_OP;
	case 'b':
		return TRIG_T_PRI_CTLD_RES_CTRL;
	case 'B':
		return TRIG_T_BU_CTLD_FAIL;
	case 'c':
		return TRIG_T_BU_CTLD_RES_OP;
	case 'C':
		return TRIG_T_BU_CTLD_AS_CTRL;
	case 'd':
		return TRIG_T_DOWN;
	case 'D':
		return TRIG_T_DRAINED;
	case 'e':
		return TRIG_T_PRI_CTLD_ACCT_FULL;
	case 'F':
		return TRIG_T_FAIL;
	case 'f':
		return TRIG_T_FINI;
	case 'g':
		return TRIG_T_PRI_DBD_FAIL;
	case 'G':
		return TRIG_T_PRI_DBD_RES_OP;
	case 'h':
		return TRIG_T_PRI_DB_FAIL;
	case 'H':
		return TRIG_T_PRI_DB_RES_OP;
	case 'I':
		return TRIG_T_IDLE;
	case 'r':
		return TRIG_T_RECONFIG;
	case 't':
		return TRIG_T_TIME;
	case 'u':
		return TRIG_T_UP;
	case O_BB:
		return TRIG_T_BURST_BUFFER;
	default:
		return 0;
	}
}

#define CTLD_TYPES                                                                       \
	(TRIG_T_PRI_CTLD_FAIL | TRIG_T_PRI_CTLD_RES_OP | TRIG_T_PRI_CTLD_RES_CTRL |      \
	 TRIG_T_PRI_CTLD_ACCT_FULL | TRIG_T_BU_CTLD_FAIL | TRIG_T_BU_CTLD_RES_OP |       \
	 TRIG_T_BU_CTLD_AS_CTRL)

static const char *long_name(int c)
{
	for (const struct option *o = lo; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

static uint32_t parse_user(const char *arg)
{
	struct passwd *pw = getpwnam(arg);
	char *end;
	unsigned long v;

	if (pw)
		return (uint32_t)pw->pw_uid;
	v = strtoul(arg, &end, 10);
	if (end == arg || *end || v >= NO_VAL) {
		cli_error("Invalid user %s", arg);
		exit(1);
	}
	return (uint32_t)v;
}

static void parse_args(struct strigger_opts *o, int argc, char **argv)
{
	int c;
	char *end;

	while ((c = getopt_long(argc, argv, "aAbBcCdDeFfgGhHi:Ij:M:n::No:p:QrtuvV", lo,
	                        NULL)) != -1) {
		uint32_t t = type_of(c);
		if (t) {
			o->types |= t;
			if (!(t & TRIG_T_SUPPORTED) && !o->refused)
				o->refused = long_name(c);
			continue;
		}
		switch (c) {
		case O_SET:
		case O_GET:
		case O_CLEAR:
			o->modes |= c == O_SET ? M_SET : c == O_GET ? M_GET : M_CLEAR;
			o->nmodes++;
			break;
		case O_FE:
			if (!o->refused)
				o->refused = "front_end";
			break;
		case 'i':
			o->trigger_id = (uint32_t)strtoul(optarg, &end, 10);
			if (end == optarg || *end) {
				cli_error("Invalid trigger id %s", optarg);
				exit(1);
			}
			break;
		case 'j':
			o->job_id = (uint32_t)strtoul(optarg, &end, 10);
			if (end == optarg || *end || !o->job_id) {
				cli_error("Invalid jobid %s", optarg);
				exit(1);
			}
			break;
		case 'M': /* one cluster: this one */
			break;
		case 'n':
			o->node = optarg ? optarg : "";
			break;
		case 'N':
			o->noheader = 1;
			break;
		case 'o':
			o->offset = strtol(optarg, &end, 10);
			if (end == optarg || *end) {
				cli_error("Invalid offset %s", optarg);
				exit(1);
			}
			break;
		case 'p':
			o->program = optarg;
			break;
		case 'Q':
			o->quiet = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			fmt_print_version();
			exit(0);
		case O_FLAGS:
			if (strcasecmp(optarg, "perm") &&
			    strcasecmp(optarg, "permanent")) {
				cli_error("Invalid flags %s", optarg);
				exit(1);
			}
			o->perm = 1;
			break;
		case O_USER:
			o->uid = parse_user(optarg);
			break;
		case O_HELP:
			help();
			exit(0);
		case O_USAGE:
			usage();
			exit(0);
		default:
			fprintf(stderr, "Try \"strigger --help\" for more information\n");
			exit(1);
		}
	}
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		fprintf(stderr, "Try \"strigger --help\" for more information\n");
		exit(1);
	}
}

static void check_args(const struct strigger_opts *o)
{
	if (o->nmodes != 1) {
		cli_error(
		    "You must use exactly one of the following options: --set, --get or "
		    "--clear");
		exit(1);
	}
	if (o->modes == M_CLEAR && o->uid == NO_VAL && !o->trigger_id && !o->job_id) {
		cli_error("You must specify a --id, --jobid, or --user to clear");
		exit(1);
	}
	if (o->modes == M_SET && !o->types) {
		cli_error("You must specify a trigger (--down, --up, --reconfig, --time, "
		          "--fini, --burst_buffer,\n--primary_slurmctld_failure,\n"
		          "--primary_slurmctld_resumed_operation,\n"
		          "--primary_slurmctld_resumed_control,\n"
		          "--primary_slurmctld_acct_buffer_full,\n"
		          "--backup_slurmctld_failure,\n"
		          "--backup_slurmctld_resumed_operation,\n"
		          "--backup_slurmctld_as_ctrl,\n"
		          "--primary_slurmdbd_failure,\n"
		          "--primary_slurmdbd_resumed_operation,\n"
		          "--primary_database_failure, or \n"
		          "--primary_database_resumed_operation)\n");
		exit(1);
	}
	if (o->modes == M_SET && o->refused) {
		cli_error("--%s: Rota does not watch for this event", o->refused);
		exit(1);
	}
	if (o->modes == M_SET && !o->program) {
		cli_error("You must specify a --program value");
		exit(1);
	}
	if ((o->types & (TRIG_T_FINI | TRIG_T_TIME)) && !o->job_id) {
		cli_error("You must specify a --jobid value");
		exit(1);
	}
	if (o->program && o->program[0] != '/') {
		cli_error("The --program value must start with \"/\"");
		exit(1);
	}
	if (o->program) {
		char *path = xstrndup(o->program, strcspn(o->program, " \t\n"));
		struct stat sb;
		if (stat(path, &sb) < 0) {
			cli_error("Invalid --program value, file not found");
			exit(1);
		}
		if (!S_ISREG(sb.st_mode)) {
			cli_error("Invalid --program value, not regular file");
			exit(1);
		}
		free(path);
	}
	if (o->offset < -32000 || o->offset > 32000) {
		cli_error("The --offset parameter must be between +/-32000");
		exit(1);
	}
	if (o->job_id && o->node && o->modes == M_SET) {
		cli_error("The --jobid and --node options can not be used together");
		exit(1);
	}
}

/* rc from the controller: "slurm_X_trigger: why". */
static int said(const char *what, int rc, const char *msg)
{
	fprintf(stderr, "%s: %s\n", what, msg ? msg : slurm_strerror(rc));
	return 1;
}

/* Send a set or clear request for t (with the job of -j); returns 0, or 1
 * once said why as "what: why" (not with quiet). */
static int send_trigger(uint16_t type, struct trigger *t, const struct strigger_opts *o,
                        const char *what, int quiet)
{
	char job[16], *msg = NULL;
	void *none = NULL;
	int rc;

	if (o->job_id) {
		snprintf(job, sizeof(job), "%u", o->job_id);
		t->res_type = TRIG_RES_JOB;
		t->res_id = job;
	}
	rc = call_ctld(type, t, MSG_RC, &none, &msg);
	if (rc && !quiet)
		said(what, rc, msg);
	free(msg);
	return rc ? 1 : 0;
}

static int do_set(const struct strigger_opts *o)
{
	struct trigger t = {.type = o->types,
	                    .offset = (int32_t)o->offset,
	                    .flags = o->perm ? TRIG_F_PERM : 0,
	                    .program = (char *)o->program};

	if (o->types & CTLD_TYPES) {
		t.res_type = TRIG_RES_SLURMCTLD;
		t.res_id = (char *)"*"; /* as Slurm's strigger sends it */
	} else if (o->types & TRIG_T_DBD_SEEN) {
		t.res_type = TRIG_RES_SLURMDBD;
		t.res_id = (char *)"*";
	} else {
		t.res_type = TRIG_RES_NODE;
		t.res_id = (char *)(o->node && *o->node ? o->node : "*");
	}
	if (send_trigger(MSG_TRIGGER_SET_REQ, &t, o, "slurm_set_trigger", 0))
		return 1;
	if (o->verbose)
		fprintf(stderr, "strigger: trigger set\n");
	return 0;
}

static int do_clear(const struct strigger_opts *o)
{
	struct trigger t = {.id = o->trigger_id, .uid = o->uid};

	if (send_trigger(MSG_TRIGGER_CLEAR_REQ, &t, o, "slurm_clear_trigger", o->quiet))
		return o->quiet ? 0 : 1;
	if (o->verbose && o->job_id)
		fprintf(stderr, "strigger: triggers for job %u cleared\n", o->job_id);
	else if (o->verbose && o->uid != NO_VAL)
		fprintf(stderr, "strigger: triggers for user %u cleared\n", o->uid);
	else if (o->verbose)
		fprintf(stderr, "strigger: trigger %u cleared\n", o->trigger_id);
	return 0;
}

/* Whether --get's filters let t through (each given one narrows). */
static int shown(const struct strigger_opts *o, const struct trigger *t)
{
	static const uint32_t one_type[] = {
	    TRIG_T_FINI, TRIG_T_TIME, TRIG_T_DOWN,     TRIG_T_UP,          TRIG_T_DRAINED,
	    TRIG_T_IDLE, TRIG_T_FAIL, TRIG_T_RECONFIG, TRIG_T_BURST_BUFFER};

	for (size_t i = 0; i < sizeof(one_type) / sizeof(one_type[0]); i++)
		if ((o->types & one_type[i]) && t->type != one_type[i])
			return 0;
	if ((o->types & CTLD_TYPES) &&
	    (t->res_type != TRIG_RES_SLURMCTLD || !(t->type & o->types & CTLD_TYPES)))
		return 0;
	if ((o->types & TRIG_T_DBD_SEEN) &&
	    (t->res_type != TRIG_RES_SLURMDBD || !(t->type & o->types & TRIG_T_DBD_SEEN)))
		return 0;
	if ((o->types & (TRIG_T_FINI | TRIG_T_TIME)) && t->res_type != TRIG_RES_JOB)
		return 0;
	if ((o->types & (TRIG_T_DRAINED | TRIG_T_IDLE | TRIG_T_FAIL)) &&
	    t->res_type != TRIG_RES_NODE)
		return 0;
	if (o->job_id && (t->res_type != TRIG_RES_JOB || !t->res_id ||
	                  strtoul(t->res_id, NULL, 10) != o->job_id))
		return 0;
	if (o->node && t->res_type != TRIG_RES_NODE)
		return 0;
	if (o->trigger_id && t->id != o->trigger_id)
		return 0;
	if (o->uid != NO_VAL && t->uid != o->uid)
		return 0;
	return 1;
}

static int do_get(const struct strigger_opts *o)
{
	struct trigger_list *r = NULL;
	char *msg = NULL;
	int rc = call_ctld(MSG_TRIGGER_GET_REQ, &(struct empty_msg){0},
	                   MSG_TRIGGER_GET_RESP, (void **)&r, &msg);
	int lines = 0;

	if (rc) {
		said("slurm_get_triggers", rc, msg);
		free(msg);
		return 1;
	}
	if (o->verbose)
		fprintf(stderr, "strigger: Read %u trigger records\n", r->triggers_count);
	for (uint32_t i = 0; i < r->triggers_count; i++) {
		const struct trigger *t = &r->triggers[i];
		if (!shown(o, t))
			continue;
		if (!lines++ && !o->noheader)
			printf("TRIG_ID RES_TYPE   RES_ID %-35s OFFSET USER     FLAGS "
			       "PROGRAM\n",
			       "TYPE");
		printf("%7u %-9s %7s %-35s %6d %-8s %-5s %s\n", t->id,
		       trig_res_name(t->res_type), t->res_id ? t->res_id : "",
		       trig_type_name(t->type), t->offset, t->user ? t->user : "unknown",
		       (t->flags & TRIG_F_PERM) ? "PERM" : "",
		       t->program ? t->program : "");
	}
	msg_body_free(MSG_TRIGGER_GET_RESP, r);
	return 0;
}

int cmd_strigger(int argc, char **argv)
{
	struct strigger_opts o = {.uid = NO_VAL};

	parse_args(&o, argc, argv);
	check_args(&o);
	if (o.modes == M_SET)
		return do_set(&o);
	if (o.modes == M_CLEAR)
		return do_clear(&o);
	return do_get(&o);
}
