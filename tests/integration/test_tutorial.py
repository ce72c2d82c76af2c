"""The examples of the Slurm tutorial (shared/seeds/003_...) run on Rota as
written: srun across nodes, the multi-node batch demo, the CPU job, salloc, a job
array, requests larger than the cluster, pending reasons and scancel."""

import re
import socket

from conftest import IS_ROOT, write_script

MULTI_NODE_DEMO = """#!/bin/bash
#SBATCH --job-name=multi-node-demo
#SBATCH --partition=debug
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:05:00
#SBATCH --output=slurm-%j.out
echo "job id: $SLURM_JOB_ID"
echo "allocated nodes: $SLURM_JOB_NODELIST"
srun --label bash -c 'echo "task=$SLURM_PROCID host=$(hostname)"'
"""

CPU_DEMO = """#!/bin/bash
#SBATCH --job-name=cpu-demo
#SBATCH --partition=debug
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=8
#SBATCH --mem=16G
#SBATCH --time=00:30:00
#SBATCH --output=slurm-%j.out
export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
srun ./my-cpu-program
"""

# The tutorial's array example, with `python process.py ...` replaced by a
# command that needs no Python program.
ARRAY_DEMO = """#!/bin/bash
#SBATCH --job-name=array-demo
#SBATCH --array=0-99%10
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --time=00:10:00
#SBATCH --output=logs/%A_%a.out
echo "inputs/input-${SLURM_ARRAY_TASK_ID}.json"
"""

SQUEUE_FMT = "%.18i %.9P %.20j %.2t %.10M %.6D %R"
SQUEUE_FMT_HEADER = (f"{'JOBID':>18} {'PARTITION':>9} {'NAME':>20} {'ST':>2} "
                     f"{'TIME':>10} {'NODES':>6} NODELIST(REASON)")


def host_of(node):
    """What `hostname` prints inside a task on node: the node name as root (each
    node has its own UTS namespace), the real host name otherwise."""
    return node if IS_ROOT else socket.gethostname()


def test_sinfo_nodes_idle(cluster):
    p = cluster.run("sinfo -N -l")
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if line.startswith("node")]
    assert [r.split()[0] for r in rows] == ["node01", "node02", "node03", "node04"]
    assert all(r.split()[3] == "idle" for r in rows), p.stdout


def test_srun_two_nodes_label(cluster):
    p = cluster.run("srun --nodes=2 --ntasks-per-node=1 --label hostname")
    assert p.returncode == 0, p.stderr
    lines = sorted(p.stdout.splitlines())
    assert len(lines) == 2, p.stdout
    assert lines[0].startswith("0: ") and lines[1].startswith("1: "), p.stdout
    assert lines == [f"0: {host_of('node01')}", f"1: {host_of('node02')}"]


def test_srun_nodes_hostname(cluster):
    p = cluster.run("srun --nodes=2 hostname")
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.split()) == sorted([host_of("node01"), host_of("node02")])


def test_multi_node_demo(cluster):
    write_script(cluster.work / "multi-node-demo.sh", MULTI_NODE_DEMO)
    p = cluster.run("sbatch multi-node-demo.sh")
    assert p.returncode == 0, p.stderr
    m = re.fullmatch(r"Submitted batch job (\d+)\n", p.stdout)
    assert m, p.stdout
    assert p.stderr == ""
    jobid = int(m.group(1))
    # squeue lists it (pending, running or, at the latest, just completed)
    q = cluster.run("squeue -t all")
    assert q.returncode == 0 and str(jobid) in q.stdout, q.stdout + q.stderr
    assert cluster.wait_job(jobid) == "COMPLETED"
    out = (cluster.work / f"slurm-{jobid}.out").read_text().splitlines()
    assert out[0] == f"job id: {jobid}"
    assert out[1] == "allocated nodes: node[01-02]"
    assert sorted(out[2:]) == [
        f"0: task=0 host={host_of('node01')}",
        f"1: task=1 host={host_of('node01')}",
        f"2: task=2 host={host_of('node02')}",
        f"3: task=3 host={host_of('node02')}",
    ]


def test_cpu_demo(cluster):
    write_script(cluster.work / "cpu-demo.sh", CPU_DEMO)
    write_script(cluster.work / "my-cpu-program",
                 '#!/bin/sh\necho "threads=$OMP_NUM_THREADS cpus=$SLURM_CPUS_PER_TASK"\n')
    jobid = cluster.sbatch("cpu-demo.sh")
    assert cluster.wait_job(jobid) == "COMPLETED"
    out = (cluster.work / f"slurm-{jobid}.out").read_text()
    assert out == "threads=8 cpus=8\n"
    assert cluster.job_field(jobid, "NumCPUs") == "8"


