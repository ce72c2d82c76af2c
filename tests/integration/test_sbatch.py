"""sbatch: --wrap, output patterns, -D, --export, exit codes, bad input."""

import os
import re

from conftest import write_script


def test_wrap(cluster):
    p = cluster.run(["sbatch", "--wrap", "echo hello from $SLURM_JOB_ID"])
    assert p.returncode == 0 and p.stderr == "", p.stderr
    jobid = int(re.fullmatch(r"Submitted batch job (\d+)\n", p.stdout).group(1))
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == f"hello from {jobid}\n"
    assert cluster.job_field(jobid, "JobName") == "wrap"


def test_parsable(cluster):
    p = cluster.run("sbatch --parsable --hold --wrap true")
    assert p.returncode == 0 and re.fullmatch(r"\d+\n", p.stdout), p.stdout
    assert p.stderr == ""


def test_script_on_stdin(cluster):
    jobid = cluster.sbatch(input="#!/bin/sh\necho from-stdin\n")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == "from-stdin\n"


def test_output_patterns(cluster):
    jobid = cluster.sbatch("-J", "pat", "-o", "out-%j-%x-%u-%N-%%.txt", "-e", "err-%j.txt",
                           "--wrap", "echo to-out; echo to-err >&2")
    assert cluster.wait_job(jobid) == "COMPLETED"
    out = cluster.work / f"out-{jobid}-pat-{cluster.user}-node01-%.txt"
    assert out.read_text() == "to-out\n"
    assert (cluster.work / f"err-{jobid}.txt").read_text() == "to-err\n"
    assert not (cluster.work / f"slurm-{jobid}.out").exists()


def test_output_absolute_and_padded(cluster):
    target = cluster.work / "abs"
    target.mkdir()
    os.chmod(target, 0o777)
    jobid = cluster.sbatch("-o", f"{target}/job-%8j.log", "--wrap", "echo abs")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (target / f"job-{jobid:08d}.log").read_text() == "abs\n"


def test_workdir(cluster):
    sub = cluster.work / "sub"
    sub.mkdir()
    os.chmod(sub, 0o777)
    jobid = cluster.sbatch("-D", "sub", "--wrap", "pwd; echo $SLURM_SUBMIT_DIR")
    assert cluster.wait_job(jobid) == "COMPLETED"
    lines = (sub / f"slurm-{jobid}.out").read_text().splitlines()
    # the job runs in -D; SLURM_SUBMIT_DIR is where sbatch ran
    assert lines == [str(sub), str(cluster.work)]


def test_export_default_all(cluster):
    jobid = cluster.sbatch("--wrap", 'echo "FOO=${FOO-unset}"', env={"FOO": "from-env"})
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == "FOO=from-env\n"


def test_export_none(cluster):
    jobid = cluster.sbatch("--export=NONE", "--wrap",
                           'echo "FOO=${FOO-unset} JOB=$SLURM_JOB_ID"',
                           env={"FOO": "from-env"})
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == f"FOO=unset JOB={jobid}\n"


def test_export_all_plus_var(cluster):
    jobid = cluster.sbatch("--export=ALL,FOO=bar", "--wrap",
                           'echo "FOO=$FOO BAZ=${BAZ-unset}"',
                           env={"FOO": "from-env", "BAZ": "kept"})
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == "FOO=bar BAZ=kept\n"


def test_batch_environment(cluster):
    jobid = cluster.sbatch("-N", "2", "-J", "envjob", "--wrap",
                           "env | grep -E '^SLURM' | sort")
    assert cluster.wait_job(jobid) == "COMPLETED"
    env = dict(line.split("=", 1)
               for line in (cluster.work / f"slurm-{jobid}.out").read_text().splitlines())
    assert env["SLURM_JOB_ID"] == env["SLURM_JOBID"] == str(jobid)
    assert env["SLURM_JOB_NAME"] == "envjob"
    assert env["SLURM_JOB_NODELIST"] == env["SLURM_NODELIST"] == "node[01-02]"
    assert env["SLURM_JOB_NUM_NODES"] == env["SLURM_NNODES"] == "2"
    assert env["SLURMD_NODENAME"] == "node01"
    assert env["SLURM_NODEID"] == "0" and env["SLURM_PROCID"] == "0"
    assert env["SLURM_JOB_PARTITION"] == "debug"
    assert env["SLURM_SUBMIT_DIR"] == str(cluster.work)
    assert env["SLURM_CLUSTER_NAME"] == "rota"
    assert "SLURM_STEP_ID" not in env


