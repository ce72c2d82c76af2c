"""srun and salloc: allocation, labels, exit codes, stdin, signals, steps inside
an allocation, and the allocation's environment."""

import os
import re
import signal
import subprocess
import time


def test_label_and_width(cluster):
    p = cluster.run("srun -n 12 --label echo hi")
    assert p.returncode == 0, p.stderr
    lines = sorted(p.stdout.splitlines())
    # labels are padded to the width of the highest task id, as in Slurm
    assert lines == sorted(f"{t:2d}: hi" for t in range(12))
    assert p.stderr == ""


def test_label_partial_lines(cluster):
    p = cluster.run("srun -l bash -c 'printf a; sleep 0.2; printf \"b\\nc\"'")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "0: ab\n0: c"


def test_exit_code_is_highest(cluster):
    p = cluster.run("srun -n 3 bash -c 'exit $SLURM_PROCID'")
    assert p.returncode == 2
    assert "srun: error: node01: task 1: Exited with exit code 1" in p.stderr
    assert "srun: error: node01: task 2: Exited with exit code 2" in p.stderr


def test_killed_by_signal(cluster):
    p = cluster.run("srun bash -c 'kill -9 $$'")
    assert p.returncode == 137
    assert "srun: error: node01: task 0: Killed" in p.stderr


def test_stdin_goes_to_task_zero(cluster):
    p = cluster.run("srun cat", input="line one\nline two\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "line one\nline two\n"


def test_stdin_none(cluster):
    p = cluster.run("srun -i none cat", input="ignored\n")
    assert p.returncode == 0 and p.stdout == ""


def test_stdout_task_filter(cluster):
    p = cluster.run("srun -n 3 -o 1 bash -c 'echo out$SLURM_PROCID'")
    assert p.returncode == 0 and p.stdout == "out1\n"


def test_two_nodes(cluster):
    p = cluster.run("srun -N 2 --ntasks-per-node=1 -l bash -c 'echo $SLURMD_NODENAME'")
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == ["0: node01", "1: node02"]


def test_verbose_line(cluster):
    p = cluster.run("srun -v true")
    assert p.returncode == 0
    assert re.search(r"^srun: jobid \d+: nodes\(1\):`node0\d', cpu counts: \d+\(x1\)$",
                     p.stderr, re.M), p.stderr


def test_job_completes(cluster):
    p = cluster.run("srun -J named bash -c 'exit 3'")
    assert p.returncode == 3
    jobid = int(cluster.run("squeue -h -t all -n named -o %i").stdout.split()[-1])
    assert cluster.wait_job(jobid) == "FAILED"
    assert cluster.job_field(jobid, "ExitCode") == "3:0"


def test_allocation_errors(cluster):
    p = cluster.run("srun -N 50 true")
    assert p.returncode == 1
    assert p.stderr == ("srun: error: Unable to allocate resources: "
                        "Node count specification invalid\n")
    p = cluster.run("srun")
    assert p.returncode == 1
    assert p.stderr == "srun: fatal: No command given to execute.\n"
    p = cluster.run("srun --bogus true")
    assert p.returncode == 1
    assert p.stderr == ("srun: unrecognized option '--bogus'\n"
                        "Try \"srun --help\" for more information\n")


def test_invalid_job_id(cluster):
    p = cluster.run("srun true", env={"SLURM_JOB_ID": "999999"})
    assert p.returncode == 1
    assert "Unable to confirm allocation for job 999999" in p.stderr


def test_steps_inside_batch_job(cluster):
    # (-n 4 alone would be laid out 3,1: cons_tres packs the first node)
    jobid = cluster.sbatch("-N", "2", "--ntasks-per-node=2", "-o", "steps.out", "--wrap",
                           "srun -l hostname | sort; srun -n 1 echo single")
    assert cluster.wait_job(jobid) == "COMPLETED"
    out = (cluster.work / "steps.out").read_text().splitlines()
    if os.geteuid() == 0:  # only root gives each virtual node its own hostname
        assert out == ["0: node01", "1: node01", "2: node02", "3: node02", "single"]
    else:
        assert [l.split(":")[0] for l in out[:4]] == ["0", "1", "2", "3"]
        assert out[4] == "single"


def test_interrupt_twice_cancels(cluster):
    proc = subprocess.Popen(["srun", "-n", "2", "sleep", "60"], env=cluster.env,
                            cwd=str(cluster.work), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def running():
            p = cluster.run("squeue -h -t R -n sleep -o %i")
            return p.stdout.strip()
        cluster.wait_for(running, what="srun's job to run")
        time.sleep(0.5)  # let the tasks start
        proc.send_signal(signal.SIGINT)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "srun: interrupt (one more within 1 sec to abort)" in err
    assert re.search(r"srun: sending Ctrl-C to StepId=\d+\.0", err), err
    assert proc.returncode == 130


def test_salloc_environment(cluster):
    p = cluster.run("salloc -N 2 -n 3 bash -c 'env | grep ^SLURM_ | sort'")
    assert p.returncode == 0, p.stderr
    env = dict(line.split("=", 1) for line in p.stdout.splitlines())
    m = re.search(r"^salloc: Granted job allocation (\d+)$", p.stderr, re.M)
    assert m, p.stderr
    jobid = m.group(1)
    assert env["SLURM_JOB_ID"] == env["SLURM_JOBID"] == jobid
    assert env["SLURM_JOB_NODELIST"] == env["SLURM_NODELIST"] == "node[01-02]"
    assert env["SLURM_JOB_NUM_NODES"] == env["SLURM_NNODES"] == "2"
    assert env["SLURM_NTASKS"] == "3"
    assert env["SLURM_TASKS_PER_NODE"] == "2,1"
    assert env["SLURM_JOB_PARTITION"] == "debug"
    assert env["SLURM_CLUSTER_NAME"] == "rota"
    assert env["SLURM_SUBMIT_DIR"] == str(cluster.work)
    assert f"salloc: Relinquishing job allocation {jobid}" in p.stderr


def test_salloc_exit_code_and_srun(cluster):
    p = cluster.run("salloc -N 1 -n 2 bash -c 'srun -n 2 -l echo x | sort; exit 5'")
    assert p.returncode == 5
    assert p.stdout == "0: x\n1: x\n"


def test_salloc_shell_from_stdin(cluster):
    p = cluster.run("salloc -N1", input="echo in-shell $SLURM_NNODES\nexit 2\n",
                    env={"SHELL": "/bin/sh"})
    assert p.returncode == 2
    assert p.stdout == "in-shell 1\n"


def test_multi_prog(cluster):
    (cluster.work / "mp.conf").write_text(
        "# tasks program args\n0-1 echo first %t %o\n2 sh -c 'echo two $SLURM_PROCID'\n"
        "* echo rest %t\n")
    p = cluster.run("srun -n4 -l --multi-prog mp.conf | sort")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["0: first 0 0", "1: first 1 1", "2: two 2",
                                     "3: rest 3"]
    p = cluster.run(["srun", "-n1", "--multi-prog", "missing.conf"])
    assert p.returncode == 1
    assert "Unable to open configuration file" in p.stderr
