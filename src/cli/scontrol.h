/* scontrol.h - what scontrol.c (commands, updates) and scontrol_show.c (the
 * K=V records of `show`) share.  CLI-internal. */
#ifndef ROTA_CLI_SCONTROL_H
#define ROTA_CLI_SCONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct scontrol_opts {
	int details;  /* -d count */
	int oneliner; /* -o */
	int quiet;    /* -Q */
	int verbose;  /* -v count */
	int json;     /* --json: show job|node|partition as Slurm's document */
};

/* `scontrol show ENTITY [ID]`: argv[0] is the entity (or "entity=ID").
 * Returns the exit status (0 or 1); errors are printed. */
int scontrol_show(const struct scontrol_opts *o, int argc, char **argv);

/* Ping the controller; print "Slurmctld(primary) at HOST is UP|DOWN".
 * Returns 0 when up, 1 when down. */
int scontrol_ping(FILE *f);

/* Case-insensitive: s is a prefix of word of at least min bytes. */
int scontrol_abbrev(const char *s, const char *word, size_t min);

#endif
