"""Multi-Category Security labels (MCSPlugin, MCSParameters), as Slurm 22.05:
a job's label (its user, a listed group of its user, its account) given with
--mcs-label or set by enforced / --exclusive=mcs, refused at submit when it is
not allowed, shown by scontrol, squeue -O mcslabel and sacct; the nodes of a
job that selects take only jobs of its label; the label survives a restart;
PrivateData with privatedata hides others' labelled jobs and nodes."""

import grp
import os
import pwd
import re

import pytest

from unixusers import as_user, make_users, needs_root, remove_users

ME = pwd.getpwuid(os.geteuid()).pw_name
MY_GROUP = grp.getgrgid(os.getegid()).gr_name
BAD = "Batch job submission failed: Invalid mcs_label specified"


def set_mcs(c, plugin, params=None, private=None):
    """slurm.conf's MCS keys (and PrivateData) set, the rest kept; reconfigure."""
    keep = []
    with open(c.conf_path) as f:
        for line in f:
            k = line.split("=", 1)[0].strip().lower()
            if k not in ("mcsplugin", "mcsparameters", "privatedata"):
                keep.append(line if line.endswith("\n") else line + "\n")
    keep.append(f"MCSPlugin={plugin}\n")
    if params:
        keep.append(f"MCSParameters={params}\n")
    if private:
        keep.append(f"PrivateData={private}\n")
    with open(c.conf_path, "w") as f:
        f.writelines(keep)
    c.run(["scontrol", "reconfigure"], check=True)


def label_of(c, jid):
    return c.run(["squeue", "-h", "-j", str(jid), "-O", "mcslabel"],
                 check=True).stdout.strip()


def show_job(c, jid):
    return c.run(["scontrol", "show", "job", str(jid)], check=True).stdout


def node_label(c, node):
    out = c.run(["scontrol", "show", "node", node], check=True).stdout
    return re.search(r"MCS_label=(\S+)", out).group(1)


def run_job(c, *args):
    jid = c.sbatch("-N1", "-t5", "-o/dev/null", *args, "--wrap", "sleep 60")
    c.wait_running(jid)
    return jid


def test_config_shows_the_plugin(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "ondemand,select,privatedata")
    out = c.run(["scontrol", "show", "config"], check=True).stdout
    assert "MCSPlugin               = mcs/user" in out
    assert "MCSParameters           = ondemand,select,privatedata" in out


def test_user_label_ondemand_select(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "ondemand,select")
    p = c.run(["sbatch", "-N1", "--mcs-label=not_" + ME, "--wrap", "true"])
    assert p.returncode != 0 and BAD in p.stderr, p.stderr
    # --exclusive=mcs asks for the default label: the user's name
    jid = run_job(c, "--exclusive=mcs")
    assert label_of(c, jid) == ME
    out = show_job(c, jid)
    assert f"MCS_label={ME}" in out and "OverSubscribe=MCS" in out
    node = c.job_field(jid, "NodeList")
    assert node_label(c, node) == ME
    # a job without a label does not go where a labelled job keeps the node
    other = c.sbatch("-w", node, "-t5", "-o/dev/null", "--wrap", "sleep 60")
    same = c.sbatch("-w", node, f"--mcs-label={ME}", "-t5", "-o/dev/null",
                    "--wrap", "sleep 60")
    c.wait_running(same)
    assert c.job_state(other) == "PENDING"
    assert label_of(c, other) == "(null)"
    c.run(["scancel", str(jid), str(same)], check=True)
    c.wait_running(other)  # the node is free of labels again
    assert node_label(c, node) == "N/A"


def test_user_label_in_sacct(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "ondemand,select")
    jid = c.sbatch("-N1", "-t5", "-o/dev/null", f"--mcs-label={ME}", "--wrap",
                   "true")
    c.wait_job(jid)
    c.wait_for(lambda: c.run(["sacct", "-j", str(jid), "-X", "-n", "-P",
                              "-o", "McsLabel"]).stdout.strip() == ME, 30,
               "the label in sacct")


def test_enforced_noselect_labels_every_job_not_nodes(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "enforced,noselect")
    jid = run_job(c)
    assert label_of(c, jid) == ME
    assert node_label(c, c.job_field(jid, "NodeList")) == "N/A"


def test_ondemand_without_asking_has_no_label(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "ondemand,noselect")
    jid = run_job(c)
    assert label_of(c, jid) == "(null)"
    assert "MCS_label=N/A" in show_job(c, jid)
    # noselect: even --exclusive=mcs leaves the node unlabelled
    jid = run_job(c, "--exclusive=mcs")
    assert label_of(c, jid) == ME
    assert node_label(c, c.job_field(jid, "NodeList")) == "N/A"


def test_enforced_select_labels_the_nodes(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "enforced,select")
    jid = run_job(c)
    assert node_label(c, c.job_field(jid, "NodeList")) == ME


