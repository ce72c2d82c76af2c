"""sinfo: default output, node-oriented long output, formats and node states."""

import re
import time

SINFO_HEADER = "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"


def node_states(cluster):
    p = cluster.run("sinfo -h -N -o '%N %t'")
    assert p.returncode == 0, p.stderr
    return dict(line.split() for line in p.stdout.splitlines())


def test_default_output(cluster):
    p = cluster.run("sinfo")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (SINFO_HEADER + "\n"
                        "debug*       up    1:00:00      4   idle node[01-04]\n")


def test_long_node_oriented(cluster):
    p = cluster.run("sinfo -N -l")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    header = [line for line in lines if line.startswith("NODELIST")]
    assert header and header[0].split()[:4] == ["NODELIST", "NODES", "PARTITION", "STATE"]
    rows = [line.split() for line in lines if line.startswith("node")]
    assert [r[0] for r in rows] == ["node01", "node02", "node03", "node04"]
    assert all(r[1] == "1" and r[2] == "debug*" and r[3] == "idle" for r in rows)


def test_format_and_filters(cluster):
    p = cluster.run("sinfo -h -o '%P %N %T'")
    assert p.stdout == "debug* node[01-04] idle\n"
    p = cluster.run("sinfo -h -o %P")
    assert p.stdout == "debug*\n"
    p = cluster.run("sinfo -h -t idle -o %D")
    assert p.stdout.strip() == "4"
    p = cluster.run("sinfo -h -t alloc -o %D")
    assert p.stdout.strip() in ("", "0")
    p = cluster.run("sinfo -h -p nosuchpart")
    assert p.stdout.strip() == ""


def test_alloc_and_mix(cluster):
    full = cluster.sbatch("-N", "1", "-w", "node01", "--ntasks-per-node=8",
                          "--wrap", "sleep 60")
    part = cluster.sbatch("-N", "1", "-w", "node02", "-n", "1", "--mem=1G",
                          "--wrap", "sleep 60")
    cluster.wait_running(full)
    cluster.wait_running(part)
    states = node_states(cluster)
    assert states["node01"] == "alloc"
    assert states["node02"] == "mix"
    assert states["node03"] == "idle"


def test_drain_and_resume(cluster):
    try:
        p = cluster.run("scontrol update NodeName=node04 State=DRAIN Reason=maint")
        assert p.returncode == 0, p.stderr
        assert node_states(cluster)["node04"] == "drain"
        p = cluster.run("sinfo")
        assert "drain node04" in p.stdout
        assert "idle node[01-03]" in p.stdout
        show = cluster.run("scontrol show node node04")
        assert "Reason=maint" in show.stdout
        assert "State=IDLE+DRAIN" in show.stdout
        # a drained node takes no new work
        jobid = cluster.sbatch("-w", "node04", "--wrap", "true")
        time.sleep(2)
        p = cluster.run(f"squeue -h -j {jobid} -o %t")
        assert p.stdout.strip() == "PD"
        cluster.run(f"scancel {jobid}")
    finally:
        p = cluster.run("scontrol update NodeName=node04 State=RESUME")
    assert p.returncode == 0, p.stderr
    assert node_states(cluster)["node04"] == "idle"


def test_update_unknown_node(cluster):
    p = cluster.run("scontrol update NodeName=nosuch State=DRAIN Reason=x")
    assert p.returncode != 0
    assert p.stderr.strip()


def test_verbose_prints_options_first(cluster):
    """-v prints the options in effect ("name = value") before the report."""
    p = cluster.run("sinfo -v -p debug")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "-" * 29
    assert "iterate     = 0" in lines
    assert "partition   = debug" in lines
    assert "verbose     = 1" in lines
    assert p.stdout.index("verbose     = 1") < p.stdout.index("PARTITION")


def test_hostnames_listed_once(cluster):
    """%n and %o: nodes are grouped by host name and address, each printed
    once (here all four nodes share one host), as Slurm does."""
    show = cluster.run("scontrol show node node01").stdout
    host = re.search(r"NodeHostName=(\S+)", show).group(1)
    addr = re.search(r"NodeAddr=(\S+)", show).group(1)
    p = cluster.run("sinfo -h -o '%n|%o|%N'")
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"{host}|{addr}|node[01-04]\n"


def test_conflicting_partition_options(cluster):
    """-a with -p, or SINFO_ALL with SINFO_PARTITION: Slurm's refusal; -a
    over SINFO_PARTITION and -p over SINFO_ALL are fine."""
    p = cluster.run("sinfo -a -p debug")
    assert p.returncode == 1
    assert p.stderr == ("sinfo: error: Conflicting options, -a and -p, specified. "
                        "Please choose one or the other.\n")
    p = cluster.run("sinfo", env={"SINFO_ALL": "1", "SINFO_PARTITION": "debug"})
    assert p.returncode == 1
    assert "Conflicting options, SINFO_ALL and SINFO_PARTITION" in p.stderr
    p = cluster.run("sinfo -h -o %P -a", env={"SINFO_PARTITION": "debug"})
    assert (p.returncode, p.stdout) == (0, "debug*\n")
    p = cluster.run("sinfo -h -o %P -p debug", env={"SINFO_ALL": "1"})
    assert (p.returncode, p.stdout) == (0, "debug*\n")
