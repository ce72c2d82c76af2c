/* jobopt_help.c - --usage, --help and doc/compat.md's job option table, all
 * printed from jobopt_table (jobopt_table.h).  No state, no cli_prog: the
 * command comes as an argument, so tools/compat_doc links this file alone. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/jobopt_table.h"

#define S JOBOPT_SBATCH
#define R JOBOPT_SRUN
#define A JOBOPT_SALLOC

/* Slurm's --help puts the text at column 30 */
#define HELP_COL   30
#define HELP_WIDTH 79

static const char *const section_names[SEC_COUNT] = {
    [SEC_RUN] = "Parallel run options",
    [SEC_CONSTRAINT] = "Constraint options",
    [SEC_CONSUMABLE] = "Consumable resources related options",
    [SEC_AFFINITY] = "Affinity/Multi-core options",
    [SEC_GPU] = "GPU scheduling options",
    [SEC_CONTAINER] = "Container options (as NVIDIA's Pyxis takes them)",
    [SEC_HELP] = "Help options",
    [SEC_OTHER] = "Other options",
};

static const char *cmd_name(enum jobopt_cmd cmd)
{
	return cmd == S ? "sbatch" : cmd == R ? "srun" : "salloc";
}

void jobopt_usage_print(enum jobopt_cmd cmd, FILE *out)
{
	static const char *const usage[] = {
	    [S] = "Usage: sbatch [-N nnodes] [-n ntasks] [-c ncpus] [-t time] [-p "
	          "partition]\n"
	          "              [-J jobname] [-o out] [-e err] [-i in] [-D dir] [-A "
	          "account]\n"
	          "              [--mem=MB] [--mem-per-cpu=MB] [-w hosts] [-x hosts]\n"
	          "              [-C list] [-d dependency] "
	          "[--export=ALL|NONE|VAR[=val],...]\n"
	          "              [-H] [--exclusive] [--requeue] [--nice[=value]] "
	          "[--begin=time]\n"
	          "              [--open-mode=append|truncate] [--parsable] [-W] [-v]\n"
	          "              [--wrap=command | executable [args...]]\n",
	    [R] = "Usage: srun [-N nnodes] [-n ntasks] [-c ncpus] [-t time] [-p "
	          "partition]\n"
	          "            [-J jobname] [-o out] [-e err] [-i in] [-D dir] [-A "
	          "account]\n"
	          "            [--mem=MB] [--mem-per-cpu=MB] [-w hosts] [-x hosts]\n"
	          "            [--ntasks-per-node=n] [--jobid=id] [-l] [-u] [-K] "
	          "[--overlap]\n"
	          "            [--exact] [-r n] [-O] [--cpu-bind=type] [--export=...]\n"
	          "            [--mpi=none] [-v] executable [args...]\n",
	    [A] = "Usage: salloc [-N nnodes] [-n ntasks] [-c ncpus] [-t time] [-p "
	          "partition]\n"
	          "              [-J jobname] [-D dir] [-A account] [--mem=MB]\n"
	          "              [--mem-per-cpu=MB] [-w hosts] [-x hosts] [-H] "
	          "[--exclusive]\n"
	          "              [-K[signal]] [-v] [executable [args...]]\n",
	};
	fputs(usage[cmd], out);
}

static int has_short(const struct opt_def *d)
{
	return d->id < 128;
}

/* "-x, --name=ARG" (or "--name[=ARG]") into buf; returns its length. */
static int opt_spelling(const struct opt_def *d, char *buf, size_t len)
{
	char s[8] = "";

	if (has_short(d))
		snprintf(s, sizeof(s), "-%c, ", d->id);
	return snprintf(buf, len, "%s--%s%s%s%s", s, d->name,
	                d->has_arg == optional_argument ? "[="
	                : d->arg                        ? "="
	                                                : "",
	                d->arg ? d->arg : "", d->has_arg == optional_argument ? "]" : "");
}

static const char *status_words(enum jobopt_status st)
{
	return st == ST_NOEFF ? "accepted, no effect" : st == ST_REFUSED ? "refused" : "";
}

