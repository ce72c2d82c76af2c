/* scontrol_reboot.c - scontrol reboot and cancel_reboot, as Slurm 22.05's
 * (the controller's side: ctld/reboot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/scontrol.h"
#include "common/conf.h"
#include "common/states.h"
#include "proto/messages.h"
#include "common/common.h"

/* The state nextstate= names ("d", "Res" ... as Slurm abbreviates), or NULL
 * with Slurm's complaint printed. */
static const char *next_state_word(const struct scontrol_opts *o, const char *s)
{
	size_t len = strlen(s);

	if (len && !strncasecmp(s, "DOWN", len > 4 ? len : 4))
		return "DOWN";
	if (len && !strncasecmp(s, "RESUME", len > 6 ? len : 6))
		return "RESUME";
	if (!o->quiet) {
		fprintf(stderr, "Invalid state: %s\n", s);
		fprintf(stderr, "Valid states: DOWN, RESUME\n");
	}
	return NULL;
}

/* What follows the '=' of arg, or NULL (and Slurm's "missing what") when
 * nothing does. */
static const char *opt_value(const struct scontrol_opts *o, const char *arg,
                             const char *what)
{
	const char *v = strchr(arg, '=') + 1;

	if (*v)
		return v;
	if (!o->quiet)
		fprintf(stderr, "missing %s\n", what);
	return NULL;
}

/* reboot [ASAP] [nextstate=RESUME|DOWN] [reason=TEXT] ALL|NODELIST.  As
 * Slurm's, the options are looked for among the first three words and the
 * node list is the word after as many as were found. */
int scontrol_reboot(const struct scontrol_opts *o, int argc, char **argv)
{
	/* run_command hands over argv + 1: argv[-1] is the command as typed */
	const char *tag = argv[-1];
	struct reboot_req req = {0};
	char *msg = NULL;
	void *body = NULL;
	int at = 0, rc;

	for (int i = 0; i < 3 && i < argc; i++) {
		if (!strcasecmp(argv[i], "ASAP")) {
			req.flags |= REBOOT_F_ASAP;
			at++;
		} else if (!strncasecmp(argv[i], "Reason=", 7)) {
			if (!(req.reason = (char *)opt_value(o, argv[i], "reason")))
				return 1;
			at++;
		} else if (!strncasecmp(argv[i], "nextstate=", 10)) {
			const char *v = opt_value(o, argv[i], "state");
			if (!v || !(req.next_state = (char *)next_state_word(o, v)))
				return 1;
			at++;
		}
	}
	if (argc - at > 1) {
		fprintf(stderr, "too many arguments for keyword:%s\n", tag);
		return 1;
	}
	if (argc - at < 1) {
		fprintf(stderr, "Missing node list. Specify ALL|<NodeList>\n");
		return 1;
	}
	req.nodes = argv[at];
	/* as Slurm's scontrol, which refuses before asking */
	if (!cli_conf()->reboot_program || !*cli_conf()->reboot_program) {
		cli_error("RebootProgram isn't defined");
		if (!o->quiet)
			fprintf(stderr, "scontrol_reboot_nodes error: %s\n",
			        slurm_strerror(SLURM_ERROR));
		return 1;
	}
	rc = call_ctld(MSG_REBOOT_REQ, &req, MSG_RC, &body, &msg);
	if (rc && !o->quiet)
		fprintf(stderr, "scontrol_reboot_nodes error: %s\n",
		        msg ? msg : slurm_strerror(rc));
	free(msg);
	return rc ? 1 : 0;
}

/* cancel_reboot NODELIST: a reboot not yet under way is taken back. */
int scontrol_cancel_reboot(const struct scontrol_opts *o, int argc, char **argv)
{
	const char *tag = argv[-1];
	struct node_update_req req = {.state = "CANCEL_REBOOT"};
	char *msg = NULL;
	void *body = NULL;
	int rc;

	(void)o;
	if (argc != 1) {
		fprintf(stderr, "%s for keyword:%s\n",
		        argc > 1 ? "too many arguments" : "missing argument", tag);
		return 1;
	}
	req.nodes = argv[0];
	rc = call_ctld(MSG_NODE_UPDATE_REQ, &req, MSG_RC, &body, &msg);
	if (rc)
		fprintf(stderr, "slurm_update error: %s\n",
		        msg ? msg : slurm_strerror(rc));
	free(msg);
	return rc ? 1 : 0;
}
