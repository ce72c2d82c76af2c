/* sacct_fields.c - sacct's fields, with Slurm 22.05's names and default
 * widths, and the text of each for a job run or a step. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "common/billing.h"
#include "proto/sacct.h"
#include "common/acctg.h"
#include "common/conf.h"
#include "common/gres_req.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "proto/messages.h"
#include "common/common.h"

enum {
	F_ACCOUNT,
	F_ADMINCOMMENT,
	F_ALLOCCPUS,
	F_ALLOCNODES,
	F_ALLOCTRES,
	F_AVECPU,
	F_AVERSS,
	F_AVEVMSIZE,
	F_CLUSTER,
	F_COMMENT,
	F_CONSTRAINTS,
	F_CPUTIME,
	F_CPUTIMERAW,
	F_DERIVEDEXITCODE,
	F_ELAPSED,
	F_ELAPSEDRAW,
	F_ELIGIBLE,
	F_END,
	F_EXITCODE,
	F_GID,
	F_GROUP,
	F_JOBID,
	F_JOBIDRAW,
	F_JOBNAME,
	F_MAXRSS,
	F_MAXRSSNODE,
	F_MAXVMSIZE,
	F_MCSLABEL,
	F_NCPUS,
	F_NNODES,
	F_NODELIST,
	F_NTASKS,
	F_PARTITION,
	F_PRIORITY,
	F_QOS,
	F_REASON,
	F_REQCPUS,
	F_REQMEM,
	F_REQNODES,
	F_REQTRES,
	F_RESERVATION,
	F_RESTARTS,
	F_START,
	F_STATE,
	F_SUBMIT,
	F_SYSTEMCOMMENT,
	F_SYSTEMCPU,
	F_TIMELIMIT,
	F_TIMELIMITRAW,
	F_TOTALCPU,
	F_TRES_IN_AVE,
	F_TRES_IN_MAX,
	F_UID,
	F_USER,
	F_USERCPU,
	F_WORKDIR,
	F_AVECPUFREQ,
	F_AVEDISKREAD,
	F_AVEDISKWRITE,
	F_AVEPAGES,
	F_ENERGY,
	F_ENERGY_RAW,
	F_MAXDISKREAD,
	F_MAXDISKREADNODE,
	F_MAXDISKREADTASK,
	F_MAXDISKWRITE,
	F_MAXDISKWRITENODE,
	F_MAXDISKWRITETASK,
	F_MAXPAGES,
	F_MAXPAGESNODE,
	F_MAXPAGESTASK,
	F_MAXRSSTASK,
	F_MAXVMSIZENODE,
	F_MAXVMSIZETASK,
	F_MINCPU,
	F_MINCPUNODE,
	F_MINCPUTASK,
	F_REQCPUFREQ,
	F_REQCPUFREQGOV,
	F_REQCPUFREQMAX,
	F_REQCPUFREQMIN,
	F_TRES_IN_MAX_NODE,
	F_TRES_IN_MAX_TASK,
	F_TRES_IN_MIN,
	F_TRES_IN_MIN_NODE,
	F_TRES_IN_MIN_TASK,
	F_TRES_IN_TOT,
	F_TRES_OUT_AVE,
	F_TRES_OUT_MAX,
	F_TRES_OUT_MAX_NODE,
	F_TRES_OUT_MAX_TASK,
	F_TRES_OUT_MIN,
	F_TRES_OUT_MIN_NODE,
	F_TRES_OUT_MIN_TASK,
	F_TRES_OUT_TOT,
};

const struct sacct_field sacct_fields[] = {
    {"Account", 10, 0, F_ACCOUNT},
    {"AdminComment", 15, 0, F_ADMINCOMMENT},
    {"AllocCPUS", 10, 0, F_ALLOCCPUS},
    {"AllocNodes", 10, 0, F_ALLOCNODES},
    {"AllocTRES", 10, 0, F_ALLOCTRES},
    {"AveCPU", 10, 0, F_AVECPU},
    {"AveCPUFreq", 10, 0, F_AVECPUFREQ},
    {"AveDiskRead", 14, 0, F_AVEDISKREAD},
    {"AveDiskWrite", 14, 0, F_AVEDISKWRITE},
    {"AvePages", 10, 0, F_AVEPAGES},
    {"AveRSS", 10, 0, F_AVERSS},
    {"AveVMSize", 10, 0, F_AVEVMSIZE},
    {"Cluster", 10, 0, F_CLUSTER},
    {"Comment", 10, 0, F_COMMENT},
    {"Constraints", 19, 0, F_CONSTRAINTS},
    {"ConsumedEnergy", 14, 0, F_ENERGY},
    {"ConsumedEnergyRaw", 17, 0, F_ENERGY_RAW},
    {"CPUTime", 10, 0, F_CPUTIME},
    {"CPUTimeRAW", 10, 0, F_CPUTIMERAW},
    {"DerivedExitCode", 15, 0, F_DERIVEDEXITCODE},
    {"Elapsed", 10, 0, F_ELAPSED},
    {"ElapsedRaw", 10, 0, F_ELAPSEDRAW},
    {"Eligible", 19, 0, F_ELIGIBLE},
    {"End", 19, 0, F_END},
    {"ExitCode", 8, 0, F_EXITCODE},
    {"GID", 6, 0, F_GID},
    {"Group", 9, 0, F_GROUP},
    {"JobID", 12, 1, F_JOBID},
    {"JobIDRaw", 12, 1, F_JOBIDRAW},
    {"JobName", 10, 0, F_JOBNAME},
    {"MaxDiskRead", 12, 0, F_MAXDISKREAD},
    {"MaxDiskReadNode", 15, 0, F_MAXDISKREADNODE},
    {"MaxDiskReadTask", 15, 0, F_MAXDISKREADTASK},
    {"MaxDiskWrite", 12, 0, F_MAXDISKWRITE},
    {"MaxDiskWriteNode", 16, 0, F_MAXDISKWRITENODE},
    {"MaxDiskWriteTask", 16, 0, F_MAXDISKWRITETASK},
    {"MaxPages", 8, 0, F_MAXPAGES},
    {"MaxPagesNode", 12, 0, F_MAXPAGESNODE},
    {"MaxPagesTask", 14, 0, F_MAXPAGESTASK},
    {"MaxRSS", 10, 0, F_MAXRSS},
    {"MaxRSSNode", 10, 0, F_MAXRSSNODE},
    {"MaxRSSTask", 10, 0, F_MAXRSSTASK},
    {"MaxVMSize", 10, 0, F_MAXVMSIZE},
    {"MaxVMSizeNode", 14, 0, F_MAXVMSIZENODE},
    {"MaxVMSizeTask", 14, 0, F_MAXVMSIZETASK},
    {"McsLabel", 20, 0, F_MCSLABEL},
    {"MinCPU", 10, 0, F_MINCPU},
    {"MinCPUNode", 10, 0, F_MINCPUNODE},
    {"MinCPUTask", 10, 0, F_MINCPUTASK},
    {"NCPUS", 10, 0, F_NCPUS},
    {"NNodes", 8, 0, F_NNODES},
    {"NodeList", 15, 0, F_NODELIST},
    {"NTasks", 8, 0, F_NTASKS},
    {"Partition", 10, 0, F_PARTITION},
    {"Priority", 10, 0, F_PRIORITY},
    {"QOS", 10, 0, F_QOS},
    {"Reason", 25, 0, F_REASON},
    {"ReqCPUFreq", 10, 0, F_REQCPUFREQ},
    {"ReqCPUFreqGov", 13, 0, F_REQCPUFREQGOV},
    {"ReqCPUFreqMax", 13, 0, F_REQCPUFREQMAX},
    {"ReqCPUFreqMin", 13, 0, F_REQCPUFREQMIN},
    {"ReqCPUS", 8, 0, F_REQCPUS},
    {"ReqMem", 10, 0, F_REQMEM},
    {"ReqNodes", 8, 0, F_REQNODES},
    {"ReqTRES", 10, 0, F_REQTRES},
    {"Reservation", 20, 0, F_RESERVATION},
    {"Restarts", 8, 0, F_RESTARTS},
    {"Start", 19, 0, F_START},
    {"State", 10, 0, F_STATE},
    {"Submit", 19, 0, F_SUBMIT},
    {"SystemComment", 15, 0, F_SYSTEMCOMMENT},
    {"SystemCPU", 10, 0, F_SYSTEMCPU},
    {"Timelimit", 10, 0, F_TIMELIMIT},
    {"TimelimitRaw", 15, 0, F_TIMELIMITRAW},
    {"TotalCPU", 10, 0, F_TOTALCPU},
    {"TRESUsageInAve", 14, 0, F_TRES_IN_AVE},
    {"TRESUsageInMax", 14, 0, F_TRES_IN_MAX},
    {"TRESUsageInMaxNode", 18, 0, F_TRES_IN_MAX_NODE},
    {"TRESUsageInMaxTask", 18, 0, F_TRES_IN_MAX_TASK},
    {"TRESUsageInMin", 14, 0, F_TRES_IN_MIN},
    {"TRESUsageInMinNode", 18, 0, F_TRES_IN_MIN_NODE},
    {"TRESUsageInMinTask", 18, 0, F_TRES_IN_MIN_TASK},
    {"TRESUsageInTot", 14, 0, F_TRES_IN_TOT},
    {"TRESUsageOutAve", 15, 0, F_TRES_OUT_AVE},
    {"TRESUsageOutMax", 15, 0, F_TRES_OUT_MAX},
    {"TRESUsageOutMaxNode", 19, 0, F_TRES_OUT_MAX_NODE},
    {"TRESUsageOutMaxTask", 19, 0, F_TRES_OUT_MAX_TASK},
    {"TRESUsageOutMin", 15, 0, F_TRES_OUT_MIN},
    {"TRESUsageOutMinNode", 19, 0, F_TRES_OUT_MIN_NODE},
    {"TRESUsageOutMinTask", 19, 0, F_TRES_OUT_MIN_TASK},
    {"TRESUsageOutTot", 15, 0, F_TRES_OUT_TOT},
    {"UID", 6, 0, F_UID},
    {"User", 9, 0, F_USER},
    {"UserCPU", 10, 0, F_USERCPU},
    {"WorkDir", 10, 0, F_WORKDIR},
};
const size_t sacct_field_count = sizeof(sacct_fields) / sizeof(sacct_fields[0]);

const struct sacct_field *sacct_field_find(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sacct_field_count; i++)
		if (!strcasecmp(sacct_fields[i].name, name))
			return &sacct_fields[i];
	/* as Slurm: the first (in its order) that the word begins */
	for (size_t i = 0; n && i < sacct_field_count; i++)
		if (!strncasecmp(sacct_fields[i].name, name, n))
			return &sacct_fields[i];
	return NULL;
}

