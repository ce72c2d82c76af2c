/* srun_mpir.h - the MPIR process acquisition interface, for parallel
 * debuggers (TotalView, DDT, gdb with the MPIR symbols) that drive srun or
 * sattach.
 *
 * DESIGN: the interface is a set of global symbols of the starter process,
 * with these exact names, that the debugger reads and writes through its
 * symbol table: so they are globals here, against the house style, and
 * nothing else in Rota reads them but this module.  A debugger that starts
 * srun sets MPIR_being_debugged (srun --debugger-test sets it too): the step
 * is then launched with STEP_F_PARALLEL_DEBUG, each task stopped before its
 * program runs (stepd/pdebug.c).  Once every node has told srun its tasks'
 * pids (MSG_TASK_PIDS), MPIR_proctable holds host, program and pid of each
 * task, MPIR_debug_state is MPIR_DEBUG_SPAWNED, and srun calls
 * MPIR_Breakpoint(), where the debugger has its breakpoint; after it srun
 * has the tasks no debugger traces continued (MSG_DEBUG_WAKE).
 * --debugger-test prints the table instead and leaves the tasks stopped.
 */
#ifndef ROTA_CLI_SRUN_MPIR_H
#define ROTA_CLI_SRUN_MPIR_H

#include <stdint.h>

typedef struct {
	char *host_name;       /* the task's node */
	char *executable_name; /* its program (argv[0]) */
	int pid;
} MPIR_PROCDESC;

#define MPIR_DEBUG_SPAWNED  1
#define MPIR_DEBUG_ABORTING 2

extern MPIR_PROCDESC *MPIR_proctable;
extern int MPIR_proctable_size;
extern volatile int MPIR_debug_state;
extern volatile int MPIR_debug_gate;
extern int MPIR_being_debugged;
extern int MPIR_i_am_starter;
extern int MPIR_partial_attach_ok;
extern int MPIR_acquired_pre_main;
extern char *totalview_jobid;
extern char *totalview_stepid;

/* Where the debugger's breakpoint goes: called once the table is full. */
void MPIR_Breakpoint(void);

/* A table for the step's ntasks tasks, all unknown for now. */
void srun_mpir_begin(uint32_t ntasks, uint32_t job_id, uint32_t step_id);

/* Task gtid runs on host as pid, program exe (borrowed; copied). */
void srun_mpir_task(uint32_t gtid, const char *host, int pid, const char *exe);

/* Every node has said: MPIR_DEBUG_SPAWNED, then MPIR_Breakpoint(), or with
 * dump (--debugger-test) the table to stderr, one line a task:
 * "srun: task:N, host:H, pid:P, executable:E". */
void srun_mpir_spawned(int dump, const char *prog);

/* Free the table (at the end of srun or sattach). */
void srun_mpir_end(void);

#endif
