/* messages.h - every struct that crosses a socket, declared once.
 *
 * Each FIELDS(F, S) list below generates `struct S` (here) and `S_type`, its
 * codec descriptor (messages.c).  Field kinds: u32 i32 u64 i64 str bin strv u32v,
 * and list (array of another declared struct, with a `NAME_count` member).
 * Add a field at the end of a list; never reuse a name with a new meaning.
 *
 * ROTA_MESSAGES lists the message types: number, name, body struct.
 */
#ifndef ROTA_MESSAGES_H
#define ROTA_MESSAGES_H

#include <stdint.h>
#include "proto/codec.h"
#include "proto/declare.h"

#define NO_VAL     0xfffffffeu /* "not set" for u32 fields */
#define INFINITE32 0xffffffffu
#define NO_VAL64   0xfffffffffffffffeull
#define STEP_BATCH 0xfffffffbu /* step id of the batch script (N.batch) */

/* ---- records ---- */

/* A container for the tasks (common/ctrspec.h): the Pyxis options as given,
 * checked by the CLI and again where they are used.  NULL/0: not given. */
#define CONTAINER_FIELDS(F, S) CONTAINER_FIELDS_K(F, S, )
/* ... of kinds K##_x (declare.h: out of line) with x = _x */
#define CONTAINER_FIELDS_K(F, S, x)                                                      \
	F(S, str##x, container_image, _)   /* --container-image */                       \
	F(S, str##x, container_mounts, _)  /* --container-mounts, comma-separated */     \
	F(S, str##x, container_workdir, _) /* --container-workdir */                     \
	F(S, str##x, container_env, _)     /* --container-env: names, comma-separated */ \
	F(S, str##x, container_name, _)    /* --container-name */                        \
	F(S, u32##x, container_flags, _)   /* CTR_F_* (common/ctrspec.h) */              \
	F(S, str##x, container, _)         /* --container: an OCI bundle (Slurm's) */

/* Copy the CONTAINER_FIELDS of *from to *to (two declared structs; pointers
 * borrowed): CONTAINER_FIELDS(CONTAINER_COPY_F, _) where to and from are. */
#define CONTAINER_COPY_F(S, kind, name, sub) to->name = from->name;

/* What a step's GPUs were used for on a node (stepd/usage.c, through NVML):
 * how many GPUs were watched (0: none, no GPU figures), the bytes of GPU
 * memory its processes held and the GPUs' busy percentage summed over them,
 * at the highest and on average over the samples. */
#define GPU_USE_FIELDS(F, S)                                                             \
	F(S, u32, gpus, _)                                                               \
	F(S, u64, max_gpu_mem, _)                                                        \
	F(S, u64, ave_gpu_mem, _)                                                        \
	F(S, u32, max_gpu_util, _)                                                       \
	F(S, u32, ave_gpu_util, _)
/* Copy the GPU_USE_FIELDS of *from to *to: GPU_USE_FIELDS(GPU_USE_COPY_F, _). */
#define GPU_USE_COPY_F(S, kind, name, sub) to->name = from->name;

/* What a user asks for (sbatch/srun/salloc).  NO_VAL = not given. */
#define JOB_DESC_FIELDS(F, S)                                                            \
	F(S, str, name, _)                                                               \
	F(S, str, partition, _)                                                          \
	F(S, str, script, _)  /* batch script text; NULL for srun/salloc */              \
	F(S, str, command, _) /* script path or command shown as Command= */             \
	F(S, str, work_dir, _)                                                           \
	F(S, str, std_out, _)                                                            \
	F(S, str, std_err, _)                                                            \
	F(S, str_x, std_in, _)                                                           \
	F(S, strv, env, _)  /* environment for the job, already --export-ed */           \
	F(S, strv, argv, _) /* script arguments */                                       \
	F(S, str, account, _)                                                            \
	F(S, str_x, comment, _)                                                          \
	F(S, str, req_nodes, _) /* -w */                                                 \
	F(S, str, exc_nodes, _) /* -x */                                                 \
	F(S, str, features, _)  /* -C */                                                 \
	F(S, str, dependency, _)                                                         \
	F(S, str, submit_host, _)                                                        \
	F(S, u32, min_nodes, _)                                                          \
	F(S, u32, max_nodes, _)                                                          \
	F(S, u32, num_tasks, _)                                                          \
	F(S, u32, ntasks_per_node, _)                                                    \
	F(S, u32, cpus_per_task, _)                                                      \
	F(S, u64, mem_per_node, _) /* MB, NO_VAL64 unset */                              \
	F(S, u64, mem_per_cpu, _)  /* MB, NO_VAL64 unset */                              \
	F(S, u32, time_limit, _)   /* minutes, NO_VAL unset, INFINITE32 unlimited */     \
	F(S, u32, hold, _)         /* 1: submit held */                                  \
	F(S, u32, flags, _)        /* JOB_F_* */                                         \
	F(S, u32, nice, _)                                                               \
	F(S, u32, umask, _)                                                              \
	F(S, i64, begin_time, _)                                                         \
	F(S, u32_x, warn_signal, _) /* --signal: 0 none */                               \
	F(S, u32_x, warn_time, _)   /* seconds before the end */                         \
	F(S, u32_x, warn_flags, _)  /* WARN_F_* */                                       \
	F(S, str, array_inx, _)     /* --array spec as given; NULL: not an array */      \
	F(S, u32, pn_min_cpus, _)   /* --mincpus; NO_VAL unset */                        \
	F(S, u64_x, pn_min_tmp, _)  /* --tmp, MB of TmpDisk a node needs; 0 none */      \
	F(S, str_x, licenses, _)    /* -L "name:count,..." (common/licenses.h) */        \
	F(S, u32_x, time_min, _)    /* --time-min, minutes; 0 none */                    \
	F(S, i64_x, deadline, _)    /* --deadline; 0 none */                             \
	F(S, str_x, reservation, _) /* --reservation; NULL none (ctld/resv.h) */         \
	F(S, str_x, gres, _)        /* --gres as given (common/gres.h); NULL: none */    \
	F(S, str, qos, _) /* --qos; set at submit (the association's default) */         \
	/* GPUs, each "[type:]count" as given (common/gres.h gres_gpu_parse) */          \
	F(S, str_x, gpus, _)            /* --gpus: in all */                             \
	F(S, str_x, gpus_per_node, _)   /* --gpus-per-node */                            \
	F(S, str_x, gpus_per_task, _)   /* --gpus-per-task */                            \
	F(S, str_x, gpus_per_socket, _) /* --gpus-per-socket */                          \
	F(S, u32_x, cpus_per_gpu, _)    /* --cpus-per-gpu; 0 unset */                    \
	F(S, u64_x, mem_per_gpu, _)     /* --mem-per-gpu, MB; 0 unset */                 \
	F(S, str_x, gpu_bind, _)        /* --gpu-bind as given */                        \
	F(S, u32_x, gres_flags, _)      /* --gres-flags: GRES_F_* */                     \
	CONTAINER_FIELDS_K(F, S, _x)                                                     \
	F(S, u32_x, req_switch, _) /* --switches=N: leaf switches at most; 0 none */     \
	F(S, u32, wait4switch, _)  /* ...@max-time, s; NO_VAL: max_switch_wait */        \
	F(S, u32_x, sockets_per_node, _) /* --sockets-per-node, -B S; 0 unset */         \
	/* the layout of its tasks (sched/select.h), each 0 unset: least cores a         \
	 * socket and threads a core of its nodes (-B S:C:T), threads a task uses        \
	 * of each core (--threads-per-core, --hint), tasks a core, a socket */          \
	F(S, u32_x, cores_per_socket, _)                                                 \
	F(S, u32_x, threads_per_core, _)                                                 \
	F(S, u32_x, ntasks_per_core, _)                                                  \
	F(S, u32_x, ntasks_per_socket, _)                                                \
	F(S, u32_x, mail_type, _) /* --mail-type: MAIL_* (common/mailtype.h) */          \
	F(S, str_x, mail_user, _) /* --mail-user; NULL: the job's user */                \
	/* scrontab's (ctld/crontab.h): the time fields (common/cronspec.h) and          \
	 * the crontab's lines of the entry, first << 16 | last (from 1) */              \
	F(S, str_x, cron_spec, _)                                                        \
	F(S, u32_x, cron_lines, _)                                                       \
	/* --priority (operators): 1..JOB_PRIO_TOP; 0: not given */                      \
	F(S, u32_x, priority, _)                                                         \
	/* a heterogeneous job's component (ctld/hetjob.h), set by the controller:       \
	 * its leader's id (0: not one) and offset | components << 16 */                 \
	F(S, u32_x, het_job_id, _)                                                       \
	F(S, u32_x, het_offset, _)                                                       \
	F(S, str_x, prefer, _) /* --prefer: features tried first; NULL none */           \
	/* --uid, --gid (root's): the user and group + 1 the job is for; 0: the          \
	 * submitter's */                                                                \
	F(S, u32_x, as_uid, _)                                                           \
	F(S, u32_x, as_gid, _)                                                           \
	/* scontrol update SiteFactor= (operators): added to a multifactor               \
	 * priority, a signed value as u32 two's complement; 0: none */                  \
	F(S, u32_x, site_factor, _)                                                      \
	/* the user the submitting command is in its own eyes (getuid() + 1; 0:          \
	 * not said): one that is not the caller the connection authenticated is         \
	 * refused, root's and SlurmUser's aside (Slurm's "Invalid user id") */          \
	F(S, u32_x, self_uid, _)                                                         \
	/* sbatch --batch: features the batch host has (common/batch_feat.h);            \
	 * NULL none */                                                                  \
	F(S, str_x, batch_features, _)                                                   \
	/* --mcs-label; the controller's at submit: the label the job has                \
	 * (MCSPlugin, common/mcs.h), NULL: none */                                      \
	F(S, str_x, mcs_label, _)
ROTA_DECLARE_EXT(job_desc, JOB_DESC_FIELDS)
#define HET_OFFSET(v) ((v)&0xffffu)
#define HET_SIZE(v)   ((v) >> 16)
#define HET_MAX       128         /* components of one job */
#define JOB_PRIO_TOP  0xfffffffeu /* --priority=TOP (Slurm's NO_VAL - 1) */
enum gres_flags {
	GRES_F_ENFORCE_BINDING = 1,
	GRES_F_DISABLE_BINDING = 2,
};

enum job_flags {
	JOB_F_EXCLUSIVE = 1 << 0,
	JOB_F_REQUEUE = 1 << 1,
	JOB_F_NO_REQUEUE = 1 << 2,
	JOB_F_INTERACTIVE = 1 << 3, /* srun/salloc allocation, no batch script */
	JOB_F_OPEN_APPEND = 1 << 4,
	JOB_F_OVERSUBSCRIBE = 1 << 5, /* -s: may share cores (OverSubscribe=YES) */
	JOB_F_OVERCOMMIT = 1 << 6,    /* -O: CPUs for one task a node, tasks as asked */
	JOB_F_SPREAD = 1 << 7,        /* --spread-job */
	JOB_F_CONTIGUOUS = 1 << 8,    /* --contiguous */
	/* --kill-on-invalid-dep=yes|no: cancelled, or left waiting, when a
	 * dependency can never be satisfied (neither: kill_invalid_depend) */
	JOB_F_KILL_INV_DEP = 1 << 9,
	JOB_F_NO_KILL_INV_DEP = 1 << 10,
	/* --exclusive=user: its nodes shared with jobs of its user alone */
	JOB_F_EXCLUSIVE_USER = 1 << 11,
	/* --use-min-nodes: of a node range, the fewest (not the most) */
	JOB_F_USE_MIN_NODES = 1 << 12,
	/* -k/--no-kill: a node that fails leaves the job (ctld/nokill.h) */
	JOB_F_NO_KILL = 1 << 13,
	/* salloc --no-shell: the allocation outlives salloc's connection */
	JOB_F_NO_SHELL = 1 << 14,
	/* the controller's: its memory is its partition's DefMemPerCPU or
	 * DefMemPerNode (or slurm.conf's), not asked (ctld/part_mem.h) */
	JOB_F_MEM_DEFAULT = 1 << 15,
	/* --reboot (admins): its nodes reboot (RebootProgram) before it starts,
	 * which has them to itself (ctld/power.h) */
	JOB_F_REBOOT = 1 << 20,
	/* --exclusive=mcs: its nodes shared with jobs of its MCS label alone */
	JOB_F_EXCLUSIVE_MCS = 1 << 16,
};

/* One job as squeue / scontrol show job see it. */
#define JOB_INFO_FIELDS(F, S)                                                            \
	F(S, u32, job_id, _)                                                             \
	F(S, str, name, _)                                                               \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, str, user, _)                                                               \
	F(S, str, group, _)                                                              \
	F(S, str, partition, _)                                                          \
	F(S, str, account, _)                                                            \
	F(S, u32, state, _)         /* enum job_state | JOB_STATE_* flags */             \
	F(S, u32, reason, _)        /* enum job_reason */                                \
	F(S, str, reason_detail, _) /* plain words: why it waits */                      \
	F(S, u32, priority, _)                                                           \
	F(S, u32, hold, _) /* 0, 1 user, 2 admin, 3 its reservation was deleted, ... */  \
	F(S, i64, submit_time, _)                                                        \
	F(S, i64, eligible_time, _)                                                      \
	F(S, i64, start_time, _)                                                         \
	F(S, i64, end_time, _)                                                           \
	F(S, u32, time_limit, _) /* minutes or INFINITE32 */                             \
	F(S, u32, min_nodes, _)                                                          \
	F(S, u32, num_nodes, _) /* allocated (or requested while pending) */             \
	F(S, u32, num_cpus, _)                                                           \
	F(S, u32, num_tasks, _)                                                          \
	F(S, u32, ntasks_per_node, _)                                                    \
	F(S, u32, cpus_per_task, _)                                                      \
	F(S, u64, mem_per_node, _)                                                       \
	F(S, u64, mem_per_cpu, _)                                                        \
	F(S, str, nodes, _) /* allocated nodes, compressed */                            \
	F(S, u32v, cpus_per_node, _)                                                     \
	F(S, str, req_nodes, _)                                                          \
	F(S, str, exc_nodes, _)                                                          \
	F(S, str, features, _)                                                           \
	F(S, str, batch_host, _)                                                         \
	F(S, u32, batch_flag, _)                                                         \
	F(S, str, work_dir, _)                                                           \
	F(S, str, command, _)                                                            \
	F(S, str, std_out, _)                                                            \
	F(S, str, std_err, _)                                                            \
	F(S, str, std_in, _)                                                             \
	F(S, u32, exit_code, _) /* wait status of the batch script/srun */               \
	F(S, u32, derived_exit_code, _)                                                  \
	F(S, u32, restart_cnt, _)                                                        \
	F(S, u32, flags, _)                                                              \
	F(S, str, submit_host, _)                                                        \
	F(S, str, comment, _)                                                            \
	F(S, str, dependency, _)                                                         \
	F(S, u32, nice, _)                                                               \
	F(S, u32, array_job_id, _)    /* 0: not an array */                              \
	F(S, u32, array_task_id, _)   /* NO_VAL: not a single task */                    \
	F(S, str, array_task_str, _)  /* pending remainder "5-99%10", else NULL */       \
	F(S, u32, array_max_tasks, _) /* throttle; 0 none */                             \
	F(S, str, sched_nodes, _)     /* pending: nodes backfill planned for it */       \
	F(S, u32, pn_min_cpus, _)     /* --mincpus; NO_VAL unset */                      \
	F(S, str, unavail_nodes, _)   /* ReqNodeNotAvail: which -w nodes are down */     \
	F(S, str, qos, _)                                                                \
	/* GRES requested, in Slurm's words ("gres:gpu:2"), NULL when none */            \
	F(S, str, tres_per_node, _)                                                      \
	F(S, str, tres_per_job, _)                                                       \
	F(S, str, tres_per_task, _)                                                      \
	F(S, str, tres_per_socket, _)                                                    \
	F(S, str, cpus_per_tres, _)                                                      \
	F(S, str, mem_per_tres, _)                                                       \
	F(S, str, tres_gres, _) /* GRES allocated: "gres/gpu=2,gres/gpu:h100=2" */       \
	/* scontrol -d: per node "Nodes=n1 CPU_IDs=0-1 Mem=0 GRES=gpu:1(IDX:0)\n" */     \
	F(S, str, node_detail, _)                                                        \
	F(S, u32, req_switch, _)  /* --switches: 0 none */                               \
	F(S, u32, wait4switch, _) /* seconds it may wait for them */                     \
	/* from here on no bit in job_info_req.fields: always sent */                    \
	F(S, str, licenses, _)   /* "name:count,..." it holds or waits for; NULL none */ \
	F(S, u64, pn_min_tmp, _) /* --tmp, MB */                                         \
	F(S, u32, time_min, _)                                                           \
	F(S, i64, deadline, _)                                                           \
	F(S, str, reservation, _)                                                        \
	F(S, i64, suspend_time, _) /* last suspended or resumed; 0 never */              \
	F(S, u32, pre_sus_secs, _) /* run before the last suspension */                  \
	F(S, u32, sus_secs, _)     /* spent suspended, up to now */                      \
	F(S, u32, mail_type, _)    /* MAIL_* (common/mailtype.h) */                      \
	F(S, str, mail_user, _)                                                          \
	F(S, str, cron_spec, _)  /* scrontab's: CrontabSpec=; NULL: not one */           \
	F(S, u32, cron_job, _)   /* 1: its crontab still has it (CronJob=Yes) */         \
	F(S, u32, het_job_id, _) /* a heterogeneous job's leader; 0: not one */          \
	F(S, u32, het_offset, _) /* its offset | components << 16 */                     \
	/* as job_desc's (0: not given): ReqB:S:C:T= and NtasksPerN:B:S:C= */            \
	F(S, u32, sockets_per_node, _)                                                   \
	F(S, u32, cores_per_socket, _)                                                   \
	F(S, u32, threads_per_core, _)                                                   \
	F(S, u32, ntasks_per_core, _)                                                    \
	F(S, u32, ntasks_per_socket, _)                                                  \
	F(S, str, prefer, _)         /* --prefer; NULL none */                           \
	F(S, str, batch_features, _) /* sbatch --batch; NULL none */                     \
	F(S, str, mcs_label, _)      /* its MCS label (MCSPlugin); NULL none */
ROTA_DECLARE(job_info, JOB_INFO_FIELDS)
/* job_info.hold of a batch job requeued and held because its launch failed (its
 * Prolog): its reason reads "launch failed requeued held", as Slurm's */
#define JOB_INFO_HOLD_LAUNCH_FAILED 5
ROTA_INDEX(job_info, JOB_INFO_FIELDS)
_Static_assert(job_info_idx_wait4switch < 64, "job_info_req.fields is 64 bits");
/* The bit of field n in job_info_req.fields (a field past the 64th has none:
 * the shift's width is refused at compile time). */
#define JI(n) (UINT64_C(1) << job_info_idx_##n)

#define NODE_INFO_FIELDS(F, S)                                                           \
	F(S, str, name, _)                                                               \
	F(S, str, hostname, _)                                                           \
	F(S, str, addr, _)                                                               \
	F(S, u32, port, _)                                                               \
	F(S, u32, state, _) /* enum node_state | NODE_STATE_* flags */                   \
	F(S, u32, cpus, _)                                                               \
	F(S, u32, alloc_cpus, _)                                                         \
	F(S, u32, boards, _)                                                             \
	F(S, u32, sockets, _)                                                            \
	F(S, u32, cores, _)                                                              \
	F(S, u32, threads, _)                                                            \
	F(S, u64, real_memory, _)                                                        \
	F(S, u64, alloc_memory, _)                                                       \
	F(S, u64, free_memory, _)                                                        \
	F(S, u64, tmp_disk, _)                                                           \
	F(S, u32, weight, _)                                                             \
	F(S, str, features, _)                                                           \
	F(S, str, gres, _)                                                               \
	F(S, str, partitions, _)                                                         \
	F(S, str, reason, _)                                                             \
	F(S, i64, reason_time, _)                                                        \
	F(S, u32, reason_uid, _)                                                         \
	F(S, i64, boot_time, _)                                                          \
	F(S, i64, slurmd_start_time, _)                                                  \
	F(S, i64, last_busy, _)                                                          \
	F(S, u32, cpu_load, _) /* load average * 100 */                                  \
	F(S, str, os, _)                                                                 \
	F(S, str, arch, _)                                                               \
	F(S, str, version, _)                                                            \
	F(S, str, gres_used, _)    /* "gpu:h100:0(IDX:N/A)" (ctld/node_gres.h) */        \
	F(S, str, next_state, _)   /* to reboot: "RESUME" or "DOWN" after; NULL */       \
	F(S, str, features_act, _) /* ActiveFeatures (features: AvailableFeatures) */    \
	/* the MCS label of the jobs it runs that keep it to theirs; NULL none */        \
	F(S, str, mcs_label, _)
ROTA_DECLARE(node_info, NODE_INFO_FIELDS)

#define PART_INFO_FIELDS(F, S)                                                           \
	F(S, str, name, _)                                                               \
	F(S, str, nodes, _)                                                              \
	F(S, u32, is_default, _)                                                         \
	F(S, u32, state, _) /* enum conf_part_state */                                   \
	F(S, u32, max_time, _)                                                           \
	F(S, u32, default_time, _)                                                       \
	F(S, u32, max_nodes, _)                                                          \
	F(S, u32, min_nodes, _)                                                          \
	F(S, u32, total_nodes, _)                                                        \
	F(S, u32, total_cpus, _)                                                         \
	F(S, u32, priority_tier, _)                                                      \
	F(S, u32, priority_job_factor, _)                                                \
	F(S, str, oversubscribe, _)                                                      \
	F(S, str, allow_groups, _)                                                       \
	F(S, str, preempt_mode, _)   /* OFF, CANCEL or REQUEUE: what preemption does */  \
	F(S, u32, grace_time, _)     /* seconds */                                       \
	F(S, str, allow_accounts, _) /* NULL: ALL */                                     \
	F(S, str, deny_accounts, _)                                                      \
	F(S, str, allow_qos, _) /* NULL: ALL */                                          \
	F(S, str, deny_qos, _)                                                           \
	F(S, str, qos, _)                                                                \
	F(S, str, alternate, _)                                                          \
	F(S, str, alloc_nodes, _)       /* NULL: ALL */                                  \
	F(S, u32, flags, _)             /* PART_INFO_F_* */                              \
	F(S, u32, max_cpus_per_node, _) /* INFINITE32: UNLIMITED */                      \
	F(S, u64, def_mem_per_cpu, _)   /* MB; 0: none */                                \
	F(S, u64, def_mem_per_node, _)                                                   \
	F(S, u64, max_mem_per_cpu, _)                                                    \
	F(S, u64, max_mem_per_node, _)                                                   \
	F(S, str, tres_billing_weights, _)                                               \
	F(S, u32, over_time_limit, _) /* minutes; INFINITE32, NO_VAL: NONE */
ROTA_DECLARE(part_info, PART_INFO_FIELDS)
#define PART_INFO_F_HIDDEN            0x01u
#define PART_INFO_F_ROOT_ONLY         0x02u
#define PART_INFO_F_REQ_RESV          0x04u
#define PART_INFO_F_EXCLUSIVE_USER    0x08u
#define PART_INFO_F_LLN               0x10u
#define PART_INFO_F_DISABLE_ROOT_JOBS 0x20u

#define KV_FIELDS(F, S)                                                                  \
	F(S, str, key, _)                                                                \
	F(S, str, value, _)
ROTA_DECLARE(kv, KV_FIELDS)

/* ---- message bodies ---- */

#define RC_MSG_FIELDS(F, S)                                                              \
	F(S, i32, rc, _) /* 0 or a Slurm error number (ESLURM_*) */                      \
	F(S, str, msg, _)                                                                \
	F(S, str, detail, _) /* Slurm's err_msg: "error: DETAIL" said before the rc */
ROTA_DECLARE(rc_msg, RC_MSG_FIELDS)

#define EMPTY_MSG_FIELDS(F, S) F(S, u32, flags, _)
ROTA_DECLARE(empty_msg, EMPTY_MSG_FIELDS)

#define PING_RESP_FIELDS(F, S)                                                           \
	F(S, str, host, _)                                                               \
	F(S, i64, start_time, _)                                                         \
	F(S, str, version, _)                                                            \
	F(S, u32, standby, _) /* a backup that has not taken over */                     \
	F(S, u32, term, _)    /* how many takeovers its history has seen */
ROTA_DECLARE(ping_resp, PING_RESP_FIELDS)

#define SUBMIT_RESP_FIELDS(F, S)                                                         \
	F(S, u32, job_id, _)                                                             \
	F(S, str, msg, _)
ROTA_DECLARE(submit_resp, SUBMIT_RESP_FIELDS)

/* sbatch/srun --test-only: MSG_WILL_RUN_REQ {job_desc} is checked as
 * MSG_SUBMIT_REQ (MSG_ALLOC_REQ with JOB_F_INTERACTIVE) would be, and answered
 * MSG_WILL_RUN_RESP, or MSG_RC with the submission's error; nothing is
 * submitted (ctld/will_run.h). */
#define WILL_RUN_RESP_FIELDS(F, S)                                                       \
	F(S, u32, job_id, _)     /* the id the job would get (not taken) */              \
	F(S, i64, start_time, _) /* earliest start */                                    \
	F(S, u32, proc_cnt, _)   /* CPUs it would get */                                 \
	F(S, str, node_list, _)  /* its nodes, as a hostlist */                          \
	F(S, str, part_name, _)
ROTA_DECLARE(will_run_resp, WILL_RUN_RESP_FIELDS)

/* scontrol write batch_script: MSG_JOB_SCRIPT_REQ {job} -> MSG_JOB_SCRIPT_RESP
 * {its batch script} to its user or an operator, or MSG_RC
 * (ESLURM_JOB_SCRIPT_MISSING: not a batch job). */
#define JOB_SCRIPT_REQ_FIELDS(F, S) F(S, u32, job_id, _)
ROTA_DECLARE(job_script_req, JOB_SCRIPT_REQ_FIELDS)
#define JOB_SCRIPT_RESP_FIELDS(F, S) F(S, str, script, _)
ROTA_DECLARE(job_script_resp, JOB_SCRIPT_RESP_FIELDS)

/* scontrol setdebug / setdebugflags / schedloglevel: MSG_SET_DEBUG_REQ
 * {what: SET_DEBUG_*, the level or the flags as given} -> MSG_RC (admins). */
#define SET_DEBUG_REQ_FIELDS(F, S)                                                       \
	F(S, u32, what, _)                                                               \
	F(S, i32, level, _)                                                              \
	F(S, str, flags, _)
ROTA_DECLARE(set_debug_req, SET_DEBUG_REQ_FIELDS)
enum set_debug_what { SET_DEBUG_LEVEL = 0, SET_DEBUG_FLAGS = 1, SET_DEBUG_SCHED = 2 };

/* scontrol notify: MSG_JOB_NOTIFY_REQ {job, message} -> MSG_RC; the message
 * goes to the job's salloc or srun (MSG_USER_MSG on its allocation's
 * connection, printed "salloc: MESSAGE") or to a batch job's error output
 * (MSG_SIGNAL_REQ with SIGNAL_F_NOTIFY). */
#define JOB_NOTIFY_MAX 4096 /* bytes of message */
#define JOB_NOTIFY_REQ_FIELDS(F, S)                                                      \
	F(S, u32, job_id, _)                                                             \
	F(S, str, message, _)
ROTA_DECLARE(job_notify_req, JOB_NOTIFY_REQ_FIELDS)
#define USER_MSG_FIELDS(F, S) F(S, str, message, _)
ROTA_DECLARE(user_msg, USER_MSG_FIELDS)

/* scontrol update StepId=J[.S] TimeLimit=M: MSG_STEP_UPDATE_REQ -> MSG_RC.
 * step_id NO_VAL: every step of the job.  The job's user or an operator
 * (Slurm also lets its account's coordinators). */
#define STEP_UPDATE_REQ_FIELDS(F, S)                                                     \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, time_limit, _) /* minutes (INFINITE32: none) */
ROTA_DECLARE(step_update_req, STEP_UPDATE_REQ_FIELDS)

/* scontrol reboot: MSG_REBOOT_REQ {nodes: "ALL" or a hostlist, flags
 * REBOOT_F_*, next_state: the state after it, "RESUME" or "DOWN" (NULL:
 * as before), reason (NULL: none given)} -> MSG_RC (admins; ctld/reboot.h).
 * The controller sends a node's rotad the same message, about it alone,
 * when its turn comes: it runs RebootProgram (noded/reboot.h). */
#define REBOOT_F_ASAP 1u /* drain meanwhile: no new job starts there */
#define REBOOT_REQ_FIELDS(F, S)                                                          \
	F(S, str, nodes, _)                                                              \
	F(S, u32, flags, _)                                                              \
	F(S, str, next_state, _)                                                         \
	F(S, str, reason, _)
ROTA_DECLARE(reboot_req, REBOOT_REQ_FIELDS)

#define JOB_INFO_REQ_FIELDS(F, S)                                                        \
	F(S, u32v, job_ids, _) /* empty: all */                                          \
	F(S, u32, flags, _)                                                              \
	F(S, u64, fields, _) /* JI() bits: what the client reads; 0: every field */
ROTA_DECLARE(job_info_req, JOB_INFO_REQ_FIELDS)

/* Long lists come in several frames: each but the last has more = 1. */
#define JOB_INFO_RESP_FIELDS(F, S)                                                       \
	F(S, i64, now, _)                                                                \
	F(S, list, jobs, job_info)                                                       \
	F(S, u32, more, _)
ROTA_DECLARE(job_info_resp, JOB_INFO_RESP_FIELDS)

/* squeue's listing, printed by the controller (proto/joblist.h): which jobs,
 * in which order, in which columns.  The answer is the lines, without the
 * header, in frames of text; each but the last has more = 1. */
#define JOB_LIST_F_LONG        (1u << 0) /* format is -O fields, not -o */
#define JOB_LIST_F_ALL_STATES  (1u << 1) /* -t all: finished jobs too */
#define JOB_LIST_F_ARRAY_TASKS (1u << 2) /* -r: a line per pending array task */
#define JOB_LIST_F_NONE        (1u << 3) /* no job matches (squeue sends it no more) */
/* --array-unique: a pending task split off its array on a line of its own */
#define JOB_LIST_F_ARRAY_UNIQUE (1u << 4)
/* -P: a line per partition of a pending job; -S p and Q rank by the
 * partition's PriorityTier first */
#define JOB_LIST_F_PART_PRIO (1u << 5)
#define JOB_LIST_REQ_FIELDS(F, S)                                                        \
	F(S, str, format, _)      /* -o format or -O fields */                           \
	F(S, str, sort, _)        /* -S keys: "P,t,-p" */                                \
	F(S, u32, flags, _)       /* JOB_LIST_F_* */                                     \
	F(S, u32v, job_ids, _)    /* -j: these jobs (or arrays); one unknown id fails */ \
	F(S, u32v, states, _)     /* -t: job_state_parse() values */                     \
	F(S, u32v, uids, _)       /* -u */                                               \
	F(S, strv, names, _)      /* -n */                                               \
	F(S, strv, partitions, _) /* -p */                                               \
	F(S, strv, accounts, _)   /* -A, any case */                                     \
	F(S, strv, qos, _)        /* -q, any case */                                     \
	F(S, strv, nodes, _)      /* -w, expanded host names */                          \
	F(S, strv, licenses, _)   /* -L: jobs holding or asking for one of these */      \
	F(S, str, time_format, _) /* squeue's SLURM_TIME_FORMAT (common/timefmt.h) */    \
	F(S, str, reservation, _) /* -R: jobs of this reservation */
ROTA_DECLARE(job_list_req, JOB_LIST_REQ_FIELDS)

#define JOB_LIST_RESP_FIELDS(F, S)                                                       \
	F(S, i64, now, _)                                                                \
	F(S, bin, text, _)                                                               \
	F(S, u32, more, _)
ROTA_DECLARE(job_list_resp, JOB_LIST_RESP_FIELDS)

/* sprio: one pending job's priority and its factors.  The weighted values are
 * weight x factor, rounded; the n_* values are the factors in [0, 1] times
 * PRIO_NORM_SCALE. */
#define PRIO_NORM_SCALE 1000000000u
#define PRIO_INFO_FIELDS(F, S)                                                           \
	F(S, u32, job_id, _)                                                             \
	F(S, str, partition, _)                                                          \
	F(S, str, user, _)                                                               \
	F(S, u32, priority, _)                                                           \
	F(S, u32, site, _)                                                               \
	F(S, u32, age, _)                                                                \
	F(S, u32, fairshare, _)                                                          \
	F(S, u32, jobsize, _)                                                            \
	F(S, u32, partition_factor, _)                                                   \
	F(S, u32, qos, _)                                                                \
	F(S, u32, nice, _) /* signed, as u32 two's complement */                         \
	F(S, u32, n_age, _)                                                              \
	F(S, u32, n_fairshare, _)                                                        \
	F(S, u32, n_jobsize, _)                                                          \
	F(S, u32, n_partition, _)                                                        \
	F(S, u32, n_qos, _)                                                              \
	F(S, u32, assoc, _)                                                              \
	F(S, u32, n_assoc, _)                                                            \
	F(S, str, tres, _)   /* weighted, "cpu=2000,mem=30"; NULL none */                \
	F(S, str, n_tres, _) /* normalized, "cpu=0.50,mem=0.03" */                       \
	F(S, u32, direct, _) /* an admin set its priority: every factor 0 */
ROTA_DECLARE(prio_info, PRIO_INFO_FIELDS)

/* Answer to MSG_PRIO_INFO_REQ (a job_info_req); multifactor = 0 under
 * priority/basic, where only priority is meaningful.  One frame: an entry is
 * about 100 bytes, so MaxJobCount pending jobs stay far below FRAME_MAX_BODY. */
#define PRIO_INFO_RESP_FIELDS(F, S)                                                      \
	F(S, u32, multifactor, _)                                                        \
	F(S, u32, weight_age, _)                                                         \
	F(S, u32, weight_fairshare, _)                                                   \
	F(S, u32, weight_jobsize, _)                                                     \
	F(S, u32, weight_partition, _)                                                   \
	F(S, u32, weight_qos, _)                                                         \
	F(S, list, jobs, prio_info)                                                      \
	F(S, u32, weight_assoc, _)                                                       \
	F(S, str, weight_tres, _) /* PriorityWeightTRES as written; NULL unset */
ROTA_DECLARE(prio_info_resp, PRIO_INFO_RESP_FIELDS)

#define NODE_INFO_RESP_FIELDS(F, S)                                                      \
	F(S, i64, now, _)                                                                \
	F(S, list, nodes, node_info)
ROTA_DECLARE(node_info_resp, NODE_INFO_RESP_FIELDS)

#define PART_INFO_RESP_FIELDS(F, S)                                                      \
	F(S, i64, now, _)                                                                \
	F(S, list, parts, part_info)
ROTA_DECLARE(part_info_resp, PART_INFO_RESP_FIELDS)

#define CONFIG_RESP_FIELDS(F, S) F(S, list, items, kv)
ROTA_DECLARE(config_resp, CONFIG_RESP_FIELDS)

/* scancel: signal 0 means "cancel" (SIGTERM to steps, then SIGKILL). */
#define CANCEL_REQ_FIELDS(F, S)                                                          \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _) /* NO_VAL: whole job */                                    \
	F(S, u32, signal, _)                                                             \
	F(S, u32, flags, _)         /* CANCEL_F_* */                                     \
	F(S, u32, array_task_id, _) /* with CANCEL_F_ARRAY_TASK: task of job_id */       \
	F(S, u32, het_job_id, _)    /* scancel N+K: job_id must be N's component */
ROTA_DECLARE(cancel_req, CANCEL_REQ_FIELDS)
enum cancel_flags {
	CANCEL_F_BATCH = 1,
	CANCEL_F_FULL = 2,
	CANCEL_F_ARRAY_TASK = 4,
	CANCEL_F_TASK_FAILURE = 8, /* srun -K ends a step: a task failed */
};

/* scontrol hold/release/update/requeue on one job. kv: "Key=Value" for UPDATE.
 * job_id of an array stands for all its tasks; with JOB_UPDATE_F_ARRAY_TASK
 * only task array_task_id of it. */
#define JOB_UPDATE_REQ_FIELDS(F, S)                                                      \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, op, _)                                                                 \
	F(S, strv, kv, _)                                                                \
	F(S, u32, flags, _)         /* JOB_UPDATE_F_* */                                 \
	F(S, u32, array_task_id, _) /* with JOB_UPDATE_F_ARRAY_TASK: task of job_id */
ROTA_DECLARE(job_update_req, JOB_UPDATE_REQ_FIELDS)
/* JOB_UPDATE_F_ONE: job_id's record only (scontrol's N+K), not, for a
 * heterogeneous job's leader, every component.  JOB_UPDATE_F_INCOMPLETE
 * (scontrol requeue incomplete): a requeue passes over, as done, each record
 * that is not running or suspended. */
enum job_update_flags {
	JOB_UPDATE_F_ARRAY_TASK = 1,
	JOB_UPDATE_F_ONE = 2,
	JOB_UPDATE_F_INCOMPLETE = 4,
};
enum job_update_op {
	JOB_OP_HOLD = 1,
	JOB_OP_UHOLD,
	JOB_OP_RELEASE,
	JOB_OP_UPDATE,
	JOB_OP_REQUEUE,
	JOB_OP_TOP,          /* scontrol top */
	JOB_OP_REQUEUE_HOLD, /* scontrol requeuehold: requeued, then a user's hold */
	JOB_OP_REQUEUE_SE    /* ... State=SpecialExit: held, shown SPECIAL_EXIT */
};

#define NODE_UPDATE_REQ_FIELDS(F, S)                                                     \
	F(S, str, nodes, _)                                                              \
	F(S, str, state, _)                                                              \
	F(S, str, reason, _)                                                             \
	F(S, u32, feat_set, _)     /* NODE_FEAT_*: which of the two below are given */   \
	F(S, str, features, _)     /* AvailableFeatures= ("": none) */                   \
	F(S, str, features_act, _) /* ActiveFeatures= ("": none) */
ROTA_DECLARE(node_update_req, NODE_UPDATE_REQ_FIELDS)
/* scontrol update node: AvailableFeatures= (Features=) given, ActiveFeatures=
 * given; NODE_FEAT_RESET (journal only): back to slurm.conf's */
enum node_feat_set { NODE_FEAT_AVAIL = 1, NODE_FEAT_ACTIVE = 2, NODE_FEAT_RESET = 4 };

/* srun/salloc allocation granted (after ALLOC_REQ; ALLOC_PENDING comes first when
 * the job must wait). */
#define ALLOC_RESP_FIELDS(F, S)                                                          \
	F(S, u32, job_id, _)                                                             \
	F(S, str, nodes, _)                                                              \
	F(S, u32v, cpus_per_node, _)                                                     \
	F(S, u32, num_tasks, _)                                                          \
	F(S, str, partition, _)                                                          \
	F(S, str, msg, _)                                                                \
	/* a heterogeneous allocation's components (ctld/hetjob.h): each one's           \
	 * SLURM_*_HET_GROUP_n, and SLURM_HET_SIZE */                                    \
	F(S, strv, het_env, _)
ROTA_DECLARE(alloc_resp, ALLOC_RESP_FIELDS)

/* srun asks for a step inside job_id (or, after an ALLOC_REQ, for step 0). */
#define STEP_CREATE_REQ_FIELDS(F, S)                                                     \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, min_nodes, _)                                                          \
	F(S, u32, num_tasks, _)                                                          \
	F(S, u32, ntasks_per_node, _)                                                    \
	F(S, u32, cpus_per_task, _)                                                      \
	F(S, str, nodelist, _)                                                           \
	F(S, str, name, _)                                                               \
	F(S, strv, argv, _)                                                              \
	F(S, strv, env, _)                                                               \
	F(S, str, cwd, _)                                                                \
	F(S, str, io_host, _)                                                            \
	F(S, u32, io_port, _)                                                            \
	F(S, bin, io_key, _)                                                             \
	F(S, u32, flags, _) /* STEP_F_* */                                               \
	F(S, str, std_out, _)                                                            \
	F(S, str, std_err, _)                                                            \
	F(S, str, std_in, _)       /* a file, or "N" (srun -i N): task N reads srun */   \
	F(S, u32, relative, _)     /* -r: the step starts at this node of the job */     \
	F(S, u64, mem_per_node, _) /* MB the step holds per node; 0: none */             \
	F(S, u64, mem_per_cpu, _)  /* MB per CPU of the step; 0: none */                 \
	F(S, str, cpu_bind, _)     /* --cpu-bind as given (common/cpubind.h) */          \
	F(S, str, task_prolog, _)  /* --task-prolog: run before each task */             \
	F(S, str, task_epilog, _)  /* --task-epilog: run after each task */              \
	F(S, u32, slurmd_debug, _) /* --slurmd-debug: Slurm's level; 0 quiet */          \
	F(S, u32, resv_ports, _)   /* --resv-ports=N (STEP_F_RESV_PORTS) */              \
	/* GRES the step takes out of the job's: --gres, and the GPU options */          \
	F(S, str, gres, _)                                                               \
	F(S, str, gpus, _)                                                               \
	F(S, str, gpus_per_node, _)                                                      \
	F(S, str, gpus_per_task, _)                                                      \
	F(S, str, gpu_bind, _) /* --gpu-bind as given (common/gpubind.h) */              \
	CONTAINER_FIELDS(F, S)                                                           \
	F(S, u32, task_dist, _)  /* -m (common/taskdist.h); 0: block */                  \
	F(S, str, task_hosts, _) /* arbitrary: each task's node, "a,b,a" */              \
	F(S, str, mem_bind, _)   /* --mem-bind as given (common/membind.h) */            \
	F(S, u32, time_limit, _) /* srun -t in an allocation, minutes; 0: the job's */   \
	F(S, str, exc_nodes, _)  /* -x: the job's nodes the step may not use */
ROTA_DECLARE(step_create_req, STEP_CREATE_REQ_FIELDS)
enum step_flags {
	STEP_F_LABEL = 1 << 0,
	STEP_F_UNBUFFERED = 1 << 1,
	STEP_F_KILL_ON_BAD_EXIT = 1 << 2,
	STEP_F_OVERLAP = 1 << 3,
	STEP_F_EXACT = 1 << 4,
	STEP_F_MULTI_PROG = 1 << 5,    /* argv[0] is the --multi-prog file's text */
	STEP_F_OVERCOMMIT = 1 << 6,    /* -O: more tasks than CPUs */
	STEP_F_CPU_BIND = 1 << 7,      /* --cpu-bind=cores...: each task its own CPUs */
	STEP_F_CPU_BIND_NONE = 1 << 8, /* --cpu-bind=none */
	STEP_F_STDIN_ALL = 1 << 9,     /* -i all: srun's stdin goes to every task */
	STEP_F_PTY = 1 << 10,          /* --pty: task 0 runs on a pseudo-terminal */
	STEP_F_PRESERVE_ENV = 1
	                      << 11, /* -E: SLURM_JOB_NUM_NODES, SLURM_NTASKS as srun's */
	/* min_nodes is the allocation's environment's (SLURM_NNODES): more
	 * than the job has now (--no-kill lost one) is the job's count */
	STEP_F_NODES_ENV = 1 << 12,
	/* a parallel debugger (srun's MPIR_being_debugged, --debugger-test):
	 * each task stops at the first instruction of its program, for the
	 * debugger to attach (stepd/pdebug.h) */
	STEP_F_PARALLEL_DEBUG = 1 << 13,
	/* srun --resv-ports given: resv_ports is the count (0: none); without
	 * it, MpiParams ports= gives the step its most tasks on a node, plus 1 */
	STEP_F_RESV_PORTS = 1 << 14,
};

#define STEP_CREATE_RESP_FIELDS(F, S)                                                    \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, str, nodes, _)                                                              \
	F(S, u32v, tasks_per_node, _)                                                    \
	F(S, u32, task_dist, _) /* how they are numbered (common/taskdist.h) */          \
	F(S, u32v, task_map, _) /* arbitrary: each task's node (its index in nodes) */
ROTA_DECLARE(step_create_resp, STEP_CREATE_RESP_FIELDS)

/* srun over several components of a heterogeneous job (`srun a : b`,
 * --het-group=0,1): MSG_STEP_HET_CREATE_REQ {one request per component, each
 * naming its component's job} -> MSG_STEP_HET_CREATE_RESP {each component's
 * step, all with one step id; and the whole step's layout, one MPI_COMM_WORLD:
 * every component's nodes after the previous one's, the tasks numbered
 * across them (task_map: each task's index in nodes)}, or MSG_RC (all or
 * none: ESLURM_NODES_BUSY when one component must wait). */
#define STEP_HET_CREATE_REQ_FIELDS(F, S) F(S, list, steps, step_create_req)
ROTA_DECLARE(step_het_create_req, STEP_HET_CREATE_REQ_FIELDS)
#define STEP_HET_CREATE_RESP_FIELDS(F, S)                                                \
	F(S, list, steps, step_create_resp)                                              \
	F(S, strv, nodes, _)                                                             \
	F(S, u32v, tasks, _)                                                             \
	F(S, u32v, task_map, _)
ROTA_DECLARE(step_het_create_resp, STEP_HET_CREATE_RESP_FIELDS)

/* One job step as squeue -s / scontrol show step see it. */
#define STEP_INFO_FIELDS(F, S)                                                           \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _) /* STEP_BATCH for N.batch */                               \
	F(S, str, name, _)                                                               \
	F(S, u32, uid, _)                                                                \
	F(S, str, user, _)                                                               \
	F(S, str, partition, _)                                                          \
	F(S, str, nodes, _)                                                              \
	F(S, u32, num_nodes, _)                                                          \
	F(S, u32, num_tasks, _)                                                          \
	F(S, u32, num_cpus, _)                                                           \
	F(S, i64, start_time, _)                                                         \
	F(S, u32, time_limit, _)                                                         \
	F(S, u32, state, _)                                                              \
	F(S, str, srun_host, _)                                                          \
	F(S, u64, mem, _)        /* MB on all its nodes; 0: none set aside */            \
	F(S, str, resv_ports, _) /* MpiParams ports it holds, or NULL */
ROTA_DECLARE(step_info, STEP_INFO_FIELDS)

#define STEP_INFO_RESP_FIELDS(F, S)                                                      \
	F(S, i64, now, _)                                                                \
	F(S, list, steps, step_info)
ROTA_DECLARE(step_info_resp, STEP_INFO_RESP_FIELDS)

/* srun/salloc hands its allocation back; status = wait status to record. */
#define JOB_COMPLETE_REQ_FIELDS(F, S)                                                    \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, status, _)
ROTA_DECLARE(job_complete_req, JOB_COMPLETE_REQ_FIELDS)

/* ---- daemons ---- */

/* On every TCP connection the controller speaks first with a challenge. */
#define AUTH_CHALLENGE_FIELDS(F, S)                                                      \
	F(S, bin, nonce, _)                                                              \
	F(S, str, method, _) /* "auth/slurm" (HMAC) or "auth/munge" */
ROTA_DECLARE(auth_challenge, AUTH_CHALLENGE_FIELDS)

/* mac = HMAC-SHA256(key, nonce || node_name); cred = munge credential whose
 * payload is nonce || node_name.  nonce: the connecting side's own challenge,
 * which the controller answers with MSG_AUTH_PROOF (see proto/auth.h). */
#define AUTH_RESPONSE_FIELDS(F, S)                                                       \
	F(S, str, node_name, _)                                                          \
	F(S, bin, mac, _)                                                                \
	F(S, str, cred, _)                                                               \
	F(S, bin, nonce, _)
ROTA_DECLARE(auth_response, AUTH_RESPONSE_FIELDS)

/* Controller -> connecting side, after a good MSG_AUTH_RESPONSE: the controller
 * proves it holds the key (mac) or is root/SlurmUser to MUNGE (cred). */
#define AUTH_PROOF_FIELDS(F, S)                                                          \
	F(S, bin, mac, _)                                                                \
	F(S, str, cred, _)
ROTA_DECLARE(auth_proof, AUTH_PROOF_FIELDS)

/* One GRES device a node found (common/gres_inv.h's struct gres_dev). */
#define GRES_DEV_INFO_FIELDS(F, S)                                                       \
	F(S, str, name, _)                                                               \
	F(S, str, type, _) /* NULL: none */                                              \
	F(S, str, file, _)                                                               \
	F(S, str, cores, _) /* "0-7,16"; NULL: any */                                    \
	F(S, str, links, _) /* "-1,2,0"; NULL: none */
ROTA_DECLARE(gres_dev_info, GRES_DEV_INFO_FIELDS)

#define NODE_REGISTER_FIELDS(F, S)                                                       \
	F(S, str, name, _)                                                               \
	F(S, str, hostname, _)                                                           \
	F(S, u32, cpus, _)                                                               \
	F(S, u32, boards, _)                                                             \
	F(S, u32, sockets, _)                                                            \
	F(S, u32, cores, _)                                                              \
	F(S, u32, threads, _)                                                            \
	F(S, u64, real_memory, _)                                                        \
	F(S, u64, tmp_disk, _)                                                           \
	F(S, i64, boot_time, _)                                                          \
	F(S, i64, start_time, _)                                                         \
	F(S, u32v, job_ids, _) /* jobs with live steps here, pairs below */              \
	F(S, u32v, step_ids, _)                                                          \
	F(S, str, os, _)                                                                 \
	F(S, str, arch, _)                                                               \
	F(S, str, version, _)                                                            \
	F(S, u32, term, _)    /* the newest controller term this node has obeyed */      \
	F(S, u64, lineage, _) /* of that controller's history */                         \
	F(S, str, gres, _)    /* GRES found: "gpu:h100:8,nic:2"; NULL: not told */       \
	F(S, list, gres_devs, gres_dev_info) /* its devices, index order per name */
ROTA_DECLARE(node_register, NODE_REGISTER_FIELDS)

/* Controller -> node: its registration is taken (or its ping heard), from a
 * controller of this term in this history (repl.h): a node obeys no
 * controller of an older term of a history than one it has obeyed. */
#define NODE_ACK_FIELDS(F, S)                                                            \
	F(S, u32, term, _)                                                               \
	F(S, u64, lineage, _)
ROTA_DECLARE(node_ack, NODE_ACK_FIELDS)

#define NODE_PING_FIELDS(F, S)                                                           \
	F(S, str, name, _)                                                               \
	F(S, u64, free_memory, _)                                                        \
	F(S, u32, cpu_load, _)
ROTA_DECLARE(node_ping, NODE_PING_FIELDS)

/* Controller -> node: start the batch script (step_id STEP_BATCH) or one step's
 * tasks on this node. */
#define LAUNCH_REQ_FIELDS(F, S)                                                          \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, str, user, _)                                                               \
	F(S, str, job_name, _)                                                           \
	F(S, str, partition, _)                                                          \
	F(S, str, account, _)                                                            \
	F(S, str, cluster_name, _)                                                       \
	F(S, str, node_name, _) /* the node this launch is for */                        \
	F(S, str, work_dir, _)                                                           \
	F(S, str, script, _)                                                             \
	F(S, strv, argv, _)                                                              \
	F(S, strv, env, _)                                                               \
	F(S, str, std_out, _)                                                            \
	F(S, str, std_err, _)                                                            \
	F(S, str, std_in, _) /* a file, or "N" (srun -i N): task N reads srun */         \
	F(S, str, job_nodes, _)                                                          \
	F(S, u32v, job_cpus_per_node, _)                                                 \
	F(S, u32, job_num_tasks, _) /* NO_VAL when not given */                          \
	F(S, u32, job_ntasks_per_node, _)                                                \
	/* the job's --ntasks-per-core, --ntasks-per-socket, --threads-per-core (0:      \
	 * not given), for its environment */                                            \
	F(S, u32, ntasks_per_core, _)                                                    \
	F(S, u32, ntasks_per_socket, _)                                                  \
	F(S, u32, threads_per_core, _)                                                   \
	F(S, u32, cpus_per_task, _) /* NO_VAL when not given */                          \
	F(S, u64, mem_per_node, _)                                                       \
	F(S, u64, mem_per_cpu, _)                                                        \
	F(S, u32, time_limit, _)                                                         \
	F(S, str, step_nodes, _)                                                         \
	F(S, u32v, step_tasks_per_node, _)                                               \
	F(S, u32, node_index, _) /* this node's index in step_nodes */                   \
	F(S, u32, step_num_tasks, _)                                                     \
	F(S, u32, task_dist, _) /* how tasks are numbered (common/taskdist.h) */         \
	F(S, u32v, task_map, _) /* arbitrary: each task's index in step_nodes */         \
	/* a step over several components (MSG_STEP_HET_CREATE_REQ): the leader's        \
	 * id (SLURM_JOB_ID), 0 for any other step; the step_* layout above and          \
	 * job_nodes are then the whole step's, node_index this node's in it */          \
	F(S, u32, het_leader, _)                                                         \
	F(S, u32, het_step_id, _) /* the step id its tasks see (the first part's) */     \
	/* ... and every component's allocation (job_nodes stays this one's: the         \
	 * Prolog's), for the tasks' SLURM_JOB_NODELIST */                               \
	F(S, str, het_job_nodes, _)                                                      \
	F(S, u32v, het_job_cpus, _)                                                      \
	F(S, strv, het_env, _) /* a heterogeneous job's batch: its components' */        \
	F(S, str, io_host, _)                                                            \
	F(S, u32, io_port, _)                                                            \
	F(S, bin, io_key, _)                                                             \
	F(S, u32, flags, _) /* STEP_F_* */                                               \
	F(S, str, submit_dir, _)                                                         \
	F(S, str, submit_host, _)                                                        \
	F(S, u32, umask, _)                                                              \
	F(S, i64, start_time, _)                                                         \
	F(S, str, ctld_host, _)                                                          \
	F(S, u32v, cores, _)       /* this node's cores for the job: 0..CPUs-1 */        \
	F(S, u32, node_flags, _)   /* LAUNCH_NF_*: set by rotad for its stepd */         \
	F(S, u32, array_job_id, _) /* 0: not an array task */                            \
	F(S, u32, array_task_id, _)                                                      \
	F(S, u32, array_task_count, _)                                                   \
	F(S, u32, array_task_min, _)                                                     \
	F(S, u32, array_task_max, _)                                                     \
	F(S, u32, array_task_step, _)                                                    \
	F(S, u32v, step_cores, _) /* this node's cores for the step; none: the job's */  \
	F(S, u64, step_mem, _)    /* MB for the step on this node; 0: the job's limit */ \
	F(S, u32, restart_cnt, _) /* times requeued: SLURM_RESTART_COUNT */              \
	F(S, str, cpu_bind, _)    /* the step's --cpu-bind (common/cpubind.h) */         \
	F(S, str, mem_bind, _)    /* the step's --mem-bind (common/membind.h) */         \
	F(S, u64, cred_id, _)     /* the job credential (proto/cred.h): random id, */    \
	F(S, i64, cred_expire, _) /* ... when it expires (controller's clock), */        \
	F(S, bin, cred_sig, _)    /* ... and the controller's signature */               \
	F(S, str, qos, _)         /* SLURM_JOB_QOS */                                    \
	F(S, str, reservation, _) /* SLURM_JOB_RESERVATION */                            \
	F(S, str, gres, _)        /* the job's GRES on this node (common/gres_req.h) */  \
	F(S, str, step_gres, _)   /* the step's; NULL: the job's */                      \
	F(S, str, gpus, _)        /* the job's GPU options, for its environment */       \
	F(S, str, gpus_per_node, _)                                                      \
	F(S, str, gpus_per_task, _)                                                      \
	F(S, u32, cpus_per_gpu, _)                                                       \
	F(S, u64, mem_per_gpu, _)                                                        \
	F(S, str, gpu_bind, _)                                                           \
	CONTAINER_FIELDS(F, S)                                                           \
	F(S, str, task_prolog, _) /* srun --task-prolog (stepd/taskprolog.h) */          \
	F(S, str, task_epilog, _) /* srun --task-epilog */                               \
	/* set by rotad for its stepd with LAUNCH_NF_CONSTRAIN_DEVICES (not signed): */  \
	F(S, list, node_gres_devs, gres_dev_info) /* the node's, index order per name */ \
	F(S, str, comment, _)      /* the job's: for the Prolog and Epilog */            \
	F(S, str, constraints, _)  /* the job's -C */                                    \
	F(S, u32, slurmd_debug, _) /* srun --slurmd-debug (Slurm's level): to stderr */  \
	F(S, str, resv_ports, _)   /* the step's reserved ports: "12000-12003" */
ROTA_DECLARE(launch_req, LAUNCH_REQ_FIELDS)

/* Controller -> node: signal the job's steps here (step_id NO_VAL: all). With
 * flags SIGNAL_F_TERMINATE the node kills everything and reports each step. */
#define SIGNAL_REQ_FIELDS(F, S)                                                          \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, signal, _)                                                             \
	F(S, u32, flags, _)                                                              \
	F(S, str, message, _) /* SIGNAL_F_NOTIFY: for the job's error output */
ROTA_DECLARE(signal_req, SIGNAL_REQ_FIELDS)
enum signal_flags {
	SIGNAL_F_TERMINATE = 1,
	SIGNAL_F_BATCH_ONLY = 2,
	SIGNAL_F_NO_BATCH = 4,
	/* with SIGNAL_F_TERMINATE: why, so that the stepd tells the user as
	 * Slurm does ("*** JOB 7 ON node01 CANCELLED AT ... ***") */
	SIGNAL_F_CANCELLED = 8,
	SIGNAL_F_TIME_LIMIT = 16,
	SIGNAL_F_TASK_FAILURE = 32, /* srun -K: "... DUE TO TASK FAILURE ***" */
	SIGNAL_F_PREEMPTED = 64,    /* "... DUE TO PREEMPTION ***" */
	SIGNAL_F_NOTIFY = 128,      /* scontrol notify: no signal, message written */
};
enum warn_flags { WARN_F_BATCH_ONLY = 1, WARN_F_REQUEUE = 2 };

/* What one task of a step used, as its node reported it at the step's end
 * (accounting: sacct's MaxRSSTask, AveDiskRead...): the peaks of its memory
 * (KiB), its CPU time and the bytes it read and wrote (read()/write(), as
 * Slurm's jobacct_gather counts them).  A node that does not tell its tasks
 * apart shares its figures evenly among them. */
#define TASK_USE_FIELDS(F, S)                                                            \
	F(S, u32, gtid, _)                                                               \
	F(S, u64, max_rss_kib, _)                                                        \
	F(S, u64, max_vsize_kib, _)                                                      \
	F(S, u64, cpu_usec, _)                                                           \
	F(S, u64, read_bytes, _)                                                         \
	F(S, u64, write_bytes, _)
ROTA_DECLARE(task_used, TASK_USE_FIELDS)

/* Node -> controller (and stepd -> rotad): a step ended on this node.
 * status: highest wait status among its tasks (the batch script's for batch). */
#define STEP_COMPLETE_FIELDS(F, S)                                                       \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, str, node_name, _)                                                          \
	F(S, u32, status, _)                                                             \
	F(S, u32, flags, _) /* STEP_DONE_* */                                            \
	F(S, str, msg, _)                                                                \
	F(S, i64, start_time, _) /* launch_req.start_time; 0 unknown (see below) */      \
	F(S, u64, max_rss, _)    /* what the step used here: KiB at the peak, */         \
	F(S, u64, user_usec, _)  /* and CPU time (0: not measured) */                    \
	F(S, u64, sys_usec, _)                                                           \
	GPU_USE_FIELDS(F, S)                                                             \
	F(S, list, tasks, task_used) /* each of its tasks here */
ROTA_DECLARE(step_complete, STEP_COMPLETE_FIELDS)
/* STEP_DONE_JOB_GONE (step_id NO_VAL): after a terminate request, nothing of the
 * job is left on this node.  start_time names the run the report is about: the
 * controller ignores one whose start_time is not the job's (an earlier run of
 * a requeued job, re-sent after a reconnect). */
enum step_done_flags {
	STEP_DONE_LAUNCH_FAILED = 1,
	STEP_DONE_OOM = 2,
	STEP_DONE_JOB_GONE = 4,
	STEP_DONE_PROLOG_FAILED = 8,
	STEP_DONE_EPILOG_FAILED = 16,
	/* the stepd died without a report (killed, crashed): the node lost the
	 * step, and for the batch step the job, as when a node fails */
	STEP_DONE_STEPD_LOST = 32,
};
enum launch_node_flags {
	LAUNCH_NF_PROLOG = 1, /* the job's first step on this node */
	/* cgroup.conf ConstrainDevices=yes: the tasks may open only the GRES
	 * device files (node_gres_devs) of their allocation (stepd/devcg.h) */
	LAUNCH_NF_CONSTRAIN_DEVICES = 2,
};
/* MSG_PROLOG_COMPLETE (stepd -> rotad -> controller, a step_complete body with
 * job_id, step_id, node_name): the launch that carried LAUNCH_NF_PROLOG got past
 * the Prolog, the node is ready for the job (it leaves CONFIGURING). */

/* MSG_STEPD_GROUPS (stepd -> rotad): the supplementary groups the step daemon
 * looked up for user and gid (common/grouplist.h), for rotad to hand to the next
 * step daemons of that user (noded/gidcache.h). */
#define STEPD_GROUPS_FIELDS(F, S)                                                        \
	F(S, str, user, _)                                                               \
	F(S, u32, gid, _)                                                                \
	F(S, u32v, gids, _)
ROTA_DECLARE(stepd_groups, STEPD_GROUPS_FIELDS)

/* ---- stepd <-> srun I/O ---- */
#define IO_HELLO_FIELDS(F, S)                                                            \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, node_index, _)                                                         \
	F(S, str, node_name, _)                                                          \
	F(S, bin, key, _)
ROTA_DECLARE(io_hello, IO_HELLO_FIELDS)

#define IO_DATA_FIELDS(F, S)                                                             \
	F(S, u32, task, _)   /* global task id */                                        \
	F(S, u32, stream, _) /* 0 stdin, 1 stdout, 2 stderr */                           \
	F(S, bin, data, _)   /* empty = EOF */
ROTA_DECLARE(io_data, IO_DATA_FIELDS)
/* srun --pty -> the stepd of task 0: srun's terminal has a new size. */
#define IO_WINSIZE_FIELDS(F, S)                                                          \
	F(S, u32, rows, _)                                                               \
	F(S, u32, cols, _)
ROTA_DECLARE(io_winsize, IO_WINSIZE_FIELDS)

/* sattach: MSG_STEP_ATTACH_REQ {the step; where sattach listens and the key
 * the stepds prove} (CLI -> controller -> each node of the step -> its stepd,
 * which connects there as to srun and from then on sends it what it sends
 * srun) -> MSG_STEP_ATTACH_RESP {the step's nodes and tasks on each}, or
 * MSG_RC.  With STEP_ATTACH_F_LAYOUT the controller only answers. */
#define STEP_ATTACH_F_LAYOUT 1u
#define STEP_ATTACH_FIELDS(F, S)                                                         \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, flags, _)                                                              \
	F(S, str, io_host, _)                                                            \
	F(S, u32, io_port, _)                                                            \
	F(S, bin, io_key, _)
ROTA_DECLARE(step_attach, STEP_ATTACH_FIELDS)
#define STEP_ATTACH_RESP_FIELDS(F, S)                                                    \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, str, nodes, _)                                                              \
	F(S, u32v, tasks_per_node, _)                                                    \
	F(S, u32, task_dist, _)                                                          \
	F(S, u32v, task_map, _)
ROTA_DECLARE(step_attach_resp, STEP_ATTACH_RESP_FIELDS)

/* io_data.task of stdin for every task of the node (srun -i all). */
#define IO_TASK_ALL 0xffffffffu

/* A step task's wait status when the step's memory limit killed it: Slurm's
 * SIG_OOM (srun says "Out Of Memory"; ExitCode 0:125). */
#define TASK_STATUS_OOM 253u
#define TASK_EXIT_FIELDS(F, S)                                                           \
	F(S, u32v, tasks, _)                                                             \
	F(S, u32, status, _) /* wait status */                                           \
	F(S, str, node_name, _)
ROTA_DECLARE(task_exit, TASK_EXIT_FIELDS)

/* stepd -> srun (and each sattach), once the node's tasks are started: their
 * global ids, process ids and programs (argv[0], a --multi-prog task's own),
 * for srun's MPIR_proctable (cli/srun_mpir.h).  Not sent when they could not
 * be started.  MSG_DEBUG_WAKE (srun -> stepd, no body): srun has been to
 * MPIR_Breakpoint; the tasks of a STEP_F_PARALLEL_DEBUG step that no
 * debugger traces are continued. */
#define TASK_PIDS_FIELDS(F, S)                                                           \
	F(S, str, node_name, _)                                                          \
	F(S, u32v, tasks, _)                                                             \
	F(S, u32v, pids, _)                                                              \
	F(S, strv, exes, _)
ROTA_DECLARE(task_pids, TASK_PIDS_FIELDS)

/* PMI (srun --mpi=pmi2, stepd/pmi.h): a step's collective through srun.  Each
 * node's stepd sends MSG_PMI_FENCE {seq, what its tasks put since the last
 * fence} once all its tasks have entered fence seq; srun answers every node
 * with MSG_PMI_FENCE_DONE {seq, the nodes' data concatenated in node order}.
 * The data is opaque to srun (stepd/pmi_kvs.h encodes it).  MSG_PMI_ABORT
 * (stepd -> srun): a task called PMI abort; srun ends the step. */
#define PMI_FENCE_FIELDS(F, S)                                                           \
	F(S, u32, seq, _)                                                                \
	F(S, bin, data, _)
ROTA_DECLARE(pmi_fence, PMI_FENCE_FIELDS)

/* --mpi=pmix: the step daemon and its PMIx server (rotapmix, src/pmix/):
 * MSG_PMIX_SETUP {the step's layout} -> one MSG_PMIX_ENV {rank, the variables
 * PMIx gives that task} per local task (or MSG_RC with the failure); then
 * MSG_PMI_FENCE / MSG_PMI_FENCE_DONE / MSG_PMI_ABORT as with srun. */
#define PMIX_SETUP_FIELDS(F, S)                                                          \
	F(S, str, nspace, _)                                                             \
	F(S, str, tmpdir, _) /* the server's rendezvous directory, the user's */         \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, node_index, _)                                                         \
	F(S, strv, nodes, _) /* the step's nodes, in step order */                       \
	F(S, u32v, tasks, _) /* tasks on each */                                         \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, u32, task_dist, _) /* their numbering (common/taskdist.h) */                \
	F(S, u32v, task_map, _) /* arbitrary: each task's node */
ROTA_DECLARE(pmix_setup, PMIX_SETUP_FIELDS)
#define PMIX_ENV_FIELDS(F, S)                                                            \
	F(S, u32, rank, _)                                                               \
	F(S, strv, env, _)
ROTA_DECLARE(pmix_env, PMIX_ENV_FIELDS)

/* sdiag: the controller's statistics (MSG_STATS_REQ: flags STATS_F_RESET,
 * admins only, clears them; the answer is then MSG_RC). */
enum stats_flags { STATS_F_RESET = 1 };
#define STATS_REQ_FIELDS(F, S) F(S, u32, flags, _)
ROTA_DECLARE(stats_req, STATS_REQ_FIELDS)

/* One row of sdiag's RPC tables: by message type (Slurm's name and number)
 * or by user. */
#define RPC_STAT_FIELDS(F, S)                                                            \
	F(S, str, name, _)                                                               \
	F(S, u32, id, _)                                                                 \
	F(S, u32, count, _)                                                              \
	F(S, u64, total_us, _)
ROTA_DECLARE(rpc_stat, RPC_STAT_FIELDS)

#define STATS_RESP_FIELDS(F, S)                                                          \
	F(S, i64, now, _)                                                                \
	F(S, i64, since, _)                                                              \
	F(S, u32, threads, _)                                                            \
	F(S, u32, agent_queue, _)                                                        \
	F(S, u32, jobs_submitted, _)                                                     \
	F(S, u32, jobs_started, _)                                                       \
	F(S, u32, jobs_completed, _)                                                     \
	F(S, u32, jobs_canceled, _)                                                      \
	F(S, u32, jobs_failed, _)                                                        \
	F(S, u32, jobs_pending, _)                                                       \
	F(S, u32, jobs_running, _)                                                       \
	F(S, u32, sched_last_us, _)                                                      \
	F(S, u32, sched_max_us, _)                                                       \
	F(S, u32, sched_cycles, _)                                                       \
	F(S, u64, sched_sum_us, _)                                                       \
	F(S, u64, sched_depth_sum, _)                                                    \
	F(S, u32, sched_last_queue, _)                                                   \
	F(S, u32, bf_backfilled, _)       /* since the controller started */             \
	F(S, u32, bf_backfilled_stats, _) /* since the statistics were reset */          \
	F(S, u32, bf_cycles, _)                                                          \
	F(S, i64, bf_last_when, _)                                                       \
	F(S, u32, bf_last_us, _)                                                         \
	F(S, u32, bf_max_us, _)                                                          \
	F(S, u64, bf_sum_us, _)                                                          \
	F(S, u32, bf_last_depth, _)                                                      \
	F(S, u32, bf_last_depth_try, _)                                                  \
	F(S, u64, bf_depth_sum, _)                                                       \
	F(S, u64, bf_depth_try_sum, _)                                                   \
	F(S, u32, bf_last_queue, _)                                                      \
	F(S, u64, bf_queue_sum, _)                                                       \
	F(S, u32, journal_syncs, _)                                                      \
	F(S, u32, journal_sync_last_us, _)                                               \
	F(S, u32, journal_sync_max_us, _)                                                \
	F(S, u64, journal_sync_sum_us, _)                                                \
	F(S, u64, journal_seq, _)                                                        \
	F(S, u64, journal_bytes, _)                                                      \
	F(S, u32, journal_compactions, _)                                                \
	F(S, list, rpc_types, rpc_stat)                                                  \
	F(S, list, rpc_users, rpc_stat)
ROTA_DECLARE(stats_resp, STATS_RESP_FIELDS)

/* scontrol shutdown: the controller stops, and with it (unless
 * SHUTDOWN_F_CTLD_ONLY: `shutdown slurmctld`) the node daemons; admins only.
 * The controller tells each node daemon with MSG_NODE_SHUTDOWN.  Running jobs
 * keep running (their step daemons are separate processes).
 * SHUTDOWN_F_ABORT (scontrol abort): the controller answers, then abort()s
 * at once (a core file where its limits allow); the node daemons stay. */
enum shutdown_flags { SHUTDOWN_F_CTLD_ONLY = 1, SHUTDOWN_F_ABORT = 2 };
#define SHUTDOWN_REQ_FIELDS(F, S) F(S, u32, flags, _)
ROTA_DECLARE(shutdown_req, SHUTDOWN_REQ_FIELDS)

/* A backup controller follows the primary's journal (ctld/repl.h): it asks
 * for what came after the last event it holds; the primary answers with
 * MSG_REPL_DATA frames, a snapshot first when those events are compacted
 * away, then every event once it is durable, for as long as it is connected. */
#define FOLLOW_REQ_FIELDS(F, S)                                                          \
	F(S, u64, after, _)                                                              \
	F(S, u32, term, _) /* of the history it holds: another one is a snapshot */      \
	F(S, u32, kind, _) /* FOLLOW_BACKUP, FOLLOW_ACCOUNTING */
ROTA_DECLARE(follow_req, FOLLOW_REQ_FIELDS)
/* A backup's acks may gate answers (replicate_sync); the accounting daemon's
 * gate compaction: the journal keeps what it has not stored (ctld/acct.h). */
enum follow_kind { FOLLOW_BACKUP = 0, FOLLOW_ACCOUNTING = 1 };
/* The name rotadbd answers the controller's challenge with (an admin's
 * credential; a backup controller's is "@slurmctld"). */
#define DBD_PEER_NAME "@slurmdbd"

/* Backup -> primary: its own journal holds the events up to seq (what
 * SchedulerParameters=replicate_sync waits for before answering). */
#define FOLLOW_ACK_FIELDS(F, S) F(S, u64, seq, _)
ROTA_DECLARE(follow_ack, FOLLOW_ACK_FIELDS)

enum repl_flags {
	REPL_F_SNAPSHOT = 1, /* data is (part of) a snapshot: start from it */
	REPL_F_SNAPSHOT_END =
	    2, /* the snapshot is complete; it stands for events to seq */
	REPL_F_SNAPSHOT_BEGIN = 4 /* the first part: forget the state held so far */
};
/* data: journal records (common/recframe.h framing, job_event bodies). */
#define REPL_DATA_FIELDS(F, S)                                                           \
	F(S, u32, flags, _)                                                              \
	F(S, u64, seq, _)                                                                \
	F(S, bin, data, _)
ROTA_DECLARE(repl_data, REPL_DATA_FIELDS)

/* scontrol takeover: to a controller that stands by (admins); it has the one
 * that serves stop (MSG_SHUTDOWN_REQ, controller only), takes over once that
 * one's last events are in, then answers. */

/* ---- accounting: sacct asks rotadbd (dbd/query.h) ---- */

/* One step of a job as the accounting store holds it (N.batch: STEP_BATCH,
 * N.extern: STEP_EXTERN).  Times in seconds since the epoch (0: not yet);
 * usage as measured (0: not measured). */
#define ACCT_STEP_FIELDS(F, S)                                                           \
	F(S, u32, step_id, _)                                                            \
	F(S, str, name, _)                                                               \
	F(S, str, nodes, _)                                                              \
	F(S, u32, nnodes, _)                                                             \
	F(S, u32, ntasks, _)                                                             \
	F(S, u32, ncpus, _)                                                              \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, u32, state, _)                                                              \
	F(S, u32, exit_code, _) /* wait status */                                        \
	F(S, u64, max_rss, _)   /* KiB */                                                \
	F(S, u64, max_vm, _)    /* KiB */                                                \
	F(S, u64, ave_rss, _)   /* KiB */                                                \
	F(S, u64, user_usec, _)                                                          \
	F(S, u64, sys_usec, _)                                                           \
	F(S, str, max_rss_node, _) /* where max_rss was */                               \
	/* from the tasks' reports (task_used; 0 and NULL where none came): the */       \
	/* task (global id) and node of each peak, the lowest CPU time, the */           \
	/* bytes read and written at the most, on average and in all */                  \
	F(S, u32, tasks_known, _) /* how many tasks reported */                          \
	F(S, u32, max_rss_task, _)                                                       \
	F(S, str, max_vm_node, _)                                                        \
	F(S, u32, max_vm_task, _)                                                        \
	F(S, u64, ave_vm, _)  /* KiB */                                                  \
	F(S, u64, min_cpu, _) /* usec */                                                 \
	F(S, str, min_cpu_node, _)                                                       \
	F(S, u32, min_cpu_task, _)                                                       \
	F(S, u64, max_read, _)                                                           \
	F(S, str, max_read_node, _)                                                      \
	F(S, u32, max_read_task, _)                                                      \
	F(S, u64, tot_read, _)                                                           \
	F(S, u64, max_write, _)                                                          \
	F(S, str, max_write_node, _)                                                     \
	F(S, u32, max_write_task, _)                                                     \
	F(S, u64, tot_write, _)                                                          \
	/* GPUs: gpus over the nodes, the highest of their max_, the mean of */          \
	/* their ave_ (gpus 0: none watched) */                                          \
	GPU_USE_FIELDS(F, S)
ROTA_DECLARE(acct_step, ACCT_STEP_FIELDS)
#define STEP_EXTERN 0xfffffffcu /* step id of N.extern */

/* One run of a job (a requeued job has one per run: sacct -D). */
#define ACCT_JOB_FIELDS(F, S)                                                            \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, array_job_id, _)                                                       \
	F(S, u32, array_task_id, _)                                                      \
	F(S, str, array_pending, _) /* a pending remainder's tasks */                    \
	F(S, str, name, _)                                                               \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, str, user, _)                                                               \
	F(S, str, group, _)                                                              \
	F(S, str, account, _)                                                            \
	F(S, str, partition, _)                                                          \
	F(S, str, qos, _)                                                                \
	F(S, u32, state, _)                                                              \
	F(S, u32, reason, _)                                                             \
	F(S, u32, exit_code, _)                                                          \
	F(S, u32, derived_exit, _)                                                       \
	F(S, u32, cancel_by, _) /* uid + 1 of who cancelled it; 0 unknown */             \
	F(S, i64, submit, _)                                                             \
	F(S, i64, eligible, _)                                                           \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, u32, time_limit, _) /* minutes, INFINITE32, NO_VAL */                       \
	F(S, u32, priority, _)                                                           \
	F(S, str, nodes, _)                                                              \
	F(S, u32, nnodes, _)                                                             \
	F(S, u32, ncpus, _)                                                              \
	F(S, u32, req_cpus, _)                                                           \
	F(S, u32, req_nodes, _)                                                          \
	F(S, u64, req_mem, _) /* MB; ACCT_MEM_PER_CPU set: per CPU */                    \
	F(S, str, work_dir, _)                                                           \
	F(S, str, comment, _)                                                            \
	F(S, str, constraints, _)                                                        \
	F(S, str, reservation, _)                                                        \
	F(S, u32, restarts, _)                                                           \
	F(S, u32, batch, _)      /* a batch script (N.batch) */                          \
	F(S, u32, superseded, _) /* an earlier run of a requeued job */                  \
	F(S, list, steps, acct_step)                                                     \
	F(S, str, gres_tres, _)  /* GRES it held: "gres/gpu=2,gres/gpu:h100=2" */        \
	F(S, u32, het_job_id, _) /* a heterogeneous job's leader; 0: not one */          \
	F(S, u32, het_offset, _)                                                         \
	F(S, str, admin_comment, _)  /* sacctmgr modify job set AdminComment= */         \
	F(S, str, system_comment, _) /* ... SystemComment= */                            \
	F(S, str, mcs_label, _)      /* its MCS label; NULL none */
ROTA_DECLARE(acct_job, ACCT_JOB_FIELDS)
#define ACCT_MEM_PER_CPU (1ull << 63)

/* sacct's selection.  jobs: "N" (every record of job N, or of array N),
 * "N_T" (one task); empty: any.  uids, gids, accounts, partitions, states:
 * any of them (empty: any); nodes: a hostlist, runs that held one of them.
 * start and end (0: no bound) are Slurm's window [start, end): with states,
 * a run is listed when it was in one of them in the window (pending from
 * eligible to start, running from start to end, the others: it ended so in
 * the window); without, one that existed in it (a run of the jobs named:
 * submitted before its end; else eligible before its end) and had not ended
 * before its start. */
#define ACCT_QUERY_F_DUPLICATES 1u /* -D: every run of a requeued job */
#define ACCT_QUERY_F_NO_STEPS   2u /* -X */
#define ACCT_QUERY_FIELDS(F, S)                                                          \
	F(S, strv, jobs, _)                                                              \
	F(S, u32v, uids, _)                                                              \
	F(S, strv, accounts, _)                                                          \
	F(S, strv, partitions, _)                                                        \
	F(S, u32v, states, _)                                                            \
	F(S, strv, names, _)                                                             \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, u32, flags, _)                                                              \
	F(S, u32v, gids, _)                                                              \
	F(S, str, nodes, _)
