"""MPI launched by srun itself through PMI (srun --mpi=pmi2|pmix, MpiDefault).

`srun --mpi=pmi2 ./app` gives each task PMI_FD, PMI_RANK, PMI_SIZE and
PMI_JOBID; the step daemons serve the PMI-1 wire protocol (MPICH's simple
PMI client, Debian's mpich 4.0) and PMI-2 (Slurm's own libpmi2 from
libpmi2-0-dev), and their fences go through srun to every node.  The clients
here are the real libraries: an MPICH program whose MPI_Allreduce only gives
the right sum when all ranks wired up across nodes, and a libpmi2 program that
puts, fences and reads every rank's keys twice.  `srun --mpi=pmix` is
OpenMPI 4.1's direct launch: each node's PMIx server (rotapmix, OpenPMIx's
server library) gives the ranks their PMIX_* variables and its fences go the
same way.  The module's cluster has MpiDefault=pmi2, as a site running MPICH
sets it.
"""

import collections
import glob
import os
import pathlib
import re
import shutil
import subprocess
import time

import pytest

from conftest import IS_ROOT, module_cluster_with, write_script
from test_mpi import NET_ENV

HAVE_MPICH = bool(shutil.which("mpicc.mpich"))
HAVE_PMI2 = os.path.exists("/usr/include/slurm/pmi2.h")
HAVE_OMPI = bool(shutil.which("mpicc.openmpi"))
needs_mpich = pytest.mark.skipif(not HAVE_MPICH, reason="MPICH not installed: "
                                 "apt-get install mpich libmpich-dev")
needs_ompi = pytest.mark.skipif(not HAVE_OMPI, reason="OpenMPI not installed: "
                                "apt-get install openmpi-bin libopenmpi-dev")
needs_pmi2 = pytest.mark.skipif(not HAVE_PMI2, reason="libpmi2 not installed: "
                                "apt-get install libpmi2-0-dev")

HELLO_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* hello [ABORTING_RANK]: every rank prints one line after an MPI_Allreduce;
 * ABORTING_RANK calls MPI_Abort(3) instead and the others sleep. */
int main(int argc, char **argv)
{
	int rank, size, sum = -1;
	char host[256] = "";

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	gethostname(host, sizeof(host) - 1);
	if (argc > 1) {
		if (rank == atoi(argv[1]))
			MPI_Abort(MPI_COMM_WORLD, 3);
		sleep(120);
	}
	printf("hello rank %d of %d on %s sum %d\n", rank, size, host, sum);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
"""

PMI2_C = r"""
#include <slurm/pmi2.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Two rounds of put, fence and a get of every rank's key (values with ';',
 * '=' and a space, which PMI-2 escapes), then the job attributes. */
