/* sacctmgr.c - accounts, users, associations, QOS and resources, as Slurm 22.05's
 * sacctmgr handles them: add, modify, delete (the controller checks and makes
 * the change, ctld/assoc.h), list and show (sacctmgr_list.c).  Without -i a
 * change is shown first (the controller's dry run) and made only when the
 * user answers y within 30 seconds. */
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/sacctmgr.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

#define CONFIRM_S 30
#define WORDS_MAX 1024

/* Slurm's layout: options, commands, entities, specs; the phrases scripts
 * and Slurm's tests look for ("commit changes immediately", "display tool
 * version number", "add cluster") are kept. */
static void usage(FILE *f)
{
	fprintf(f,
	        "sacctmgr [<OPTION>] [<COMMAND>]\n"
	        "    Valid <OPTION> values are:\n"
	        "     -h or --help: this text\n"
	        "     -i or --immediate: commit changes immediately\n"
	        "     -n or --noheader: no header line\n"
	        "     -p or --parsable: '|' after each field\n"
	        "     -P or --parsable2: '|' between fields\n"
	        "     -Q or --quiet: errors only\n"
	        "     -s or --associations: list the associations with the entity\n"
	        "     -v or --verbose: accepted, no effect\n"
	        "     -V or --version: same as the version command\n"
	        "\n"
	        "  Valid <COMMAND> values are:\n"
	        "     add <ENTITY> <SPECS>     add (or create) entities\n"
	        "     clear stats              reset rotadbd's request counts\n"
	        "                              (administrators only)\n"
	        "     delete <ENTITY> <SPECS>  delete (or remove) entities\n"
	        "     dump <CLUSTER> file=<FILE>\n"
	        "                              write the cluster's accounts, users and\n"
	        "                              associations to FILE\n"
	        "     help                     this text\n"
	        "     list <ENTITY> [<SPECS>]  show entities (also: show)\n"
	        "     load file=<FILE>         add what FILE holds (with -i)\n"
	        "     modify <ENTITY> <SPECS>  modify (or update) entities\n"
	        "     show configuration       the accounting settings of slurm.conf\n"
	        "                              and of the SlurmDBD (rotadbd)\n"
	        "     show stats [ave_time|total_time]\n"
	        "                              rotadbd's request counts, by type and\n"
	        "                              by user\n"
	        "     version                  display tool version number\n"
	        "\n"
	        "  <ENTITY> may be account, association, cluster, coordinator, qos,\n"
	        "  resource or user; for modify, job too.\n"
	        "\n"
	        "  <SPECS> are names, Key=Value ..., where Key=Value ..., set Key=Value\n"
	        "  ..., format=F1,F2%%N ... and withassoc; for example:\n"
	        "       add cluster        - <name>\n"
	        "       add account        - <name> Description= Organization= parent=\n"
	        "       add user           - <name> account= DefaultAccount=\n"
	        "       modify user        - <name> set MaxJobs= MaxWall= GrpTRES= ...\n"
	        "       modify job         - JobID= set DerivedExitCode= Comment=\n"
	        "                            AdminComment= SystemComment=\n"
	        "       add resource       - <name> Type=License Count= Server=\n"
	        "                            ServerType= Description= Cluster=\n"
	        "                            PercentAllowed=\n"
	        "       modify resource    - Name= Server= Cluster= set Count=\n"
	        "                            PercentAllowed= Description=\n"
	        "       list resource      - Name= Server= WithClusters\n");
}

/* Is w word, or its first min letters or more (Slurm's abbreviations)? */
static int abbrev(const char *w, const char *word, size_t min)
{
	size_t n = strlen(w);

	return n >= min && n <= strlen(word) && !strncasecmp(w, word, n);
}