ROTA_DECLARE(acct_query, ACCT_QUERY_FIELDS)

/* sacctmgr modify job (rotadbd, dbd/store.h): the latest run of each job
 * the condition selects (jobs "N" as sacct's; uids, accounts: any of them;
 * start/end: a window, 0 none) gets the values `set` names (ACCT_MOD_*).
 * rotadbd lets a user change their own jobs' DerivedExitCode and Comment,
 * an operator or admin any job's and the admin and system comments too. */
enum acct_mod_set {
	ACCT_MOD_DERIVED = 1u,   /* derived_exit */
	ACCT_MOD_COMMENT = 2u,   /* comment */
	ACCT_MOD_ADMIN_CMT = 4u, /* admin_comment */
	ACCT_MOD_SYSTEM_CMT = 8u /* system_comment */
};
#define ACCT_MOD_F_DRY_RUN 1u /* say what would change, change nothing */
#define ACCT_JOB_MODIFY_FIELDS(F, S)                                                     \
	F(S, strv, jobs, _)                                                              \
	F(S, u32v, uids, _)                                                              \
	F(S, strv, accounts, _)                                                          \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, u32, set, _) /* ACCT_MOD_* */                                               \
	F(S, u32, derived_exit, _)                                                       \
	F(S, str, comment, _)                                                            \
	F(S, str, admin_comment, _)                                                      \
	F(S, str, system_comment, _)                                                     \
	F(S, u32, flags, _)