int main(void)
{
	int spawned, size, rank, appnum, len, flag = 0, bad = 0;
	char key[64], val[1024], want[64], jobid[64] = "", map[1024] = "", host[256] = "";

	if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS) {
		printf("PMI2_Init failed\n");
		return 1;
	}
	PMI2_Job_GetId(jobid, sizeof(jobid));
	for (int round = 0; round < 2; round++) {
		snprintf(key, sizeof(key), "k%d-%d", round, rank);
		snprintf(val, sizeof(val), "v%d;%d=x y", round, rank);
		if (PMI2_KVS_Put(key, val) != PMI2_SUCCESS || PMI2_KVS_Fence() != PMI2_SUCCESS)
			bad++;
		for (int r = 0; r < size; r++) {
			snprintf(key, sizeof(key), "k%d-%d", round, r);
			snprintf(want, sizeof(want), "v%d;%d=x y", round, r);
			if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, val, sizeof(val), &len) !=
			        PMI2_SUCCESS || strcmp(val, want))
				bad++;
		}
	}
	if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, "no-such-key", val, sizeof(val), &len) ==
	    PMI2_SUCCESS)
		bad++;
	PMI2_Info_GetJobAttr("PMI_process_mapping", map, sizeof(map), &flag);
	gethostname(host, sizeof(host) - 1);
	printf("pmi2 rank %d of %d on %s jobid %s spawned %d map %s bad %d\n", rank, size,
	       host, jobid, spawned, flag ? map : "-", bad);
	PMI2_Finalize();
	return 0;
}
"""

ENV_SH = "#!/bin/sh\necho \"$SLURM_PROCID ${PMI_FD:-none} ${PMI_RANK:-none} " \
         "${PMI_SIZE:-none} ${PMI_JOBID:-none} ${SLURM_MPI_TYPE:-none}\"\n"

HELLO_RE = re.compile(r"^hello rank (\d+) of (\d+) on (\S+) sum (-?\d+)$", re.M)
PMI2_RE = re.compile(r"^pmi2 rank (\d+) of (\d+) on (\S+) jobid (\S+) spawned (\d+) "
                     r"map (\S+) bad (\d+)$", re.M)


def _add_mpi_default(path):
    with open(path, "a") as f:
        f.write("MpiDefault=pmi2\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(_add_mpi_default)


def _compile(directory, name, source, cc, *libs):
    src = pathlib.Path(directory) / f"{name}.c"
    src.write_text(source)
    exe = pathlib.Path(directory) / name
    p = subprocess.run([cc, "-o", str(exe), str(src), *libs], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, f"{cc} failed: {p.stderr}"
    exe.chmod(0o755)
    return exe


def mapping(hosts_by_rank):
    """MPICH's PMI_process_mapping for ranks laid out by block over the nodes
    in order: (vector,(first node,nodes,ranks each),...)."""
    counts = list(collections.Counter(hosts_by_rank).values())
    parts, i = [], 0
    while i < len(counts):
        j = i
        while j < len(counts) and counts[j] == counts[i]:
            j += 1
        parts.append(f"({i},{j - i},{counts[i]})")
        i = j
    return "(vector," + ",".join(parts) + ")"


def check_hello(text, size, nnodes):
    ranks = {int(m[0]): m for m in HELLO_RE.findall(text)}
    assert sorted(ranks) == list(range(size)), text
    for m in ranks.values():
        assert int(m[1]) == size and int(m[3]) == size * (size - 1) // 2, text
    hosts = [ranks[r][2] for r in range(size)]
    assert len(set(hosts)) == nnodes, text
    # block layout: each node's ranks are consecutive
    assert hosts == sorted(hosts, key=hosts.index), text


@needs_mpich
def test_mpich_ranks_wire_up_across_nodes(cluster):
    """The issue's case: MPICH `srun --mpi=pmi2 -N2 -n4 ./hello` reports ranks
    0-3 of 4 and the MPI_Allreduce of the ranks gives 6 on every rank."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.mpich")
    p = cluster.run(["srun", "--mpi=pmi2", "-N2", "-n4", "./hello"], cwd=cluster.work,
                    timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    check_hello(p.stdout, 4, 2)


@needs_mpich
def test_mpich_in_batch_job_with_mpi_default(cluster):
    """MpiDefault=pmi2: a plain `srun ./hello` in a batch script (as sites
    write it) wires up 6 ranks on 3 nodes; the batch shell itself has no PMI."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.mpich")
    write_script(cluster.work / "job.sh",
                 "#!/bin/bash\necho \"batch ${PMI_FD:-nopmi}\"\nsrun ./hello\n")
    jobid = cluster.sbatch("-N3", "-n6", "-o", "out-%j", "job.sh", cwd=cluster.work)
    state = cluster.wait_job(jobid, timeout=120)
    text = (cluster.work / f"out-{jobid}").read_text()
    assert state == "COMPLETED", text
    assert "batch nopmi" in text
    check_hello(text, 6, 3)


@needs_pmi2
def test_libpmi2_put_fence_get(cluster):
    """Slurm's libpmi2 speaks the PMI-2 wire protocol: two fences over three
    nodes, every rank's key read back (';' escaped), a missing key not
    found, the job id "job.step" and PMI_process_mapping of the layout."""
    _compile(cluster.work, "pmi2t", PMI2_C, "cc", "-lpmi2")
    p = cluster.run(["srun", "--mpi=pmi2", "-N3", "-n5", "./pmi2t"], cwd=cluster.work,
                    timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {int(m[0]): m for m in PMI2_RE.findall(p.stdout)}
    assert sorted(rows) == list(range(5)), p.stdout + p.stderr
    hosts = [rows[r][2] for r in range(5)]
    assert len(set(hosts)) == 3, p.stdout
    jobids = {rows[r][3] for r in rows}
    assert len(jobids) == 1 and re.fullmatch(r"\d+\.0", jobids.pop()), p.stdout
    for r, m in rows.items():
        assert m[1] == "5" and m[4] == "0" and m[6] == "0", p.stdout
        assert m[5] == mapping(hosts), p.stdout


def test_task_environment(cluster):
    """Each task gets its PMI_FD, PMI_RANK = its rank, PMI_SIZE, PMI_JOBID
    and SLURM_MPI_TYPE; --mpi=none (and SLURM_MPI_TYPE=none) give none of
    them although MpiDefault=pmi2."""
    write_script(cluster.work / "env.sh", ENV_SH)
    p = cluster.run(["srun", "-N2", "-n3", "./env.sh"], cwd=cluster.work, check=True)
    rows = sorted(line.split() for line in p.stdout.splitlines())
    assert [r[0] for r in rows] == ["0", "1", "2"], p.stdout
    for r in rows:
        assert r[1].isdigit() and r[2] == r[0] and r[3] == "3", p.stdout
        assert re.fullmatch(r"\d+\.\d+", r[4]) and r[5] == "pmi2", p.stdout
    for args, env in ((["--mpi=none"], None), ([], {"SLURM_MPI_TYPE": "none"})):
        p = cluster.run(["srun", *args, "-n2", "./env.sh"], cwd=cluster.work,
                        check=True, env=env)
        for line in p.stdout.splitlines():
            assert line.split()[1:5] == ["none"] * 4, p.stdout


@needs_mpich
def test_mpi_abort_ends_the_step(cluster):
    """A rank's MPI_Abort ends every task of the step at once (the others
    sleep two minutes) and srun fails."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.mpich")
    t0 = time.monotonic()
    p = cluster.run(["srun", "--mpi=pmi2", "-N2", "-n4", "./hello", "2"],
                    cwd=cluster.work, timeout=100)
    assert p.returncode != 0, p.stdout + p.stderr
    assert time.monotonic() - t0 < 90, p.stderr
    assert "MPI_Abort" in p.stderr, p.stderr
    assert "hello rank" not in p.stdout


