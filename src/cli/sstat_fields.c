/* sstat_fields.c - each sstat field's text.
 *
 * A step's cgroup is per node, not per task: where a node runs several
 * tasks its step daemon tells them apart by process group (/proc), else
 * (one task, or more than stepd/usage.c follows) the node's figures are
 * shared evenly among them and the task named is its first.  Figures Rota does not
 * measure (pages, energy, CPU frequency) print as Slurm prints them when its plugins
 * gather nothing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "cli/sstat.h"
#include "proto/messages.h"

enum {
	X_AVECPU,
	X_AVECPUFREQ,
	X_AVEDISKREAD,
	X_AVEDISKWRITE,
	X_AVEPAGES,
	X_AVERSS,
	X_AVEVMSIZE,
	X_ENERGY,
	X_ENERGY_RAW,
	X_JOBID,
	X_MAXDISKREAD,
	X_MAXDISKREADNODE,
	X_MAXDISKREADTASK,
	X_MAXDISKWRITE,
	X_MAXDISKWRITENODE,
	X_MAXDISKWRITETASK,
	X_MAXPAGES,
	X_MAXPAGESNODE,
	X_MAXPAGESTASK,
	X_MAXRSS,
	X_MAXRSSNODE,
	X_MAXRSSTASK,
	X_MAXVMSIZE,
	X_MAXVMSIZENODE,
	X_MAXVMSIZETASK,
	X_MINCPU,
	X_MINCPUNODE,
	X_MINCPUTASK,
	X_NODELIST,
	X_NTASKS,
	X_PIDS,
	X_REQCPUFREQ,
	X_REQCPUFREQMIN,
	X_REQCPUFREQMAX,
	X_REQCPUFREQGOV,
	X_TRES_IN_AVE,
	X_TRES_IN_MAX,
	X_TRES_IN_MAX_NODE,
	X_TRES_IN_MAX_TASK,
	X_TRES_IN_MIN,
	X_TRES_IN_MIN_NODE,
	X_TRES_IN_MIN_TASK,
	X_TRES_IN_TOT,
	X_TRES_OUT_AVE,
	X_TRES_OUT_MAX,
	X_TRES_OUT_MAX_NODE,
	X_TRES_OUT_MAX_TASK,
	X_TRES_OUT_MIN,
	X_TRES_OUT_MIN_NODE,
	X_TRES_OUT_MIN_TASK,
	X_TRES_OUT_TOT,
};

/* In Slurm's order: -o words match the first name they start. */
const struct sstat_field sstat_fields[] = {
    {"AveCPU", 10, 0, X_AVECPU},
    {"AveCPUFreq", 10, 0, X_AVECPUFREQ},
    {"AveDiskRead", 12, 0, X_AVEDISKREAD},
    {"AveDiskWrite", 12, 0, X_AVEDISKWRITE},
    {"AvePages", 10, 0, X_AVEPAGES},
    {"AveRSS", 10, 0, X_AVERSS},
    {"AveVMSize", 10, 0, X_AVEVMSIZE},
    {"ConsumedEnergy", 14, 0, X_ENERGY},
    {"ConsumedEnergyRaw", 17, 0, X_ENERGY_RAW},
    {"JobID", 12, 1, X_JOBID},
    {"MaxDiskRead", 12, 0, X_MAXDISKREAD},
    {"MaxDiskReadNode", 15, 0, X_MAXDISKREADNODE},
    {"MaxDiskReadTask", 15, 0, X_MAXDISKREADTASK},
    {"MaxDiskWrite", 12, 0, X_MAXDISKWRITE},
    {"MaxDiskWriteNode", 16, 0, X_MAXDISKWRITENODE},
    {"MaxDiskWriteTask", 16, 0, X_MAXDISKWRITETASK},
    {"MaxPages", 8, 0, X_MAXPAGES},
    {"MaxPagesNode", 12, 0, X_MAXPAGESNODE},
    {"MaxPagesTask", 14, 0, X_MAXPAGESTASK},
    {"MaxRSS", 10, 0, X_MAXRSS},
    {"MaxRSSNode", 10, 0, X_MAXRSSNODE},
    {"MaxRSSTask", 10, 0, X_MAXRSSTASK},
    {"MaxVMSize", 10, 0, X_MAXVMSIZE},
    {"MaxVMSizeNode", 14, 0, X_MAXVMSIZENODE},
    {"MaxVMSizeTask", 14, 0, X_MAXVMSIZETASK},
    {"MinCPU", 10, 0, X_MINCPU},
    {"MinCPUNode", 10, 0, X_MINCPUNODE},
    {"MinCPUTask", 10, 0, X_MINCPUTASK},
    {"Nodelist", 20, 0, X_NODELIST},
    {"NTasks", 8, 0, X_NTASKS},
    {"Pids", 20, 0, X_PIDS},
    {"ReqCPUFreq", 10, 0, X_REQCPUFREQ},
    {"ReqCPUFreqMin", 13, 0, X_REQCPUFREQMIN},
    {"ReqCPUFreqMax", 13, 0, X_REQCPUFREQMAX},
    {"ReqCPUFreqGov", 13, 0, X_REQCPUFREQGOV},
    {"TRESUsageInAve", 14, 0, X_TRES_IN_AVE},
    {"TRESUsageInMax", 14, 0, X_TRES_IN_MAX},
    {"TRESUsageInMaxNode", 18, 0, X_TRES_IN_MAX_NODE},
    {"TRESUsageInMaxTask", 18, 0, X_TRES_IN_MAX_TASK},
    {"TRESUsageInMin", 14, 0, X_TRES_IN_MIN},
    {"TRESUsageInMinNode", 18, 0, X_TRES_IN_MIN_NODE},
    {"TRESUsageInMinTask", 18, 0, X_TRES_IN_MIN_TASK},
    {"TRESUsageInTot", 14, 0, X_TRES_IN_TOT},
    {"TRESUsageOutAve", 15, 0, X_TRES_OUT_AVE},
    {"TRESUsageOutMax", 15, 0, X_TRES_OUT_MAX},
    {"TRESUsageOutMaxNode", 19, 0, X_TRES_OUT_MAX_NODE},
    {"TRESUsageOutMaxTask", 19, 0, X_TRES_OUT_MAX_TASK},
    {"TRESUsageOutMin", 15, 0, X_TRES_OUT_MIN},
    {"TRESUsageOutMinNode", 19, 0, X_TRES_OUT_MIN_NODE},
    {"TRESUsageOutMinTask", 19, 0, X_TRES_OUT_MIN_TASK},
    {"TRESUsageOutTot", 15, 0, X_TRES_OUT_TOT},
};
const size_t sstat_field_count = sizeof(sstat_fields) / sizeof(sstat_fields[0]);