ROTA_DECLARE(acct_job_modify, ACCT_JOB_MODIFY_FIELDS)

/* ---- accounts, users, associations and QOS (sacctmgr; ctld/assoc.h) ----
 * Kept by the controller, journaled (EV_ASSOC) and followed by rotadbd.  A
 * limit not set is NO_VAL (numbers) or NULL (TRES strings, "cpu=4,mem=1G"). */
#define ASSOC_ACCOUNT_FIELDS(F, S)                                                       \
	F(S, str, name, _)                                                               \
	F(S, str, description, _)                                                        \
	F(S, str, organization, _)                                                       \
	F(S, strv, coordinators, _)
ROTA_DECLARE(assoc_account, ASSOC_ACCOUNT_FIELDS)

enum assoc_admin { ADMIN_NONE = 0, ADMIN_OPERATOR = 1, ADMIN_ADMINISTRATOR = 2 };
#define ASSOC_USER_FIELDS(F, S)                                                          \
	F(S, str, name, _)                                                               \
	F(S, str, default_account, _)                                                    \
	F(S, u32, admin_level, _)
ROTA_DECLARE(assoc_user, ASSOC_USER_FIELDS)

/* An association: an account's own (user NULL; parent: the account above it,
 * NULL for root) or a user's in an account. */