static int verb_parse(const char *w)
{
	if (abbrev(w, "add", 3) || abbrev(w, "create", 3))
		return ASSOC_ADD;
	if (abbrev(w, "modify", 1) || abbrev(w, "update", 1))
		return ASSOC_MODIFY;
	if (abbrev(w, "delete", 3) || abbrev(w, "remove", 3))
		return ASSOC_DELETE;
	if (abbrev(w, "list", 3) || abbrev(w, "show", 3))
		return 0;
	return -1;
}

/* The entity; *clusters set for "cluster" (listed, not changed here).  A
 * resource is named by any beginning to change it, by four letters or more
 * to list it (Slurm's "res" lists reservations). */
static int kind_parse(const char *w, int verb, int *clusters)
{
	size_t n = strlen(w);

	*clusters = 0;
	if (n >= 3 && !strncasecmp(w, "accounts", n))
		return ASSOC_K_ACCOUNT;
	if (n >= 2 && !strncasecmp(w, "users", n))
		return ASSOC_K_USER;
	if (!strcasecmp(w, "qos"))
		return ASSOC_K_QOS;
	if (n >= 5 && !strncasecmp(w, "associations", n))
		return ASSOC_K_ASSOC;
	if (n >= 5 && !strncasecmp(w, "coordinators", n))
		return ASSOC_K_COORD;
	if (n >= (verb ? 1u : 4u) && !strncasecmp(w, "resources", n))
		return ASSOC_K_RES;
	if (n >= 1 && !strncasecmp(w, "clusters", n)) {
		*clusters = 1;
		return ASSOC_K_ASSOC;
	}
	return -1;
}

int mgr_confirm(const char *question)
{
	struct pollfd p = {.fd = 0, .events = POLLIN};
	char line[64] = "";

	printf("%s (You have %d seconds to decide)\n"
	       "(N/y): ",
	       question, CONFIRM_S);
	fflush(stdout);
	if (poll(&p, 1, CONFIRM_S * 1000) <= 0 || !fgets(line, sizeof(line), stdin)) {
		printf("\n");
		return 0;
	}
	return line[0] == 'y' || line[0] == 'Y';
}

static const char *kind_title(enum assoc_kind k, int verb)
{
	switch (k) {
	case ASSOC_K_ACCOUNT:
		return verb == ASSOC_ADD ? "Account(s)" : "accounts";
	case ASSOC_K_USER:
		return verb == ASSOC_ADD ? "User(s)" : "users";
	case ASSOC_K_QOS:
		return verb == ASSOC_MODIFY ? "qos" : "QOS(s)";
	default:
		return "associations";
	}
}

/* changed: "user(account)" lines. */
static void print_coords(uint32_t verb, char *const *changed)
{
	char **users = NULL, **accts = NULL;

	for (size_t i = 0; changed && changed[i]; i++) {
		char *u = xstrdup(changed[i]), *a = strchr(u, '(');
		if (a) {
			*a++ = '\0';
			a[strcspn(a, ")")] = '\0';
			if (!strv_has(accts, a, 1))
				accts = strv_append(accts, a);
		}
		if (!strv_has(users, u, 1))
			users = strv_append(users, u);
		free(u);
	}
	printf(verb == ASSOC_ADD ? " Adding Coordinator User(s)\n"
	                         : " Removing Coordinator User(s)\n");
	for (size_t i = 0; users && users[i]; i++)
		printf("  %s\n", users[i]);
	printf(verb == ASSOC_ADD ? " To Account(s) and all sub-accounts\n"
	                         : " From Account(s)\n");
	for (size_t i = 0; accts && accts[i]; i++)
		printf("  %s\n", accts[i]);
	strv_free(users);
	strv_free(accts);
}

/* What a modify changed: the records by name ("Modified users..."), then
 * the associations ("C = ..." lines: "Modified user associations..."). */
static void print_modified(enum assoc_kind kind, char *const *changed)
{
	for (int assocs = 0; assocs < 2; assocs++) {
		int said = 0;
		for (size_t i = 0; changed && changed[i]; i++) {
			if ((strncmp(changed[i], "C = ", 4) == 0) != assocs)
				continue;
			if (!said++ && assocs)
				printf(" Modified %s associations...\n",
				       kind == ASSOC_K_ACCOUNT ? "account" : "user");
			else if (said == 1)
				printf(" Modified %s...\n",
				       kind_title(kind, ASSOC_MODIFY));
			printf("  %s\n", changed[i]);
		}
	}
}