static void print_row(const struct opt_def *d, FILE *out)
{
	char left[128];
	const char *st = status_words(d->status);
	int n;

	opt_spelling(d, left, sizeof(left));
	n = fprintf(out, "%s%s", has_short(d) ? "  " : "      ", left);
	if (n >= HELP_COL - 1) {
		fputc('\n', out);
		n = 0;
	}
	n += fprintf(out, "%*s%s", HELP_COL - n, "", d->help);
	if (*st && n + 3 + (int)strlen(st) <= HELP_WIDTH)
		fprintf(out, " (%s)", st);
	else if (*st)
		fprintf(out, "\n%*s(%s)", HELP_COL, "", st);
	fputc('\n', out);
}

static int by_name(const void *a, const void *b)
{
	const struct opt_def *const *x = a, *const *y = b;

	int c = strcmp((*x)->name, (*y)->name);

	/* equal names: table order, so the output is the same everywhere */
	return c ? c : *x < *y ? -1 : *x > *y;
}

/* The rows of section sec that one of the commands in cmds takes, by name,
 * into v (jobopt_table_len entries); returns how many. */
static size_t section_rows(enum jobopt_section sec, unsigned cmds,
                           const struct opt_def **v)
{
	size_t n = 0;

	for (size_t i = 0; i < jobopt_table_len; i++)
		if (jobopt_table[i].section == sec && (jobopt_table[i].cmds & cmds))
			v[n++] = &jobopt_table[i];
	qsort(v, n, sizeof(*v), by_name);
	return n;
}

void jobopt_help_print(enum jobopt_cmd cmd, FILE *out)
{
	static const char *const first[] = {
	    /* Slurm's: components separated by ":" */
	    [S] = "[OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]",
	    [R] = "[OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
	          "executable(N) [args(N)...]",
	    [A] = "[OPTIONS(0)...] [ : [OPTIONS(N)...]] [command(0) [args(0)...]]",
	};
	const struct opt_def **v = calloc(jobopt_table_len, sizeof(*v));

	if (!v)
		abort();
	fprintf(out, "Usage: %s %s\n", cmd_name(cmd), first[cmd]);
	for (int sec = 0; sec < SEC_COUNT; sec++) {
		size_t n = section_rows(sec, cmd, v);

		if (!n)
			continue;
		fprintf(out, "\n%s:\n", section_names[sec]);
		for (size_t i = 0; i < n; i++)
			print_row(v[i], out);
	}
	free(v);
}

/* One Markdown cell: the status of option name for cmd, "" when cmd lacks it. */
static const char *md_status(const char *name, enum jobopt_cmd cmd)
{
	static const char *const words[] = {
	    [ST_OK] = "honoured",
	    [ST_NOEFF] = "accepted, no effect",
	    [ST_REFUSED] = "refused",
	};

	for (size_t i = 0; i < jobopt_table_len; i++)
		if (!strcmp(jobopt_table[i].name, name) && (jobopt_table[i].cmds & cmd))
			return words[jobopt_table[i].status];
	return "-";
}

/* s in a Markdown table cell: '|' escaped, even inside `code` */
static void md_put(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void jobopt_help_markdown(FILE *out)
{
	const struct opt_def **v = calloc(jobopt_table_len, sizeof(*v));
	char spell[128];

	if (!v)
		abort();
	fputs("## Job options (generated)\n\n"
	      "The options of sbatch, srun and salloc, from their one table\n"
	      "(src/cli/jobopt_table.c); `make compat-doc` rewrites this section.\n"
	      "\"Accepted, no effect\": a script that gives the option runs, and the\n"
	      "option changes nothing; \"refused\": the command stops with an error.\n",
	      out);
	for (int sec = 0; sec < SEC_COUNT; sec++) {
		size_t n = section_rows(sec, S | R | A, v);

		fprintf(out, "\n### %s\n\n", section_names[sec]);
		fputs("| Option | sbatch | srun | salloc | What it does |\n"
		      "|---|---|---|---|---|\n",
		      out);
		for (size_t i = 0; i < n; i++) {
			/* a name with a row per command set is one line */
			if (i && !strcmp(v[i]->name, v[i - 1]->name))
				continue;
			opt_spelling(v[i], spell, sizeof(spell));
			fputs("| `", out);
			md_put(spell, out);
			fprintf(out, "` | %s | %s | %s | ", md_status(v[i]->name, S),
			        md_status(v[i]->name, R), md_status(v[i]->name, A));
			md_put(v[i]->help, out);
			fputs(" |\n", out);
		}
	}
	free(v);
}