#define ASSOC_REC_FIELDS(F, S)                                                           \
	F(S, str, account, _)                                                            \
	F(S, str, user, _)                                                               \
	F(S, str, partition, _)                                                          \
	F(S, str, parent, _)                                                             \
	F(S, u32, shares, _) /* Fairshare */                                             \
	F(S, u32, priority, _)                                                           \
	F(S, u32, grp_jobs, _)                                                           \
	F(S, u32, grp_submit, _)                                                         \
	F(S, u32, grp_wall, _) /* minutes */                                             \
	F(S, u32, max_jobs, _)                                                           \
	F(S, u32, max_submit, _)                                                         \
	F(S, u32, max_wall, _) /* minutes */                                             \
	F(S, str, grp_tres, _)                                                           \
	F(S, str, grp_tres_mins, _)                                                      \
	F(S, str, grp_tres_run_mins, _)                                                  \
	F(S, str, max_tres, _) /* per job */                                             \
	F(S, str, max_tres_per_node, _)                                                  \
	F(S, str, max_tres_mins, _)                                                      \
	F(S, strv, qos, _)                                                               \
	F(S, str, def_qos, _)
ROTA_DECLARE(assoc_rec, ASSOC_REC_FIELDS)

#define ASSOC_QOS_FIELDS(F, S)                                                           \
	F(S, str, name, _)                                                               \
	F(S, str, description, _)                                                        \
	F(S, u32, priority, _)                                                           \
	F(S, str, flags, _)                                                              \
	F(S, u32, grace_time, _) /* seconds */                                           \
	F(S, strv, preempt, _)                                                           \
	F(S, str, preempt_mode, _)                                                       \
	F(S, u32, preempt_exempt_time, _)                                                \
	F(S, str, usage_factor, _) /* "1.000000" */                                      \
	F(S, str, usage_thres, _)                                                        \
	F(S, str, grp_tres, _)                                                           \
	F(S, str, grp_tres_mins, _)                                                      \
	F(S, str, grp_tres_run_mins, _)                                                  \
	F(S, u32, grp_jobs, _)                                                           \
	F(S, u32, grp_submit, _)                                                         \
	F(S, u32, grp_wall, _)                                                           \
	F(S, str, max_tres, _)                                                           \
	F(S, str, max_tres_per_node, _)                                                  \
	F(S, str, max_tres_mins, _)                                                      \
	F(S, u32, max_wall, _)                                                           \
	F(S, str, max_tres_pu, _)                                                        \
	F(S, u32, max_jobs_pu, _)                                                        \
	F(S, u32, max_submit_pu, _)                                                      \
	F(S, str, max_tres_pa, _)                                                        \
	F(S, u32, max_jobs_pa, _)                                                        \
	F(S, u32, max_submit_pa, _)                                                      \
	F(S, str, min_tres, _)
