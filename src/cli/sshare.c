/* sshare.c - each association's shares, usage and fairshare factor, as
 * Slurm 22.05's sshare prints them.  The numbers come from the controller
 * (MSG_SHARE_REQ, ctld/fairshare.c); the rows shown are chosen here. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/pfields.h"
#include "common/strv.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

#define SSHARE_COLS_MAX  32
#define SSHARE_NAMES_MAX 1000 /* -A, -u */

enum sfield {
	S_ACCOUNT,
	S_USER,
	S_PARTITION,
	S_CLUSTER,
	S_RAW_SHARES,
	S_NORM_SHARES,
	S_RAW_USAGE,
	S_NORM_USAGE,
	S_EFF_USAGE,
	S_FAIRSHARE,
	S_LEVEL_FS,
	S_GRP_TRES_MINS,
	S_TRES_RUN_MINS,
};

static const struct sfield_def {
	const char *name;
	int width, left;
	enum sfield id;
} fields[] = {
    {"Account", 20, 1, S_ACCOUNT},           {"User", 10, 0, S_USER},
    {"Partition", 12, 0, S_PARTITION},       {"Cluster", 10, 0, S_CLUSTER},
    {"RawShares", 10, 0, S_RAW_SHARES},      {"NormShares", 11, 0, S_NORM_SHARES},
    {"RawUsage", 11, 0, S_RAW_USAGE},        {"NormUsage", 11, 0, S_NORM_USAGE},
    {"EffectvUsage", 13, 0, S_EFF_USAGE},    {"FairShare", 10, 0, S_FAIRSHARE},
    {"LevelFS", 10, 0, S_LEVEL_FS},          {"GrpTRESMins", 30, 0, S_GRP_TRES_MINS},
    {"TRESRunMins", 30, 0, S_TRES_RUN_MINS},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

#define FORMAT_SHORT "Account,User,RawShares,NormShares,RawUsage,EffectvUsage,FairShare"
#define FORMAT_LONG                                                                      \
	"Account,User,RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,FairShare,"   \
	"LevelFS,GrpTRESMins,TRESRunMins"

struct sshare_opts {
	char **accounts; /* -A */
	char **users;    /* -u; NULL: the caller, or everyone with -a */
	int all, only_users, long_list, partitions, noheader, verbose;
	enum pf_mode mode;
	char *format; /* -o */
};

struct col {
	struct pf_col pf;
	enum sfield id;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage:  sshare [OPTION]\n"
	    "  Valid OPTIONs are:\n"
	    "    -a or --all            list all users\n"
	    "    -A or --accounts=      display specific accounts (comma separated "
	    "list)\n"
	    "    -l or --long           include normalized usage in output\n"
	    "    -m or --partition      print the partition part of the association\n"
	    "    -n or --noheader       omit header from output\n"
	    "    -o or --format=        comma separated list of fields\n"
	    "    -p or --parsable       '|' delimited output with a trailing '|'\n"
	    "    -P or --parsable2      '|' delimited output without a trailing '|'\n"
	    "    -u or --users=         display specific users (comma separated list)\n"
	    "    -U or --Users          display only user information\n"
	    "    -v or --verbose        display more information (none to add here)\n"
	    "    -V or --version        display tool version number\n"
	    "        --help             display this usage description\n"
	    "        --helpformat       list the fields -o accepts\n");
}

static char **names(char **old, const char *arg)
{
	char **w = strv_split(arg, ",");

	if (strv_len(w) + strv_len(old) > SSHARE_NAMES_MAX) {
		cli_error("more than %d names", SSHARE_NAMES_MAX);
		exit(1);
	}
	for (size_t i = 0; old && old[i]; i++)
		w = strv_append(w, old[i]);
	strv_free(old);
	return w;
}