const struct sstat_field *sstat_field_find(const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i < sstat_field_count; i++)
		if (!strncasecmp(sstat_fields[i].name, word, n))
			return &sstat_fields[i];
	return NULL;
}

/* A node's figure of metric m: totals (CPU, I/O) or now (memory). */
static uint64_t node_now(const struct node_stat *ns, int m)
{
	switch (m) {
	case SM_CPU:
		return (ns->user_usec + ns->sys_usec) / 1000;
	case SM_MEM:
		return ns->rss_kib << 10;
	case SM_VMEM:
		return ns->vsize_kib << 10;
	case SM_READ:
		return ns->read_bytes;
	case SM_GPUMEM:
		return ns->gpu_mem;
	case SM_GPUUTIL:
		return ns->gpu_util;
	default:
		return ns->write_bytes;
	}
}

/* ... and the one compared across tasks: memory at its highest. */
static uint64_t node_peak(const struct node_stat *ns, int m)
{
	if (m == SM_MEM)
		return ns->max_rss_kib << 10;
	if (m == SM_VMEM)
		return ns->max_vsize_kib << 10;
	if (m == SM_GPUMEM)
		return ns->max_gpu_mem;
	if (m == SM_GPUUTIL)
		return ns->max_gpu_util;
	return node_now(ns, m);
}

/* Weigh one task's figures (v, per metric) into the row. */
static void row_take(struct sstat_row *row, const uint64_t v[SM_COUNT], size_t node,
                     uint32_t gtid, int first)
{
	for (int m = 0; m < SM_COUNT; m++) {
		struct sstat_metric *sm = &row->m[m];
		if (first || v[m] > sm->max) {
			sm->max = v[m];
			sm->max_node = node;
			sm->max_task = gtid;
		}
		if (first || v[m] < sm->min) {
			sm->min = v[m];
			sm->min_node = node;
			sm->min_task = gtid;
		}
	}
}

/* A node that told its tasks apart (/proc, by process group): each task's
 * memory and I/O as measured, and its share of the node's CPU time (the
 * cgroup's) in proportion to what /proc saw it use. */
