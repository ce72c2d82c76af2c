/* conf_doc.c - what each configuration key means, in a sentence or two.
 *
 * Keep one row per key of the parser's table (conf_keys.c, gres_conf.c,
 * cgroup_conf.c, topo_conf.c, schedparams.c); test_conf_doc checks it.  Say
 * what Rota does with the value, and where it differs from Slurm. */
#include <strings.h>
#include "common/conf_doc.h"

#define SHOWN_ONLY "Shown by scontrol show config; Rota does not act on it yet."

static const struct conf_doc global_doc[] = {
    {"ClusterName", "name", "The cluster's name, recorded with every job in accounting."},
    {"SlurmctldHost", "host[(addr)]",
     "The controller's host name, with its address in parentheses when the name does "
     "not resolve. Give the key again for each standby controller, in the order they "
     "take over."},
    {"ControlMachine", "host", "The old spelling of SlurmctldHost's host name."},
    {"ControlAddr", "addr", "The old spelling of SlurmctldHost's address."},
    {"SlurmctldPort", "port", "TCP port rotactld listens on."},
    {"SlurmdPort", "port",
     "TCP port each rotad listens on, unless its NodeName line sets Port."},
    {"SlurmUser", "user",
     "The user rotactld runs as and whose credentials the daemons trust for "
     "controller requests."},
    {"AuthType", "plugin",
     "How daemons authenticate each other: auth/munge (a munged on every host, one "
     "MUNGE key) or auth/slurm (an HMAC key, slurm.key beside slurm.conf, the same "
     "file on every host)."},
    {"AuthInfo", "key=value,...",
     "Options of the authentication: socket=PATH (munged's socket), key=PATH (the "
     "auth/slurm key), cred_expire=SECONDS (job credentials' lifetime, 120)."},
    {"AuthAltTypes", "plugin",
     "auth/jwt: rotarestd accepts JSON Web Tokens (HS256) from REST clients, and "
     "scontrol token makes them."},
    {"AuthAltParameters", "key=value,...",
     "jwt_key=PATH: the HS256 key of auth/jwt (default "
     "StateSaveLocation/jwt_hs256.key unless jwks is given), readable by root and "
     "SlurmUser only; jwks=PATH: a JSON Web Key Set whose RSA keys rotarestd "
     "accepts RS256 tokens under (an identity provider's); userclaimfield=NAME: "
     "the claim naming the user (default sun)."},
    {"PreemptType", "plugin",
     "preempt/partition_prio: a job that cannot start for want of resources takes "
     "them from running jobs of partitions with a lower PriorityTier.  preempt/qos: "
     "from running jobs of the QOS its QOS lists in Preempt= (sacctmgr), whose "
     "PreemptMode, GraceTime and PreemptExemptTime then apply.  preempt/none (the "
     "default): no preemption."},
    {"PreemptMode", "OFF|CANCEL|REQUEUE|SUSPEND[,GANG]|GANG",
     "What becomes of a preempted job (its partition's PreemptMode first): CANCEL "
     "ends it PREEMPTED, REQUEUE puts it back in the queue (a batch job that may "
     "be requeued; others are cancelled), SUSPEND stops it and gives its CPUs to "
     "the preemptor until they are free again, OFF leaves it alone.  GANG (alone "
     "or beside SUSPEND) slices time between the jobs that share cores "
     "(OverSubscribe=FORCE:N or YES:N): one job at a time runs on each core, the "
     "others stay suspended, and every SchedulerTimeSlice seconds those that "
     "waited run instead."},
    {"PreemptExemptTime", "time",
     "Jobs running less than this long are not preempted ([days-]hours:minutes:"
     "seconds, or minutes)."},
    {"Licenses", "name[:count],...",
     "Licenses the cluster has, counted (not tied to nodes): jobs ask for them "
     "with -L/--licenses and wait, with reason Licenses, while too few are "
     "free.  A name without a count is one.  scontrol show licenses lists "
     "them."},
    {"TLSType", "plugin",
     "tls/s2n or tls/openssl: accepted; Rota's daemons talk to each other "
     "unencrypted (authenticated), and rotarestd serves HTTPS whenever its "
     "certificate is there (TLSParameters), whatever TLSType says."},
    {"TLSParameters", "key=value,...",
     "restd_cert_file=PATH and restd_cert_key_file=PATH: rotarestd's certificate "
     "(PEM, with its chain) and private key (default restd_cert.pem and "
     "restd_cert_key.pem beside slurm.conf).  With both, rotarestd answers TLS "
     "on every listener (a connection that starts with a TLS handshake is "
     "encrypted; https:// listeners take nothing else)."},
    {"GresTypes", "name,...",
     "The generic resources (gpu, nic, ...) nodes may declare with Gres=."},
    {"StateSaveLocation", "dir",
     "Where rotactld keeps its journal and snapshots. Back it up; a standby controller "
     "needs its own copy, kept by replication."},
    {"SlurmdSpoolDir", "dir",
     "Where rotad keeps batch scripts and step state on each node."},
    {"SlurmctldLogFile", "path", "rotactld's log; without it, standard error."},
    {"SlurmdLogFile", "path", "rotad's log; without it, standard error."},
    {"SchedulerType", "plugin",
     "sched/backfill (start lower-priority jobs that delay no higher one) or "
     "sched/builtin (strict priority order)."},
    {"SchedulerParameters", "word[=value],...",
     "Scheduler tuning; the words Rota acts on are listed under SCHEDULER PARAMETERS, "
     "others are accepted and ignored."},
    {"SlurmctldParameters", "word,...",
     "enable_configless: the controller serves slurm.conf and the files beside it to "
     "rotad --conf-server (doc/configless.md); user_resv_delete: a user a reservation "
     "admits (Users=, Accounts=) may delete it with scontrol delete reservation; other "
     "words are accepted and ignored."},
    {"SelectType", "plugin",
     SHOWN_ONLY " Rota always allocates as select/cons_tres does."},
    {"SelectTypeParameters", "word,...",
     "Only whether it names _Memory matters here: with it, or when the key is unset, "
     "memory is a consumable resource jobs are charged for; CR_Core, CR_CPU and "
     "CR_Socket are otherwise alike."},
    {"PropagateResourceLimits", "ALL|NONE|limit,...",
     "The resource limits (AS, CORE, CPU, DATA, FSIZE, MEMLOCK, NOFILE, NPROC, RSS, "
     "STACK) a job's tasks take from the sbatch or srun that started them, as soft "
     "limits up to the node's hard limit. ALL when unset; --propagate chooses for one "
     "job."},
    {"PropagateResourceLimitsExcept", "limit,...",
     "The limits not taken from the submitting command; the others are."},
    {"EnforcePartLimits", "NO|YES|ANY|ALL",
     "With anything but NO, a job over its partition's MaxTime, MaxNodes or under its "
     "MinNodes, or of an account or QOS it does not allow, is refused at submission "
     "instead of left pending."},
    {"ReconfigFlags", "KeepPartInfo|KeepPartState",
     "scontrol reconfigure reads the partitions from slurm.conf again, dropping what "
     "scontrol changed since; KeepPartInfo keeps those changes, KeepPartState only "
     "each partition's State."},
    {"PriorityType", "plugin",
     "priority/basic (submission order) or priority/multifactor (the weighted "
     "factors below)."},
    {"PriorityWeightAge", "number", "Weight of the age factor in a job's priority."},
    {"PriorityWeightFairshare", "number", "Weight of the fair-share factor."},
    {"PriorityWeightJobSize", "number", "Weight of the job-size factor."},
    {"PriorityWeightPartition", "number", "Weight of the partition's PriorityJobFactor."},
    {"PriorityWeightQOS", "number", "Weight of the QOS priority factor."},
    {"PriorityWeightAssoc", "number",
     "Weight of the association factor: the job's association's Priority over the "
     "largest Priority of any association."},
    {"PriorityWeightTRES", "TRES=weight,...",
     "Weights of the TRES factors (cpu, mem, node): what the job asks for over what "
     "its partition has; a mem weight may carry a unit (M, G, T). Other TRES "
     "(GRES/gpu, billing) are accepted and weigh nothing."},
    {"PriorityMaxAge", "time", "Age at which a job's age factor reaches its maximum."},
    {"PriorityDecayHalfLife", "time",
     "Half-life of recorded usage in fair-share; 0 disables decay."},
    {"PriorityUsageResetPeriod", "NONE|NOW|DAILY|WEEKLY|MONTHLY|QUARTERLY|YEARLY",
     "When recorded usage is cleared."},
    {"PriorityFlags", "flag,...",
     "MAX_TRES (bill the largest TRES instead of their sum) and NO_FAIR_TREE (classic "
     "fair-share) are honoured."},
    {"PriorityFavorSmall", "YES|NO", "Whether the job-size factor favours small jobs."},
    {"ProctrackType", "plugin", SHOWN_ONLY " Rota always tracks processes by cgroup."},
    {"TaskPlugin", "plugin,...",
     "task/affinity binds tasks to CPUs; the cgroup confinement is always on."},
    {"MinJobAge", "seconds",
     "How long a finished job stays visible to squeue and scontrol."},
    {"SlurmdTimeout", "seconds",
     "A node that has stopped answering is set DOWN after this long, and its jobs "
     "handled."},
    {"SlurmctldTimeout", "seconds",
     "How long a standby controller waits for the primary before taking over."},
    {"KillWait", "seconds", "Delay between SIGTERM and SIGKILL when a job is ended."},
    {"ResvOverRun", "minutes|UNLIMITED",
     "How long a job running in a reservation may go on past the reservation's end "
     "(default 0: it ends with it)."},
    {"JobAcctGatherFrequency", "seconds|task=seconds",
     "How often the step daemons sample the tasks' usage."},
    {"JobAcctGatherType", "plugin",
     "jobacct_gather/cgroup or jobacct_gather/linux: where usage samples are read; "
     "jobacct_gather/none turns sampling off."},
    {"MpiDefault", "none|pmi2|pmix",
     "The MPI support of srun's steps when srun has no --mpi: pmi2 serves the PMI-1 and "
     "PMI-2 wire protocols (MPICH, libpmi2), pmix a PMIx server (OpenMPI's direct "
     "launch)."},
    {"MailProg", "path",
     "The program the controller runs as `MailProg -s SUBJECT USER` for --mail-type's "
     "events, as SlurmUser, with SLURM_JOB_* variables."},
    {"MailDomain", "domain", "Added as @domain to a mail user that has none."},
    {"BcastParameters", "DestDir=dir,send_libs,Compression=lz4|none",
     "sbcast's defaults: the directory of relative destinations, --send-libs; files "
     "travel uncompressed."},
    {"BcastExclude", "NONE|dir,...",
     "Directories whose shared libraries sbcast --send-libs does not send."},
    {"ScronParameters", "enable[,...]",
     "With enable, users keep crontabs of recurring batch jobs with scrontab; "
     "without it scrontab is refused."},
    {"KillOnBadExit", "0|1",
     "With 1, srun ends a step's other tasks when one exits non-zero."},
    {"JobRequeue", "0|1", "Whether batch jobs may be requeued by default."},
    {"InactiveLimit", "seconds", SHOWN_ONLY},
    {"MessageTimeout", "seconds", "How long a daemon or command waits for an answer."},
    {"ReturnToService", "0|1|2", SHOWN_ONLY},
    {"SuspendProgram", "path",
     "Program rotactld runs as SlurmUser with the hostlist of the nodes it powers "
     "down; its exit status is ignored."},
    {"ResumeProgram", "path",
     "Program rotactld runs as SlurmUser with the hostlist of the powered down nodes "
     "a job needs; each must register within ResumeTimeout."},
    {"SuspendTime", "seconds|NONE",
     "A node idle this long is handed to SuspendProgram and powered down. NONE, -1 "
     "or INFINITE (the default) turn power saving off."},
    {"SuspendTimeout", "seconds",
     "How long a node takes to power down: it shows POWERING_DOWN (%) that long, then "
     "POWERED_DOWN (~)."},
    {"ResumeTimeout", "seconds",
     "A resumed node whose rotad has not registered after this long is set DOWN "
     "(\"ResumeTimeout reached\") and the jobs waiting for it are requeued. A node "
     "told to reboot (scontrol reboot) whose rotad has not registered again after "
     "this long is set DOWN (\"reboot timed out\")."},
    {"SuspendRate", "nodes/minute", "Most nodes powered down a minute; 0 is unlimited."},
    {"ResumeRate", "nodes/minute", "Most nodes powered up a minute; 0 is unlimited."},
    {"SuspendExcNodes", "hostlist", "Nodes never powered down for being idle."},
    {"SuspendExcParts", "partition,...",
     "Partitions whose nodes are never powered down for being idle."},
    {"RebootProgram", "command",
     "What rotad runs, through /bin/sh, as its own user (root) with SLURMD_NODENAME "
     "set, when scontrol reboot's turn comes for its node; its output goes to rotad's "
     "log. The node counts as rebooted once its rotad registers having started (or "
     "its host booted) after that. Without it scontrol reboot is refused."},
    {"MaxJobCount", "number",
     "Jobs the controller holds at once; a submission beyond it is refused."},
    {"MaxArraySize", "number", "One more than the highest array index allowed."},
    {"OverTimeLimit", "minutes|UNLIMITED",
     "Minutes a job may run past its time limit before it is ended (default 0); a "
     "partition may have its own."},
    {"MaxTasksPerNode", "number",
     "The most tasks of one job step on a node (default 512): a job asking for more "
     "per node, or a step laid out so, is refused (\"Task count specification "
     "invalid\")."},
    {"FirstJobId", "number", "The first job id handed out."},
    {"MaxJobId", "number", "Job ids wrap back to FirstJobId after this one."},
    {"SchedulerTimeSlice", "seconds",
     "With PreemptMode=GANG, how long the jobs sharing cores run before those "
     "suspended beside them take their turn (5 to 65533; 30 by default)."},
    {"DefMemPerCPU", "MB",
     "Memory a job gets per allocated CPU when it asks for none; 0 is unlimited."},
    {"DefMemPerNode", "MB",
     "Memory a job gets per node when it asks for none; 0 is unlimited."},
    {"PrologFlags", "flags",
     "Contain: every job has its extern step (sacct's N.extern rows), as with "
     "Slurm's pam_slurm_adopt; the other flags are accepted."},
    {"Prolog", "path",
     "Program run as root on each node before the job's first tasks there; a failure "
     "drains the node and requeues a batch job (held unless SchedulerParameters has "
     "nohold_on_prolog_fail)."},
    {"MpiParams", "ports=MIN-MAX",
     "Ports the controller reserves for steps, given to their tasks in "
     "SLURM_STEP_RESV_PORTS: srun --resv-ports=N asks N; with this set, a step that "
     "does not say gets its most tasks on a node plus one. A port is given to one step "
     "of a node at a time."},
    {"Epilog", "path",
     "Program rotad runs as root on each node once the job is gone from it; a failure "
     "drains the node."},
    {"TaskProlog", "path",
     "Program run as the user just before each task; the lines it prints, export "
     "NAME=value, unset NAME and print TEXT, change the task's environment or go to "
     "its output."},
    {"SrunProlog", "path",
     "Program srun runs where it is, before each step's tasks start, with the step's "
     "command as arguments; a failure aborts the step.  srun --prolog replaces it."},
    {"SrunEpilog", "path",
     "Program srun runs where it is once each step has ended, with the step's command "
     "as arguments.  srun --epilog replaces it."},
    {"ContainerImageCache", "dir",
     "Rota's own: where each node keeps the images --container-image imports; default "
     "under SlurmdSpoolDir."},
    {"ContainerImageMirror", "dir",
     "Rota's own: a shared directory of image archives nodes import from instead of a "
     "registry."},
    {"AccountingStorageType", "plugin",
     "accounting_storage/slurmdbd sends job records to rotadbd; accounting_storage/none "
     "keeps none."},
    {"AccountingStorageHost", "host", "Where rotadbd runs."},
    {"AccountingStoragePort", "port", "rotadbd's TCP port."},
    {"MaxDBDMsgs", "number",
     "Job events the controller keeps for rotadbd while it is unreachable; 0 picks a "
     "size from MaxJobCount."},
    {"AccountingStorageEnforce", "word,...",
     "associations, limits, qos, safe: what a job must satisfy in the accounting "
     "database to be accepted."},
    {"AccountingStorageTRES", "tres,...",
     "Extra TRES (gres/gpu, gres/gpu:h100, ...) recorded and reported besides cpu, "
     "mem, node and billing."},
    {"PrivateData", "word,...",
     "usage: users see only their own associations, and those of the accounts they "
     "coordinate, in scontrol show assoc_mgr; users: only their own user record "
     "there; all: both; jobs and nodes, with MCSParameters=privatedata: users see "
     "others' jobs and nodes only where their MCS label is one they may use.  "
     "Operators and admins see everything.  Other words are accepted and change "
     "nothing yet."},
    {"MCSPlugin", "mcs/none|mcs/account|mcs/group|mcs/user",
     "Multi-Category Security: what a job's MCS label (sbatch/salloc/srun "
     "--mcs-label) may be.  mcs/none (the default): a job has no label (one given "
     "is dropped, as Slurm).  mcs/account: the job's account.  mcs/group: one of its "
     "user's "
     "groups named in MCSParameters.  mcs/user: its user's name.  A label that "
     "is not allowed is refused at submit (Invalid mcs_label specified).  Labels "
     "show as MCS_label= in scontrol show job and node, squeue -O mcslabel and "
     "sacct -o McsLabel."},
    {"MCSParameters", "word,...[:group|...]",
     "How MCSPlugin labels are used: ondemand or enforced, noselect, select or "
     "ondemandselect, privatedata, then the groups.  ondemand (the default): a job has a "
     "label "
     "when it asks (--mcs-label, or --exclusive=mcs for its default one); "
     "enforced: every job has one (its default when it names none).  select: a "
     "node running a labelled job takes only jobs of the same label (it shows "
     "that MCS_label while they run); ondemandselect (the default): only for "
     "jobs submitted with --exclusive=mcs; noselect: never.  Jobs with no label "
     "or that do not select never share a labelled node.  privatedata: with "
     "PrivateData=jobs (nodes), users see the jobs (nodes) whose label they could "
     "use themselves and those without one, besides their own.  After the colon, "
     "mcs/group's groups, separated by '|': the first one the user belongs to is "
     "the default label; with none the system knows the defaults apply."},
    {"AllowSpecResourcesUsage", "YES|NO",
     "Whether jobs may ask with -S/--core-spec or --thread-spec for cores kept "
     "for the system; without it they are told the option is ignored.  Rota "
     "keeps no cores aside either way."},
    {"TmpFS", "dir",
     "The file system whose size a node reports as its TmpDisk when its node line "
     "sets none (default /tmp); jobs ask for space there with --tmp."},
    {"TopologyPlugin", "plugin",
     "topology/tree or topology/block read topology.conf; topology/flat (the "
     "default) has no topology."},
};