ROTA_DECLARE(assoc_qos, ASSOC_QOS_FIELDS)

/* A resource (Slurm's remote licenses, sacctmgr add resource Type=License):
 * count of name@server in all, of which the cluster (cluster set: given to
 * it; NULL: to none) has percent_allowed as license "name@server". */
#define ASSOC_RES_FIELDS(F, S)                                                           \
	F(S, str, name, _)                                                               \
	F(S, str, server, _)      /* "slurmdb" unless given */                           \
	F(S, str, server_type, _) /* ServerType=, shown only */                          \
	F(S, str, description, _) /* the name unless given */                            \
	F(S, u32, count, _)                                                              \
	F(S, str, cluster, _)                                                            \
	F(S, u32, percent_allowed, _)
ROTA_DECLARE(assoc_res, ASSOC_RES_FIELDS)

/* sacctmgr's request: VERB ENTITY NAMES [where W...] [set S...], the words
 * key=value as typed (the controller knows what they mean). */
enum assoc_verb { ASSOC_ADD = 1, ASSOC_MODIFY, ASSOC_DELETE };
enum assoc_kind {
	ASSOC_K_ACCOUNT = 1,
	ASSOC_K_USER,
	ASSOC_K_QOS,
	ASSOC_K_ASSOC,
	ASSOC_K_COORD, /* add/delete coordinator: names= users, account(s)= */
	ASSOC_K_RES    /* resource (assoc_res.c): the words as Slurm's sacctmgr's */
};
#define ASSOC_F_DRY_RUN 1u /* say what would change, change nothing */
#define ASSOC_UPDATE_FIELDS(F, S)                                                        \
	F(S, u32, verb, _)                                                               \
	F(S, u32, kind, _)                                                               \
	F(S, strv, names, _)                                                             \
	F(S, strv, where, _)                                                             \
	F(S, strv, set, _)                                                               \
	F(S, u32, flags, _)