/* set's Key=value for key (any case), or NULL. */
static const char *set_value(char *const *set, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; set && set[i]; i++)
		if (!strncasecmp(set[i], key, n) && set[i][n] == '=')
			return set[i] + n + 1;
	return NULL;
}

/* add account: the accounts, their settings and their associations, in
 * Slurm's layout (scripts and Slurm's tests look for "Associations"). */
static void print_added_accounts(const struct assoc_update *req, char *const *changed)
{
	const char *descr = set_value(req->set, "Description");
	const char *org = set_value(req->set, "Organization");
	const char *cluster = cli_conf()->cluster_name;

	printf(" Adding Account(s)\n");
	for (size_t i = 0; changed && changed[i]; i++)
		printf("  %s\n", changed[i]);
	printf(" Settings\n");
	printf("  Description     = %s\n", descr ? descr : "Account Name");
	printf("  Organization    = %s\n", org ? org : "Parent/Account Name");
	printf(" Associations\n");
	for (size_t i = 0; changed && changed[i]; i++)
		printf("  A = %-10.10s C = %-10.10s\n", changed[i],
		       cluster ? cluster : "cluster");
}

static void print_changes(const struct mgr_opts *o, const struct assoc_update *req,
                          char *const *changed)
{
	if (o->quiet)
		return;
	if (req->kind == ASSOC_K_COORD) {
		print_coords(req->verb, changed);
		return;
	}
	if (req->kind == ASSOC_K_RES) { /* the controller's lines, whole */
		for (size_t i = 0; changed && changed[i]; i++)
			printf("%s\n", changed[i]);
		return;
	}
	if (req->verb == ASSOC_ADD && req->kind == ASSOC_K_ACCOUNT) {
		print_added_accounts(req, changed);
		return;
	}
	if (req->verb == ASSOC_ADD && req->kind == ASSOC_K_USER)
		printf(" Adding User(s)\n Associations =\n");
	else if (req->verb == ASSOC_ADD)
		printf(" Adding %s\n", kind_title(req->kind, req->verb));
	else if (req->verb == ASSOC_MODIFY) {
		print_modified(req->kind, changed);
		return;
	} else
		printf(" Deleting %s...\n", kind_title(req->kind, req->verb));
	for (size_t i = 0; changed && changed[i]; i++)
		printf("  %s\n", changed[i]);
}

/* One request to the controller: 0 (resp filled), or 1 after an error
 * (said; "Nothing ..." unless quiet_nothing, *nothing set then). */
static int send_update(const struct assoc_update *req, struct assoc_update_resp **resp,
                       int quiet_nothing, int *nothing)
{
	uint16_t type;
	void *body;
	const char *msg = NULL;
	int rc;

	cli_rpc(MSG_ASSOC_UPDATE, req, &type, &body);
	if ((rc = cli_rc(type, body, &msg)) != 0 || type != MSG_ASSOC_UPDATE_RESP) {
		cli_error("%s", msg && *msg ? msg : slurm_strerror(rc));
		msg_body_free(type, body);
		return 1;
	}
	*resp = body;
	if ((*resp)->rc) {
		const char *text =
		    (*resp)->text ? (*resp)->text : slurm_strerror((*resp)->rc);
		if ((*resp)->rc == SLURM_ERROR && !strncmp(text, "Nothing", 7)) {
			if (nothing)
				*nothing = 1;
			if (!quiet_nothing)
				printf(" %s\n", text);
		} else if (req->kind == ASSOC_K_RES)
			fprintf(stderr, "%s\n", text); /* Slurm's lines, whole */
		else
			cli_error("%s", text);
		msg_body_free(type, body);
		*resp = NULL;
		return 1;
	}
	return 0;
}