static const struct conf_doc node_doc[] = {
    {"NodeName", "name[range]",
     "Starts a node line; a range (node[01-16]) defines several nodes alike. "
     "NodeName=DEFAULT sets defaults for the lines that follow."},
    {"NodeHostname", "host", "The host's own name, when it differs from NodeName."},
    {"NodeAddr", "addr", "Address rotactld and srun use to reach the node's rotad."},
    {"Port", "port", "rotad's port on this node (several rotad may share a host)."},
    {"CPUs", "number", "Logical CPUs; default the product of the topology below."},
    {"Boards", "number", "Baseboards."},
    {"Sockets", "number", "Sockets in all."},
    {"SocketsPerBoard", "number",
     "Sockets on each board; sets Sockets to Boards times it."},
    {"CoresPerSocket", "number", "Cores on each socket."},
    {"ThreadsPerCore", "number", "Hardware threads on each core."},
    {"RealMemory", "MB", "Memory the node offers to jobs."},
    {"TmpDisk", "MB",
     "Space in the node's temporary file system (TmpFS).  Without it, the size "
     "rotad finds there when the node registers."},
    {"Weight", "number", "Lower weights are allocated first."},
    {"Features", "name,...", "Features jobs can require with --constraint."},
    {"Gres", "name[:type]:count,...",
     "Generic resources of the node; gres.conf says which devices they are."},
    {"State", "state",
     "State at first start: UNKNOWN, IDLE, DOWN, DRAIN, FUTURE, or CLOUD (powered "
     "down until a job needs it; see SuspendProgram)."},
    {"Reason", "text", "Why the node starts DOWN or DRAINED."},
};