ROTA_DECLARE(assoc_update, ASSOC_UPDATE_FIELDS)

/* The answer: rc (0 or -ESLURM_*), Slurm's words, and what changed, a line
 * each as sacctmgr prints it ("  bob", "  C = c A = acct U = bob"). */
#define ASSOC_UPDATE_RESP_FIELDS(F, S)                                                   \
	F(S, i32, rc, _)                                                                 \
	F(S, str, text, _)                                                               \
	F(S, strv, changed, _)
ROTA_DECLARE(assoc_update_resp, ASSOC_UPDATE_RESP_FIELDS)

/* Everything (sacctmgr filters what it prints): a few thousand records. */
#define ASSOC_LIST_RESP_FIELDS(F, S)                                                     \
	F(S, str, cluster, _)                                                            \
	F(S, list, accounts, assoc_account)                                              \
	F(S, list, users, assoc_user)                                                    \
	F(S, list, assocs, assoc_rec)                                                    \
	F(S, list, qos, assoc_qos)                                                       \
	F(S, list, res, assoc_res)
ROTA_DECLARE(assoc_list_resp, ASSOC_LIST_RESP_FIELDS)

/* ---- scontrol show assoc_mgr: what the controller holds of the records
 * above, with what jobs use of each limit (ctld/assoc_info.c; printed by
 * proto/assoc_mgr_fmt.h) ---- */
#define ASSOC_MGR_F_USERS 1u
#define ASSOC_MGR_F_ASSOC 2u
#define ASSOC_MGR_F_QOS   4u
#define ASSOC_MGR_REQ_FIELDS(F, S)                                                       \
	F(S, strv, users, _)    /* users=: these users' associations (and accounts') */  \
	F(S, strv, accounts, _) /* accounts=: associations in these accounts */          \
	F(S, strv, qos, _)      /* qos=: these QOS, in this order */                     \
	F(S, u32, flags, _)     /* ASSOC_MGR_F_*: the kinds of record; 0 all */
ROTA_DECLARE(assoc_mgr_req, ASSOC_MGR_REQ_FIELDS)

/* One TRES of a limit, in the order of the answer's tres names: the limit
 * (NO_VAL64: none; mem in MB) and what is used of it (minutes for the
 * *_mins limits). */
#define TRES_USE_FIELDS(F, S)                                                            \
	F(S, u64, limit, _)                                                              \
	F(S, u64, used, _)
ROTA_DECLARE(tres_use, TRES_USE_FIELDS)

/* The group limits of an association or a QOS with what is used of them:
 * used_jobs its running jobs (an account's: and those below it); accrue its
 * pending jobs that accrue age; used_submit pending and running (array tasks
 * each); used_wall seconds; grp_wall minutes. */
#define GRP_USE_FIELDS(F, S)                                                             \
	F(S, u32, grp_jobs, _)                                                           \
	F(S, u32, used_jobs, _)                                                          \
	F(S, u32, grp_jobs_accrue, _)                                                    \
	F(S, u32, accrue, _)                                                             \
	F(S, u32, grp_submit, _)                                                         \
	F(S, u32, used_submit, _)                                                        \
	F(S, u32, grp_wall, _)                                                           \
	F(S, u64, used_wall, _)                                                          \
	F(S, list, grp_tres, tres_use)                                                   \
	F(S, list, grp_tres_mins, tres_use)                                              \
	F(S, list, grp_tres_run_mins, tres_use)

/* An association (in tree order).  Numbers not kept are NO_VAL (limits) or
 * 0; fractions are millionths. */
#define ASSOC_MGR_ASSOC_FIELDS(F, S)                                                     \
	F(S, u32, id, _)                                                                 \
	F(S, str, account, _)                                                            \
	F(S, str, user, _)                                                               \
	F(S, str, partition, _)                                                          \
	F(S, u32, priority, _)                                                           \
	F(S, str, parent, _) /* an account's: the account above (root: NULL) */          \
	F(S, u32, parent_id, _)                                                          \
	F(S, u32, lft, _)                                                                \
	F(S, u32, is_def, _) /* the user's default association */                        \
	F(S, u32, shares_raw, _)                                                         \
	F(S, u64, shares_norm, _)                                                        \
	F(S, u32, level_shares, _) /* its siblings' shares and its own */                \
	F(S, u64, fs_factor, _)                                                          \
	F(S, u64, usage_raw, _) /* hundredths of billing-seconds */                      \
	F(S, u64, usage_norm, _)                                                         \
	F(S, u64, usage_efctv, _)                                                        \
	GRP_USE_FIELDS(F, S)                                                             \
	F(S, u32, max_jobs, _)                                                           \
	F(S, u32, max_jobs_accrue, _)                                                    \
	F(S, u32, max_submit, _)                                                         \
	F(S, u32, max_wall, _)                                                           \
	F(S, list, max_tres, tres_use) /* per job; used: 0 */                            \
	F(S, list, max_tres_pn, tres_use)                                                \
	F(S, list, max_tres_mins, tres_use)                                              \
	F(S, u32, min_prio_thresh, _)
ROTA_DECLARE(assoc_mgr_assoc, ASSOC_MGR_ASSOC_FIELDS)

/* What one account (name) or user (uid) has in a QOS: its running jobs
 * (jobs, tres; limit: MaxTRESPerAccount or MaxTRESPerUser), its pending ones
 * that accrue age, both (submit). */
#define QOS_USED_FIELDS(F, S)                                                            \
	F(S, str, account, _)                                                            \
	F(S, u32, uid, _)                                                                \
	F(S, u32, jobs, _)                                                               \
	F(S, u32, accrue, _)                                                             \
	F(S, u32, submit, _)                                                             \
	F(S, list, tres, tres_use)
ROTA_DECLARE(qos_used, QOS_USED_FIELDS)

#define ASSOC_MGR_QOS_FIELDS(F, S)                                                       \
	F(S, u32, id, _)                                                                 \
	F(S, str, name, _)                                                               \
	F(S, u64, usage_raw, _) /* millionths of billing-seconds */                      \
	GRP_USE_FIELDS(F, S)                                                             \
	F(S, u32, max_wall, _)                                                           \
	F(S, list, max_tres, tres_use)                                                   \
	F(S, list, max_tres_pn, tres_use)                                                \
	F(S, list, max_tres_mins, tres_use)                                              \
	F(S, u32, min_prio_thresh, _)                                                    \
	F(S, list, min_tres, tres_use)                                                   \
	F(S, str, preempt_mode, _) /* "OFF", "REQUEUE", ... */                           \
	F(S, u32, priority, _)                                                           \
	F(S, u32, max_jobs_pa, _)                                                        \
	F(S, u32, max_jobs_accrue_pa, _)                                                 \
	F(S, u32, max_submit_pa, _)                                                      \
	F(S, list, accounts, qos_used)                                                   \
	F(S, u32, max_jobs_pu, _)                                                        \
	F(S, u32, max_jobs_accrue_pu, _)                                                 \
	F(S, u32, max_submit_pu, _)                                                      \
	F(S, list, users, qos_used)
ROTA_DECLARE(assoc_mgr_qos, ASSOC_MGR_QOS_FIELDS)

/* The answer: the cluster's TRES names, then the records the caller may see
 * of the kinds asked for (users by name; each one's uid is the reader's to
 * look up). */
#define ASSOC_MGR_RESP_FIELDS(F, S)                                                      \
	F(S, str, cluster, _)                                                            \
	F(S, strv, tres, _)                                                              \
	F(S, list, users, assoc_user)                                                    \
	F(S, list, assocs, assoc_mgr_assoc)                                              \
	F(S, list, qos, assoc_mgr_qos)
ROTA_DECLARE(assoc_mgr_resp, ASSOC_MGR_RESP_FIELDS)

/* The answer, in frames; each but the last has more = 1. */
#define ACCT_JOBS_FIELDS(F, S)                                                           \
	F(S, list, jobs, acct_job)                                                       \
	F(S, u32, more, _)
ROTA_DECLARE(acct_jobs, ACCT_JOBS_FIELDS)

/* rotadbd's own statistics (slurmdbd's, GET slurmdb/.../diag;
 * dbd/stats.h): since when it runs and the requests its clients made, by
 * type (Slurm's name of the request) and by user (name; id: the uid). */
#define DBD_DIAG_FIELDS(F, S)                                                            \
	F(S, i64, time_start, _)                                                         \
	F(S, list, rpcs, rpc_stat)                                                       \
	F(S, list, users, rpc_stat)
ROTA_DECLARE(dbd_diag, DBD_DIAG_FIELDS)

/* ---- licenses (scontrol show licenses; ctld/licenses.h) ---- */
#define LIC_INFO_FIELDS(F, S)                                                            \
	F(S, str, name, _)                                                               \
	F(S, u32, total, _)                                                              \
	F(S, u32, used, _)     /* held by running jobs */                                \
	F(S, u32, reserved, _) /* held by active reservations (Licenses=) */             \
	F(S, u32, remote, _)   /* 1: a resource's (sacctmgr add resource) */