int mgr_send(const struct assoc_update *req, int quiet_nothing)
{
	struct assoc_update_resp *resp = NULL;
	int nothing = 0;

	if (send_update(req, &resp, quiet_nothing, &nothing))
		return nothing ? 1 : -1;
	msg_body_free(MSG_ASSOC_UPDATE_RESP, resp);
	return 0;
}

static int update(const struct mgr_opts *o, struct assoc_update *req)
{
	struct assoc_update_resp *resp = NULL;

	if (!o->immediate)
		req->flags |= ASSOC_F_DRY_RUN;
	if (send_update(req, &resp, 0, NULL))
		return 1;
	print_changes(o, req, resp->changed);
	msg_body_free(MSG_ASSOC_UPDATE_RESP, resp);
	if (o->immediate)
		return 0;
	if (!mgr_confirm("Would you like to commit changes?")) {
		printf(" Changes Discarded\n");
		return 0;
	}
	req->flags &= ~ASSOC_F_DRY_RUN;
	if (send_update(req, &resp, 0, NULL))
		return 1;
	msg_body_free(MSG_ASSOC_UPDATE_RESP, resp);
	return 0;
}

/* add cluster NAME: Rota's one cluster is its slurm.conf's ClusterName, there
 * from the start; a setup script's `add cluster` of that name is told so and
 * succeeds.  Any other name, or removing it, is refused. */
static int cluster_change(int verb, char **names, char **set)
{
	const char *me = cli_conf()->cluster_name;
	const char *name = names && names[0] ? names[0] : NULL;

	for (size_t i = 0; !name && set && set[i]; i++)
		if (!strncasecmp(set[i], "name=", 5) ||
		    !strncasecmp(set[i], "cluster=", 8))
			name = strchr(set[i], '=') + 1;
	if (verb == ASSOC_ADD && name && !strcasecmp(name, me)) {
		printf(" This cluster %s already exists.  Not adding.\n", me);
		return 0;
	}
	cli_error("This cluster is %s (its slurm.conf's ClusterName): clusters are not "
	          "added, changed or removed with sacctmgr",
	          me);
	return 1;
}

/* dump [cluster=]NAME [file=]PATH; load [file=]PATH */
static int dump_or_load(const struct mgr_opts *o, int argc, char **argv)
{
	const char *cluster = NULL, *file = NULL;

	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!strncasecmp(w, "file=", 5))
			file = w + 5;
		else if (!strncasecmp(w, "cluster=", 8))
			cluster = w + 8;
		else if (!strcasecmp(argv[0], "dump") && !cluster && !strchr(w, '='))
			cluster = w;
		else if (!file && !strchr(w, '='))
			file = w;
		else {
			cli_error("Unknown option: %s", w);
			return 1;
		}
	}
	return !strcasecmp(argv[0], "dump") ? mgr_dump(o, cluster, file)
	                                    : mgr_load(o, file);
}