static const struct conf_doc part_doc[] = {
    {"PartitionName", "name",
     "Starts a partition line; PartitionName=DEFAULT sets defaults for those that "
     "follow."},
    {"Nodes", "nodelist", "The partition's nodes; ALL for every node."},
    {"Default", "YES|NO", "Jobs that name no partition go to the default one."},
    {"MaxTime", "time", "Longest time limit a job may have here."},
    {"DefaultTime", "time", "Time limit of a job that gives none; default MaxTime."},
    {"MaxNodes", "number", "Most nodes a job may use here."},
    {"MinNodes", "number", "Fewest nodes a job must use here."},
    {"PriorityTier", "number",
     "Jobs of partitions with a higher tier are scheduled first on shared nodes."},
    {"TRESBillingWeights", "tres=weight,...",
     "How a job's TRES are billed in fair-share."},
    {"PriorityJobFactor", "number", "The partition factor of its jobs' priority."},
    {"OverSubscribe", "NO|YES[:N]|FORCE[:N]|EXCLUSIVE",
     "Whether jobs may share CPUs (N at most), or always get whole nodes."},
    {"AllowGroups", "group,...|ALL", "Unix groups whose members may use the partition."},
    {"PreemptMode", "OFF|CANCEL|REQUEUE",
     "What becomes of this partition's jobs when preempted (default: the global "
     "PreemptMode)."},
    {"GraceTime", "seconds",
     "A preempted job of this partition is sent SIGTERM and stopped this many "
     "seconds later (0: at once)."},
    {"State", "UP|DOWN|DRAIN|INACTIVE",
     "UP runs and accepts jobs; DOWN accepts but does not start them; DRAIN starts "
     "but refuses new ones; INACTIVE does neither."},
    {"AllowAccounts", "account,...|ALL",
     "Only jobs of these accounts may use the partition (refused at submission "
     "with EnforcePartLimits, else they wait: InvalidAccount)."},
    {"DenyAccounts", "account,...",
     "Jobs of these accounts may not use the partition; ignored when "
     "AllowAccounts is set."},
    {"AllowQos", "qos,...|ALL",
     "Only jobs of these QOS may use the partition (refused at submission with "
     "EnforcePartLimits, else they wait: InvalidQOS)."},
    {"DenyQos", "qos,...",
     "Jobs of these QOS may not use the partition; ignored when AllowQos is set."},
    {"QOS", "qos",
     "The partition's QOS: its limits also hold every job of the partition, over the "
     "job's own QOS's unless that has Flags=OverPartQOS."},
    {"Alternate", "partition",
     "Where a job submitted while this partition is DRAIN or INACTIVE goes "
     "instead."},
    {"AllocNodes", "node,...|ALL",
     "Hosts jobs may be submitted from (sbatch, srun, salloc), as the command "
     "names its host; from others they are refused: Access/permission "
     "denied."},
    {"Hidden", "YES|NO",
     "A hidden partition is left out of sinfo and scontrol show partition "
     "without -a."},
    {"RootOnly", "YES|NO", "Only root and SlurmUser may submit to the partition."},
    {"ReqResv", "YES|NO", "Jobs must name a reservation (--reservation)."},
    {"ExclusiveUser", "YES|NO",
     "Its jobs get nodes shared with jobs of their own user alone, as with "
     "--exclusive=user."},
    {"LLN", "YES|NO",
     "Its jobs take the least loaded nodes first (the most CPUs free for the "
     "CPUs they have), within a Weight."},
    {"DisableRootJobs", "YES|NO", "Jobs may not run as root in the partition."},
    {"MaxCPUsPerNode", "number|UNLIMITED",
     "The most CPUs of a node its jobs hold together; a job that cannot fit "
     "under it is refused."},
    {"OverTimeLimit", "minutes|UNLIMITED|NONE",
     "Minutes its jobs may run past their time limit; NONE (the default): the "
     "cluster's OverTimeLimit."},
    {"DefMemPerCPU", "MB",
     "Memory its jobs that ask none get per CPU (before slurm.conf's)."},
    {"DefMemPerNode", "MB",
     "Memory its jobs that ask none get per node (before slurm.conf's)."},
    {"MaxMemPerCPU", "MB",
     "A job asking more per CPU gets more CPUs a task instead; one asking "
     "more per node than its CPUs allow is refused (EnforcePartLimits) or "
     "waits (MaxMemPerLimit)."},
    {"MaxMemPerNode", "MB",
     "A job asking more is refused (EnforcePartLimits) or waits "
     "(MaxMemPerLimit)."},
};