int sacct_field_sums_steps(int id)
{
	return id == F_TOTALCPU || id == F_USERCPU || id == F_SYSTEMCPU;
}

/* A job's line: its steps' CPU time, as Slurm's job record sums it. */
static uint64_t steps_cpu(const struct acct_job *j, int user, int sys)
{
	uint64_t t = 0;

	for (size_t i = 0; i < j->steps_count; i++)
		t +=
		    (user ? j->steps[i].user_usec : 0) + (sys ? j->steps[i].sys_usec : 0);
	return t;
}

/* CPU times: "00:00.004" (MM:SS.mmm), "01:02:03" past an hour. */
static const char *cpu_time(uint64_t usec, char *buf, size_t len)
{
	uint64_t secs = usec / 1000000;

	if (secs >= 3600)
		return timefmt_duration((long)secs, buf, len);
	snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64, secs / 60, secs % 60,
	         usec / 1000 % 1000);
	return buf;
}

static const char *exit_code(uint32_t status, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", (status >> 8) & 0xff, status & 0x7f);
	return buf;
}

static const char *date(time_t t, char *buf, size_t len)
{
	return timefmt_iso(t, buf, len);
}

/* Kilobytes as sacct prints them: "1234K", "0" (--noconvert: bytes). */
static const char *kib(const struct sacct_ctx *x, uint64_t k, char *buf, size_t len)
{
	if (x->noconvert)
		snprintf(buf, len, "%" PRIu64, k << 10);
	else if (k)
		snprintf(buf, len, "%" PRIu64 "K", k);
	else
		snprintf(buf, len, "0");
	return buf;
}

