"""srun and salloc: allocation, labels, exit codes, stdin, signals, steps inside
an allocation, and the allocation's environment."""

import os
import pathlib
import re
import select
import signal
import subprocess
import threading
import time

import pytest

from conftest import write_script


def test_label_and_width(cluster):
    p = cluster.run("srun -n 12 --label echo hi")
    assert p.returncode == 0, p.stderr
    lines = sorted(p.stdout.splitlines())
    # labels are padded to the width of the highest task id, as in Slurm
    assert lines == sorted(f"{t:2d}: hi" for t in range(12))
    assert p.stderr == ""


def test_label_in_the_tasks_own_files(cluster):
    """-l with output files of the tasks' own (-o out.%t, %n): each line in
    them labelled, as Slurm's step daemon writes them (its test1.60); a last
    line without its newline gets one; files of no task pattern stay plain."""
    p = cluster.run(["srun", "-l", "-N2", "-n4", "-O", "-o", "lab.%n.out", "-e",
                     "lab_err.%t.out", "bash", "-c",
                     "echo hello; printf partial; echo E >&2"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    for node, tasks in ((0, (0, 1)), (1, (2, 3))):
        text = (cluster.work / f"lab.{node}.out").read_text()
        assert sorted(text.splitlines()) == sorted(
            f"{t}: {w}" for t in tasks for w in ("hello", "partial")), text
    for t in range(4):
        assert (cluster.work / f"lab_err.{t}.out").read_text() == f"{t}: E\n"
    p = cluster.run(["srun", "-n2", "-o", "plain.%t.out", "echo", "y"])
    assert p.returncode == 0, p.stderr
    assert (cluster.work / "plain.1.out").read_text() == "y\n"


def test_label_partial_lines(cluster):
    p = cluster.run("srun -l bash -c 'printf a; sleep 0.2; printf \"b\\nc\"'")
    assert p.returncode == 0, p.stderr
    # Slurm ends a labelled piece without its newline with one
    assert p.stdout == "0: ab\n0: c\n"


def test_program_in_the_working_directory(cluster):
    """A program name not found in PATH is run from the working directory,
    as Slurm's step daemon does (its test7.14: srun prog)."""
    write_script(cluster.work / "cwdprog", "#!/bin/sh\necho ran from cwd\n")
    p = cluster.run(["srun", "-n1", "cwdprog"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == "ran from cwd\n"
    p = cluster.run(["srun", "-n1", "cwdprog_none"])
    assert p.returncode == 2
    assert "execve(): cwdprog_none: No such file or directory" in p.stderr


def test_exit_code_is_highest(cluster):
    p = cluster.run("srun -n 3 bash -c 'exit $SLURM_PROCID'")
    assert p.returncode == 2
    assert "srun: error: node01: task 1: Exited with exit code 1" in p.stderr
    assert "srun: error: node01: task 2: Exited with exit code 2" in p.stderr


def test_killed_by_signal(cluster):
    p = cluster.run("srun bash -c 'kill -9 $$'")
    assert p.returncode == 137
    assert "srun: error: node01: task 0: Killed" in p.stderr


def test_stdin_goes_to_every_task_by_default(cluster):
    """Slurm's default: srun's stdin is broadcast to all tasks."""
    p = cluster.run("srun cat", input="line one\nline two\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "line one\nline two\n"
    p = cluster.run("srun -N2 -n3 -l cat", input="z\n")
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == ["0: z", "1: z", "2: z"]


def test_stdin_none(cluster):
    p = cluster.run("srun -i none cat", input="ignored\n")
    assert p.returncode == 0 and p.stdout == ""


def test_stdin_all_tasks(cluster):
    """-i all: every task reads srun's stdin, on every node."""
    p = cluster.run("srun -n3 -i all cat", input="x\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "x\nx\nx\n"
    p = cluster.run("srun -N2 -n4 --input=all -l cat", input="a\nb\n")
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == sorted(
        f"{t}: {w}" for t in range(4) for w in "ab")


def test_stdin_one_task(cluster):
    """-i N: task N alone reads srun's stdin; the others read /dev/null."""
    p = cluster.run("srun -n3 -i 2 -l cat", input="x\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "2: x\n"
    p = cluster.run("srun -N2 -n4 -i 3 -l cat", input="y\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "3: y\n"


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


def test_verbose_lists_the_options_given(cluster):
    """-v first lists the options given, each once with its last value, by
    name, times as HH:MM:SS, as Slurm's commands do ("verbose : 1" among
    them)."""
    p = cluster.run("srun -v -N1 -J one -J two -t 5 --spread-job true")
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    head = lines[:lines.index("srun: end of defined options") + 1]
    assert head == ["srun: defined options",
                    "srun: -------------------- --------------------",
                    "srun: job-name            : two",
                    "srun: nodes               : 1",
                    "srun: spread-job          : set",
                    "srun: time                : 00:05:00",
                    "srun: verbose             : 1",
                    "srun: -------------------- --------------------",
                    "srun: end of defined options"], head
    p = cluster.run("sbatch -vv -o /dev/null --wrap true")
    assert "sbatch: verbose             : 2" in p.stderr.splitlines()
    p = cluster.run("srun true")
    assert "defined options" not in p.stderr


def test_slurmd_debug_shows_the_step_daemons_messages(cluster):
    """--slurmd-debug (and SLURMD_DEBUG): the step daemon's own messages on
    the step's stderr, as slurmstepd's, error plus that many levels shown
    (Slurm's rule: error shows verbose); without it only its errors."""
    p = cluster.run("srun -N1 --slurmd-debug=error -t1 /invalid_executable")
    assert p.returncode != 0
    assert re.search(r"^slurmstepd: debug levels are stderr='verbose'", p.stderr,
                     re.M), p.stderr
    assert re.search(r"^slurmstepd: JobId=\d+ StepId=0 launched 1 task", p.stderr,
                     re.M), p.stderr
    assert re.search(r"^slurmstepd: error: execve\(\): /invalid_executable", p.stderr,
                     re.M), p.stderr
    p = cluster.run("SLURMD_DEBUG=4 srun -N1 true")
    assert p.returncode == 0, p.stderr
    assert "slurmstepd: debug levels are stderr='debug2'" in p.stderr, p.stderr
    assert re.search(r"^slurmstepd: debug:  JobId=\d+ StepId=0 task 0 started",
                     p.stderr, re.M), p.stderr
    p = cluster.run("srun -N1 true")
    assert "slurmstepd" not in p.stderr, p.stderr
    p = cluster.run("srun --slurmd-debug=loud true")
    assert p.returncode != 0
    assert "srun: error: Invalid --slurmd-debug level: loud" in p.stderr, p.stderr


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


def test_quit_on_interrupt_sends_ctrl_c_once(cluster):
    """--quit-on-interrupt: one SIGINT is passed on to the tasks ("sending
    Ctrl-C to StepId=J.S", Slurm's test1.38 matches it) and ends the step at
    once (the tasks are killed too, so whether a trap runs is a race)."""
    script = "echo WAITING; exec sleep 60"
    proc = subprocess.Popen(["srun", "--quit-on-interrupt", "--unbuffered", "bash", "-c",
                             script], env=cluster.env, cwd=str(cluster.work),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "WAITING"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert re.search(r"^srun: sending Ctrl-C to StepId=\d+\.0$", err, re.M), err
    assert "srun: interrupt (one more" not in err
    assert proc.returncode != 0


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
    # a line ending in '\' goes on in the next; %o counts the line's tasks
    # before (test1.54); a task without a line is refused before any start
    (cluster.work / "mp2.conf").write_text(
        "1-2 echo t%t:o%o\n0,3 echo aaaa task:%t:\\\noffset:%o \\\nbbbb\n")
    p = cluster.run("srun -n4 -O -l --multi-prog mp2.conf | sort")
    assert p.stdout.splitlines() == ["0: aaaa task:0:offset:0 bbbb", "1: t1:o0",
                                     "2: t2:o1", "3: aaaa task:3:offset:1 bbbb"], p.stderr
    p = cluster.run(["srun", "-n5", "-O", "--multi-prog", "mp2.conf"])
    assert p.returncode == 1 and p.stdout == ""
    assert "srun: error: Configuration file mp2.conf invalid\n" in p.stderr, p.stderr


def test_wait_ends_step_after_first_exit(cluster):
    """-W N: N seconds after the first task exited srun ends the step, saying
    which tasks still ran; the killed task makes the exit code non-zero."""
    p = cluster.run("srun -n2 -W 2 bash -c "
                    "'if [ $SLURM_PROCID = 0 ]; then exit 0; fi; sleep 300'")
    assert p.returncode == 128 + signal.SIGTERM, p.stderr
    assert "srun: First task exited 2s ago\n" in p.stderr
    assert re.search(r"srun: StepId=\d+\.0 task 0: exited\n", p.stderr), p.stderr
    assert re.search(r"srun: StepId=\d+\.0 task 1: running\n", p.stderr), p.stderr
    assert re.search(r"srun: Terminating StepId=\d+\.0\n", p.stderr), p.stderr
    assert re.search(r"srun: error: node\d+: task 1: Terminated", p.stderr), p.stderr


def test_no_wait_by_default(cluster):
    """Without -W srun waits for every task."""
    p = cluster.run("srun -n2 bash -c "
                    "'if [ $SLURM_PROCID = 0 ]; then exit 0; fi; sleep 3; echo done'")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "done\n"
    assert "First task exited" not in p.stderr


def _read_for(stream, seconds):
    """What stream gives within `seconds` (less at EOF)."""
    fd, out = stream.fileno(), b""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        out += chunk
    return out


def _read_until(stream, want, seconds):
    fd, out = stream.fileno(), b""
    end = time.monotonic() + seconds
    while want not in out and (left := end - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        out += chunk
    return out


def _partial_line_run(cluster, tag, *opts):
    """srun OPTS with a task that prints "partial" (no newline), then waits for
    the test's go file before it ends the line.  Returns (proc, go file) once
    the task has printed."""
    printed, go = cluster.work / f"{tag}.printed", cluster.work / f"{tag}.go"
    for f in (printed, go):
        f.unlink(missing_ok=True)
    script = (f"printf partial; touch {printed}; "
              f"while [ ! -e {go} ]; do sleep 0.1; done; echo ' end'")
    proc = subprocess.Popen(["srun", *opts, "bash", "-c", script], env=cluster.env,
                            cwd=str(cluster.work), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    cluster.wait_for(printed.exists, timeout=30, what="the task to print")
    return proc, go


def _finish(proc, go):
    go.touch()
    out, err = proc.communicate(timeout=30)
    return out, err


def _partial_line(cluster, tag, read, *opts):
    """_partial_line_run, read(srun's stdout) while the task waits, then let
    it end: (what was read, srun still running then, the rest, stderr, exit
    code)."""
    proc, go = _partial_line_run(cluster, tag, *opts)
    try:
        early = read(proc.stdout)
        running = proc.poll() is None
        rest, err = _finish(proc, go)
    finally:
        if proc.poll() is None:
            proc.kill()
    return early, running, rest, err, proc.returncode


def test_output_line_buffered_by_default(cluster):
    early, running, rest, err, rc = _partial_line(
        cluster, "lb", lambda out: _read_for(out, 1.5))
    assert running
    assert early == b"", early  # an unfinished line waits for its newline
    assert rc == 0, err
    assert rest == b"partial end\n"


def test_unbuffered_output(cluster):
    """-u: bytes reach srun's stdout as they are read, without their newline."""
    early, running, rest, err, rc = _partial_line(
        cluster, "ub", lambda out: _read_until(out, b"partial", 20), "-u")
    assert early == b"partial" and running, (early, running)
    assert rc == 0, err
    assert early + rest == b"partial end\n"


def test_unbuffered_with_label(cluster):
    """-u -l: each piece is labelled; one without its newline is given one, as
    Slurm does, so every label starts a line."""
    early, running, rest, err, rc = _partial_line(
        cluster, "ul", lambda out: _read_until(out, b"partial\n", 20), "-u", "-l")
    assert early == b"0: partial\n" and running, (early, running)
    assert rc == 0, err
    assert early + rest == b"0: partial\n0:  end\n"


KILL_BAD = ("bash -c 'if [ $SLURM_PROCID = 1 ]; then exit 3; fi; "
            "sleep {sleep}; echo survived'")


def test_kill_on_bad_exit(cluster):
    """-K: a failed task ends the step; the others are terminated (reported as
    errors) and their signal outranks the exit code, as in Slurm."""
    p = cluster.run("srun -n2 -K " + KILL_BAD.format(sleep=300))
    assert re.search(r"srun: error: node\d+: task 1: Exited with exit code 3\n",
                     p.stderr), p.stderr
    assert re.search(r"srun: Terminating StepId=\d+\.0\n", p.stderr), p.stderr
    assert re.search(r"\*\*\* STEP \d+\.0 ON node\d+ CANCELLED AT \S+ DUE TO TASK "
                     r"FAILURE \*\*\*", p.stderr), p.stderr
    assert re.search(r"srun: error: node\d+: task 0: Terminated", p.stderr), p.stderr
    assert p.returncode == 128 + signal.SIGTERM
    assert "survived" not in p.stdout


def test_kill_on_bad_exit_off(cluster):
    """-K0 (and the default): the other tasks run to their end."""
    for opt in ("-K0", "--kill-on-bad-exit=0", None):
        cmd = "srun -n2 " + (opt + " " if opt else "") + KILL_BAD.format(sleep=1)
        p = cluster.run(cmd)
        assert p.returncode == 3, (opt, p.stderr)
        assert p.stdout == "survived\n", (opt, p.stderr)
        assert "Terminating" not in p.stderr, (opt, p.stderr)


def test_kill_on_bad_exit_from_slurm_conf(cluster):
    """KillOnBadExit=1 in slurm.conf makes -K srun's default; -K0 overrides."""
    # next to slurm.conf: the auth key is found beside it
    conf = pathlib.Path(cluster.conf_path).with_name("kobe.conf")
    conf.write_text(open(cluster.conf_path).read() + "\nKillOnBadExit=1\n")
    env = {"SLURM_CONF": str(conf)}
    try:
        on = cluster.run("srun -n2 " + KILL_BAD.format(sleep=300), env=env)
        off = cluster.run("srun -n2 -K0 " + KILL_BAD.format(sleep=1), env=env)
    finally:
        conf.unlink()
    assert re.search(r"srun: Terminating StepId=\d+\.0\n", on.stderr), on.stderr
    assert "survived" not in on.stdout
    assert off.returncode == 3 and off.stdout == "survived\n", off.stderr


def test_immediate_gives_up_when_nodes_are_busy(cluster):
    """-I[N]: an allocation not granted within N seconds (1 without N) is
    given up, in Slurm's words, and leaves no job behind; a free cluster
    grants it."""
    nodes = len(cluster.run(["sinfo", "-h", "-N", "-o", "%N"], check=True).stdout.split())
    blocker = cluster.sbatch("-N", str(nodes), "--exclusive", "-o", "/dev/null",
                             "--wrap", "sleep 120")
    cluster.wait_running(blocker)
    for cmd in ("salloc -I2 -N1 true", "srun -I -N1 true", "srun --immediate=1 true"):
        p = cluster.run(cmd)
        assert p.returncode == 1, (cmd, p.stdout, p.stderr)
        assert p.stderr.rstrip().endswith(
            "error: Unable to allocate resources: Requested nodes are busy"), p.stderr
    cluster.wait_for(lambda: cluster.run(["squeue", "-h", "-o", "%i"]).stdout.split()
                     == [str(blocker)], what="only the blocker left")
    cluster.run(["scancel", str(blocker)], check=True)
    cluster.wait_nodes_idle()
    p = cluster.run("salloc -I -N1 true")
    assert p.returncode == 0 and "Granted job allocation" in p.stderr, p.stderr
    p = cluster.run("salloc -Ix true")
    assert p.returncode == 1 and "Invalid --immediate specification" in p.stderr


def test_overcommit_runs_more_tasks_than_cpus(cluster):
    """-O: the job is allocated as if one task a node (cpus_per_task each)
    and its steps run every task; without -O the same request cannot fit."""
    cpus = max(int(c) for c in cluster.run(["sinfo", "-h", "-N", "-o", "%c"],
                                           check=True).stdout.split())
    n = cpus + 4
    out = cluster.work / "oc.out"
    job = cluster.sbatch("-O", "-N1", "-n", str(n), "-o", str(out), "--wrap",
                         "echo tasks=$SLURM_NTASKS oc=$SLURM_OVERCOMMIT; srun hostname | wc -l")
    assert cluster.wait_job(job) == "COMPLETED"
    assert out.read_text().split() == [f"tasks={n}", "oc=1", str(n)]
    assert cluster.job_field(job, "NumCPUs") == "1"
    p = cluster.run(["srun", "-O", "-N1", "-n", str(n), "hostname"])
    assert p.returncode == 0 and len(p.stdout.splitlines()) == n, p.stderr
    p = cluster.run(["sbatch", "-N1", "-n", str(n), "--wrap", "true"])
    assert p.returncode == 1 and "Requested node configuration is not available" in p.stderr
    # --ntasks-per-node with -O and no -n: that many tasks a node (test1.37)
    p = cluster.run(["srun", "-O", "-N1", f"--ntasks-per-node={n}", "-l", "true"])
    assert p.returncode == 0, p.stderr
    p = cluster.run(["srun", "-O", "-N1", f"--ntasks-per-node={n}", "printenv",
                     "SLURM_NTASKS"])
    assert p.stdout.split() == [str(n)] * n, p.stdout


def test_max_tasks_per_node(cluster):
    """MaxTasksPerNode (512 by default; scontrol show config shows it, Slurm's
    test1.22 reads it): a step of that many tasks on a node runs, one more is
    refused, and so is a job asking for more per node."""
    config = cluster.run(["scontrol", "show", "config"], check=True).stdout
    assert re.search(r"^MaxTasksPerNode\s+= 512$", config, re.M)
    p = cluster.run(["srun", "-O", "-N1", "-n512", "-t1", "true"], timeout=120)
    assert p.returncode == 0, p.stderr
    p = cluster.run(["srun", "-O", "-N1", "-n513", "-t1", "true"])
    assert p.returncode != 0 and "Task count specification invalid" in p.stderr
    p = cluster.run(["sbatch", "-O", "--ntasks-per-node=513", "--wrap", "true"])
    assert p.returncode == 1 and "Task count specification invalid" in p.stderr


def test_cpus_per_task_without_ntasks_fills_the_allocation(cluster):
    """srun -c N with no -n: as many tasks as the allocated CPUs hold (a whole
    node with --exclusive), as Slurm's srun counts them (test1.84)."""
    cpus = int(cluster.run(["sinfo", "-h", "-n", "node01", "-o", "%c"],
                           check=True).stdout.split()[0])
    p = cluster.run(["srun", "-N1", "-w", "node01", "--exclusive", "-c1", "-l",
                     "printenv", "SLURM_NTASKS"])
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == sorted(f"{i}: {cpus}" for i in range(cpus))
    p = cluster.run(["srun", "-N1", "-c1", "printenv", "SLURM_NTASKS"])
    assert p.stdout.split() == ["1"], p.stdout


# ---- parallel debuggers (MPIR; Slurm's test1.41, test1.54) ----

TASK_LINE = re.compile(r"^srun: task:(\d+), host:(\S+), pid:(\d+), executable:(\S+)$")


def _proc_state(pid):
    """The State: letter of /proc/pid/status, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("State:"):
                    return line.split()[1]
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def _debugger_table(cluster, args, ntasks):
    """Start srun --debugger-test; read its table (ntasks lines).  Returns the
    process and {task: (host, pid, executable)}."""
    proc = subprocess.Popen(["srun", "--debugger-test", *args], env=cluster.env,
                            cwd=str(cluster.work), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    table = {}
    stuck = threading.Timer(30, proc.kill)  # no table: srun goes, the loop ends
    stuck.start()
    try:
        while len(table) < ntasks:
            line = proc.stderr.readline()
            if not line:
                break
            m = TASK_LINE.match(line.rstrip("\n"))
            if m:
                table[int(m.group(1))] = (m.group(2), int(m.group(3)), m.group(4))
    finally:
        stuck.cancel()
    return proc, table


def _step_hosts(cluster, jobid):
    p = cluster.run(["squeue", "-h", "-s", "-j", str(jobid), "-o", "%i %N"])
    nodelist = [line.split()[1] for line in p.stdout.splitlines()
                if line.startswith(f"{jobid}.0 ")][0]
    return cluster.run(["scontrol", "show", "hostnames", nodelist]).stdout.split()


def test_debugger_test_stops_the_tasks_until_cancelled(cluster):
    """--debugger-test: one line a task with its node and the pid of a real
    process stopped (State T) before its program ran; scancel ends them."""
    proc, table = _debugger_table(
        cluster, ["-N2", "-n4", "--overcommit", "-t2", "sh", "-c", "echo RAN"], 4)
    try:
        assert sorted(table) == [0, 1, 2, 3], table
        jobid = cluster.run("squeue -h -o %i -n sh").stdout.split()[0]
        hosts = _step_hosts(cluster, jobid)
        # block distribution: tasks 0-1 on the first node, 2-3 on the second
        assert [table[t][0] for t in range(4)] == [hosts[0]] * 2 + [hosts[1]] * 2
        for t in range(4):
            host, pid, exe = table[t]
            assert exe == "sh"
            assert _proc_state(pid) == "T", (t, pid)
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                assert f.read().split(b"\0")[:3] == [b"sh", b"-c", b"echo RAN"]
        time.sleep(1)
        assert all(_proc_state(table[t][1]) == "T" for t in range(4))
        cluster.run(["scancel", jobid], check=True)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "RAN" not in out, out
    cluster.wait_for(lambda: all(_proc_state(table[t][1]) in (None, "Z")
                                 for t in range(4)), what="the stopped tasks to end")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGQUIT])
def test_term_forces_termination_of_stopped_tasks(cluster, sig):
    """SIGTERM (SIGHUP, SIGQUIT) to srun ends its step at once, stopped tasks
    too, in Slurm's words (its test7.5): not the time limit."""
    proc, table = _debugger_table(cluster, ["-N1", "-t1", "sleep", "100"], 1)
    try:
        assert _proc_state(table[0][1]) == "T"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "srun: forcing job termination\n" in err, err
    assert ("srun: Quit\n" in err) == (sig == signal.SIGQUIT), err
    assert "TIME LIMIT" not in err, err
    cluster.wait_for(lambda: _proc_state(table[0][1]) in (None, "Z"),
                     what="the stopped task to end")


def test_debugger_test_multi_prog_executables(cluster):
    """Each --multi-prog task's own program (test1.54); the time limit ends
    the stopped tasks."""
    (cluster.work / "dbg.conf").write_text("1-2 hostname\n0,3 date\n")
    proc, table = _debugger_table(
        cluster, ["-N1", "-n4", "--overcommit", "-l", "--multi-prog", "dbg.conf"], 4)
    try:
        assert {t: e for t, (_, _, e) in table.items()} == {
            0: "date", 1: "hostname", 2: "hostname", 3: "date"}, table
        assert all(_proc_state(pid) == "T" for _, pid, _ in table.values())
        jobid = cluster.run("squeue -h -o %i -n dbg.conf").stdout.split()
        if jobid:
            cluster.run(["scancel", jobid[0]])
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out == "", out


def test_debugger_breakpoint_then_tasks_run(cluster, tmp_path):
    """A debugger (gdb) sets MPIR_being_debugged: srun stops in
    MPIR_Breakpoint with MPIR_proctable filled and the tasks stopped; after it
    the tasks (no debugger traces them) run to their end."""
    import shutil
    import pytest
    if not shutil.which("gdb"):
        pytest.skip("no gdb")
    srun = shutil.which("srun", path=cluster.env["PATH"])
    cmds = ["set breakpoint pending on", "set confirm off", "break cmd_srun", "run",
            "set var MPIR_being_debugged=1", "break MPIR_Breakpoint", "continue",
            "printf \"SIZE=%d STATE=%d\\n\", MPIR_proctable_size, MPIR_debug_state",
            "printf \"T0=%s %s %d\\n\", MPIR_proctable[0].host_name, "
            "MPIR_proctable[0].executable_name, MPIR_proctable[0].pid",
            "printf \"T1=%s %s %d\\n\", MPIR_proctable[1].host_name, "
            "MPIR_proctable[1].executable_name, MPIR_proctable[1].pid",
            "eval \"shell grep State: /proc/%d/status\", MPIR_proctable[0].pid",
            "eval \"shell grep State: /proc/%d/status\", MPIR_proctable[1].pid",
            "continue"]
    args = ["gdb", "-batch", "-nx"]
    for c in cmds:
        args += ["-ex", c]
    args += ["--args", srun, "-n2", "-l", "sh", "-c", "echo RAN $SLURM_PROCID"]
    p = subprocess.run(args, env=cluster.env, cwd=str(cluster.work),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=120)
    out = p.stdout
    assert "SIZE=2 STATE=1" in out, out + p.stderr
    t0 = re.search(r"T0=(\S+) sh (\d+)", out)
    t1 = re.search(r"T1=(\S+) sh (\d+)", out)
    assert t0 and t1 and t0.group(2) != t1.group(2), out
    assert out.count("State:\tT (stopped)") == 2, out
    # RAN comes after the breakpoint only
    assert out.index("State:") < out.index("0: RAN 0"), out
    assert "1: RAN 1" in out, out


def test_immediate_step_gives_up_when_busy(cluster):
    """srun --immediate in an allocation: a step whose CPUs are not free
    within the seconds given is not waited for, in Slurm's words (its
    test1.14); without it the step waits and runs."""
    script = ("srun -n1 --exclusive sleep 5 & sleep 1; "
              "srun -n1 --exclusive --immediate=1 true; echo rc=$?; "
              "srun -n1 --exclusive true; echo rc=$?; wait")
    p = cluster.run(["salloc", "-N1", "-n1", "bash", "-c", script])
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["rc=1", "rc=0"], p.stdout + p.stderr
    assert re.search(r"^srun: error: Unable to create step for job \d+: Requested "
                     r"nodes are busy$", p.stderr, re.M), p.stderr
    assert p.stderr.count("step creation temporarily disabled") == 1, p.stderr


def test_resv_ports(fresh_cluster):
    """MpiParams=ports=MIN-MAX: a step gets its most tasks on a node plus one
    ports (or --resv-ports=N) in SLURM_STEP_RESV_PORTS and scontrol show
    step's ResvPorts; a port is one step's at a time on a node; more than the
    range has is refused, too many in use waits (as Slurm's srun)."""
    c = fresh_cluster
    c.down()
    with open(c.conf_path, "a") as f:
        f.write("MpiParams=ports=12000-12009\n")
    c.up()
    p = c.run("srun -N1 -n3 printenv SLURM_STEP_RESV_PORTS")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["12000-12003"] * 3, p.stdout
    p = c.run("srun -N2 --resv-ports=2 printenv SLURM_STEP_RESV_PORTS")
    assert p.stdout.splitlines() == ["12004-12005"] * 2, p.stdout
    p = c.run("srun --resv-ports=11 true")
    assert p.returncode != 0
    assert ("srun: error: Unable to create step for job" in p.stderr and
            "Requires more ports than can be reserved" in p.stderr), p.stderr
    p = c.run("srun --resv-ports=0 sh -c 'echo ${SLURM_STEP_RESV_PORTS:-none}'")
    assert p.stdout == "none\n", p.stdout
    out = c.work / "ports.out"
    job = c.sbatch("-N1", "-n2", "-w", "node01", "-o", str(out), "--wrap",
                   "srun --overlap -n1 --resv-ports=7 sleep 5 & sleep 1; "
                   "srun --overlap -n1 --resv-ports=7 printenv SLURM_STEP_RESV_PORTS; "
                   "wait")
    c.wait_for(lambda: "ResvPorts=1" in c.run(["scontrol", "show", "step",
                                                f"{job}.0"]).stdout,
               what="step 0 holding its ports")
    held = re.search(r"ResvPorts=(\S+)", c.run(["scontrol", "show", "step",
                                                  f"{job}.0"]).stdout).group(1)
    assert held == "12000-12002,12006-12009", held  # searched on from 12006
    assert c.wait_job(job, timeout=60) == "COMPLETED"
    text = out.read_text()
    assert "step creation temporarily disabled, retrying (Required ports are in use)" \
        in text, text
    assert text.splitlines()[-1] == "12003-12009", text
    p = c.run("srun -N1 printenv SLURM_STEP_RESV_PORTS")
    assert p.returncode == 0, p.stderr