def test_salloc_then_srun(cluster):
    p = cluster.run("salloc --nodes=2 --time=00:20:00",
                    input="srun --nodes=2 hostname\nexit\n",
                    env={"SHELL": "/bin/bash"})
    assert p.returncode == 0, p.stderr
    m = re.search(r"salloc: Granted job allocation (\d+)", p.stderr)
    assert m, p.stderr
    assert f"salloc: Relinquishing job allocation {m.group(1)}" in p.stderr
    assert sorted(p.stdout.split()) == sorted([host_of("node01"), host_of("node02")])


def test_array_demo(cluster):
    (cluster.work / "logs").mkdir()
    write_script(cluster.work / "array-demo.sh", ARRAY_DEMO)
    jobid = cluster.sbatch("array-demo.sh")

    def all_done():
        p = cluster.run(["squeue", "-h", "-r", "-o", "%i"])
        return p.returncode == 0 and not p.stdout.strip()
    cluster.wait_for(all_done, timeout=120, what="array tasks to finish")
    for i in range(100):
        out = cluster.work / "logs" / f"{jobid}_{i}.out"
        assert out.read_text() == f"inputs/input-{i}.json\n"


def test_too_many_nodes_rejected(cluster):
    write_script(cluster.work / "multi-node-demo.sh", MULTI_NODE_DEMO)
    p = cluster.run("sbatch -N 10 multi-node-demo.sh")
    assert p.returncode == 1
    assert p.stdout == ""
    assert p.stderr == ("sbatch: error: Batch job submission failed: "
                        "Node count specification invalid\n")


def test_too_much_memory_rejected(cluster):
    write_script(cluster.work / "cpu-demo.sh", CPU_DEMO)
    p = cluster.run("sbatch --mem=200G cpu-demo.sh")
    assert p.returncode == 1
    assert p.stdout == ""
    assert p.stderr == ("sbatch: error: Batch job submission failed: "
                        "Requested node configuration is not available\n")


def squeue_line(cluster, jobid):
    p = cluster.run(["squeue", "-j", str(jobid), "-o", SQUEUE_FMT])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == SQUEUE_FMT_HEADER
    return lines[1] if len(lines) > 1 else ""


def test_pending_reasons_and_scancel(cluster):
    # fill every CPU of every node
    blocker = cluster.sbatch("-N", "4", "--ntasks-per-node=8", "--wrap", "sleep 300")
    assert cluster.wait_running(blocker) == "RUNNING"
    first = cluster.sbatch("-N", "2", "-J", "needs-two", "--wrap", "true")
    later = cluster.sbatch("-N", "1", "-J", "needs-one", "--wrap", "true")

    want_first = re.compile(rf"^ +{first} +debug +needs-two +PD +0:00 +2 \(Resources\)$")
    want_later = re.compile(rf"^ +{later} +debug +needs-one +PD +0:00 +1 \(Priority\)$")
    cluster.wait_for(lambda: want_first.match(squeue_line(cluster, first)), 15,
                     "the first waiting job to show (Resources)")
    cluster.wait_for(lambda: want_later.match(squeue_line(cluster, later)), 15,
                     "the later job to show (Priority)")
    # the columns are right-aligned to the widths asked for
    line = squeue_line(cluster, first)
    assert line[:18].strip() == str(first) and line[18] == " "

    for jobid in (later, first, blocker):
        p = cluster.run(["scancel", str(jobid)])
        assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p.stderr
    assert cluster.wait_job(first) == "CANCELLED"
    assert cluster.wait_job(blocker) == "CANCELLED"
    show = cluster.run(["scontrol", "show", "job", str(first)])
    assert show.returncode == 0
    assert f"JobId={first} " in show.stdout
    assert "JobState=CANCELLED" in show.stdout


def test_scontrol_show_job(cluster):
    jobid = cluster.sbatch("--hold", "-J", "shown", "--wrap", "true")
    p = cluster.run(["scontrol", "show", "job", str(jobid)])
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"JobId={jobid} JobName=shown\n")
    assert "JobState=PENDING" in p.stdout
    assert re.search(r"^   ", p.stdout.splitlines()[1]), "continuation lines indent 3"


def test_squeue_user(cluster):
    jobid = cluster.sbatch("--hold", "--wrap", "true")
    p = cluster.run(f"squeue -u {cluster.user}")
    assert p.returncode == 0, p.stderr
    assert any(line.split()[0] == str(jobid) for line in p.stdout.splitlines()[1:])
    other = "nobody" if cluster.user != "nobody" else "root"
    p = cluster.run(f"squeue -h -u {other}")
    assert p.returncode == 0 and str(jobid) not in p.stdout.split()
