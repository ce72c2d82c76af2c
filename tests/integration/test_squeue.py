"""squeue: the default header and columns, formats, filters and errors that real
clients (Nextflow, toil, snakemake) parse."""

import re

SQUEUE_HEADER = (f"{'JOBID':>18} {'PARTITION':>9} {'NAME':>8} {'USER':>8} {'ST':>2} "
                 f"{'TIME':>10} {'NODES':>6} NODELIST(REASON)")


def test_default_header_empty_queue(cluster):
    p = cluster.run("squeue")
    assert p.returncode == 0, p.stderr
    assert p.stdout == SQUEUE_HEADER + "\n"
    assert p.stderr == ""


def test_default_row_held_job(cluster):
    jobid = cluster.sbatch("--hold", "-J", "heldjob", "--wrap", "true")
    p = cluster.run("squeue")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == SQUEUE_HEADER
    user = cluster.user[:8]
    expect = (f"{jobid:>18} {'debug':>9} {'heldjob':>8} {user:>8} {'PD':>2} "
              f"{'0:00':>10} {'1':>6} (JobHeldUser)")
    assert lines[1:] == [expect]


def test_running_row(cluster):
    jobid = cluster.sbatch("-N", "2", "-J", "longname-truncated", "--wrap", "sleep 60")
    assert cluster.wait_running(jobid) == "RUNNING"
    p = cluster.run(["squeue", "-j", str(jobid)])
    row = p.stdout.splitlines()[1]
    m = re.fullmatch(rf" +{jobid} +debug longname +\S+ +R +(\d+:\d\d) +2 node\[01-02\]", row)
    assert m, row
    assert len(row.split("node[")[0]) == len(SQUEUE_HEADER.split("NODELIST")[0])


def test_noheader_two_columns(cluster):
    a = cluster.sbatch("--hold", "--wrap", "true")
    b = cluster.sbatch("--wrap", "true")
    cluster.wait_job(b)
    p = cluster.run(f"squeue --noheader -o '%i %t' -t all -u {cluster.user} 2>&1")
    assert p.returncode == 0
    rows = dict(line.split(" ") for line in p.stdout.splitlines())
    assert all(len(line.split()) == 2 for line in p.stdout.splitlines())
    assert rows[str(a)] == "PD"
    assert rows[str(b)] == "CD"


def test_finished_jobs_only_with_state_all(cluster):
    jobid = cluster.sbatch("--wrap", "true")
    assert cluster.wait_job(jobid) == "COMPLETED"
    p = cluster.run("squeue -h -o %i")
    assert str(jobid) not in p.stdout.split()
    p = cluster.run(f"squeue -h -t all -j {jobid} -o '%i %T'")
    assert p.stdout.strip() == f"{jobid} COMPLETED"


def test_filters_name_partition_state(cluster):
    a = cluster.sbatch("--hold", "-J", "alpha", "--wrap", "true")
    b = cluster.sbatch("--hold", "-J", "beta", "--wrap", "true")
    p = cluster.run("squeue -h -n beta -o %i")
    assert p.stdout.split() == [str(b)]
    p = cluster.run("squeue -h -p debug -o %i")
    assert sorted(p.stdout.split()) == sorted([str(a), str(b)])
    p = cluster.run("squeue -h -t R -o %i")
    assert p.stdout.strip() == ""
    p = cluster.run("squeue -h -t PD -o %i")
    assert sorted(p.stdout.split()) == sorted([str(a), str(b)])


def test_unknown_job_id(cluster):
    p = cluster.run("squeue -j 999999")
    assert p.returncode == 1
    assert p.stderr == "slurm_load_jobs error: Invalid job id specified\n"
    assert p.stdout == ""


def test_held_by_user_and_admin(cluster):
    jobid = cluster.sbatch("--wrap", "true", "--hold")
    p = cluster.run(f"squeue -h -j {jobid} -o '%t %r'")
    assert p.stdout.strip() == "PD JobHeldUser"
    assert cluster.run(f"scontrol release {jobid}").returncode == 0
    assert cluster.wait_job(jobid) == "COMPLETED"

    # an administrator's hold replaces the user's; uhold is the user's
    jobid = cluster.sbatch("--hold", "--wrap", "true")
    assert cluster.run(f"scontrol hold {jobid}").returncode == 0
    held = "JobHeldAdmin"  # whoever runs the cluster administers it
    p = cluster.run(f"squeue -h -j {jobid} -o '%t %r'")
    assert p.stdout.strip() == f"PD {held}"
    p = cluster.run(f"squeue -j {jobid} -o '%.18i %.2t %R'")
    assert p.stdout.splitlines()[1].endswith(f"PD ({held})")
    assert cluster.run(f"scontrol uhold {jobid}").returncode == 0
    p = cluster.run(f"squeue -h -j {jobid} -o '%t %r'")
    assert p.stdout.strip() == "PD JobHeldUser"
    assert cluster.run(f"scontrol release {jobid}").returncode == 0
    assert cluster.wait_job(jobid) == "COMPLETED"