static void take_tasks(struct sstat_row *row, const struct node_stat *ns, size_t node,
                       int *first)
{
	uint64_t cpu_seen = 0, node_cpu = node_now(ns, SM_CPU), v[SM_COUNT];

	for (uint32_t k = 0; k < ns->tasks_count; k++)
		cpu_seen += ns->tasks[k].cpu_usec;
	for (uint32_t k = 0; k < ns->tasks_count; k++) {
		const struct task_stat *ts = &ns->tasks[k];
		v[SM_CPU] = cpu_seen ? (uint64_t)((double)node_cpu *
		                                  (double)ts->cpu_usec / (double)cpu_seen)
		                     : node_cpu / ns->tasks_count;
		v[SM_MEM] = ts->max_rss_kib << 10;
		v[SM_VMEM] = ts->max_vsize_kib << 10;
		v[SM_READ] = ts->read_bytes;
		v[SM_WRITE] = ts->write_bytes;
		/* NVML's figures are the node's: shared evenly */
		v[SM_GPUMEM] = node_peak(ns, SM_GPUMEM) / ns->tasks_count;
		v[SM_GPUUTIL] = node_peak(ns, SM_GPUUTIL) / ns->tasks_count;
		row_take(row, v, node, ts->gtid, *first);
		*first = 0;
	}
}

void sstat_row_init(struct sstat_row *row, const struct step_stat *ss, size_t first,
                    size_t end, enum acctg_convert conv)
{
	int none_yet = 1;

	memset(row, 0, sizeof(*row));
	row->ss = ss;
	row->first = first;
	row->end = end;
	row->conv = conv;
	for (size_t i = first; i < end; i++) {
		const struct node_stat *ns = &ss->node_stats[i];
		uint32_t t = ns->ntasks ? ns->ntasks : 1;
		uint64_t v[SM_COUNT];

		row->ntasks += ns->ntasks;
		row->gpus += ns->gpus;
		row->gpu_ave[0] += ns->ave_gpu_mem;
		row->gpu_ave[1] += ns->ave_gpu_util;
		for (int m = 0; m < SM_COUNT; m++) {
			row->m[m].tot += node_now(ns, m);
			v[m] = node_peak(ns, m) / t;
		}
		if (ns->tasks_count > 1 && ns->tasks_count == ns->ntasks) {
			take_tasks(row, ns, i, &none_yet);
			continue;
		}
		/* one task, or not told apart: the node's figures, shared evenly */
		row_take(row, v, i, ns->gtid_base, none_yet);
		none_yet = 0;
	}
}

/* Slurm's CPU times here: "00:01:05", "12:00:00", "2-00:00:00". */
static const char *cpu_secs(uint64_t secs, char *buf, size_t len)
{
	uint64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60,
	         s = secs % 60;

	if (d)
		snprintf(buf, len, "%" PRIu64 "-%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64,
		         d, h, m, s);
	else
		snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, h, m, s);
	return buf;
}

static const char *size(const struct sstat_row *row, uint64_t bytes, char *buf,
                        size_t len)
{
	return acctg_size(bytes, 0, row->conv, buf, len);
}

/* Disk figures: Slurm writes one byte as "1.00M" (its small-double rule). */
static const char *disk(const struct sstat_row *row, uint64_t bytes, char *buf,
                        size_t len)
{
	if (bytes == 1) {
		snprintf(buf, len, "1.00M");
		return buf;
	}
	return size(row, bytes, buf, len);
}

static uint64_t ave(const struct sstat_row *row, int m)
{
	return row->ntasks ? row->m[m].tot / row->ntasks : 0;
}

static const char *node_name(const struct sstat_row *row, size_t i)
{
	if (row->first == row->end)
		return "";
	return row->ss->node_stats[i].node_name ? row->ss->node_stats[i].node_name : "";
}

static const char *task_id(const struct sstat_row *row, uint32_t t, char *buf, size_t len)
{
	if (row->first == row->end)
		return "";
	snprintf(buf, len, "%u", t);
	return buf;
}

enum tres_kind { T_AVE, T_MAX, T_MIN, T_TOT };

/* TRESUsageIn{Ave,Max,Min,Tot}: cpu, energy, fs/disk, gres/gpumem,
 * gres/gpuutil (a step with GPUs watched), mem, pages, vmem, by name, as
 * Slurm lists them.  The GPUs' average is over the samples, not over what
 * they use now. */
