/* scontrol.h - what scontrol.c (commands, updates) and scontrol_show.c (the
 * K=V records of `show`) share.  CLI-internal. */
#ifndef ROTA_CLI_SCONTROL_H
#define ROTA_CLI_SCONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct scontrol_opts {
	int details;  /* -d count */
	int oneliner; /* -o */
	int quiet;    /* -Q */
	int verbose;  /* -v count */
	int json;     /* --json: show job|node|partition as Slurm's document */
	int all;      /* -a, "all": hidden partitions shown too */
};

/* `scontrol show ENTITY [ID]`: argv[0] is the entity (or "entity=ID").
 * Returns the exit status (0 or 1); errors are printed. */
int scontrol_show(const struct scontrol_opts *o, int argc, char **argv);

/* Ping the controller; print "Slurmctld(primary) at HOST is UP|DOWN".
 * Returns 0 when up, 1 when down. */
int scontrol_ping(FILE *f);

/* Reservations (scontrol_resv.c): create/update take the K=V arguments;
 * delete the tag as given (for the error line) and the name.  Each returns
 * the exit status, errors printed. */
int scontrol_resv_create(int argc, char **argv);
int scontrol_resv_update(int argc, char **argv);
int scontrol_resv_delete(const char *tag, const char *name);
int scontrol_resv_show(const struct scontrol_opts *o, const char *name);
/* The controller's reservations (name NULL: all); -1 after an error
 * printed.  Free *ret with msg_body_free(MSG_RESV_INFO_RESP, ...). */
struct resv_info_resp;
struct resv_info;
int scontrol_resv_load(const char *name, struct resv_info_resp **ret);
/* One in scontrol show's layout (now: the controller's clock). */
void scontrol_resv_print(const struct resv_info *r, time_t now, int oneliner);

/* Partitions (scontrol_part.c): create/update take the K=V arguments
 * (PartitionName= among them); delete the tag as given (for the error line)
 * and the name.  Each returns the exit status, errors printed. */
int scontrol_part_create(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_part_update(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_part_delete(const struct scontrol_opts *o, const char *tag,
                         const char *name);

/* The smaller commands (scontrol_misc.c), each returning the exit status:
 * write batch_script|config, setdebug, setdebugflags, schedloglevel,
 * completing, and show daemons. */
int scontrol_write(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_setdebug(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_setdebugflags(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_schedloglevel(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_completing(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_notify(const struct scontrol_opts *o, int argc, char **argv);
/* After a size change of job_id from inside a job ($SLURM_JOBID set): Slurm's
 * slurm_job_<id>_resize.sh and .csh in the current directory, which set the
 * job's variables again (nothing when it is not running). */
void scontrol_resize_files(uint32_t job_id);
/* update StepId=J[.S] TimeLimit=[+|-]TIME */
int scontrol_update_step(const struct scontrol_opts *o, int argc, char **argv);

/* listpids [JOB[.STEP]] [NODE] and pidinfo PID (scontrol_pids.c): the
 * processes of the steps running on this host. */
int scontrol_listpids(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_pidinfo(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_show_daemons(void);
/* reboot [ASAP] [nextstate=] [reason=] ALL|NODELIST and cancel_reboot
 * NODELIST (scontrol_reboot.c); argv[-1] is the command word as typed. */
int scontrol_reboot(const struct scontrol_opts *o, int argc, char **argv);
int scontrol_cancel_reboot(const struct scontrol_opts *o, int argc, char **argv);
/* show aliases [HOST]: the NodeNames whose NodeHostname is HOST (this host). */
int scontrol_show_aliases(const char *host);

/* show assoc_mgr (scontrol_assoc.c): argv the words after the entity. */
int scontrol_assoc_mgr(const struct scontrol_opts *o, int argc, char **argv);

/* Case-insensitive: s is a prefix of word of at least min bytes. */
int scontrol_abbrev(const char *s, const char *word, size_t min);

#endif