static const char *num(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static const char *state_text(const struct acct_job *j, const struct acct_step *st,
                              char *buf, size_t len)
{
	uint32_t s = st ? st->state : j->state;

	if (!st && j->superseded) /* how that run ended: a node failed, or requeued */
		return (s & JOB_STATE_BASE) == JOB_NODE_FAIL ? "NODE_FAIL" : "REQUEUED";
	if (!st && (s & JOB_STATE_BASE) == JOB_CANCELLED && j->cancel_by) {
		snprintf(buf, len, "CANCELLED by %u", j->cancel_by - 1);
		return buf;
	}
	return job_state_name(s);
}

static const char *job_id(const struct acct_job *j, const struct acct_step *st, int raw,
                          char *buf, size_t len)
{
	char base[64], *p = buf;
	size_t left = len;
	int n;

	if (!raw && j->het_job_id) /* a heterogeneous job's component */
		snprintf(base, sizeof(base), "%u+%u", j->het_job_id, j->het_offset);
	else if (raw || !j->array_job_id)
		snprintf(base, sizeof(base), "%u", j->job_id);
	else if (j->array_pending && j->array_task_id == NO_VAL)
		snprintf(base, sizeof(base), "%u_[%s]", j->array_job_id,
		         j->array_pending);
	else
		snprintf(base, sizeof(base), "%u_%u", j->array_job_id, j->array_task_id);
	n = snprintf(p, left, "%s", base);
	if (!st || n < 0 || (size_t)n >= left)
		return buf;
	p += n;
	left -= (size_t)n;
	if (st->step_id == STEP_BATCH)
		snprintf(p, left, ".batch");
	else if (st->step_id == STEP_EXTERN)
		snprintf(p, left, ".extern");
	else
		snprintf(p, left, ".%u", st->step_id);
	return buf;
}

static long elapsed_of(const struct acct_job *j, const struct acct_step *st, time_t now)
{
	time_t start = st ? st->start : j->start, end = st ? st->end : j->end;

	if (!start)
		return 0;
	return (long)((end ? end : now) - start);
}

/* billing: the job's (its partition's TRESBillingWeights), or none for a
 * step's. */
/* Slurm's order: billing, cpu, gres/..., mem, node. */
static const char *tres(const struct sacct_ctx *x, const char *partition, uint32_t cpus,
                        uint64_t mem_mb, uint32_t nodes, int billing, const char *gres,
                        char *buf, size_t len)
{
	char mem[32] = "", g[512];

	gres_tres_tracked(gres, x->conf->accounting_storage_tres, g, sizeof(g));
	if (!cpus)
		return "";
	if (mem_mb)
		snprintf(mem, sizeof(mem), ",mem=%s",
		         timefmt_mem_unit(mem_mb, (char[32]){0}, 32));
	if (billing)
		snprintf(buf, len, "billing=%u,cpu=%u%s%s%s,node=%u",
		         conf_billing(x->conf, partition, cpus, mem_mb, nodes), cpus,
		         *g ? "," : "", g, mem, nodes);
	else
		snprintf(buf, len, "cpu=%u%s%s%s,node=%u", cpus, *g ? "," : "", g, mem,
		         nodes);
	return buf;
}

/* TRESUsageInAve and TRESUsageInMax of an ended step, from what the store
 * keeps: CPU time per task, memory (AveRSS or MaxRSS, MaxVMSize) and, where
 * its GPUs were watched, their memory and busy percentage (on average over
 * the samples, or at the highest); disk, energy and pages are not kept. */
static const char *tres_usage_in(const struct acct_step *st, int max, char *buf,
                                 size_t len)
{
	char c[32], g[32], m[32], v[32], gres[96] = "";
	uint64_t cpu = st->ntasks ? (st->user_usec + st->sys_usec) / st->ntasks : 0;

	if (!st->end)
		return "";
	if (st->gpus)
		snprintf(gres, sizeof(gres), ",gres/gpumem=%s,gres/gpuutil=%u",
		         acctg_size(max ? st->max_gpu_mem : st->ave_gpu_mem, 0,
		                    ACCTG_CONVERT_EXACT, g, sizeof(g)),
		         max ? st->max_gpu_util : st->ave_gpu_util);
	snprintf(buf, len, "cpu=%s,energy=0,fs/disk=0%s,mem=%s,pages=0,vmem=%s",
	         timefmt_duration((long)(cpu / 1000000), c, sizeof(c)), gres,
	         acctg_size((max ? st->max_rss : st->ave_rss) << 10, 0,
	                    ACCTG_CONVERT_EXACT, m, sizeof(m)),
	         acctg_size(st->max_vm << 10, 0, ACCTG_CONVERT_EXACT, v, sizeof(v)));
	return buf;
}

/* Disk figures (bytes): Slurm writes one byte as "1.00M". */
static const char *disk(const struct sacct_ctx *x, uint64_t bytes, char *buf, size_t len)
{
	if (bytes == 1 && !x->noconvert) {
		snprintf(buf, len, "1.00M");
		return buf;
	}
	return acctg_size(bytes, 0, x->noconvert ? ACCTG_CONVERT_NO : ACCTG_CONVERT_EXACT,
	                  buf, len);
}

static const char *task_no(const struct acct_step *st, uint32_t t, char *buf, size_t len)
{
	return st->tasks_known ? num(t, buf, len) : "";
}

static const char *str_or(const char *s)
{
	return s ? s : "";
}

/* TRESUsageInTot, TRESUsageOut*: from the tasks' figures. */
static const char *tres_in_tot(const struct acct_step *st, char *buf, size_t len)
{
	char c[32], d[32], m[32], v[32];
	uint64_t n = st->tasks_known;

	if (!n)
		return "";
	snprintf(
	    buf, len, "cpu=%s,energy=0,fs/disk=%s,mem=%s,pages=0,vmem=%s",
	    timefmt_duration((long)((st->user_usec + st->sys_usec) / 1000000), c,
	                     sizeof(c)),
	    acctg_size(st->tot_read, 0, ACCTG_CONVERT_EXACT, d, sizeof(d)),
	    acctg_size((st->ave_rss * n) << 10, 0, ACCTG_CONVERT_EXACT, m, sizeof(m)),
	    acctg_size((st->ave_vm * n) << 10, 0, ACCTG_CONVERT_EXACT, v, sizeof(v)));
	return buf;
}

static const char *tres_out(const struct acct_step *st, uint64_t bytes, char *buf,
                            size_t len)
{
	char d[32];

	if (!st->tasks_known)
		return "";
	snprintf(buf, len, "energy=0,fs/disk=%s",
	         acctg_size(bytes, 0, ACCTG_CONVERT_EXACT, d, sizeof(d)));
	return buf;
}

/* The figures of an ended step that come from its tasks' reports (empty
 * where none came); what Rota does not measure (pages, energy, CPU
 * frequency) reads as Slurm's does when nothing is gathered. */
static const char *task_value(const struct sacct_ctx *x, int id,
                              const struct acct_step *st, char *buf, size_t len)
{
	uint64_t n = st->tasks_known;

	switch (id) {
	case F_MAXRSSTASK:
		return task_no(st, st->max_rss_task, buf, len);
	case F_MAXVMSIZENODE:
		return str_or(st->max_vm_node);
	case F_MAXVMSIZETASK:
		return task_no(st, st->max_vm_task, buf, len);
	case F_MINCPU:
		return n ? cpu_time(st->min_cpu, buf, len) : "";
	case F_MINCPUNODE:
		return str_or(st->min_cpu_node);
	case F_MINCPUTASK:
		return task_no(st, st->min_cpu_task, buf, len);
	case F_MAXDISKREAD:
		return n ? disk(x, st->max_read, buf, len) : "";
	case F_MAXDISKREADNODE:
		return str_or(st->max_read_node);
	case F_MAXDISKREADTASK:
		return task_no(st, st->max_read_task, buf, len);
	case F_AVEDISKREAD:
		return n ? disk(x, st->tot_read / n, buf, len) : "";
	case F_MAXDISKWRITE:
		return n ? disk(x, st->max_write, buf, len) : "";
	case F_MAXDISKWRITENODE:
		return str_or(st->max_write_node);
	case F_MAXDISKWRITETASK:
		return task_no(st, st->max_write_task, buf, len);
	case F_AVEDISKWRITE:
		return n ? disk(x, st->tot_write / n, buf, len) : "";
	case F_MAXPAGES:
	case F_AVEPAGES:
	case F_AVECPUFREQ:
	case F_ENERGY:
	case F_ENERGY_RAW:
		return "0";
	case F_MAXPAGESNODE:
		return str_or(st->max_rss_node);
	case F_MAXPAGESTASK:
		return task_no(st, st->max_rss_task, buf, len);
	case F_REQCPUFREQ:
	case F_REQCPUFREQGOV:
	case F_REQCPUFREQMAX:
	case F_REQCPUFREQMIN:
		return "Unknown";
	case F_TRES_IN_TOT:
		return tres_in_tot(st, buf, len);
	case F_TRES_IN_MAX_NODE:
		if (!n)
			return "";
		snprintf(buf, len, "fs/disk=%s,mem=%s,vmem=%s", str_or(st->max_read_node),
		         str_or(st->max_rss_node), str_or(st->max_vm_node));
		return buf;
	case F_TRES_IN_MAX_TASK:
		if (!n)
			return "";
		snprintf(buf, len, "fs/disk=%u,mem=%u,vmem=%u", st->max_read_task,
		         st->max_rss_task, st->max_vm_task);
		return buf;
	case F_TRES_OUT_AVE:
		return tres_out(st, n ? st->tot_write / n : 0, buf, len);
	case F_TRES_OUT_MAX:
		return tres_out(st, st->max_write, buf, len);
	case F_TRES_OUT_TOT:
		return tres_out(st, st->tot_write, buf, len);
	case F_TRES_OUT_MAX_NODE:
		if (!n)
			return "";
		snprintf(buf, len, "fs/disk=%s", str_or(st->max_write_node));
		return buf;
	case F_TRES_OUT_MAX_TASK:
		if (!n)
			return "";
		snprintf(buf, len, "fs/disk=%u", st->max_write_task);
		return buf;
	default: /* the lowest of each (TRESUsage*Min*) is not kept */
		return "";
	}
}

/* Memory the run asked for in all, in MB. */
static uint64_t req_mem_total(const struct acct_job *j, uint32_t cpus, uint32_t nodes)
{
	uint64_t m = j->req_mem & ~ACCT_MEM_PER_CPU;

	return j->req_mem & ACCT_MEM_PER_CPU ? m * cpus : m * (nodes ? nodes : 1);
}

const char *sacct_value(const struct sacct_ctx *x, int id, const struct acct_job *j,
                        const struct acct_step *st, char *buf, size_t len)
{
	uint32_t cpus = st ? st->ncpus : j->ncpus;
	uint32_t nodes = st ? st->nnodes : j->nnodes;

	switch (id) {
	case F_ACCOUNT:
		return j->account ? j->account : "";
	case F_ALLOCCPUS:
	case F_NCPUS:
		return num(cpus, buf, len);
	case F_ALLOCNODES:
		return num(nodes, buf, len);
	case F_ALLOCTRES:
		return tres(x, j->partition, cpus, st ? 0 : req_mem_total(j, cpus, nodes),
		            nodes, !st, st ? NULL : j->gres_tres, buf, len);
	case F_REQTRES:
		if (st)
			return "";
		return tres(x, j->partition, j->req_cpus,
		            req_mem_total(j, j->req_cpus, j->req_nodes), j->req_nodes, 1,
		            NULL, buf, len);
	case F_AVECPU:
		return st && st->end && st->ntasks
		           ? cpu_time((st->user_usec + st->sys_usec) / st->ntasks, buf,
		                      len)
		           : "";
	case F_AVERSS:
		return st && st->end ? kib(x, st->ave_rss, buf, len) : "";
	case F_AVEVMSIZE:
		return st && st->end
		           ? kib(x, st->tasks_known ? st->ave_vm : st->max_vm, buf, len)
		           : "";
	case F_MAXVMSIZE:
		return st && st->end ? kib(x, st->max_vm, buf, len) : "";
	case F_MAXRSS:
		return st && st->end ? kib(x, st->max_rss, buf, len) : "";
	case F_MAXRSSNODE:
		return st && st->end && st->max_rss_node ? st->max_rss_node : "";
	case F_MAXRSSTASK:
		return st && st->end ? task_no(st, st->max_rss_task, buf, len) : "";
	case F_CLUSTER:
		return "";
	case F_COMMENT:
		return !st && j->comment ? j->comment : "";
	case F_ADMINCOMMENT:
		return !st && j->admin_comment ? j->admin_comment : "";
	case F_SYSTEMCOMMENT:
		return !st && j->system_comment ? j->system_comment : "";
	case F_MCSLABEL:
		return !st && j->mcs_label ? j->mcs_label : "";
	case F_CONSTRAINTS:
		return !st && j->constraints ? j->constraints : "";
	case F_CPUTIME:
		return timefmt_duration(elapsed_of(j, st, x->now) * cpus, buf, len);
	case F_CPUTIMERAW:
		return num((uint64_t)elapsed_of(j, st, x->now) * cpus, buf, len);
	case F_DERIVEDEXITCODE:
		return st ? "" : exit_code(j->derived_exit, buf, len);
	case F_ELAPSED:
		return timefmt_duration(elapsed_of(j, st, x->now), buf, len);
	case F_ELAPSEDRAW:
		return num((uint64_t)elapsed_of(j, st, x->now), buf, len);
	case F_ELIGIBLE:
		return date(st ? st->start : j->eligible, buf, len);
	case F_END:
		return date(st ? st->end : j->end, buf, len);
	case F_EXITCODE:
		return exit_code(st ? st->exit_code : j->exit_code, buf, len);
	case F_GID:
		return st ? "" : num(j->gid, buf, len);
	case F_GROUP:
		return st ? "" : j->group ? j->group : "";
	case F_JOBID:
		return job_id(j, st, 0, buf, len);
	case F_JOBIDRAW:
		return job_id(j, st, 1, buf, len);
	case F_JOBNAME:
		return st ? (st->name ? st->name : "") : j->name ? j->name : "";
	case F_NNODES:
		return num(nodes ? nodes : st ? 0 : j->req_nodes, buf, len);
	case F_NODELIST:
		if (st)
			return st->nodes ? st->nodes : "";
		return j->nodes && j->nodes[0] ? j->nodes : "None assigned";
	case F_NTASKS:
		return st ? num(st->ntasks, buf, len) : "";
	case F_PARTITION:
		return !st && j->partition ? j->partition : "";
	case F_PRIORITY:
		return st ? "" : num(j->priority, buf, len);
	case F_QOS:
		return !st && j->qos ? j->qos : "";
	case F_REASON:
		return st ? "" : job_reason_name(j->reason);
	case F_REQCPUS:
		return num(st ? st->ncpus : j->req_cpus, buf, len);
	case F_REQMEM:
		if (!(j->req_mem & ~ACCT_MEM_PER_CPU))
			return "0";
		return timefmt_mem_unit(req_mem_total(j, j->req_cpus, j->req_nodes), buf,
		                        len);
	case F_REQNODES:
		return num(st ? st->nnodes : j->req_nodes, buf, len);
	case F_RESERVATION:
		return !st && j->reservation ? j->reservation : "";
	case F_RESTARTS:
		return st ? "" : num(j->restarts, buf, len);
	case F_START:
		return date(st ? st->start : j->start, buf, len);
	case F_STATE:
		return state_text(j, st, buf, len);
	case F_SUBMIT:
		return date(st ? st->start : j->submit, buf, len);
	case F_SYSTEMCPU:
		return cpu_time(st ? st->sys_usec : steps_cpu(j, 0, 1), buf, len);
	case F_USERCPU:
		return cpu_time(st ? st->user_usec : steps_cpu(j, 1, 0), buf, len);
	case F_TRES_IN_AVE:
	case F_TRES_IN_MAX:
		return st ? tres_usage_in(st, id == F_TRES_IN_MAX, buf, len) : "";
	case F_TOTALCPU:
		return cpu_time(st ? st->user_usec + st->sys_usec : steps_cpu(j, 1, 1),
		                buf, len);
	case F_TIMELIMIT:
		if (st)
			return "";
		if (j->time_limit == NO_VAL)
			return "Partition_Limit";
		if (j->time_limit == TIME_INFINITE)
			return "UNLIMITED";
		return timefmt_duration((long)j->time_limit * 60, buf, len);
	case F_TIMELIMITRAW:
		if (st)
			return "";
		if (j->time_limit == TIME_INFINITE || j->time_limit == NO_VAL)
			return "UNLIMITED";
		return num(j->time_limit, buf, len);
	case F_UID:
		return st ? "" : num(j->uid, buf, len);
	case F_USER:
		return st ? "" : j->user ? j->user : "";
	case F_WORKDIR:
		return !st && j->work_dir ? j->work_dir : "";
	default:
		return st && st->end ? task_value(x, id, st, buf, len) : "";
	}
}