static const char *tres_in(const struct sstat_row *row, enum tres_kind k, char *buf,
                           size_t len)
{
	char c[32], d[32], m[32], v[32], g[32], gres[96] = "";
	uint64_t val[SM_COUNT];

	for (int i = 0; i < SM_COUNT; i++)
		val[i] = k == T_AVE   ? ave(row, i)
		         : k == T_MAX ? row->m[i].max
		         : k == T_MIN ? row->m[i].min
		                      : row->m[i].tot;
	if (k == T_AVE) {
		val[SM_GPUMEM] = row->ntasks ? row->gpu_ave[0] / row->ntasks : 0;
		val[SM_GPUUTIL] = row->ntasks ? row->gpu_ave[1] / row->ntasks : 0;
	}
	if (row->gpus)
		snprintf(gres, sizeof(gres), ",gres/gpumem=%s,gres/gpuutil=%" PRIu64,
		         size(row, val[SM_GPUMEM], g, sizeof(g)), val[SM_GPUUTIL]);
	snprintf(buf, len, "cpu=%s,energy=0,fs/disk=%s%s,mem=%s,pages=0,vmem=%s",
	         cpu_secs(val[SM_CPU] / 1000, c, sizeof(c)),
	         size(row, val[SM_READ], d, sizeof(d)), gres,
	         size(row, val[SM_MEM], m, sizeof(m)),
	         size(row, val[SM_VMEM], v, sizeof(v)));
	return buf;
}

static const char *tres_out(const struct sstat_row *row, enum tres_kind k, char *buf,
                            size_t len)
{
	char d[32];
	uint64_t w = k == T_AVE   ? ave(row, SM_WRITE)
	             : k == T_MAX ? row->m[SM_WRITE].max
	             : k == T_MIN ? row->m[SM_WRITE].min
	                          : row->m[SM_WRITE].tot;

	snprintf(buf, len, "energy=0,fs/disk=%s", size(row, w, d, sizeof(d)));
	return buf;
}

static const char *tres_in_where(const struct sstat_row *row, int max, int tasks,
                                 char *buf, size_t len)
{
	const struct sstat_metric *m = row->m;
	size_t n[SM_COUNT];
	uint32_t t[SM_COUNT];
	char gres[160] = "";

	if (row->first == row->end)
		return "";
	for (int i = 0; i < SM_COUNT; i++) {
		n[i] = max ? m[i].max_node : m[i].min_node;
		t[i] = max ? m[i].max_task : m[i].min_task;
	}
	if (tasks && row->gpus)
		snprintf(gres, sizeof(gres), ",gres/gpumem=%u,gres/gpuutil=%u",
		         t[SM_GPUMEM], t[SM_GPUUTIL]);
	else if (row->gpus)
		snprintf(gres, sizeof(gres), ",gres/gpumem=%s,gres/gpuutil=%s",
		         node_name(row, n[SM_GPUMEM]), node_name(row, n[SM_GPUUTIL]));
	if (tasks)
		snprintf(buf, len, "cpu=%u,fs/disk=%u%s,mem=%u,pages=%u,vmem=%u",
		         t[SM_CPU], t[SM_READ], gres, t[SM_MEM],
		         row->ss->node_stats[row->first].gtid_base, t[SM_VMEM]);
	else
		snprintf(buf, len,
		         "cpu=%s,energy=%s,fs/disk=%s%s,mem=%s,pages=%s,vmem=%s",
		         node_name(row, n[SM_CPU]), node_name(row, row->first),
		         node_name(row, n[SM_READ]), gres, node_name(row, n[SM_MEM]),
		         node_name(row, row->first), node_name(row, n[SM_VMEM]));
	return buf;
}

static const char *tres_out_where(const struct sstat_row *row, int max, int tasks,
                                  char *buf, size_t len)
{
	const struct sstat_metric *w = &row->m[SM_WRITE];

	if (row->first == row->end)
		return "";
	if (tasks)
		snprintf(buf, len, "fs/disk=%u", max ? w->max_task : w->min_task);
	else
		snprintf(buf, len, "energy=%s,fs/disk=%s", node_name(row, row->first),
		         node_name(row, max ? w->max_node : w->min_node));
	return buf;
}

static const char *job_id(const struct step_stat *ss, char *buf, size_t len)
{
	if (ss->step_id == STEP_BATCH)
		snprintf(buf, len, "%u.batch", ss->job_id);
	else if (ss->step_id == STEP_EXTERN)
		snprintf(buf, len, "%u.extern", ss->job_id);
	else
		snprintf(buf, len, "%u.%u", ss->job_id, ss->step_id);
	return buf;
}

static const char *pids(const struct sstat_row *row, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = row->first; i < row->end; i++) {
		const struct node_stat *ns = &row->ss->node_stats[i];
		for (uint32_t k = 0; k < ns->pids.n && off + 12 < len; k++)
			off += (size_t)snprintf(buf + off, len - off, "%s%u",
			                        off ? "," : "", ns->pids.v[k]);
	}
	return buf;
}