def test_mpi_type_checked(cluster):
    """--mpi=list names the types; an unknown one is refused in Slurm's words
    and starts nothing."""
    p = cluster.run(["srun", "--mpi=list"])
    assert p.returncode == 0
    assert p.stdout == ("MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\n"
                        "specific pmix plugin versions available: pmix_v4\n")
    p = cluster.run(["srun", "--mpi=bogus", "true"])
    assert p.returncode == 1
    assert "error: Invalid MPI type 'bogus', --mpi=list for acceptable types" in \
        p.stderr
    p = cluster.run(["squeue", "-h"])
    assert p.stdout == ""


def _hello_as_user(cluster, tag, cc, mpi, env=None):
    """`srun --mpi=MPI -N2 -n4 ./hello` (built with cc) as a new real user."""
    from unixusers import as_user, make_users, remove_users, user_work

    users, group = make_users(tag)
    work = None
    try:
        work = user_work()
        _compile(work, "hello", HELLO_C, cc)
        p = as_user(cluster, users[tag], f"srun --mpi={mpi} -N2 -n4 ./hello",
                    cwd=work, timeout=120, env=env)
        assert p.returncode == 0, p.stdout + p.stderr
        check_hello(p.stdout, 4, 2)
    finally:
        remove_users(users, group)
        if work:
            shutil.rmtree(work, ignore_errors=True)


@needs_mpich
@pytest.mark.skipif(not IS_ROOT, reason="needs root to create a test user")
def test_mpich_as_user(cluster):
    """A real user's ranks (their PMI socket inherited, no path to reach)."""
    _hello_as_user(cluster, "pmi", "mpicc.mpich", "pmi2")


@needs_ompi
def test_openmpi_direct_launch(cluster):
    """The issue's case: OpenMPI `srun --mpi=pmix -N2 -n4 ./hello` (no
    mpirun) reports ranks 0-3 of 4 with the right MPI_Allreduce; the PMIx
    servers and their directories are gone after the step."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.openmpi")
    p = cluster.run(["srun", "--mpi=pmix", "-N2", "-n4", "./hello"], cwd=cluster.work,
                    timeout=120, env=NET_ENV)
    assert p.returncode == 0, p.stdout + p.stderr
    check_hello(p.stdout, 4, 2)
    spool = cluster.conf_value("SlurmdSpoolDir").replace("%n", "*")
    cluster.wait_for(lambda: not [a for _, a in cluster.processes() if "rotapmix" in a]
                     and not glob.glob(os.path.join(spool, "pmix.*")),
                     what="the PMIx servers and their directories to go")


@needs_ompi
def test_openmpi_one_node_and_variables(cluster):
    """One node fences alone; each task has its PMIx namespace and rank."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.openmpi")
    p = cluster.run(["srun", "--mpi=pmix_v4", "-N1", "-n3", "./hello"],
                    cwd=cluster.work, timeout=120, env=NET_ENV)
    assert p.returncode == 0, p.stdout + p.stderr
    check_hello(p.stdout, 3, 1)
    write_script(cluster.work / "penv.sh",
                 "#!/bin/sh\necho \"$SLURM_PROCID $PMIX_RANK $PMIX_NAMESPACE "
                 "$SLURM_MPI_TYPE ${PMI_FD:-none}\"\n")
    p = cluster.run(["srun", "--mpi=pmix", "-N2", "-n3", "./penv.sh"],
                    cwd=cluster.work, check=True)
    rows = sorted(line.split() for line in p.stdout.splitlines())
    assert [r[0] for r in rows] == ["0", "1", "2"], p.stdout
    for r in rows:
        assert r[1] == r[0] and re.fullmatch(r"slurm\.pmix\.\d+\.\d+", r[2]), p.stdout
        assert r[3] == "pmix" and r[4] == "none", p.stdout