static const struct conf_doc sched_doc[] = {
    {"bf_interval", "seconds", "Seconds between backfill passes (30)."},
    {"bf_job_part_count_reserve", "N",
     "Only the first N pending jobs of each partition get a reservation; later ones "
     "start whenever they delay none of those (0: all; 1: EASY backfill)."},
    {"bf_max_job_test", "N", "Pending jobs a backfill pass considers (500)."},
    {"bf_resolution", "seconds", "Time step of the backfill plan (60)."},
    {"bf_window", "minutes", "How far ahead the backfill plan looks (1440)."},
    {"bf_yield_interval", "microseconds",
     "How long a backfill pass runs before it lets the controller answer requests "
     "(50000; Slurm waits 2 seconds and then sleeps, Rota does not sleep)."},
    {"default_queue_depth", "N",
     "Pending jobs a pass started by a submission or completion considers (100); the "
     "periodic pass considers them all."},
    {"journal_compact_mb", "N",
     "Rota's own: the journal is compacted once it exceeds N MB and twice its size "
     "after the last compaction (64)."},
    {"max_switch_wait", "seconds",
     "Longest a job waits for the --switches it asked for before it takes any (300)."},
    {"bf_continue", NULL, "Accepted; a backfill pass that yields always continues."},
    {"kill_invalid_depend", NULL,
     "Cancel jobs whose dependency can never be satisfied instead of leaving them "
     "pending."},
    {"enable_user_top", NULL, "Let users move their own jobs up with scontrol top."},
    {"whole_hetjob", NULL,
     "scancel of a heterogeneous job's component by its own id cancels every "
     "component; without it only that one, and a pending one not at all."},
    {"whole_pack", NULL, "The old name of whole_hetjob."},
    {"nohold_on_prolog_fail", NULL,
     "A batch job whose Prolog fails is requeued to run again; without it, it is "
     "also held (Reason launch_failed_requeued_held) until released. Either way the "
     "node is drained."},
    {"replicate_sync", NULL,
     "Rota's own: with a standby controller, a submission or update is answered only "
     "once the standby's journal holds it too."},
    {"sched_order", "priority|saf_aged",
     "Rota's own: the order jobs are started in within a PriorityTier: by priority "
     "(as Slurm), or smallest estimated area first with aged jobs ahead. squeue and "
     "sprio still show the priority."},
    {"bf_estimate", "requested|predict|learned|best",
     "Rota's own: the run time backfill plans with: the time limit (as Slurm), the "
     "mean of the user's last two run times, or a learned estimate capped by the "
     "limit; best is learned with sched_order=saf_aged and bf_job_part_count_reserve=1 "
     "unless those are set."},
};

