/* scontrol_part.c - scontrol create|update|delete partition, in Slurm's words
 * (common/part_spec.h reads the arguments, ctld/part_update.h does the work). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/call.h"
#include "cli/scontrol.h"
#include "common/part_spec.h"
#include "common/states.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "common/common.h"

/* Slurm's error() lines: each line of text as "scontrol: error: LINE". */
static void print_error(const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");
		fprintf(stderr, "scontrol: error: %.*s\n", (int)n, text);
		text += n;
		if (*text == '\n' && *++text == '\n') { /* Slurm's own empty line */
			fputc('\n', stderr);
			text++;
		}
	}
}

/* Send req; on failure print "what: <Slurm's message>" as slurm_perror
 * does.  The exit status. */
static int send(const struct scontrol_opts *o, const struct part_update_req *req,
                const char *what)
{
	void *resp = NULL;
	char *msg = NULL;
	int rc = call_ctld(MSG_PART_UPDATE_REQ, req, MSG_PART_UPDATE_RESP, &resp, &msg);

	if (rc && !o->quiet)
		fprintf(stderr, "%s: %s\n", what, msg ? msg : slurm_strerror(rc));
	free(msg);
	if (resp)
		msg_body_free(MSG_PART_UPDATE_RESP, resp);
	return rc ? 1 : 0;
}

/* create (op PART_OP_CREATE) or update: the arguments read, then sent. */
static int create_or_update(const struct scontrol_opts *o, int argc, char **argv,
                            uint32_t op)
{
	struct rota_error err = {""};
	struct part_spec spec;
	struct part_update_req req = {.op = op};
	int rc = 1;

	if (part_spec_parse(argc, argv, &spec, &err) < 0) {
		print_error(err.text);
		goto out;
	}
	if (!spec.name) {
		print_error("PartitionName must be given.");
		goto out;
	}
	if (op == PART_OP_CREATE && !strcasecmp(spec.name, "default")) {
		print_error("PartitionName cannot be \"DEFAULT\".");
		goto out;
	}
	if (op == PART_OP_UPDATE && spec.given <= 1) {
		print_error("No changes specified");
		goto out;
	}
	req.name = (char *)spec.name;
	req.settings = spec.kv;
	rc = send(o, &req,
	          op == PART_OP_CREATE ? "Error creating the partition"
	                               : "slurm_update error");
out:
	part_spec_release(&spec);
	return rc;
}

int scontrol_part_create(const struct scontrol_opts *o, int argc, char **argv)
{
	return create_or_update(o, argc, argv, PART_OP_CREATE);
}

int scontrol_part_update(const struct scontrol_opts *o, int argc, char **argv)
{
	return create_or_update(o, argc, argv, PART_OP_UPDATE);
}

int scontrol_part_delete(const struct scontrol_opts *o, const char *tag, const char *name)
{
	struct part_update_req req = {.op = PART_OP_DELETE, .name = (char *)name};
	char what[96];

	/* Slurm's message names the argument as typed, in 64 bytes */
	snprintf(what, sizeof(what), "delete_partition %.46s", tag);
	return send(o, &req, what);
}
