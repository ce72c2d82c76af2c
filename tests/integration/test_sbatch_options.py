"""sbatch option sources and values: #SBATCH directives vs SBATCH_* vs the command
line, --wait, --export order, Slurm's error words for bad values."""

import re

from conftest import write_script


def test_precedence_script_env_argv(cluster):
    write_script(cluster.work / "prec.sh",
                 "#!/bin/sh\n#SBATCH -J from-script --comment='x y'\n"
                 "#SBATCH -t 5\necho hi\n#SBATCH -J ignored-after-command\n")
    jobid = cluster.sbatch("-H", "prec.sh")
    assert cluster.job_field(jobid, "JobName") == "from-script"
    assert cluster.job_field(jobid, "TimeLimit") == "00:05:00"
    jobid = cluster.sbatch("-H", "prec.sh", env={"SBATCH_JOB_NAME": "from-env"})
    assert cluster.job_field(jobid, "JobName") == "from-env"
    jobid = cluster.sbatch("-H", "-J", "from-argv", "prec.sh",
                           env={"SBATCH_JOB_NAME": "from-env"})
    assert cluster.job_field(jobid, "JobName") == "from-argv"


def test_wait_returns_exit_code(cluster):
    p = cluster.run("sbatch --wait --wrap 'exit 7'")
    assert p.returncode == 7
    assert re.fullmatch(r"Submitted batch job \d+\n", p.stdout)
    p = cluster.run("sbatch -W --parsable --wrap true")
    assert p.returncode == 0 and re.fullmatch(r"\d+\n", p.stdout)


def test_export_order(cluster):
    jobid = cluster.sbatch("--export=FOO=first,ALL", "--wrap", 'echo "FOO=$FOO"',
                           env={"FOO": "caller"})
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == "FOO=caller\n"


def test_export_names_a_shell_could_not_declare(cluster):
    """--export=NAME=value takes any name, dots and dashes included, as
    Slurm does (test17.14 exports TEST_ENV_17.14).  bash passes such names
    on to the programs it runs (dash drops them)."""
    write_script(cluster.work / "names.sh",
                 "#!/bin/bash\nenv | grep -E '^(TEST_ENV_17.14|A-B)=' | sort\n")
    jobid = cluster.sbatch("--export=TEST_ENV_17.14=123,A-B=x", "names.sh")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == \
        "A-B=x\nTEST_ENV_17.14=123\n"