static const struct conf_doc gres_doc[] = {
    {"Name", "name",
     "The GRES this line describes (gpu, nic, ...), as GresTypes names it."},
    {"Type", "type", "A model name jobs can ask for (--gres=gpu:h100:2)."},
    {"File", "path[range],...",
     "The device files, one unit each; a job gets access to its own only."},
    {"Count", "number[k|m|g]",
     "Units without device files (counted like a license), or the number of files."},
    {"Cores", "list", "The cores close to these devices (CPUs= is the old name)."},
    {"Links", "list",
     "Link counts to the other devices, for placing a job's GPUs together."},
    {"Flags", "flag,...",
     "CountOnlyEnvVars, nvidia_gpu_env, amd_gpu_env, intel_gpu_env, opencl_env, "
     "no_gpu_env, one_sharing, all_sharing: the environment variables tasks get, and "
     "sharing."},
    {"AutoDetect", "nvml|off",
     "nvml: ask the NVIDIA driver for the GPUs, their cores and links; on its own line "
     "for every node, or with NodeName= for those."},
    {"NodeName", "nodelist", "The nodes this line applies to; without it, every node."},
};

static const struct conf_doc cgroup_doc[] = {
    {"ConstrainDevices", "yes|no",
     "With yes, tasks can open only the device files of the GRES they were allocated "
     "(default no)."},
};