ROTA_DECLARE(lic_info, LIC_INFO_FIELDS)
#define LIC_INFO_RESP_FIELDS(F, S) F(S, list, lics, lic_info)
ROTA_DECLARE(lic_info_resp, LIC_INFO_RESP_FIELDS)

/* ---- advanced reservations (scontrol create|update|delete|show
 * reservation, sinfo -T; ctld/resv.h) ---- */

/* A request: op says which.  Unset: name NULL (create: one is made), start
 * and end 0, duration and node_cnt NO_VAL, strings NULL.  flags: RESV_F_*
 * (common/resv_flags.h) to set; flags_add and flags_del: Flags+= / Flags-=
 * (update).  users_op, accounts_op: RESV_LIST_* (Users+=alice). */
#define RESV_OP_CREATE 1u
#define RESV_OP_UPDATE 2u
#define RESV_OP_DELETE 3u
#define RESV_LIST_SET  0u
#define RESV_LIST_ADD  1u
#define RESV_LIST_DEL  2u
#define RESV_DESC_FIELDS(F, S)                                                           \
	F(S, u32, op, _)                                                                 \
	F(S, str, name, _)                                                               \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, u32, duration, _) /* minutes; INFINITE32 */                                 \
	F(S, str, nodes, _)    /* a host list, or ALL */                                 \
	F(S, u32, node_cnt, _)                                                           \
	F(S, str, core_cnt, _) /* CoreCnt=: "N" in all, or "a,b" a node (Nodes=) */      \
	F(S, str, partition, _)                                                          \
	F(S, str, users, _) /* "a,b" or "-a,-b" (all but them) */                        \
	F(S, u32, users_op, _)                                                           \
	F(S, str, accounts, _)                                                           \
	F(S, u32, accounts_op, _)                                                        \
	F(S, str, licenses, _)                                                           \
	F(S, u32, flags, _)                                                              \
	F(S, u32, flags_add, _)                                                          \
	F(S, u32, flags_del, _)                                                          \
	F(S, u32, flags_set, _)  /* 1: Flags= was given */                               \
	F(S, u32, purge_comp, _) /* PURGE_COMP=: seconds; 0 the default */
ROTA_DECLARE(resv_desc, RESV_DESC_FIELDS)
#define RESV_RESP_FIELDS(F, S) F(S, str, name, _)
ROTA_DECLARE(resv_resp, RESV_RESP_FIELDS)

/* MSG_PART_UPDATE_REQ (scontrol create|update|delete partition; admins,
 * ctld/part_update.h): what to do to partition name; settings: for create and
 * update, "Key=Value" as a PartitionName= line spells them
 * (common/part_spec.h), applied in order, all or none.  Answered with an
 * MSG_PART_UPDATE_RESP: the partition as it now is (none after a delete). */
#define PART_OP_CREATE 1u
#define PART_OP_UPDATE 2u
#define PART_OP_DELETE 3u
#define PART_UPDATE_REQ_FIELDS(F, S)                                                     \
	F(S, u32, op, _) /* PART_OP_* */                                                 \
	F(S, str, name, _)                                                               \
	F(S, strv, settings, _)
ROTA_DECLARE(part_update_req, PART_UPDATE_REQ_FIELDS)
#define PART_UPDATE_RESP_FIELDS(F, S) F(S, list, parts, part_info)
ROTA_DECLARE(part_update_resp, PART_UPDATE_RESP_FIELDS)

/* One reservation as the controller holds it. */
#define RESV_INFO_FIELDS(F, S)                                                           \
	F(S, str, name, _)                                                               \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, str, nodes, _)                                                              \
	F(S, u32, node_cnt, _)                                                           \
	F(S, u32, core_cnt, _)                                                           \
	F(S, str, partition, _)                                                          \
	F(S, u32, flags, _)                                                              \
	F(S, u32, purge_comp, _)                                                         \
	F(S, str, users, _)                                                              \
	F(S, str, accounts, _)                                                           \
	F(S, str, licenses, _)                                                           \
	F(S, str, tres, _) /* "cpu=16" */
ROTA_DECLARE(resv_info, RESV_INFO_FIELDS)
#define RESV_INFO_REQ_FIELDS(F, S) F(S, str, name, _) /* NULL: all */
ROTA_DECLARE(resv_info_req, RESV_INFO_REQ_FIELDS)
#define RESV_INFO_RESP_FIELDS(F, S)                                                      \
	F(S, i64, time, _) /* the controller's clock: ACTIVE is start <= time < end */   \
	F(S, list, resvs, resv_info)
ROTA_DECLARE(resv_info_resp, RESV_INFO_RESP_FIELDS)

/* ---- scontrol suspend|resume (ctld/suspend.h) ---- */
#define JOB_SUSPEND_REQ_FIELDS(F, S)                                                     \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, suspend, _) /* 1 suspend, 0 resume */                                  \
	F(S, u32, flags, _)   /* JOB_UPDATE_F_ARRAY_TASK: task array_task_id alone */    \
	F(S, u32, array_task_id, _)
ROTA_DECLARE(job_suspend_req, JOB_SUSPEND_REQ_FIELDS)

/* ---- fairshare (sshare; ctld/fairshare.h) ---- */

/* One association as sshare shows it, in tree order (depth: 0 for root).
 * Fractions are millionths (FS_INF: infinite); fairshare FS_NONE for an
 * account's line. */
#define FS_INF  0xffffffffffffffffull
#define FS_NONE 0xfffffffffffffffeull
#define SHARE_ROW_FIELDS(F, S)                                                           \
	F(S, str, account, _)                                                            \
	F(S, str, user, _)                                                               \
	F(S, str, partition, _)                                                          \
	F(S, u32, depth, _)                                                              \
	F(S, u32, raw_shares, _)                                                         \
	F(S, u64, norm_shares, _)                                                        \
	F(S, u64, raw_usage, _) /* billing-seconds, decayed */                           \
	F(S, u64, norm_usage, _)                                                         \
	F(S, u64, eff_usage, _)                                                          \
	F(S, u64, fairshare, _)                                                          \
	F(S, u64, level_fs, _)                                                           \
	F(S, str, grp_tres_mins, _)                                                      \
	F(S, u64, run_cpu_mins, _) /* CPU-minutes its running jobs have left */          \
	F(S, u64, run_billing_mins, _)
ROTA_DECLARE(share_row, SHARE_ROW_FIELDS)

#define SHARE_RESP_FIELDS(F, S)                                                          \
	F(S, str, cluster, _)                                                            \
	F(S, list, rows, share_row)
ROTA_DECLARE(share_resp, SHARE_RESP_FIELDS)
/* ---- sreport: rotadbd sums CPU time over a window (dbd/report.h) ----
 * What each job run's allocated CPUs were held for inside [start, end) (a
 * running job counts up to now), summed per account, user and size bin. */
#define ACCT_REPORT_REQ_FIELDS(F, S)                                                     \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, u32v, bins, _) /* ascending CPU counts each starting a bin; empty: one */   \
	F(S, u32, flags, _) /* none yet: 0 */
ROTA_DECLARE(acct_report_req, ACCT_REPORT_REQ_FIELDS)

#define ACCT_REPORT_ROW_FIELDS(F, S)                                                     \
	F(S, str, account, _)                                                            \
	F(S, str, user, _)                                                               \
	F(S, u32, uid, _)                                                                \
	F(S, u32, bin, _) /* 0: below bins[0] (or the only bin) */                       \
	F(S, u64, cpu_secs, _)                                                           \
	F(S, u32, jobs, _) /* runs that held CPUs in the window */
ROTA_DECLARE(acct_report_row, ACCT_REPORT_ROW_FIELDS)

/* The window as used (end not past now), the cluster's CPUs (slurm.conf) and
 * the CPU-seconds allocated, down, down as planned and planned (pending jobs'
 * eligible wait, at most what was not allocated). */
#define ACCT_REPORT_RESP_FIELDS(F, S)                                                    \
	F(S, str, cluster, _)                                                            \
	F(S, i64, start, _)                                                              \
	F(S, i64, end, _)                                                                \
	F(S, u32, cpus, _)                                                               \
	F(S, u64, alloc_secs, _)                                                         \
	F(S, u64, down_secs, _)                                                          \
	F(S, u64, pdown_secs, _)                                                         \
	F(S, u64, planned_secs, _)                                                       \
	F(S, list, rows, acct_report_row)
ROTA_DECLARE(acct_report_resp, ACCT_REPORT_RESP_FIELDS)

/* ---- sstat: what running steps use now (ctld/step_stat.h) ---- */

/* One task of a step on a node with several, from /proc (its process group):
 * memory now and at its highest in the samples, CPU time of its live
 * processes (and the children they waited for), storage I/O. */
#define TASK_STAT_FIELDS(F, S)                                                           \
	F(S, u32, gtid, _)                                                               \
	F(S, u64, rss_kib, _)                                                            \
	F(S, u64, max_rss_kib, _)                                                        \
	F(S, u64, vsize_kib, _)                                                          \
	F(S, u64, max_vsize_kib, _)                                                      \
	F(S, u64, cpu_usec, _)                                                           \
	F(S, u64, read_bytes, _)                                                         \
	F(S, u64, write_bytes, _)
ROTA_DECLARE(task_stat, TASK_STAT_FIELDS)

/* One node's share of a running step, measured by its step daemon when asked
 * (stepd/usage.c): memory now and at its highest, CPU time so far. */
#define NODE_STAT_FIELDS(F, S)                                                           \
	F(S, str, node_name, _)                                                          \
	F(S, u32, ntasks, _)      /* the step's tasks on this node */                    \
	F(S, u32, gtid_base, _)   /* global id of its first task there */                \
	F(S, u64, rss_kib, _)     /* resident memory now */                              \
	F(S, u64, max_rss_kib, _) /* ... at its highest so far */                        \
	F(S, u64, vsize_kib, _)   /* virtual memory now */                               \
	F(S, u64, max_vsize_kib, _)                                                      \
	F(S, u64, user_usec, _) /* CPU time so far */                                    \
	F(S, u64, sys_usec, _)                                                           \
	F(S, u64, read_bytes, _) /* storage I/O of its live processes */                 \
	F(S, u64, write_bytes, _)                                                        \
	F(S, u32v, pids, _)          /* its processes (sstat -i) */                      \
	F(S, list, tasks, task_stat) /* each task, where ntasks > 1 */                   \
	GPU_USE_FIELDS(F, S)                                                             \
	F(S, u64, gpu_mem, _) /* GPU memory and busy percentage at the last sample */    \
	F(S, u32, gpu_util, _)
ROTA_DECLARE(node_stat, NODE_STAT_FIELDS)

/* MSG_STEP_STAT_REQ: sstat -> controller (job_id, step_id: NO_VAL for the
 * job's first numbered step, STEP_STAT_F_ALL: every running step), and
 * controller -> rotad -> rotastepd for one step (req_id and tag name the
 * controller's request and the step in it). */
#define STEP_STAT_F_ALL   1u
#define STEP_STAT_F_ARRAY 2u /* job_id_T: array_task_id is T */
#define STEP_STAT_F_LIST  4u /* the steps only: their nodes are not asked */
#define STEP_STAT_REQ_FIELDS(F, S)                                                       \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, u32, flags, _)                                                              \
	F(S, u32, req_id, _)                                                             \
	F(S, u32, tag, _)                                                                \
	F(S, u32, array_task_id, _) /* with STEP_STAT_F_ARRAY */
ROTA_DECLARE(step_stat_req, STEP_STAT_REQ_FIELDS)

/* A step as sstat aggregates it: rc 0, or why its nodes could not be asked
 * (-ESLURM_*; e.g. not the caller's job); the nodes that answered in time. */
#define STEP_STAT_FIELDS(F, S)                                                           \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, i32, rc, _)                                                                 \
	F(S, str, nodes, _) /* the step's node list */                                   \
	F(S, list, node_stats, node_stat)
ROTA_DECLARE(step_stat, STEP_STAT_FIELDS)

/* MSG_STEP_STAT_RESP (controller -> sstat).  running: how many steps the job
 * runs (the batch step counts), whether or not they were asked for. */
#define STEP_STAT_RESP_FIELDS(F, S)                                                      \
	F(S, u32, running, _)                                                            \
	F(S, list, steps, step_stat)                                                     \
	F(S, u32, job_id, _) /* the job's own id (an array task's) */
ROTA_DECLARE(step_stat_resp, STEP_STAT_RESP_FIELDS)

/* MSG_NODE_STAT_RESP (rotastepd -> rotad -> controller): the answer to one
 * MSG_STEP_STAT_REQ; rc -ESLURM_INVALID_JOB_ID when no such step runs there. */
#define NODE_STAT_RESP_FIELDS(F, S)                                                      \
	F(S, u32, req_id, _)                                                             \
	F(S, u32, tag, _)                                                                \
	F(S, i32, rc, _)                                                                 \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _)                                                            \
	F(S, list, node_stats, node_stat) /* one, or none with an error */
ROTA_DECLARE(node_stat_resp, NODE_STAT_RESP_FIELDS)

/* sbcast: one block of a file for every node of a job, in order (CLI ->
 * controller -> each node, ctld/bcast.h).  The controller fills in who
 * writes it (the job's user) and req_id; each node answers
 * MSG_FILE_BCAST_RESP {req_id, rc: 0 or an errno}; the CLI gets one
 * MSG_FILE_BCAST_RESP for the block, rc 0, a Slurm error number (the job
 * cannot be written to), or 1 with msg "REQUEST_FILE_BCAST(NODE): why" lines. */
enum file_bcast_flags {
	BCAST_F_FIRST = 1,    /* create the file (O_EXCL unless BCAST_F_FORCE) */
	BCAST_F_LAST = 2,     /* then set its mode (and times with PRESERVE) */
	BCAST_F_FORCE = 4,    /* replace an existing file */
	BCAST_F_PRESERVE = 8, /* the source's access and modification times */
	BCAST_F_MKDIR = 16,   /* create the file's directory (--send-libs' DEST_libs) */
};
/* Bytes in one block at most, and the longest destination path. */
#define FILE_BCAST_BLOCK_MAX (16u << 20)
#define FILE_BCAST_PATH_MAX  4096
#define FILE_BCAST_FIELDS(F, S)                                                          \
	F(S, u32, job_id, _)                                                             \
	F(S, u32, step_id, _) /* NO_VAL: the job's nodes, else the step's */             \
	F(S, str, path, _)    /* absolute */                                             \
	F(S, u64, offset, _)                                                             \
	F(S, bin, data, _)                                                               \
	F(S, u32, flags, _) /* BCAST_F_* */                                              \
	F(S, u32, mode, _)  /* the source's permission bits */                           \
	F(S, i64, atime, _)                                                              \
	F(S, i64, mtime, _)                                                              \
	F(S, u32, timeout, _) /* seconds the controller waits for the nodes */           \
	F(S, u32, req_id, _)  /* set by the controller, with: */                         \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, str, user, _)
ROTA_DECLARE(file_bcast, FILE_BCAST_FIELDS)
#define FILE_BCAST_RESP_FIELDS(F, S)                                                     \
	F(S, u32, req_id, _)                                                             \
	F(S, i32, rc, _)                                                                 \
	F(S, str, nodes, _) /* the nodes written to (to the CLI) */                      \
	F(S, str, msg, _)
ROTA_DECLARE(file_bcast_resp, FILE_BCAST_RESP_FIELDS)

/* strigger (ctld/trigger.h, common/trigtype.h): MSG_TRIGGER_SET_REQ {one
 * trigger; id, uid, gid set by the controller} -> MSG_RC; MSG_TRIGGER_CLEAR_REQ
 * {id, or job_id (res_id), or uid; 0/NO_VAL: not given} -> MSG_RC;
 * MSG_TRIGGER_GET_REQ (empty) -> MSG_TRIGGER_GET_RESP {every trigger}. */
