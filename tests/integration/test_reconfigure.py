"""scontrol reconfigure and SIGHUP: slurm.conf read again and applied with
the jobs untouched: a node and a partition added, an idle node removed;
refused with the running configuration kept when the file does not load
(file:line), when a key needs a restart, or when a node in use would go."""
import os
import re
import signal
import socket


def read(c):
    with open(c.conf_path) as f:
        return f.read()


def write(c, text):
    with open(c.conf_path, "w") as f:
        f.write(text)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def reconfigure(c):
    return c.run(["scontrol", "reconfigure"])


def partitions(c):
    return c.run(["sinfo", "-h", "-o", "%P %D %N"]).stdout.split("\n")


def test_add_a_node_and_a_partition(make_cluster):
    c = make_cluster()
    running = c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap", "sleep 60")
    c.wait_running(running)
    host = re.search(r"NodeHostname=(\S+)", read(c)).group(1)
    write(c, read(c) + f"NodeName=node05 NodeHostname={host} NodeAddr=127.0.0.1 "
                       f"Port={free_port()} CPUs=2 RealMemory=2048 State=UNKNOWN\n"
                       "PartitionName=extra Nodes=node05 MaxTime=10 State=UP\n")
    p = reconfigure(c)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and p.stderr == ""
    assert any(line.startswith("extra 1 node05") for line in partitions(c))
    c.up()  # its node daemon
    c.wait_for(lambda: "idle" in c.run(["sinfo", "-h", "-n", "node05", "-o", "%T"]).stdout,
               what="node05 up")
    jid = c.sbatch("-p", "extra", "-o", "/dev/null", "--wrap", "hostname")
    c.wait_job(jid)
    assert c.job_state(jid) == "COMPLETED"
    assert c.job_field(jid, "NodeList") == "node05"
    # the job that ran through it is untouched
    assert c.job_state(running) == "RUNNING"
    assert c.job_field(running, "NodeList") == "node01"
    c.run(["scancel", str(running)])
    c.wait_job(running)


def test_bad_file_keeps_the_running_configuration(make_cluster):
    c = make_cluster()
    before = partitions(c)
    good = read(c)
    write(c, good + "NodeName=node09 CPUs=abc\n")
    line = len(good.splitlines()) + 1
    # scontrol reads the same file: it says so itself
    p = reconfigure(c)
    assert p.returncode == 1
    assert f"slurm.conf:{line}: CPUs=abc" in p.stderr, p.stderr
    # the controller, asked by SIGHUP, refuses it and keeps what it runs
    log = os.path.join(c.dir, "log", "rotactld.log")
    os.kill(c.pid("rotactld"), signal.SIGHUP)
    c.wait_for(lambda: f"SIGHUP: slurm.conf not applied: {c.conf_path}:{line}: "
                       "CPUs=abc" in open(log).read(), what="the refusal logged")
    write(c, good)
    assert partitions(c) == before
    jid = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(jid)
    assert c.job_state(jid) == "COMPLETED"


def test_a_key_that_needs_a_restart_is_refused(make_cluster):
    c = make_cluster()
    good = read(c)
    write(c, re.sub(r"(?m)^SlurmctldPort=\d+$", f"SlurmctldPort={free_port()}", good))
    p = reconfigure(c)
    assert p.returncode == 1
    assert "SlurmctldPort changed" in p.stderr, p.stderr
    write(c, good)
    assert c.run(["sinfo"]).returncode == 0


def test_remove_a_node(make_cluster):
    c = make_cluster()
    running = c.sbatch("-w", "node04", "-o", "/dev/null", "--wrap", "sleep 60")
    c.wait_running(running)
    good = read(c)
    # node04 goes: its name, and its port from the range
    m = re.search(r"Port=\[(\d+)-(\d+)\]", good)
    write(c, good.replace("node[01-04]", "node[01-03]").replace(
        m.group(0), f"Port=[{m.group(1)}-{int(m.group(2)) - 1}]"))
    p = reconfigure(c)
    assert p.returncode == 1
    assert "node node04 is in use" in p.stderr, p.stderr
    assert "node04" in c.run(["sinfo", "-h", "-N", "-o", "%N"]).stdout
    # once it is free it may go; its daemon stops with it here
    c.run(["scancel", str(running)])
    c.wait_job(running)
    c.wait_nodes_idle()
    c.kill_daemon("rotad-node04")
    p = reconfigure(c)
    assert p.returncode == 0, p.stderr
    assert c.run(["sinfo", "-h", "-N", "-o", "%N"]).stdout.split() == \
        ["node01", "node02", "node03"]
    jid = c.sbatch("-N3", "-o", "/dev/null", "--wrap", "true")
    c.wait_job(jid)
    assert c.job_state(jid) == "COMPLETED"


def test_sighup(make_cluster):
    c = make_cluster()
    write(c, read(c) + "PartitionName=more Nodes=node[01-02] State=UP\n")
    os.kill(c.pid("rotactld"), signal.SIGHUP)
    c.wait_for(lambda: any(l.startswith("more 2 node[01-02]") for l in partitions(c)),
               what="the partition added by SIGHUP")