def test_group_label(cluster):
    c = cluster
    set_mcs(c, "mcs/group", f"ondemand,select:rota_no_such_group|{MY_GROUP}")
    jid = run_job(c, "--exclusive=mcs")
    assert label_of(c, jid) == MY_GROUP
    assert node_label(c, c.job_field(jid, "NodeList")) == MY_GROUP
    jid = run_job(c, f"--mcs-label={MY_GROUP}")
    assert label_of(c, jid) == MY_GROUP
    p = c.run(["sbatch", "--mcs-label=rota_no_such_group", "--wrap", "true"])
    assert p.returncode != 0 and BAD in p.stderr, p.stderr


def test_account_label(cluster):
    c = cluster
    set_mcs(c, "mcs/account", "ondemand,select")
    p = c.run(["sacctmgr", "-nP", "list", "user", f"user={ME}",
               "format=defaultaccount"], check=True)
    acct = p.stdout.strip()
    if not acct:
        pytest.skip(f"{ME} has no default account")
    p = c.run(["sbatch", "--mcs-label=rota_not_an_account", "--wrap", "true"])
    assert p.returncode != 0 and BAD in p.stderr, p.stderr
    jid = run_job(c, "-A", acct, "--exclusive=mcs")
    assert label_of(c, jid) == acct
    assert node_label(c, c.job_field(jid, "NodeList")) == acct


def test_label_survives_restart(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "ondemand,select")
    jid = run_job(c, "--exclusive=mcs")
    node = c.job_field(jid, "NodeList")
    c.restart_ctld()
    assert label_of(c, jid) == ME
    assert node_label(c, node) == ME
    c.compact_journal()
    c.restart_ctld()
    assert label_of(c, jid) == ME
    assert node_label(c, node) == ME


def test_bad_plugin_is_refused(cluster):
    c = cluster
    set_mcs(c, "mcs/user", "ondemand,select")
    with open(c.conf_path, "a") as f:
        f.write("MCSPlugin=mcs/bogus\n")
    p = c.run(["scontrol", "reconfigure"])
    assert p.returncode != 0, p
    set_mcs(c, "mcs/none")


@needs_root
def test_privatedata_hides_other_labels(cluster):
    c = cluster
    users, group = make_users("a", "b")
    try:
        a, b = users["a"], users["b"]
        set_mcs(c, "mcs/user", "ondemand,select,privatedata", "jobs,nodes")
        p = as_user(c, a, "sbatch --parsable -N1 -t5 -o/dev/null --exclusive=mcs "
                    "--wrap 'sleep 60'")
        assert p.returncode == 0, p.stderr
        labelled = int(p.stdout.strip())
        p = as_user(c, a, "sbatch --parsable -N1 -t5 -o/dev/null --wrap 'sleep 60'")
        plain = int(p.stdout.strip())
        c.wait_running(labelled)
        c.wait_running(plain)
        node = c.job_field(labelled, "NodeList")
        seen = as_user(c, b, "squeue -h -o %i").stdout.split()
        assert str(plain) in seen and str(labelled) not in seen, seen
        seen = as_user(c, a, "squeue -h -o %i").stdout.split()
        assert str(plain) in seen and str(labelled) in seen, seen
        # nor through its steps, sprio, sstat (the listings squeue leaves)
        steps = as_user(c, b, "squeue -h -s -o %i").stdout.split()
        assert f"{labelled}.batch" not in steps and f"{plain}.batch" in steps, steps
        assert f"{labelled}.batch" in as_user(c, a, "squeue -h -s -o %i").stdout.split()
        shown = as_user(c, b, f"scontrol show step {labelled}.batch").stdout
        assert f"StepId={labelled}.batch" not in shown, shown
        p = as_user(c, b, f"sstat -n -P -a -j {labelled} -o JobID,Nodelist")
        assert node not in p.stdout, p.stdout
        nodes = as_user(c, b, "sinfo -h -N -o %N").stdout.split()
        assert node not in nodes and nodes, nodes
        assert node in as_user(c, a, "sinfo -h -N -o %N").stdout.split()
        # root sees everything
        assert str(labelled) in c.run(["squeue", "-h", "-o", "%i"]).stdout.split()
    finally:
        c.cancel_all()
        set_mcs(c, "mcs/none")
        remove_users(users, group)


def test_no_plugin_and_empty_labels_give_no_label(cluster):
    """mcs/none: a --mcs-label is accepted and the job has none (as Slurm's);
    --mcs-label= (empty) is no label under a plugin either."""
    c = cluster
    set_mcs(c, "mcs/none")
    j = c.sbatch("--mcs-label=someone", "-H", "-o", "/dev/null", "--wrap", "true")
    assert c.job_field(j, "MCS_label") == "N/A"
    c.run(["scancel", str(j)])
    set_mcs(c, "mcs/user", "ondemand,select")
    try:
        j = c.sbatch("--mcs-label=", "-H", "-o", "/dev/null", "--wrap", "true")
        assert c.job_field(j, "MCS_label") == "N/A"
        c.run(["scancel", str(j)])
    finally:
        set_mcs(c, "mcs/none")