@needs_ompi
def test_openmpi_abort_ends_the_step(cluster):
    """MPI_Abort under PMIx ends every rank of the step at once."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.openmpi")
    t0 = time.monotonic()
    p = cluster.run(["srun", "--mpi=pmix", "-N2", "-n4", "./hello", "1"],
                    cwd=cluster.work, timeout=100, env=NET_ENV)
    assert p.returncode != 0, p.stdout + p.stderr
    assert time.monotonic() - t0 < 90, p.stderr
    assert "hello rank" not in p.stdout


@needs_ompi
@pytest.mark.skipif(not IS_ROOT, reason="needs root to create a test user")
def test_openmpi_direct_launch_as_user(cluster):
    """A real user's ranks reach a PMIx server that runs as that user."""
    _hello_as_user(cluster, "pmix", "mpicc.openmpi", "pmix", env=NET_ENV)


def _cyclic_hosts(text, size):
    ranks = {int(m[0]): m for m in HELLO_RE.findall(text)}
    assert sorted(ranks) == list(range(size)), text
    for m in ranks.values():
        assert int(m[1]) == size and int(m[3]) == size * (size - 1) // 2, text
    return [ranks[r][2] for r in range(size)]


@needs_mpich
def test_mpich_cyclic_distribution(cluster):
    """srun -m cyclic: ranks alternate between the nodes, and MPICH, which
    finds its node-local peers from PMI_process_mapping, still wires up."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.mpich")
    p = cluster.run(["srun", "--mpi=pmi2", "-N2", "--ntasks-per-node=2", "-m", "cyclic",
                     "./hello"], cwd=cluster.work, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    hosts = _cyclic_hosts(p.stdout, 4)
    assert hosts[0] == hosts[2] and hosts[1] == hosts[3] and hosts[0] != hosts[1], \
        p.stdout


@needs_pmi2
def test_libpmi2_mapping_of_cyclic_and_plane(cluster):
    """PMI_process_mapping describes the ranks as -m numbered them."""
    _compile(cluster.work, "pmi2t", PMI2_C, "cc", "-lpmi2")
    # 4 tasks on the first node, 2 on the second
    for dist, want in (("cyclic", "(vector,(0,2,1),(0,2,1),(0,1,2))"),
                       ("plane=2", "(vector,(0,2,2))")):
        p = cluster.run(["srun", "--mpi=pmi2", "-N2", "-n6", "--ntasks-per-node=4",
                         "-m", dist, "./pmi2t"], cwd=cluster.work, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
        rows = {int(m[0]): m for m in PMI2_RE.findall(p.stdout)}
        assert sorted(rows) == list(range(6)), p.stdout
        assert {m[5] for m in rows.values()} == {want}, (dist, p.stdout)
        assert {m[6] for m in rows.values()} == {"0"}, p.stdout
    # the shortest list that MPICH repeats over all ranks, however many
    p = cluster.run(["srun", "--mpi=pmi2", "-O", "-N2", "-n40", "-m", "cyclic",
                     "./pmi2t"], cwd=cluster.work, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {int(m[0]): m for m in PMI2_RE.findall(p.stdout)}
    assert sorted(rows) == list(range(40)), p.stdout
    assert {m[5] for m in rows.values()} == {"(vector,(0,2,1))"}, p.stdout


@needs_ompi
def test_openmpi_cyclic_distribution(cluster):
    """PMIx's maps follow -m cyclic: OpenMPI's ranks alternate between the
    nodes and still reduce right."""
    _compile(cluster.work, "hello", HELLO_C, "mpicc.openmpi")
    p = cluster.run(["srun", "--mpi=pmix", "-N2", "--ntasks-per-node=2", "-m", "cyclic",
                     "./hello"], cwd=cluster.work, timeout=120, env=NET_ENV)
    assert p.returncode == 0, p.stdout + p.stderr
    hosts = _cyclic_hosts(p.stdout, 4)
    assert hosts[0] == hosts[2] and hosts[1] == hosts[3] and hosts[0] != hosts[1], \
        p.stdout