def test_begin_words_combine(cluster):
    """--begin reads Slurm's time words together (noon-tomorrow, 4:00pm
    tomorrow, MM/DD-HH:MM); the pending job shows that time as StartTime;
    text it cannot read is refused with where it stopped."""
    import datetime
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    for spec, hhmm in (("noon-tomorrow", "12:00"), ("tomorrow 4:00pm", "16:00"),
                       (f"{tomorrow:%m/%d}-09:30", "09:30")):
        jobid = cluster.sbatch(f"--begin={spec}", "--wrap", "true")
        want = f"{tomorrow:%Y-%m-%d}T{hhmm}:00"
        assert cluster.job_field(jobid, "StartTime") == want, spec
        assert cluster.job_field(jobid, "EligibleTime") == want, spec
        assert cluster.job_field(jobid, "Reason") == "BeginTime"
        cluster.run(["scancel", str(jobid)])
    p = cluster.run(["sbatch", "--begin=noon x", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == ("Invalid time specification (pos=5): noon x\n"
                        "sbatch: error: Invalid --begin specification\n")


def test_vv_debug_lines(cluster):
    """-vv (and more) adds Slurm's "debug:" lines for the limits and umask
    the tasks get; -v alone does not."""
    p = cluster.run(["sbatch", "-vvv", "-H", "--propagate=NOFILE", "--wrap", "true"])
    assert p.returncode == 0, p.stderr
    assert re.search(r"^sbatch: debug:  propagating RLIMIT_NOFILE=\d+$", p.stderr, re.M)
    assert re.search(r"^sbatch: debug:  propagating UMASK=0[0-7]{3}$", p.stderr, re.M)
    p = cluster.run(["sbatch", "-v", "-H", "--wrap", "true"])
    assert p.returncode == 0 and "debug:" not in p.stderr
    # salloc and srun too (Slurm's test15.6): where the configuration came
    # from, in Rota's words
    for cmd in (["salloc", "-vv", "-N1", "true"], ["srun", "-vv", "-N1", "true"]):
        p = cluster.run(cmd)
        assert p.returncode == 0, p.stderr
        assert re.search(rf"^{cmd[0]}: debug:  configuration read from \S+slurm.conf$",
                         p.stderr, re.M), p.stderr
        p = cluster.run([cmd[0], "-v", *cmd[2:]])
        assert p.returncode == 0 and "debug:" not in p.stderr, p.stderr


def test_input_variables_in_defined_options(cluster):
    """SBATCH_* variables are options: SBATCH_DEBUG=N is N -v's, a flag's
    variable set to 0 leaves it off; -v lists them as Slurm does (times as
    HH:MM:SS, sizes in their largest whole unit)."""
    p = cluster.run(["sbatch", "-H", "-N1", "--mem=1024", "-o", "/dev/null",
                     "--wrap", "true"],
                    env={"SBATCH_ACCOUNT": "acct17", "SBATCH_DEBUG": "4",
                         "SBATCH_TIMELIMIT": "3", "SBATCH_NO_REQUEUE": "0"})
    lines = p.stderr.splitlines()
    head = lines[:lines.index("sbatch: end of defined options") + 1]
    assert head == ["sbatch: defined options",
                    "sbatch: -------------------- --------------------",
                    "sbatch: account             : acct17",
                    "sbatch: hold                : set",
                    "sbatch: mem                 : 1G",
                    "sbatch: nodes               : 1",
                    "sbatch: output              : /dev/null",
                    "sbatch: time                : 00:03:00",
                    "sbatch: verbose             : 4",
                    "sbatch: wrap                : true",
                    "sbatch: -------------------- --------------------",
                    "sbatch: end of defined options"], head


def test_pbs_plus_ppn_and_ignore_variable(cluster):
    """#PBS -l nodes=3+ppn=2 is 3 nodes of 2 tasks each, as Slurm reads it;
    SBATCH_IGNORE_PBS=0 does not ignore #PBS lines, 1 does."""
    write_script(cluster.work / "pbs.sh",
                 "#!/bin/sh\n#PBS -l nodes=3+ppn=2,mem=1024mb\ntrue\n")
    jobid = cluster.sbatch("-H", "pbs.sh", env={"SBATCH_IGNORE_PBS": "0"})
    assert cluster.job_field(jobid, "NumNodes") == "3"
    assert cluster.job_field(jobid, "NumTasks") == "6"
    jobid = cluster.sbatch("-H", "pbs.sh", env={"SBATCH_IGNORE_PBS": "1"})
    assert cluster.job_field(jobid, "NumNodes") == "1"


def test_core_spec_and_thread_spec(cluster):
    """-S and --thread-spec exclude each other (Slurm's words, its typo
    included); alone, without AllowSpecResourcesUsage, each is ignored with
    Slurm's error and the job still goes in."""
    p = cluster.run(["sbatch", "--thread-spec=1", "-S1", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == ("sbatch: fatal: -S/--core-spec and --thred-spec options "
                        "are mutually exclusive\n")
    p = cluster.run(["sbatch", "--wrap", "true"],
                    env={"SBATCH_CORE_SPEC": "1", "SBATCH_THREAD_SPEC": "1"})
    assert p.returncode == 1
    assert p.stderr == ("sbatch: fatal: Both --core-spec and --thread-spec set using "
                        "environment variables. Those options are mutually "
                        "exclusive.\n")
    p = cluster.run(["sbatch", "-H", "-S1", "--wrap", "true"])
    assert p.returncode == 0
    assert p.stderr == ("sbatch: error: Ignoring -S since it's not allowed by "
                        "configuration (AllowSpecResourcesUsage = No)\n")
    p = cluster.run(["scontrol", "show", "config"])
    assert re.search(r"^AllowSpecResourcesUsage += NO$", p.stdout, re.M)


def test_bbf_spliced_into_the_script(cluster):
    """sbatch --bbf=FILE puts the file's lines after the script's #! line,
    as Slurm's sbatch does (no burst buffer plugin involved); a file that
    cannot be read is Slurm's "Invalid --bbf specification"."""
    (cluster.work / "bbf").write_text("echo from_bbf\nexit 0")
    write_script(cluster.work / "main.sh", "#!/bin/sh\necho from_script\n")
    jobid = cluster.sbatch("--bbf=bbf", "-o", "bbf.out", "main.sh")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / "bbf.out").read_text() == "from_bbf\n"
    p = cluster.run(["sbatch", "--bbf=/nonexistent", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == "sbatch: error: Invalid --bbf specification\n"


def test_open_mode_truncates_or_appends(cluster):
    """The batch script's output file starts empty unless --open-mode=append
    (the only task opens it itself; steps of several tasks have it prepared
    once), and -e to another file likewise."""
    out, err = cluster.work / "om.out", cluster.work / "om.err"
    for f in (out, err):
        f.write_text("old\n")
    jobid = cluster.sbatch("-o", str(out), "-e", str(err), "--wrap",
                           "echo new; echo bad >&2")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert out.read_text() == "new\n" and err.read_text() == "bad\n"
    jobid = cluster.sbatch("-o", str(out), "--open-mode=append", "--wrap", "echo more")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert out.read_text() == "new\nmore\n"
    two = cluster.work / "om2.out"
    two.write_text("old old old old old\n")
    p = cluster.run(["srun", "-n", "2", "-o", str(two), "echo", "x"])
    assert p.returncode == 0, p.stderr
    assert two.read_text() == "x\nx\n"


def test_nice(cluster):
    jobid = cluster.sbatch("-H", "--nice=-5", "--wrap", "true")
    assert cluster.job_field(jobid, "Nice") == "-5"
    jobid = cluster.sbatch("-H", "--nice", "--wrap", "true")
    assert cluster.job_field(jobid, "Nice") == "100"
    jobid = cluster.sbatch("-H", "--wrap", "true")
    assert cluster.job_field(jobid, "Nice") == "0"


def test_nice_under_priority_basic(cluster):
    """priority/basic (the default) is first come, first served, less the nice
    value (Slurm's test17.23); scontrol update Nice= moves a pending job."""
    later = ["--begin=now+1hour", "--wrap", "true"]
    first = cluster.sbatch(*later)
    nice = cluster.sbatch("--nice", *later)
    nicer = cluster.sbatch("--nice=200", *later)
    prio = {j: int(cluster.job_field(j, "Priority")) for j in (first, nice, nicer)}
    assert prio[first] - prio[nice] == 1 + 100
    assert prio[first] - prio[nicer] == 2 + 200
    cluster.run(["scontrol", "update", f"JobId={nicer}", "Nice=0"], check=True)
    assert prio[first] - int(cluster.job_field(nicer, "Priority")) == 2
    cluster.run(["scancel", str(first), str(nice), str(nicer)], check=True)


def test_memory_units_and_node_ranges(cluster):
    """Slurm's forms: a unit may end in B (--mem=1GB, as submitit writes
    it), -N min-max and -N -max."""
    for arg, want in (("--mem=1GB", "1G"), ("--mem=512mb", "512M"),
                      ("--mem=2048KB", "2M")):
        jobid = cluster.sbatch("-H", arg, "--wrap", "true")
        assert cluster.job_field(jobid, "MinMemoryNode") == want, arg
    for arg in ("-N 1-2", "-N -2"):
        jobid = cluster.sbatch("-H", *arg.split(), "--wrap", "true")
        assert cluster.job_field(jobid, "NumNodes") in ("1", "1-2"), arg
    for arg in ("--mem=1B", "--mem=1GiB", "--mem=1GBB"):
        p = cluster.run(["sbatch", arg, "--wrap", "true"])
        assert p.returncode == 1 and "Invalid --mem specification" in p.stderr, arg


def test_error_words(cluster):
    write_script(cluster.work / "ok.sh", "#!/bin/sh\ntrue\n")
    cases = {
        "-t foo": "sbatch: error: Invalid --time specification\n",
        "--mem foo": "sbatch: error: Invalid --mem specification\n",
        "-n 0": 'sbatch: error: Invalid numeric value "0" for --ntasks.\n',
        "-c -1": 'sbatch: error: Invalid numeric value "-1" for --cpus-per-task.\n',
        "-N abc": 'sbatch: error: "abc" is not a valid node count\n',
        "-N 3-2": "sbatch: error: Maximum node count 2 is less than minimum node count 3\n",
        "--open-mode=x": "sbatch: error: Invalid --open-mode specification\n",
        "--mem=1G --mem-per-cpu=1G": "sbatch: fatal: --mem, --mem-per-cpu, and "
                                     "--mem-per-gpu are mutually exclusive.\n",
        "--bogus": "sbatch: unrecognized option '--bogus'\n"
                   "Try \"sbatch --help\" for more information\n",
    }
    for args, err in cases.items():
        p = cluster.run(f"sbatch {args} ok.sh")
        assert (p.returncode, p.stdout, p.stderr) == (1, "", err), args
    p = cluster.run("sbatch --wrap true extra")
    assert p.stderr == "sbatch: error: Script arguments not permitted with --wrap option\n"
    p = cluster.run("sbatch missing.sh")
    assert p.stderr == "sbatch: error: Unable to open file missing.sh\n"
    p = cluster.run("sbatch", input="")
    assert p.stderr == "sbatch: error: Batch script is empty!\n"


def test_bad_directives(cluster):
    write_script(cluster.work / "bad1.sh", "#!/bin/sh\n#SBATCH -J a extra\ntrue\n")
    p = cluster.run("sbatch bad1.sh")
    assert p.returncode == 1
    assert p.stderr == "sbatch: error: Invalid directive found in batch script: extra\n"
    write_script(cluster.work / "bad2.sh", "#!/bin/sh\n#SBATCH -J \"open\ntrue\n")
    p = cluster.run("sbatch bad2.sh")
    assert p.returncode == 1
    assert p.stderr == "sbatch: fatal: bad2.sh: line 2: Unmatched `\"` in [ -J \"open]\n"
    write_script(cluster.work / "dos.sh", "#!/bin/sh\r\ntrue\r\n")
    p = cluster.run("sbatch dos.sh")
    assert p.returncode == 1 and "DOS line breaks" in p.stderr



PBS_SCRIPT = """#!/bin/sh
#SBATCH -J from-sbatch
#PBS -N from-pbs
#PBS -l nodes=2:ppn=3,walltime=00:20:00
#PBS -l mem=2gb
#PBS -m ae -M someone@example.org
#PBS -h
echo ran
"""


def test_pbs_directives_are_read_unless_ignored(cluster):
    """#PBS lines are sbatch options after the #SBATCH ones, as in Slurm:
    name, nodes and tasks, walltime, memory, mail, hold; the command line
    wins over both; --ignore-pbs (or SBATCH_IGNORE_PBS) leaves them out."""
    c = cluster
    script = write_script(c.work / "pbs.sh", PBS_SCRIPT)
    jid = c.sbatch(str(script))
    f = {k: c.job_field(jid, k) for k in ("JobName", "NumNodes", "NumTasks",
                                          "TimeLimit", "MinMemoryNode", "MailType",
                                          "MailUser", "Reason")}
    assert f == {"JobName": "from-pbs", "NumNodes": "2", "NumTasks": "6",
                 "TimeLimit": "00:20:00", "MinMemoryNode": "2G",
                 "MailType": "END,FAIL", "MailUser": "someone@example.org",
                 "Reason": "JobHeldUser"}, f
    jid = c.sbatch("-J", "from-argv", "-t", "5", str(script))
    assert c.job_field(jid, "JobName") == "from-argv"
    assert c.job_field(jid, "TimeLimit") == "00:05:00"
    assert c.job_field(jid, "NumTasks") == "6"
    for args, env in ((["--ignore-pbs"], None), ([], {"SBATCH_IGNORE_PBS": "1"})):
        jid = c.sbatch(*args, str(script), env=env)
        assert c.job_field(jid, "JobName") == "from-sbatch", args
        assert c.job_state(jid) == "RUNNING" or c.wait_job(jid) == "COMPLETED"
    bad = write_script(c.work / "badpbs.sh", "#!/bin/sh\n#PBS -Y\ntrue\n")
    p = c.run(["sbatch", str(bad)])
    assert p.returncode == 1 and "Unrecognized #PBS option -Y" in p.stderr, p.stderr
    c.run(["scancel", "-u", "root"])


def test_clusters_names_this_cluster_only(cluster):
    """-M/--clusters: this cluster (or all) is accepted; another name is
    refused in Slurm's words by the commands that take it."""
    c = cluster
    name = c.conf_value("ClusterName")
    for arg in (name, "all"):
        jid = c.sbatch("-M", arg, "-H", "--wrap", "true")
        c.run(["scancel", str(jid)])
    want = ("error: 'elsewhere' can't be reached now, or it is an invalid entry for "
            "--cluster.  Use 'sacctmgr list clusters' to see available clusters.\n")
    for cmd in (["sbatch", "--wrap", "true"], ["srun", "true"], ["squeue"],
                ["sinfo"], ["scancel", "1"]):
        p = c.run([cmd[0], "-M", "elsewhere", *cmd[1:]])
        assert (p.returncode, p.stderr) == (1, f"{cmd[0]}: {want}"), (cmd, p.stderr)
    p = c.run(["sbatch", "--wrap", "true"], env={"SBATCH_CLUSTERS": f"{name},nope"})
    assert p.returncode == 1 and "invalid entry for --cluster" in p.stderr, p.stderr
    assert c.run(["squeue", "-M", name]).returncode == 0


def test_gres_of_zero_asks_for_none(cluster):
    """--gres=NAME:0 asks for none of it, known or not (Slurm's test1.14 gives
    --gres=craynetwork:0 on any cluster); a bad one is still refused."""
    jobid = cluster.sbatch("-H", "--gres=craynetwork:0", "--wrap", "true")
    assert "TresPerNode" not in cluster.run(["scontrol", "show", "job", str(jobid)]).stdout
    cluster.run(["scancel", str(jobid)], check=True)
    p = cluster.run(["sbatch", "--gres=gpu:x:y", "--wrap", "true"])
    assert p.returncode != 0 and "Invalid --gres specification" in p.stderr


def test_bsub_directives(cluster):
    """#BSUB lines (LSF) become sbatch options as Slurm reads them: -J, -o,
    -e, -W, -q, -m hosts, -M in KB, -n; --ignore-pbs skips them too."""
    write_script(cluster.work / "lsf.sh",
                 "#!/bin/sh\n#BSUB -Jlsfjob -o/dev/null -e lsf.err\n"
                 "#BSUB -W2 -qdebug -m\"node02\" -M 4096 -n 2\ntrue\n")
    jobid = cluster.sbatch("-H", "lsf.sh")
    assert cluster.job_field(jobid, "JobName") == "lsfjob"
    assert cluster.job_field(jobid, "StdOut") == "/dev/null"
    assert cluster.job_field(jobid, "StdErr") == str(cluster.work / "lsf.err")
    assert cluster.job_field(jobid, "TimeLimit") == "00:02:00"
    assert cluster.job_field(jobid, "ReqNodeList") == "node02"
    assert cluster.job_field(jobid, "MinMemoryCPU") == "4M"
    assert cluster.job_field(jobid, "NumTasks") == "2"
    jobid = cluster.sbatch("-H", "--ignore-pbs", "lsf.sh")
    assert cluster.job_field(jobid, "JobName") == "lsf.sh"
    write_script(cluster.work / "bad.sh", "#!/bin/sh\n#BSUB -z\ntrue\n")
    p = cluster.run(["sbatch", "bad.sh"])
    assert p.returncode == 1
    assert "Unrecognized command line parameter z" in p.stderr
