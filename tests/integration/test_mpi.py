"""OpenMPI's mpirun inside Rota allocations, as users run it under Slurm.

mpirun (Debian's openmpi-bin, OpenMPI 4.1) finds the allocation from
SLURM_JOBID, SLURM_NODELIST and SLURM_TASKS_PER_NODE, starts its ranks on its own
node itself and an `orted` on every other node through

    srun --ntasks-per-node=1 --kill-on-bad-exit --mpi=none [--nodes=K
         --nodelist=h1,h2] --ntasks=K orted -mca ess "slurm" ...

(argv words carry literal double quotes; each orted takes its daemon id from
SLURM_NODEID and talks back to mpirun over TCP).  The hello world below does an
MPI_Allreduce, so every rank really joined one MPI_COMM_WORLD, and prints the
SLURM_STEP_ID it inherited: ranks under an orted carry the srun step's id,
ranks mpirun started in the batch shell carry none.

The virtual nodes share this host's network.  Their names resolve only in
root's jobs (test_node_names.py), and OpenMPI does not need them to: it
reaches the nodes through srun, and each orted reports its own TCP addresses
back to mpirun, so no MCA setting is
needed - with one exception: OpenMPI's TCP transport ignores the
loopback interface, so on a host whose only interface is `lo` (a container
without a network) ranks on two virtual nodes could not reach each other; there
the tests set OMPI_MCA_btl_tcp_if_include=lo, as a site would in
openmpi-mca-params.conf.  Jobs of the module cluster run as root: OpenMPI
refuses that unless OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) is set, which the tests
export into the job (sbatch's default --export=ALL); one test runs mpirun as a
real user instead.
"""

import collections
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import IS_ROOT, write_script

HAVE_MPI = bool(shutil.which("mpicc") and shutil.which("mpirun"))
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="OpenMPI (mpicc, mpirun) not "
                                                     "installed: apt-get install "
                                                     "openmpi-bin libopenmpi-dev")


def _only_loopback():
    """True when no network interface but lo is up."""
    try:
        names = os.listdir("/sys/class/net")
    except OSError:
        return False
    for name in names:
        if name == "lo":
            continue
        try:
            with open(f"/sys/class/net/{name}/operstate") as f:
                if f.read().strip() in ("up", "unknown"):
                    return False
        except OSError:
            continue
    return True


NET_ENV = {"OMPI_MCA_btl_tcp_if_include": "lo"} if _only_loopback() else {}
ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            **NET_ENV}

HELLO_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* hello [FAILING_RANK]: every rank prints one line; FAILING_RANK exits 3
 * after the collective instead of finalizing. */
int main(int argc, char **argv)
{
	int rank, size, len, sum = -1;
	char name[MPI_MAX_PROCESSOR_NAME];
	const char *step = getenv("SLURM_STEP_ID");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(name, &len);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("hello rank %d of %d on %s sum %d step %s\n", rank, size, name, sum,
	       step ? step : "none");
	fflush(stdout);
	if (argc > 1 && rank == atoi(argv[1]))
		exit(3);
	MPI_Finalize();
	return 0;
}
"""

LINE_RE = re.compile(r"^hello rank (\d+) of (\d+) on (\S+) sum (-?\d+) step (\S+)$")


def compile_hello(directory):
    src = directory / "hello.c"
    src.write_text(HELLO_C)
    exe = directory / "hello"
    p = subprocess.run(["mpicc", "-o", str(exe), str(src)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, f"mpicc failed: {p.stderr}"
    exe.chmod(0o755)
    return exe


def parse_hello(text):
    """{rank: (size, host, sum, step)} from the hello lines in text (OpenMPI's
    own messages are ignored); a rank printing twice is an error."""
    ranks = {}
    for line in text.splitlines():
        m = LINE_RE.match(line)
        if m:
            rank = int(m.group(1))
            assert rank not in ranks, f"rank {rank} printed twice:\n{text}"
            ranks[rank] = (int(m.group(2)), m.group(3), int(m.group(4)), m.group(5))
    return ranks


def job_nodes(cluster, jobid):
    nodelist = cluster.job_field(jobid, "NodeList")
    p = cluster.run(["scontrol", "show", "hostnames", nodelist], check=True)
    return p.stdout.split()


def check_world(ranks, text, nodes, per_node):
    """Ranks 0..N-1 of one world of N, laid out by slot: per_node on each of
    nodes in order."""
    size = len(nodes) * per_node
    assert sorted(ranks) == list(range(size)), text
    for rank, (rsize, host, total, _) in ranks.items():
        assert rsize == size, text
        assert total == size * (size - 1) // 2, text
        assert host == nodes[rank // per_node], text
    assert collections.Counter(r[1] for r in ranks.values()) == {
        n: per_node for n in nodes}, text


def wait_no_mpi_processes(cluster):
    """No orted or hello of this cluster outlives its job."""
    def gone():
        left = [(pid, argv) for pid, argv in cluster.processes()
                if re.search(r"(^|/)(orted|hello|mpirun)\b", argv)]
        return not left or None
    cluster.wait_for(gone, timeout=20, what="MPI processes to end")


@pytest.fixture
def hello(cluster):
    return compile_hello(cluster.work)


@needs_mpi
def test_mpirun_in_batch_job(cluster, hello):
    """The issue's case: `mpirun ./hello` in an sbatch -N2 --ntasks-per-node=2
    script runs 4 ranks, two per node, the second node's through srun."""
    write_script(cluster.work / "mpi.sh", "#!/bin/bash\nmpirun ./hello\n")
    jobid = cluster.sbatch("-N2", "--ntasks-per-node=2", "-o", "mpi-%j.out",
                           "mpi.sh", env=ROOT_ENV)
    state = cluster.wait_job(jobid, timeout=90)
    text = (cluster.work / f"mpi-{jobid}.out").read_text()
    assert state == "COMPLETED", text
    nodes = job_nodes(cluster, jobid)
    assert len(nodes) == 2
    ranks = parse_hello(text)
    check_world(ranks, text, nodes, 2)
    # mpirun started ranks 0-1 in the batch step itself, ranks 2-3 under the
    # orted of the job's first srun step (step 0).
    assert [ranks[r][3] for r in range(4)] == ["none", "none", "0", "0"], text
    p = cluster.run(["scontrol", "show", "job", str(jobid)])
    assert "ExitCode=0:0" in p.stdout
    wait_no_mpi_processes(cluster)


