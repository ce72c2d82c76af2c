"""--help and --usage in Slurm 22.05's layout: the checks Slurm's own test suite
(testsuite/expect test1.5, 4.2, 12.1, 15.2, 17.2, 21.1, 21.2, 23.1, 24.2,
25.x, 27.x...) makes, counted as expect counts them; every option sbatch --help
lists is one sbatch takes; doc/compat.md holds what tools/compat_doc prints.
No cluster: the built binaries only."""

import re
import subprocess

import pytest

from conftest import BIN, BUILD, REPO, _clean_env


def _output(args):
    r = subprocess.run([str(BIN / args[0])] + args[1:], capture_output=True,
                       text=True, env=_clean_env(), timeout=30, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout + r.stderr


def expect_count(text, patterns):
    """What `expect { -re P1 {incr; exp_continue} -re P2 ... eof }` counts when
    the whole output is in its buffer: the first pattern (in list order) that
    matches anywhere wins, and the buffer up to the end of its match is gone;
    "." is any character, newline too (Tcl)."""
    n = 0
    while True:
        for p in patterns:
            m = re.search(p, text, re.S)
            if m:
                n += 1
                text = text[m.end():]
                break
        else:
            return n


CHECKS = [
    (["srun", "--help"], ["Usage:", "Parallel run options:", "Constraint options:"], 3),
    (["sbatch", "--help"], ["Usage:", "Constraint options:"], 2),
    (["salloc", "--help"], ["Usage:", "Consumable resources"], 2),
    (["sinfo", "--help"], ["Usage:", "Help options"], 2),
    (["sinfo", "--usage"], ["Usage: .*partition.*"], 1),
    (["sacctmgr", "--usage"], ["commit changes immediately", "display tool version number",
                               "add cluster"], 3),
    (["sacctmgr", "--help"], ["commit changes immediately", "display tool version number",
                              "add cluster"], 3),
    (["sstat", "--help"], ["sstat...OPTION", "Valid..OPTION", "-e, --helpformat"], 3),
    (["sstat", "-h"], ["sstat...OPTION", "Valid..OPTION", "-e, --helpformat"], 3),
    (["sstat", "--usage"], [r"Usage: sstat .options. -j .job..stepid.",
                            "Use --help for help"], 2),
    (["sstat", "-V"], [r"slurm (\d+)\.(\d+)."], 1),
    (["sshare", "--help"], ["Usage: *sshare *.OPTION", "Valid OPTIONs are",
                            "verbose *display more information"], 3),
    (["sacct", "--help"], ["sacct...OPTION", "Valid..OPTION..values are:", "--duplicates"], 3),
    (["sprio", "--help"], ["Help options:"], 1),
    (["sdiag", "--usage"], ["Usage: *sdiag"], 1),
    (["sattach", "--help"], [r"Usage: sattach \[options\] <jobid.stepid>",
                             "--layout", "Help options:"], 3),
    (["sattach", "--usage"], [r"Usage: sattach \[options\] <jobid.stepid>"], 1),
    (["strigger", "--help"], ["Usage: strigger .--set . --get . --clear. .OPTIONS.",
                              "--primary_database_resumed_operation", "Help options:"], 3),
    (["strigger", "--usage"], [r"Usage: strigger \[--set \| --get \| --clear \| "
                               r"--version\] \[-aAbBcCdDefFgGhHiIjnNopQrtuv\]"], 1),
    (["sbcast", "--help"], ["Usage: sbcast .OPTIONS. SOURCE DEST", "Help options:"], 2),
    (["sbcast", "--usage"], [r"Usage: sbcast \[--exclude\] \[-CfFjpvV\] "
                             r"\[--send-libs\] SOURCE DEST"], 1),
    (["sdiag", "--help"], ["Usage: sdiag", "Help options:"], 2),
    (["scrontab", "--help"], [r"usage:\tscrontab \[-u user\] file",
                              r"\tscrontab \[-u user\] \[ -e \| -l \| -r \| -v\]",
                              r"-e\tEdit user's crontab"], 3),
    (["squeue", "--help"], ["Usage:", "Help options"], 2),  # test5.2
    (["scancel", "--help"], ["Usage:", "Help options"], 2),  # test6.2
    (["scancel", "--usage"], ["Usage: .*usage.*"], 1),  # test6.1
    (["scontrol", "--help"], [r"^scontrol \[<OPTION>\] \[<COMMAND>\]"], 1),
    # test2.2
    (["scontrol", "help"], ["Valid <COMMAND> values are:", "reconfigure  ",
                            "version      "], 3),
    (["sbatch", "--usage"], ["Usage: .*sbatch.*"], 1),
    (["salloc", "--usage"], ["Usage: .*salloc.*"], 1),
    (["srun", "--usage"], ["srun .* executable .*"], 1),
]


@pytest.mark.parametrize("args,patterns,count", CHECKS,
                         ids=[" ".join(c[0]) for c in CHECKS])
def test_slurm_help_checks(args, patterns, count):
    rc, text = _output(args)
    assert rc == 0, text
    assert expect_count(text, patterns) == count, text


def test_expect_count_drops_what_it_skips():
    # the counting itself: a later pattern matching first hides an earlier one
    assert expect_count("b a", ["a", "b"]) == 1
    assert expect_count("a b a", ["a", "b"]) == 2


def _help_options(cmd):
    """(short letter or None, long name, takes an argument) of each --help row."""
    _, text = _output([cmd, "--help"])
    rows = re.findall(r"^  (?:-(\w), |    )--([A-Za-z][\w-]*)(\[?=)?", text, re.M)
    return [(s or None, name, bool(arg)) for s, name, arg in rows]


@pytest.mark.parametrize("cmd", ["sbatch", "srun", "salloc"])
def test_help_lists_sections_in_slurms_order(cmd):
    _, text = _output([cmd, "--help"])
    heads = re.findall(r"^(\S[^\n]*):$", text, re.M)
    assert heads == ["Parallel run options", "Constraint options",
                     "Consumable resources related options", "Affinity/Multi-core options",
                     "GPU scheduling options",
                     "Container options (as NVIDIA's Pyxis takes them)", "Help options",
                     "Other options"], heads
    # Slurm 22.05's first line, components (":") included
    assert text.splitlines()[0] == {
        "sbatch": "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) "
                  "[args(0)...]",
        "srun": "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] "
                "[ : [OPTIONS(N)...]] executable(N) [args(N)...]",
        "salloc": "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)...]] "
                  "[command(0) [args(0)...]]"}[cmd]
    assert max(len(line) for line in text.splitlines()[1:]) < 80
    # the options Rota takes without acting on them say so
    assert re.search(r"--network=\S+ +.*\n?.*accepted, no effect", text)
    assert not re.search(r"--mail-type=\S+ +.*\n?.*accepted, no effect", text)


def test_sbatch_takes_what_its_help_lists(tmp_path):
    """Each option of sbatch --help gets past sbatch's option parsing: with a
    value no parser refuses, and --version last so nothing is submitted."""
    opts = _help_options("sbatch")
    assert len(opts) > 80 and ("A", "account", True) in opts
    assert any(n == "container-image" for _, n, _ in opts)
    skip = {"help", "usage", "version", "wrap", "container", "container-image",
            "container-mounts", "container-workdir", "container-env", "container-name"}
    for short, name, arg in opts:
        if name in skip:
            continue
        args = ["sbatch", f"--{name}=1" if arg else f"--{name}", "--version"]
        rc, text = _output(args)
        # a parse error ("Invalid ...") is fine: the option itself was taken
        assert "unrecognized option" not in text and "invalid option" not in text, \
            (args, text)
        if short:
            rc, text = _output(["sbatch", f"-{short}", "1", "--version"] if arg
                               else ["sbatch", f"-{short}", "--version"])
            assert "invalid option" not in text, (short, text)


def test_sbatch_rejects_an_option_it_lacks():
    rc, text = _output(["sbatch", "--no-such-option", "--version"])
    assert rc != 0 and "unrecognized option" in text


def test_sbatch_version():
    rc, text = _output(["sbatch", "--version"])
    assert rc == 0 and re.fullmatch(r"slurm 22\.05\.\d+\S*\n", text), text


def test_compat_doc_is_current():
    """doc/compat.md ends with what tools/compat_doc prints (make compat-doc)."""
    tool = BUILD / "tools" / "compat_doc"
    if not tool.exists():
        pytest.fail(f"{tool} not built (make)")
    generated = subprocess.run([str(tool)], capture_output=True, text=True,
                               check=True, timeout=30).stdout
    doc = (REPO / "doc" / "compat.md").read_text()
    head = "## Job options (generated)"
    assert head in doc and generated.startswith(head)
    assert doc[doc.index(head):] == generated, \
        "doc/compat.md is out of date with src/cli/jobopt_table.c: run make compat-doc"
    # every option of the table is in the doc, with its status
    assert "| `--network=type` | accepted, no effect |" in generated
    assert "| `--mail-type=type` | honoured | honoured | honoured |" in generated
    assert "| `--no-shell` | - | - | honoured |" in generated
    assert "| `--bb=spec` | refused | refused | refused |" in generated
