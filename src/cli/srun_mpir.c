/* srun_mpir.c - the MPIR symbols and srun's table (srun_mpir.h). */
#include <stdio.h>
#include <stdlib.h>
#include "cli/srun_mpir.h"
#include "common/common.h"

/* read and written by a debugger: kept by the linker, never optimised out */
__attribute__((used)) MPIR_PROCDESC *MPIR_proctable;
__attribute__((used)) int MPIR_proctable_size;
__attribute__((used)) volatile int MPIR_debug_state;
__attribute__((used)) volatile int MPIR_debug_gate;
__attribute__((used)) int MPIR_being_debugged;
__attribute__((used)) int MPIR_i_am_starter = 1; /* srun is no task of the job */
__attribute__((used)) int MPIR_partial_attach_ok = 1;
__attribute__((used)) int MPIR_acquired_pre_main;
__attribute__((used)) char *totalview_jobid;
__attribute__((used)) char *totalview_stepid;

__attribute__((noinline, used)) void MPIR_Breakpoint(void)
{
	/* nothing: the debugger stops here and reads the table */
	__asm__ volatile("" ::: "memory");
}

void srun_mpir_begin(uint32_t ntasks, uint32_t job_id, uint32_t step_id)
{
	srun_mpir_end();
	MPIR_proctable = xcalloc(ntasks + 1, sizeof(*MPIR_proctable));
	MPIR_proctable_size = (int)ntasks;
	totalview_jobid = xasprintf("%u", job_id);
	totalview_stepid = xasprintf("%u", step_id);
}

void srun_mpir_task(uint32_t gtid, const char *host, int pid, const char *exe)
{
	MPIR_PROCDESC *d;

	if (!MPIR_proctable || gtid >= (uint32_t)MPIR_proctable_size)
		return;
	d = &MPIR_proctable[gtid];
	free(d->host_name);
	free(d->executable_name);
	d->host_name = xstrdup(host ? host : "");
	d->executable_name = xstrdup(exe ? exe : "");
	d->pid = pid;
}

void srun_mpir_spawned(int dump, const char *prog)
{
	MPIR_debug_state = MPIR_DEBUG_SPAWNED;
	if (!dump) {
		MPIR_Breakpoint();
		return;
	}
	for (int i = 0; i < MPIR_proctable_size; i++) {
		const MPIR_PROCDESC *d = &MPIR_proctable[i];
		fprintf(stderr, "%s: task:%d, host:%s, pid:%d, executable:%s\n", prog, i,
		        d->host_name ? d->host_name : "(null)", d->pid,
		        d->executable_name ? d->executable_name : "(null)");
	}
	fflush(stderr);
}

void srun_mpir_end(void)
{
	for (int i = 0; MPIR_proctable && i < MPIR_proctable_size; i++) {
		free(MPIR_proctable[i].host_name);
		free(MPIR_proctable[i].executable_name);
	}
	free(MPIR_proctable);
	free(totalview_jobid);
	free(totalview_stepid);
	MPIR_proctable = NULL;
	MPIR_proctable_size = 0;
	totalview_jobid = totalview_stepid = NULL;
}