#define TRIGGER_FIELDS(F, S)                                                             \
	F(S, u32, id, _)                                                                 \
	F(S, u32, res_type, _) /* TRIG_RES_* */                                          \
	F(S, str, res_id, _)   /* the job id, a node list, or "*" */                     \
	F(S, u32, type, _)     /* TRIG_T_* */                                            \
	F(S, i32, offset, _)   /* seconds after the event (before: negative) */          \
	F(S, u32, flags, _)    /* TRIG_F_PERM */                                         \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)                                                                \
	F(S, str, user, _)                                                               \
	F(S, str, program, _) /* an absolute path, then arguments */
ROTA_DECLARE(trigger, TRIGGER_FIELDS)
#define TRIGGER_LIST_FIELDS(F, S) F(S, list, triggers, trigger)
ROTA_DECLARE(trigger_list, TRIGGER_LIST_FIELDS)

/* scrontab (ctld/crontab.h): MSG_CRONTAB_UPDATE_REQ {whose, the crontab's
 * text (NULL: remove it), one batch job per entry} -> MSG_CRONTAB_UPDATE_RESP
 * (or MSG_RC); MSG_CRONTAB_GET_REQ {whose} -> MSG_CRONTAB_GET_RESP, or MSG_RC
 * ESLURM_JOB_SCRIPT_MISSING when there is none. */
/* sbatch with components (`:`, #SBATCH hetjob): MSG_SUBMIT_HET_REQ {each
 * component's request, the first with the script} -> MSG_SUBMIT_RESP {the
 * leader's id} (ctld/hetjob.h).  salloc with components: MSG_ALLOC_HET_REQ
 * -> as MSG_ALLOC_REQ, about the leader, whose MSG_ALLOC_RESP carries every
 * component's environment (het_env). */
#define SUBMIT_HET_FIELDS(F, S) F(S, list, jobs, job_desc)
ROTA_DECLARE(submit_het, SUBMIT_HET_FIELDS)

#define CRONTAB_UPDATE_FIELDS(F, S)                                                      \
	F(S, u32, uid, _)                                                                \
	F(S, str, crontab, _)                                                            \
	F(S, list, jobs, job_desc)
ROTA_DECLARE(crontab_update, CRONTAB_UPDATE_FIELDS)
#define CRONTAB_UPDATE_RESP_FIELDS(F, S)                                                 \
	F(S, i32, rc, _)                                                                 \
	F(S, str, err_msg, _)                                                            \
	F(S, str, failed_lines, _) /* "first-last" of the entry refused */               \
	F(S, u32v, job_ids, _)
ROTA_DECLARE(crontab_update_resp, CRONTAB_UPDATE_RESP_FIELDS)
#define CRONTAB_GET_FIELDS(F, S) F(S, u32, uid, _)
ROTA_DECLARE(crontab_get, CRONTAB_GET_FIELDS)
#define CRONTAB_GET_RESP_FIELDS(F, S)                                                    \
	F(S, str, crontab, _)                                                            \
	F(S, str, disabled_lines, _) /* "first-last,..." of cancelled entries */
ROTA_DECLARE(crontab_get_resp, CRONTAB_GET_RESP_FIELDS)

/* A configuration file as the controller serves it to configless nodes
 * (common/conf_files.h): its name relative to slurm.conf's directory
 * ("slurm.conf", "gres.conf", "nodes.d/a.conf") and its text. */
#define CONF_FILE_FIELDS(F, S)                                                           \
	F(S, str, name, _)                                                               \
	F(S, str, text, _)
ROTA_DECLARE(conf_file, CONF_FILE_FIELDS)

/* MSG_CONF_FILES_RESP (controller -> rotad --conf-server, and pushed to the
 * nodes after scontrol reconfigure): slurm.conf first, then what it includes
 * or implies. */
#define CONF_FILES_FIELDS(F, S) F(S, list, files, conf_file)
ROTA_DECLARE(conf_files, CONF_FILES_FIELDS)

/* MSG_ACT_AS: a trusted daemon (root or SlurmUser: rotarestd) is from now on
 * this user on its connection, for every check (ctld/caller.h); answered
 * with an MSG_RC.  There is no way back. */
#define ACT_AS_FIELDS(F, S)                                                              \
	F(S, u32, uid, _)                                                                \
	F(S, u32, gid, _)
ROTA_DECLARE(act_as, ACT_AS_FIELDS)

/* MSG_TOKEN_REQ (scontrol token): a JWT for username (NULL: the caller;
 * another user: admins only), valid lifespan seconds (0: the default). */
#define TOKEN_REQ_FIELDS(F, S)                                                           \
	F(S, u32, lifespan, _)                                                           \
	F(S, str, username, _)
ROTA_DECLARE(token_req, TOKEN_REQ_FIELDS)

#define TOKEN_RESP_FIELDS(F, S) F(S, str, token, _)
ROTA_DECLARE(token_resp, TOKEN_RESP_FIELDS)

/* ---- the message table: M(ENUM, number, body struct) ---- */
#define ROTA_MESSAGES(M)                                                                 \
	M(MSG_RC, 1, rc_msg)                                                             \
	M(MSG_PING_REQ, 2, empty_msg)                                                    \
	M(MSG_PING_RESP, 3, ping_resp)                                                   \
	M(MSG_SUBMIT_REQ, 4, job_desc)                                                   \
	M(MSG_SUBMIT_RESP, 5, submit_resp)                                               \
	M(MSG_JOB_INFO_REQ, 6, job_info_req)                                             \
	M(MSG_JOB_INFO_RESP, 7, job_info_resp)                                           \
	M(MSG_NODE_INFO_REQ, 8, empty_msg)                                               \
	M(MSG_NODE_INFO_RESP, 9, node_info_resp)                                         \
	M(MSG_PART_INFO_REQ, 10, empty_msg)                                              \
	M(MSG_PART_INFO_RESP, 11, part_info_resp)                                        \
	M(MSG_CONFIG_REQ, 12, empty_msg)                                                 \
	M(MSG_CONFIG_RESP, 13, config_resp)                                              \
	M(MSG_CANCEL_REQ, 14, cancel_req)                                                \
	M(MSG_JOB_UPDATE_REQ, 15, job_update_req)                                        \
	M(MSG_NODE_UPDATE_REQ, 16, node_update_req)                                      \
	M(MSG_ALLOC_REQ, 17, job_desc)                                                   \
	M(MSG_ALLOC_PENDING, 18, submit_resp)                                            \
	M(MSG_ALLOC_RESP, 19, alloc_resp)                                                \
	M(MSG_STEP_CREATE_REQ, 20, step_create_req)                                      \
	M(MSG_STEP_CREATE_RESP, 21, step_create_resp)                                    \
	M(MSG_JOB_COMPLETE_REQ, 22, job_complete_req)                                    \
	M(MSG_STEP_INFO_REQ, 23, job_info_req)                                           \
	M(MSG_STEP_INFO_RESP, 24, step_info_resp)                                        \
	M(MSG_PRIO_INFO_REQ, 25, job_info_req)                                           \
	M(MSG_PRIO_INFO_RESP, 26, prio_info_resp)                                        \
	M(MSG_STATS_REQ, 27, stats_req)                                                  \
	M(MSG_STATS_RESP, 28, stats_resp)                                                \
	M(MSG_SHUTDOWN_REQ, 29, shutdown_req)                                            \
	M(MSG_NODE_SHUTDOWN, 39, empty_msg)                                              \
	M(MSG_AUTH_CHALLENGE, 30, auth_challenge)                                        \
	M(MSG_AUTH_RESPONSE, 31, auth_response)                                          \
	M(MSG_AUTH_PROOF, 38, auth_proof)                                                \
	M(MSG_NODE_REGISTER, 32, node_register)                                          \
	M(MSG_NODE_PING, 33, node_ping)                                                  \
	M(MSG_LAUNCH_REQ, 34, launch_req)                                                \
	M(MSG_SIGNAL_REQ, 35, signal_req)                                                \
	M(MSG_STEP_COMPLETE, 36, step_complete)                                          \
	M(MSG_PROLOG_COMPLETE, 37, step_complete)                                        \
	M(MSG_IO_HELLO, 40, io_hello)                                                    \
	M(MSG_IO_DATA, 41, io_data)                                                      \
	M(MSG_TASK_EXIT, 42, task_exit)                                                  \
	M(MSG_IO_WINSIZE, 43, io_winsize)                                                \
	M(MSG_FOLLOW_REQ, 44, follow_req)                                                \
	M(MSG_REPL_DATA, 45, repl_data)                                                  \
	M(MSG_TAKEOVER_REQ, 46, empty_msg)                                               \
	M(MSG_FOLLOW_ACK, 47, follow_ack)                                                \
	M(MSG_RECONFIG_REQ, 48, empty_msg)                                               \
	M(MSG_NODE_ACK, 49, node_ack)                                                    \
	M(MSG_JOB_LIST_REQ, 50, job_list_req)                                            \
	M(MSG_JOB_LIST_RESP, 51, job_list_resp)                                          \
	M(MSG_STEPD_GROUPS, 52, stepd_groups)                                            \
	M(MSG_ACCT_QUERY, 53, acct_query)                                                \
	M(MSG_ACCT_JOBS, 54, acct_jobs)                                                  \
	M(MSG_ASSOC_UPDATE, 55, assoc_update)                                            \
	M(MSG_ASSOC_UPDATE_RESP, 56, assoc_update_resp)                                  \
	M(MSG_ASSOC_LIST_REQ, 57, empty_msg)                                             \
	M(MSG_ASSOC_LIST_RESP, 58, assoc_list_resp)                                      \
	M(MSG_ACCT_REPORT_REQ, 59, acct_report_req)                                      \
	M(MSG_ACCT_REPORT_RESP, 60, acct_report_resp)                                    \
	M(MSG_DBD_DIAG_REQ, 61, empty_msg)                                               \
	M(MSG_DBD_DIAG_RESP, 62, dbd_diag)                                               \
	M(MSG_ACCT_JOB_MODIFY, 93, acct_job_modify) /* sacctmgr modify job */            \
	M(MSG_ACCT_JOB_MODIFY_RESP, 94, assoc_update_resp)                               \
	M(MSG_DBD_CONFIG_REQ, 95, empty_msg)    /* sacctmgr show config */               \
	M(MSG_DBD_CONFIG_RESP, 96, config_resp) /* dbd/settings.h */                     \
	M(MSG_DBD_STATS_CLEAR, 97, empty_msg)   /* sacctmgr clear stats: MSG_RC */       \
	M(MSG_SHARE_REQ, 70, empty_msg)                                                  \
	M(MSG_SHARE_RESP, 71, share_resp)                                                \
	M(MSG_PMI_FENCE, 72, pmi_fence)                                                  \
	M(MSG_PMI_FENCE_DONE, 73, pmi_fence)                                             \
	M(MSG_PMI_ABORT, 74, pmi_fence) /* seq: exit code; data: message */              \
	M(MSG_TASK_PIDS, 176, task_pids)                                                 \
	M(MSG_DEBUG_WAKE, 177, empty_msg)                                                \
	M(MSG_PMIX_SETUP, 75, pmix_setup)                                                \
	M(MSG_PMIX_ENV, 76, pmix_env)                                                    \
	M(MSG_FILE_BCAST_REQ, 77, file_bcast)                                            \
	M(MSG_FILE_BCAST_RESP, 78, file_bcast_resp)                                      \
	M(MSG_TRIGGER_SET_REQ, 79, trigger)                                              \
	M(MSG_TRIGGER_CLEAR_REQ, 83, trigger)                                            \
	M(MSG_TRIGGER_GET_REQ, 84, empty_msg)                                            \
	M(MSG_TRIGGER_GET_RESP, 85, trigger_list)                                        \
	M(MSG_STEP_ATTACH_REQ, 86, step_attach)                                          \
	M(MSG_STEP_ATTACH_RESP, 87, step_attach_resp)                                    \
	M(MSG_CRONTAB_UPDATE_REQ, 88, crontab_update)                                    \
	M(MSG_CRONTAB_UPDATE_RESP, 89, crontab_update_resp)                              \
	M(MSG_CRONTAB_GET_REQ, 90, crontab_get)                                          \
	M(MSG_CRONTAB_GET_RESP, 91, crontab_get_resp)                                    \
	M(MSG_SUBMIT_HET_REQ, 92, submit_het)                                            \
	M(MSG_LIC_INFO_REQ, 63, empty_msg)                                               \
	M(MSG_LIC_INFO_RESP, 64, lic_info_resp)                                          \
	M(MSG_RESV_UPDATE_REQ, 65, resv_desc)                                            \
	M(MSG_RESV_UPDATE_RESP, 66, resv_resp)                                           \
	M(MSG_RESV_INFO_REQ, 67, resv_info_req)                                          \
	M(MSG_RESV_INFO_RESP, 68, resv_info_resp)                                        \
	M(MSG_JOB_SUSPEND_REQ, 69, job_suspend_req)                                      \
	M(MSG_STEP_STAT_REQ, 80, step_stat_req)                                          \
	M(MSG_STEP_STAT_RESP, 81, step_stat_resp)                                        \
	M(MSG_NODE_STAT_RESP, 82, node_stat_resp)                                        \
	M(MSG_TOPO_INFO_REQ, 110, empty_msg)    /* scontrol show topology */             \
	M(MSG_TOPO_INFO_RESP, 111, config_resp) /* key: switch, value: its line */       \
	M(MSG_CONF_FILES_REQ, 112, empty_msg)   /* configless: the config files */       \
	M(MSG_CONF_FILES_RESP, 113, conf_files)                                          \
	M(MSG_ACT_AS, 114, act_as)       /* rotarestd: for a user from now on */         \
	M(MSG_TOKEN_REQ, 115, token_req) /* scontrol token */                            \
	M(MSG_TOKEN_RESP, 116, token_resp)                                               \
	M(MSG_ALLOC_HET_REQ, 117, submit_het) /* salloc with components */               \
	M(MSG_STEP_HET_CREATE_REQ, 118, step_het_create_req)                             \
	M(MSG_STEP_HET_CREATE_RESP, 119, step_het_create_resp)                           \
	M(MSG_WILL_RUN_REQ, 120, job_desc) /* --test-only */                             \
	M(MSG_WILL_RUN_RESP, 121, will_run_resp)                                         \
	M(MSG_JOB_SCRIPT_REQ, 122, job_script_req)                                       \
	M(MSG_JOB_SCRIPT_RESP, 123, job_script_resp)                                     \
	M(MSG_SET_DEBUG_REQ, 124, set_debug_req)                                         \
	M(MSG_JOB_NOTIFY_REQ, 125, job_notify_req)                                       \
	M(MSG_USER_MSG, 126, user_msg)                                                   \
	M(MSG_STEP_UPDATE_REQ, 160, step_update_req)                                     \
	M(MSG_REBOOT_REQ, 127, reboot_req)                                               \
	M(MSG_ASSOC_MGR_REQ, 150, assoc_mgr_req) /* scontrol show assoc_mgr */           \
	M(MSG_ASSOC_MGR_RESP, 151, assoc_mgr_resp)                                       \
	M(MSG_PART_UPDATE_REQ, 140, part_update_req) /* scontrol create|update|delete */ \
	M(MSG_PART_UPDATE_RESP, 141, part_update_resp)

#define ROTA_MSG_ENUM(e, n, s) e = n,
enum msg_type { ROTA_MESSAGES(ROTA_MSG_ENUM) };
/* Above every message number (arrays indexed by type are this long). */
#define MSG_TYPE_MAX            256
#define ROTA_MSG_BOUND(e, n, s) _Static_assert((n) < MSG_TYPE_MAX, #e " >= MSG_TYPE_MAX");
ROTA_MESSAGES(ROTA_MSG_BOUND)

/* A job_desc with nothing given: the counts, sizes and limits NO_VAL (or
 * NO_VAL64), the rest zero.  What sbatch sends with no options. */
void job_desc_init(struct job_desc *d);

/* Body type of a message type, or NULL if unknown. */
const struct rota_type *msg_body_type(uint16_t type);
/* "MSG_SUBMIT_REQ", or "MSG_UNKNOWN". */
const char *msg_name(uint16_t type);

/* Allocate and zero a body of the given type (aborts on ENOMEM). */
void *msg_body_new(uint16_t type);
/* Release and free a body (NULL allowed). */
void msg_body_free(uint16_t type, void *body);

#endif