@needs_mpi
def test_mpirun_under_salloc(cluster, hello):
    """mpirun run by salloc on the submit host has no rank of its own node:
    one srun starts an orted on every node of the allocation (without
    --nodelist, as OpenMPI does when it uses all nodes)."""
    p = cluster.run(["salloc", "-N2", "--ntasks-per-node=2", "mpirun", "./hello"],
                    env=ROOT_ENV, timeout=90)
    assert p.returncode == 0, p.stdout + p.stderr
    m = re.search(r"Granted job allocation (\d+)", p.stderr)
    assert m, p.stderr
    nodes = job_nodes(cluster, int(m.group(1)))
    ranks = parse_hello(p.stdout)
    check_world(ranks, p.stdout, nodes, 2)
    assert {r[3] for r in ranks.values()} == {"0"}, p.stdout
    wait_no_mpi_processes(cluster)


@needs_mpi
def test_failing_rank_fails_the_job(cluster, hello):
    """A rank on the srun-launched node exits 3: mpirun tears the world down,
    exits 3, the job FAILS with 3, and no orted or rank is left behind."""
    write_script(cluster.work / "mpi.sh", "#!/bin/bash\nmpirun ./hello 3\n")
    jobid = cluster.sbatch("-N2", "--ntasks-per-node=2", "-o", "mpi-%j.out",
                           "mpi.sh", env=ROOT_ENV)
    state = cluster.wait_job(jobid, timeout=90)
    text = (cluster.work / f"mpi-{jobid}.out").read_text()
    assert state == "FAILED", text
    assert cluster.job_field(jobid, "ExitCode") == "3:0", text
    assert "exited with non-zero status" in text, text
    wait_no_mpi_processes(cluster)


@needs_mpi
@pytest.mark.skipif(not IS_ROOT, reason="needs root to create a test user")
def test_mpirun_as_user(cluster):
    """Without OpenMPI's run-as-root overrides: a real user's job."""
    from unixusers import as_user, make_users, remove_users, user_work

    users, group = make_users("mpi")
    work = None
    try:
        u = users["mpi"]
        work = user_work()
        compile_hello(pathlib.Path(work))
        write_script(pathlib.Path(work) / "mpi.sh", "#!/bin/bash\nmpirun ./hello\n")
        p = as_user(cluster, u, "sbatch --parsable -N2 --ntasks-per-node=2 "
                    "-o mpi-%j.out mpi.sh", cwd=work, env=NET_ENV)
        assert p.returncode == 0, p.stderr
        jobid = int(p.stdout.strip())
        state = cluster.wait_job(jobid, timeout=90)
        text = (pathlib.Path(work) / f"mpi-{jobid}.out").read_text()
        assert state == "COMPLETED", text
        assert cluster.job_field(jobid, "UserId").startswith(u.name + "("), text
        check_world(parse_hello(text), text, job_nodes(cluster, jobid), 2)
        wait_no_mpi_processes(cluster)
    finally:
        remove_users(users, group)
        if work:
            shutil.rmtree(work, ignore_errors=True)


def test_srun_takes_openmpi_daemon_launch(cluster):
    """The srun line OpenMPI's plm/slurm builds (older releases add
    --cpu_bind=none, a spelling Slurm keeps for them), inside a
    2-tasks-per-node allocation: one task per listed node, SLURM_NODEID counted
    in the step (an orted's daemon id is the base vpid + SLURM_NODEID),
    SLURMD_NODENAME, quoted words passed through unchanged.  Runs without
    OpenMPI installed."""
    probe = ('echo "$(hostname) $SLURM_NODEID $SLURMD_NODENAME $SLURM_STEP_NUM_NODES'
             ' $SLURM_STEP_NODELIST" "$@"')
    script = (
        "#!/bin/bash\n"
        "srun --ntasks-per-node=1 --kill-on-bad-exit --mpi=none --cpu_bind=none "
        "--nodes=2 --nodelist=node02,node03 --ntasks=2 "
        f"bash -c '{probe}' orted -mca ess '\"slurm\"' -mca x '\"a;b c\"'\n")
    write_script(cluster.work / "launch.sh", script)
    jobid = cluster.sbatch("-N3", "--ntasks-per-node=2", "-w", "node[01-03]", "-o",
                           "launch.out", "launch.sh")
    state = cluster.wait_job(jobid, timeout=60)
    text = (cluster.work / "launch.out").read_text()
    assert state == "COMPLETED", text
    assert sorted(text.splitlines()) == [
        'node02 0 node02 2 node[02-03] -mca ess "slurm" -mca x "a;b c"',
        'node03 1 node03 2 node[02-03] -mca ess "slurm" -mca x "a;b c"',
    ], text