int cmd_sacctmgr(int argc, char **argv)
{
	static const struct option longopts[] = {{"immediate", no_argument, NULL, 'i'},
	                                         {"noheader", no_argument, NULL, 'n'},
	                                         {"parsable", no_argument, NULL, 'p'},
	                                         {"parsable2", no_argument, NULL, 'P'},
	                                         {"quiet", no_argument, NULL, 'Q'},
	                                         {"associations", no_argument, NULL, 's'},
	                                         {"verbose", no_argument, NULL, 'v'},
	                                         {"version", no_argument, NULL, 'V'},
	                                         {"help", no_argument, NULL, 'h'},
	                                         {"usage", no_argument, NULL, 'h'},
	                                         {NULL, 0, NULL, 0}};
	struct mgr_opts o = {0};
	struct assoc_update req = {0};
	const char *format = NULL;
	int opt, verb, kind, clusters, mode_set = 0, rc;
	char **names = NULL, **where = NULL, **set = NULL;

	while ((opt = getopt_long(argc, argv, "hinpPQsvV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o.immediate = 1;
			break;
		case 'n':
			o.noheader = 1;
			break;
		case 'p':
			o.mode = PF_PARSABLE;
			break;
		case 'P':
			o.mode = PF_PARSABLE2;
			break;
		case 'Q':
			o.quiet = 1;
			break;
		case 's':
			o.with_assoc = 1;
			break;
		case 'v':
			break;
		case 'V':
			fmt_print_version();
		case 'h':
			usage(stdout);
			return 0;
		default:
			fmt_bad_option();
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 1;
	}
	if (!strcasecmp(argv[optind], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcasecmp(argv[optind], "version"))
		fmt_print_version();
	if (!strcasecmp(argv[optind], "dump") || !strcasecmp(argv[optind], "load"))
		return dump_or_load(&o, argc - optind, argv + optind);
	if (abbrev(argv[optind], "clear", 3))
		return mgr_clear(argc - optind - 1, argv + optind + 1);
	if ((verb = verb_parse(argv[optind])) < 0) {
		cli_error("Unknown command: %s", argv[optind]);
		return 1;
	}
	if (verb == ASSOC_MODIFY && optind + 1 < argc &&
	    abbrev(argv[optind + 1], "jobs", 1))
		return mgr_modify_job(&o, argc - optind - 2, argv + optind + 2);
	if (verb == 0 && optind + 1 < argc &&
	    abbrev(argv[optind + 1], "configuration", 2))
		return mgr_show_config();
	if (verb == 0 && optind + 1 < argc && abbrev(argv[optind + 1], "stats", 2))
		return mgr_show_stats(argc - optind - 2, argv + optind + 2);
	if (optind + 1 >= argc ||
	    (kind = kind_parse(argv[optind + 1], verb, &clusters)) < 0) {
		cli_error("Unknown entity: %s",
		          optind + 1 < argc ? argv[optind + 1] : "");
		return 1;
	}
	if (argc - optind > WORDS_MAX) {
		cli_error("too many words (at most %d)", WORDS_MAX);
		return 1;
	}
	for (int i = optind + 2; i < argc; i++) {
		const char *w = argv[i];
		if (!strcasecmp(w, "where")) {
			mode_set = 0;
			continue;
		}
		if (!strcasecmp(w, "set")) {
			mode_set = 1;
			continue;
		}
		if (!strcasecmp(w, "withassoc") || !strcasecmp(w, "withassocs")) {
			o.with_assoc = 1;
			continue;
		}
		if (kind == ASSOC_K_RES && strlen(w) >= 5 &&
		    !strncasecmp(w, "withclusters", strlen(w))) {
			o.with_clusters = 1;
			continue;
		}
		if (!strcasecmp(w, "withcoord") || !strcasecmp(w, "withcoordinators")) {
			o.with_coord = 1;
			continue;
		}
		if (!strncasecmp(w, "format=", 7)) {
			format = w + 7;
			continue;
		}
		if (!strchr(w, '='))
			names = strv_append(names, w);
		else if (verb == ASSOC_ADD || mode_set)
			set = strv_append(set, w);
		else
			where = strv_append(where, w);
	}
	if (verb == 0 && kind == ASSOC_K_COORD) {
		cli_error("Coordinators are listed with list user withcoord or list "
		          "account withcoord");
		rc = 1;
	} else if (verb == 0) {
		rc = mgr_list(&o, kind, clusters, names, where, format);
	} else if (clusters) {
		rc = cluster_change(verb, names, set);
	} else if (verb == ASSOC_MODIFY && !set) {
		cli_error("You didn't give me anything to set");
		rc = 1;
	} else {
		req.verb = (uint32_t)verb;
		req.kind = (uint32_t)kind;
		req.names = names;
		req.where = where;
		req.set = set;
		rc = update(&o, &req);
	}
	strv_free(names);
	strv_free(where);
	strv_free(set);
	return rc;
}