const char *sstat_value(int id, const struct sstat_row *row, char *buf, size_t len)
{
	const struct sstat_metric *m = row->m;

	switch (id) {
	case X_JOBID:
		return job_id(row->ss, buf, len);
	case X_AVECPU:
		return cpu_secs(ave(row, SM_CPU) / 1000, buf, len);
	case X_MINCPU:
		return cpu_secs(m[SM_CPU].min / 1000, buf, len);
	case X_MINCPUNODE:
		return node_name(row, m[SM_CPU].min_node);
	case X_MINCPUTASK:
		return task_id(row, m[SM_CPU].min_task, buf, len);
	case X_AVERSS:
		return size(row, ave(row, SM_MEM), buf, len);
	case X_MAXRSS:
		return size(row, m[SM_MEM].max, buf, len);
	case X_MAXRSSNODE:
		return node_name(row, m[SM_MEM].max_node);
	case X_MAXRSSTASK:
		return task_id(row, m[SM_MEM].max_task, buf, len);
	case X_AVEVMSIZE:
		return size(row, ave(row, SM_VMEM), buf, len);
	case X_MAXVMSIZE:
		return size(row, m[SM_VMEM].max, buf, len);
	case X_MAXVMSIZENODE:
		return node_name(row, m[SM_VMEM].max_node);
	case X_MAXVMSIZETASK:
		return task_id(row, m[SM_VMEM].max_task, buf, len);
	case X_AVEDISKREAD:
		return disk(row, ave(row, SM_READ), buf, len);
	case X_MAXDISKREAD:
		return disk(row, m[SM_READ].max, buf, len);
	case X_MAXDISKREADNODE:
		return node_name(row, m[SM_READ].max_node);
	case X_MAXDISKREADTASK:
		return task_id(row, m[SM_READ].max_task, buf, len);
	case X_AVEDISKWRITE:
		return disk(row, ave(row, SM_WRITE), buf, len);
	case X_MAXDISKWRITE:
		return disk(row, m[SM_WRITE].max, buf, len);
	case X_MAXDISKWRITENODE:
		return node_name(row, m[SM_WRITE].max_node);
	case X_MAXDISKWRITETASK:
		return task_id(row, m[SM_WRITE].max_task, buf, len);
	case X_MAXPAGESNODE:
		return node_name(row, row->first);
	case X_MAXPAGESTASK:
		return task_id(
		    row,
		    row->first < row->end ? row->ss->node_stats[row->first].gtid_base : 0,
		    buf, len);
	case X_NTASKS:
		snprintf(buf, len, "%u", row->ntasks);
		return buf;
	case X_NODELIST:
		if (row->end == row->first + 1)
			return node_name(row, row->first);
		return row->ss->nodes ? row->ss->nodes : "";
	case X_PIDS:
		return pids(row, buf, len);
	case X_REQCPUFREQ:
	case X_REQCPUFREQMIN:
	case X_REQCPUFREQMAX:
	case X_REQCPUFREQGOV:
		return "Unknown";
	case X_TRES_IN_AVE:
		return tres_in(row, T_AVE, buf, len);
	case X_TRES_IN_MAX:
		return tres_in(row, T_MAX, buf, len);
	case X_TRES_IN_MIN:
		return tres_in(row, T_MIN, buf, len);
	case X_TRES_IN_TOT:
		return tres_in(row, T_TOT, buf, len);
	case X_TRES_IN_MAX_NODE:
	case X_TRES_IN_MIN_NODE:
		return tres_in_where(row, id == X_TRES_IN_MAX_NODE, 0, buf, len);
	case X_TRES_IN_MAX_TASK:
	case X_TRES_IN_MIN_TASK:
		return tres_in_where(row, id == X_TRES_IN_MAX_TASK, 1, buf, len);
	case X_TRES_OUT_AVE:
		return tres_out(row, T_AVE, buf, len);
	case X_TRES_OUT_MAX:
		return tres_out(row, T_MAX, buf, len);
	case X_TRES_OUT_MIN:
		return tres_out(row, T_MIN, buf, len);
	case X_TRES_OUT_TOT:
		return tres_out(row, T_TOT, buf, len);
	case X_TRES_OUT_MAX_NODE:
	case X_TRES_OUT_MIN_NODE:
		return tres_out_where(row, id == X_TRES_OUT_MAX_NODE, 0, buf, len);
	case X_TRES_OUT_MAX_TASK:
	case X_TRES_OUT_MIN_TASK:
		return tres_out_where(row, id == X_TRES_OUT_MAX_TASK, 1, buf, len);
	default: /* pages, energy, CPU frequency: not measured */
		return "0";
	}
}