static size_t parse_format(const char *spec, struct col *cols)
{
	char **w = strv_split(spec, ",");
	size_t n = 0;

	for (size_t i = 0; w[i]; i++) {
		const struct sfield_def *d = NULL;
		int width = -1, left = -1;
		if (!*w[i])
			continue;
		if (pf_parse_width(w[i], &width, &left) < 0) {
			cli_error("Invalid field width: %s", w[i]);
			exit(1);
		}
		for (size_t k = 0; k < NFIELDS && !d; k++)
			if (!strcasecmp(fields[k].name, w[i]))
				d = &fields[k];
		if (!d) {
			fprintf(stderr,
			        "sshare: error: Invalid field requested: \"%s\"\n", w[i]);
			exit(1);
		}
		if (n == SSHARE_COLS_MAX) {
			cli_error("more than %d fields", SSHARE_COLS_MAX);
			exit(1);
		}
		cols[n++] = (struct col){
		    {d->name, width >= 0 ? width : d->width, left >= 0 ? left : d->left},
		    d->id};
	}
	strv_free(w);
	return n;
}

static const char *fraction(uint64_t v, char *buf, size_t len)
{
	if (v == FS_NONE)
		return "";
	if (v == FS_INF)
		return "inf";
	snprintf(buf, len, "%.6f", (double)v / 1e6);
	return buf;
}

static const char *value(const struct share_resp *r, const struct share_row *s,
                         enum sfield id, enum pf_mode mode, char *buf, size_t len)
{
	switch (id) {
	case S_ACCOUNT: /* indented by depth in columns, as a tree */
		snprintf(buf, len, "%*s%s", mode == PF_COLUMNS ? (int)(s->depth % 64) : 0,
		         "", s->account ? s->account : "");
		return buf;
	case S_USER:
		return s->user ? s->user : "";
	case S_PARTITION:
		return s->partition ? s->partition : "";
	case S_CLUSTER:
		return r->cluster ? r->cluster : "";
	case S_RAW_SHARES:
		if (s->raw_shares == NO_VAL)
			return "";
		snprintf(buf, len, "%u", s->raw_shares);
		return buf;
	case S_NORM_SHARES:
		return fraction(s->norm_shares, buf, len);
	case S_RAW_USAGE:
		snprintf(buf, len, "%llu", (unsigned long long)s->raw_usage);
		return buf;
	case S_NORM_USAGE:
		return fraction(s->norm_usage, buf, len);
	case S_EFF_USAGE:
		return fraction(s->eff_usage, buf, len);
	case S_FAIRSHARE:
		return fraction(s->fairshare, buf, len);
	case S_LEVEL_FS:
		return fraction(s->level_fs, buf, len);
	case S_GRP_TRES_MINS:
		return s->grp_tres_mins ? s->grp_tres_mins : "";
	case S_TRES_RUN_MINS:
		snprintf(buf, len, "cpu=%llu,billing=%llu",
		         (unsigned long long)s->run_cpu_mins,
		         (unsigned long long)s->run_billing_mins);
		return buf;
	}
	return "";
}

static int shown(const struct sshare_opts *o, const struct share_row *s, const char *me)
{
	if (o->accounts && !strv_has(o->accounts, s->account ? s->account : "", 1))
		return 0;
	if (!s->user)
		return !o->only_users;
	if (o->users)
		return strv_has(o->users, s->user, 0);
	return o->all || !strcmp(s->user, me);
}

static int run(const struct sshare_opts *o)
{
	struct empty_msg req = {0};
	struct share_resp *r = NULL;
	struct col cols[SSHARE_COLS_MAX];
	struct pf_col pcols[SSHARE_COLS_MAX];
	struct fmtbuf b = {0};
	char *msg = NULL, me[64], buf[256];
	size_t n;

	if (o->format)
		n = parse_format(o->format, cols);
	else
		n = parse_format(o->long_list ? FORMAT_LONG : FORMAT_SHORT, cols);
	if (o->partitions && !o->format && n < SSHARE_COLS_MAX) {
		memmove(&cols[3], &cols[2], (n - 2) * sizeof(*cols));
		cols[2] = (struct col){{"Partition", 12, 0}, S_PARTITION};
		n++;
	}
	if (call_ctld(MSG_SHARE_REQ, &req, MSG_SHARE_RESP, (void **)&r, &msg)) {
		fprintf(stderr, "sshare: error: Problem with query: %s\n", msg);
		free(msg);
		return 1;
	}
	if (uid_to_name(getuid(), me, sizeof(me)) < 0)
		snprintf(me, sizeof(me), "%u", (unsigned)getuid());
	for (size_t i = 0; i < n; i++)
		pcols[i] = cols[i].pf;
	if (!o->noheader)
		pf_header(&b, pcols, n, o->mode);
	for (uint32_t k = 0; k < r->rows_count; k++) {
		if (!shown(o, &r->rows[k], me))
			continue;
		for (size_t i = 0; i < n; i++)
			pf_cell(
			    &b,
			    value(r, &r->rows[k], cols[i].id, o->mode, buf, sizeof(buf)),
			    &pcols[i], o->mode, i + 1 == n);
		pf_end_line(&b);
	}
	fwrite(b.data, 1, b.len, stdout);
	free(b.data);
	msg_body_free(MSG_SHARE_RESP, r);
	return 0;
}

