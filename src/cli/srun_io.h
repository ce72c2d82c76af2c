/* srun_io.h - srun's side of a running step: the stepds' I/O connections, task
 * output and exits, stdin forwarding, and the signals srun gets meanwhile.
 *
 * Each node's rotastepd connects to srun's listening socket, proves it knows
 * the step's random key (MSG_IO_HELLO), then streams MSG_IO_DATA (stdout,
 * stderr; empty = EOF) and MSG_TASK_EXIT, and closes (see doc/flows.md).  Bytes
 * are written to srun's stdout/stderr line by line (with a "T: " label for
 * --label), or as they come with --unbuffered.  srun's stdin goes to one task
 * (task 0 by default, -i N) or to every task (-i all).
 *
 * Single-threaded: one poll() loop owns everything.
 */
#ifndef ROTA_CLI_SRUN_IO_H
#define ROTA_CLI_SRUN_IO_H

#include <stddef.h>
#include <stdint.h>

struct srun_step {
	uint32_t job_id, step_id; /* a heterogeneous job's: its leader's id */
	/* the jobs the step has a part in (each component's) and its step
	 * there (parts of one job: each its own; borrowed) */
	const uint32_t *job_ids;
	const uint32_t *step_ids;
	size_t njob_ids;
	size_t nnodes;
	char *const *nodes;       /* step node names in step order; borrowed */
	const uint32_t *tasks;    /* tasks on each node; borrowed */
	uint32_t task_dist;       /* their numbering (common/taskdist.h) */
	const uint32_t *task_map; /* arbitrary: each task's node; borrowed */
	size_t ntask_map;
	const uint8_t *key; /* the io_key sent in MSG_STEP_CREATE_REQ; borrowed */
	size_t key_len;
};

struct srun_io_opts {
	int listen_fd;         /* accepting the stepds' connections */
	int ctl_fd;            /* controller connection to watch, -1: none */
	int ctl_is_alloc;      /* ctl_fd holds our allocation: its end means revoked */
	int sig_fd;            /* signalfd for SIGINT, SIGTERM, ... (jobctl_signalfd) */
	int label;             /* --label */
	int kill_on_bad_exit;  /* -K: end the step once a task fails */
	int unbuffered;        /* -u: write output as it comes, not line by line */
	int pty;               /* --pty: srun's window size follows to task 0 */
	uint32_t max_wait;     /* -W: end the step this long after a task exits */
	int disable_status;    /* -X: a single Ctrl-C signals the tasks */
	int quit_on_interrupt; /* a single Ctrl-C ends the step */
	long in_task, out_task, err_task; /* JOBOPT_IO_ALL, JOBOPT_IO_NONE or a task */
	int verbose;
	int stream_fd[3];   /* the tasks' stdout [1] and stderr [2] go there (srun
	                     * -o / -e naming one file); 0: srun's own */
	uint32_t kill_wait; /* seconds to wait for the tasks once the step is aborted */
	/* sattach: the step is not ours; no task exit is reported, a signal
	 * detaches, and a node whose stepd has not connected within
	 * attach_wait_ms (the step ended there) counts as done */
	int attach;
	long attach_wait_ms;
	/* MPIR (cli/srun_mpir.h): MPIR_proctable is filled from the nodes'
	 * MSG_TASK_PIDS always; once all are in, with mpir_debugged srun calls
	 * MPIR_Breakpoint() and then has the untraced tasks continued
	 * (MSG_DEBUG_WAKE), with mpir_dump (--debugger-test) it prints the
	 * table instead.  sattach calls MPIR_Breakpoint() (or prints) always. */
	int mpir_debugged;
	int mpir_dump;
};

/* Run until every node's connection has come and gone (or the step was aborted
 * and kill_wait has passed).  Returns srun's exit status (the highest task exit
 * code, 128+signal for a signalled task); *ret_status gets the matching wait
 * status, for MSG_JOB_COMPLETE_REQ. */
int srun_io_run(const struct srun_step *st, const struct srun_io_opts *o,
                uint32_t *ret_status);

/* Where the stepds can reach us: $ROTA_SRUN_HOST, else our node's NodeAddr
 * when we run on a node of the cluster (virtual nodes have hostnames nobody
 * can resolve), else our hostname (written into host[len]).  Borrowed. */
const char *srun_io_host(char *host, size_t len);

/* "0-3,5,7-8" for sorted ids[0..n).  Writes into buf (always terminated). */
char *srun_io_ranges(const uint32_t *ids, size_t n, char *buf, size_t len);

#endif
