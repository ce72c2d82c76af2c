"""SelectTypeParameters: with CR_Core_Memory (Rota's default, as written by
`rota up`) memory is consumable and jobs wait for it; with CR_Core (or CR_CPU)
only CPUs are, and memory is a per-node limit."""


def with_params(make_cluster, params):
    c = make_cluster()
    c.down()
    text = open(c.conf_path).read()
    text = text.replace("SelectTypeParameters=CR_Core_Memory\n",
                        f"SelectTypeParameters={params}\n")
    with open(c.conf_path, "w") as f:
        f.write(text)
    c.up()
    return c


def two_big_jobs(c):
    """Two 40 GB jobs on node01 (64 GB)."""
    args = ("-w", "node01", "-n1", "--mem=40000", "-o", "/dev/null", "--wrap",
            "sleep 60")
    return c.sbatch(*args, cwd=c.work), c.sbatch(*args, cwd=c.work)


def test_memory_consumable_by_default(make_cluster):
    c = make_cluster()
    assert "SelectTypeParameters=CR_Core_Memory" in open(c.conf_path).read()
    a, b = two_big_jobs(c)
    c.wait_running(a)
    c.wait_for(lambda: c.job_field(b, "Reason") in ("Resources", "ReqNodeNotAvail"),
               what="the second job waiting for memory")
    assert c.job_state(b) == "PENDING"


def test_cr_core_memory_not_consumable(make_cluster):
    c = with_params(make_cluster, "CR_Core")
    a, b = two_big_jobs(c)
    c.wait_running(a)
    c.wait_running(b)
    assert c.job_state(a) == "RUNNING" and c.job_state(b) == "RUNNING"
    # more than a node has is still never possible
    p = c.run(["sbatch", "--mem=70000", "--wrap", "true"], cwd=c.work)
    assert p.returncode == 1
    assert "Requested node configuration is not available" in p.stderr


def test_reqnodenotavail_names_unavailable_nodes(make_cluster):
    """-w on a drained node: Slurm's ReqNodeNotAvail with UnavailableNodes."""
    c = make_cluster()
    c.run(["scontrol", "update", "NodeName=node03", "State=DRAIN", "Reason=fix"],
          check=True)
    jid = c.sbatch("-w", "node[02-03]", "-o", "/dev/null", "--wrap", "true",
                   cwd=c.work)
    c.wait_for(lambda: c.job_field(jid, "Reason") ==
               "ReqNodeNotAvail,_UnavailableNodes:node03", what="the reason")
    p = c.run(["squeue", "-h", "-j", str(jid), "-o", "%R|%r"])
    assert p.stdout.strip() == ("(ReqNodeNotAvail, UnavailableNodes:node03)|"
                                "ReqNodeNotAvail, UnavailableNodes:node03")
    c.run(["scontrol", "update", "NodeName=node03", "State=RESUME"], check=True)
    assert c.wait_job(jid) == "COMPLETED"


def test_one_node_job_skips_a_node_too_full(make_cluster):
    """-N1 -n6 when node01 has only 4 free CPUs: it starts on node02 now."""
    c = make_cluster()
    a = c.sbatch("-w", "node01", "-n4", "-o", "/dev/null", "--wrap", "sleep 60",
                 cwd=c.work)
    c.wait_running(a)
    b = c.sbatch("-N1", "-n6", "-o", "/dev/null", "--wrap", "sleep 60", cwd=c.work)
    assert c.wait_running(b) == "RUNNING"
    assert c.job_field(b, "NodeList") == "node02"