static const struct conf_doc topo_doc[] = {
    {"SwitchName", "name", "topology/tree: starts a switch line."},
    {"Switches", "list", "topology/tree: the switches below this one."},
    {"BlockName", "name", "topology/block: starts a block line."},
    {"BlockSizes", "N,...",
     "topology/block, on its own line: the base block size, then the sizes of "
     "aggregated blocks, in nodes, ascending multiples of the first."},
    {"Nodes", "nodelist", "The nodes on this leaf switch or in this block."},
    {"LinkSpeed", "number", "The switch's relative link speed (1 when not given)."},
};

#define T(a)                                                                             \
	{                                                                                \
		a, sizeof(a) / sizeof(a[0])                                              \
	}
static const struct {
	const struct conf_doc *rows;
	size_t n;
} tables[CONF_DOC_TABLES] = {
    [CONF_DOC_GLOBAL] = T(global_doc), [CONF_DOC_NODE] = T(node_doc),
    [CONF_DOC_PART] = T(part_doc),     [CONF_DOC_SCHED] = T(sched_doc),
    [CONF_DOC_GRES] = T(gres_doc),     [CONF_DOC_CGROUP] = T(cgroup_doc),
    [CONF_DOC_TOPO] = T(topo_doc),
};

const struct conf_doc *conf_doc_table(enum conf_doc_table t, size_t *ret_n)
{
	*ret_n = tables[t].n;
	return tables[t].rows;
}

const struct conf_doc *conf_doc_find(enum conf_doc_table t, const char *name)
{
	for (size_t i = 0; i < tables[t].n; i++)
		if (!strcasecmp(tables[t].rows[i].name, name))
			return &tables[t].rows[i];
	return NULL;
}