def test_exit_code(cluster):
    jobid = cluster.sbatch("--wrap", "exit 3")
    assert cluster.wait_job(jobid) == "FAILED"
    assert cluster.job_field(jobid, "ExitCode") == "3:0"
    ok = cluster.sbatch("--wrap", "true")
    assert cluster.wait_job(ok) == "COMPLETED"
    assert cluster.job_field(ok, "ExitCode") == "0:0"


def test_killed_by_signal(cluster):
    jobid = cluster.sbatch("--wrap", "kill -9 $$")
    assert cluster.wait_job(jobid) == "FAILED"
    assert cluster.job_field(jobid, "ExitCode") == "0:9"


def test_bad_options(cluster):
    write_script(cluster.work / "ok.sh", "#!/bin/sh\ntrue\n")
    for args in (["--no-such-option", "ok.sh"], ["-N", "abc", "ok.sh"],
                 ["--time=bogus", "ok.sh"], ["--mem=lots", "ok.sh"],
                 ["-p", "nosuchpartition", "ok.sh"], ["missing-file.sh"],
                 ["--ntasks=-1", "ok.sh"], ["-c", "0", "ok.sh"]):
        p = cluster.run(["sbatch", *args])
        assert 0 < p.returncode < 128, (args, p.returncode)
        assert p.stderr.startswith("sbatch: "), (args, p.stderr)
        assert "Submitted" not in p.stdout
    p = cluster.run("squeue -h -t all -o %i")
    assert p.returncode == 0


def test_invalid_partition_message(cluster):
    """The controller's line naming the partition comes first, as Slurm's
    err_msg does, for sbatch, srun and salloc alike (the first unknown name
    of a list)."""
    p = cluster.run("sbatch -p nosuch --wrap true")
    assert p.returncode == 1
    assert p.stderr == ("sbatch: error: invalid partition specified: nosuch\n"
                        "sbatch: error: Batch job submission failed: "
                        "Invalid partition name specified\n")
    p = cluster.run("srun -p debug,nosuch2 true")
    assert p.returncode == 1
    assert p.stderr == ("srun: error: invalid partition specified: nosuch2\n"
                        "srun: error: Unable to allocate resources: "
                        "Invalid partition name specified\n")
    p = cluster.run("salloc -p nosuch true")
    assert p.returncode == 1
    assert p.stderr == ("salloc: error: invalid partition specified: nosuch\n"
                        "salloc: error: Job submit/allocate failed: "
                        "Invalid partition name specified\n")


def test_script_without_shebang_rejected(cluster):
    write_script(cluster.work / "nohash.sh", "echo hi\n")
    p = cluster.run("sbatch nohash.sh")
    assert p.returncode == 1
    assert "This does not look like a batch script" in p.stderr
    assert p.stdout == ""


def test_script_arguments_and_directives(cluster):
    write_script(cluster.work / "args.sh",
                 "#!/bin/bash\n#SBATCH -J fromdirective\n#SBATCH -o args-%j.txt\n"
                 'echo "$# $1 $2 $SLURM_JOB_NAME"\n')
    jobid = cluster.sbatch("args.sh", "one", "two words")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"args-{jobid}.txt").read_text() == "2 one two words fromdirective\n"
    # the command line overrides #SBATCH
    jobid = cluster.sbatch("-J", "fromcli", "args.sh")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"args-{jobid}.txt").read_text().endswith(" fromcli\n")


def test_wait_returns_exit_code(cluster):
    p = cluster.run("sbatch --wait --wrap 'exit 5'", timeout=60)
    assert p.returncode == 5
    assert re.match(r"Submitted batch job \d+\n", p.stdout)