def test_time_format_and_toil_format(cluster):
    jobid = cluster.sbatch("--wrap", "sleep 30")
    cluster.wait_running(jobid)
    p = cluster.run("squeue -h --format '%i %t %M'")
    rows = [line.split() for line in p.stdout.splitlines()]
    assert [r[0] for r in rows] == [str(jobid)]
    assert rows[0][1] == "R"
    assert re.fullmatch(r"\d+:\d\d", rows[0][2])


def test_long_listing_in_order_across_frames(cluster):
    """The controller prints a listing and sends it in frames of 32 KB: 900
    lines of about 90 bytes come in several, none lost or out of order."""
    arr = cluster.sbatch("--hold", "--array=0-899", "-J", "many", "--wrap", "true")
    other = cluster.sbatch("--hold", "-J", "one", "--wrap", "true")
    p = cluster.run(f"squeue -r -u {cluster.user}")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == SQUEUE_HEADER
    assert len(p.stdout) > 2 * 32768
    # equal partition, state and priority: the job id orders them (tasks by id)
    ids = [line.split()[0] for line in lines[1:]]
    assert ids == [f"{arr}_{t}" for t in range(900)] + [str(other)]
    assert all(line.endswith(" (JobHeldUser)") for line in lines[1:])
    # -S: name descending, then the id
    p = cluster.run(f"squeue -h -S -j -o '%j %i' -j {arr},{other}")
    assert p.stdout.splitlines() == [f"one {other}", f"many {arr}_[0-899]"]
    p = cluster.run("squeue -h -S x")
    assert p.returncode == 1
    assert p.stderr == "squeue: error: Invalid sort specification: x\n"
    assert cluster.run(f"scancel {arr} {other}").returncode == 0


def test_format_too_wide_for_the_controller_is_printed_here(cluster):
    """A line over 8 KB of padding is not printed by the controller: squeue
    prints it from the job records, with the same filters and order."""
    a = cluster.sbatch("--hold", "-J", "wide1", "--wrap", "true")
    b = cluster.sbatch("--hold", "-J", "wide2", "--wrap", "true")
    p = cluster.run("squeue -h -S -i -n wide1,wide2 -o '%.4000i|%t|%.4000j|%j'")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [f"{b:>4000}|PD|{'wide2':>4000}|wide2",
                                     f"{a:>4000}|PD|{'wide1':>4000}|wide1"]
    p = cluster.run("squeue -h -j 999999 -o '%.4000i%.4000i%.4000i'")
    assert p.returncode == 1
    assert p.stderr == "slurm_load_jobs error: Invalid job id specified\n"
    assert cluster.run(f"scancel {a} {b}").returncode == 0


def test_verbose_prints_options_first(cluster):
    """-v prints the options in effect ("name = value") before the report."""
    p = cluster.run("squeue -v -w node01 -t pd,r")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "-" * 29
    assert "iterate     = 0" in lines
    assert "nodes       = node01" in lines
    assert "states      = PENDING,RUNNING" in lines
    assert "verbose     = 1" in lines
    assert p.stdout.index("verbose     = 1") < p.stdout.index("JOBID")



def test_nodelist_names_and_partitions_spelling(cluster):
    """-w takes node names or their NodeHostname (Slurm maps them to the
    node's name); a name no node has is an error.  --partitions is -p."""
    p = cluster.run("squeue -h -w dummy_name")
    assert p.returncode == 1
    assert p.stderr == "squeue: error: Invalid node name dummy_name\n"
    host = cluster.run("scontrol show node node01").stdout
    hostname = re.search(r"NodeHostName=(\S+)", host).group(1)
    p = cluster.run(f"squeue -v -w {hostname}")
    assert p.returncode == 0, p.stderr
    assert "nodes       = node01\n" in p.stdout
    jobid = cluster.sbatch("--hold", "--wrap", "true")
    p = cluster.run("squeue -h -o %i --partitions=debug")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(jobid)]


def test_pending_node_count_is_estimated_from_tasks(cluster):
    """A pending job's NODES, as Slurm estimates it: as many of the
    partition's largest nodes (8 CPUs here) as its tasks need."""
    jobs = {cluster.sbatch("-H", "-n9", "--wrap", "true"): "2",
            cluster.sbatch("-H", "-n4", "-c4", "--wrap", "true"): "2",
            cluster.sbatch("-H", "-n3", "--ntasks-per-node=1", "--wrap", "true"): "3",
            cluster.sbatch("-H", "-n8", "--wrap", "true"): "1",
            cluster.sbatch("-H", "-N2", "-n2", "--wrap", "true"): "2"}
    p = cluster.run("squeue -h -o '%i %D'")
    got = dict(line.split() for line in p.stdout.splitlines())
    assert got == {str(j): n for j, n in jobs.items()}