/* -v: whose shares are asked for, on stderr, as Slurm's sshare lists them. */
static void say_requested(const struct sshare_opts *o)
{
	char me[256] = "";

	fprintf(stderr, "Users requested:\n");
	if (o->all) {
		fprintf(stderr, "\t: all\n");
	} else if (o->users) {
		for (size_t i = 0; o->users[i]; i++)
			fprintf(stderr, "\t: %s\n", o->users[i]);
	} else if (uid_to_name(getuid(), me, sizeof(me)) == 0) {
		fprintf(stderr, "\t: %s\n", me);
	}
	fprintf(stderr, "Accounts requested:\n");
	if (!o->accounts)
		fprintf(stderr, "\t: all\n");
	for (size_t i = 0; o->accounts && o->accounts[i]; i++)
		fprintf(stderr, "\t: %s\n", o->accounts[i]);
}

int cmd_sshare(int argc, char **argv)
{
	static const struct option lo[] = {{"accounts", required_argument, NULL, 'A'},
	                                   {"all", no_argument, NULL, 'a'},
	                                   {"clusters", required_argument, NULL, 'M'},
	                                   {"format", required_argument, NULL, 'o'},
	                                   {"long", no_argument, NULL, 'l'},
	                                   {"noheader", no_argument, NULL, 'n'},
	                                   {"partition", no_argument, NULL, 'm'},
	                                   {"parsable", no_argument, NULL, 'p'},
	                                   {"parsable2", no_argument, NULL, 'P'},
	                                   {"users", required_argument, NULL, 'u'},
	                                   {"Users", no_argument, NULL, 'U'},
	                                   {"verbose", no_argument, NULL, 'v'},
	                                   {"version", no_argument, NULL, 'V'},
	                                   {"help", no_argument, NULL, 'H'},
	                                   {"usage", no_argument, NULL, 'H'},
	                                   {"helpformat", no_argument, NULL, 'F'},
	                                   {NULL, 0, NULL, 0}};
	struct sshare_opts o = {0};
	int c, rc;

	while ((c = getopt_long(argc, argv, "A:aM:o:lnhmpPu:UvV", lo, NULL)) != -1) {
		switch (c) {
		case 'A':
			o.accounts = names(o.accounts, optarg);
			break;
		case 'a':
			o.all = 1;
			break;
		case 'M': /* one cluster: this one */
			break;
		case 'o':
			free(o.format);
			o.format = xstrdup(optarg);
			break;
		case 'l':
			o.long_list = 1;
			break;
		case 'n':
		case 'h':
			o.noheader = 1;
			break;
		case 'm':
			o.partitions = 1;
			break;
		case 'p':
			o.mode = PF_PARSABLE;
			break;
		case 'P':
			o.mode = PF_PARSABLE2;
			break;
		case 'u':
			if (!strcmp(optarg, "-1") || !strcasecmp(optarg, "all"))
				o.all = 1;
			else
				o.users = names(o.users, optarg);
			break;
		case 'U':
			o.only_users = 1;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'V':
			fmt_print_version();
			return 0;
		case 'H':
			usage(stdout);
			return 0;
		case 'F':
			for (size_t i = 0; i < NFIELDS; i++)
				printf("%-15s%s", fields[i].name,
				       (i + 1) % 5 ? "" : "\n");
			printf("\n");
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sshare: error: Unrecognized option: %s\n", argv[optind]);
		usage(stderr);
		return 1;
	}
	if (o.verbose)
		say_requested(&o);
	rc = run(&o);
	strv_free(o.accounts);
	strv_free(o.users);
	free(o.format);
	return rc;
}
