"""The man pages (`make man`, mk/man.mk): one for every command and daemon and
for each configuration file; every long option a command's --help prints is
in its page; every key the slurm.conf, gres.conf, cgroup.conf and
topology.conf parsers know is in the generated page; and each page renders
without a warning.  No cluster: the built binaries and $ROTA_BUILD/man."""

import re
import shutil
import subprocess

import pytest

from conftest import BIN, BUILD, REPO, _clean_env

MAN = BUILD / "man"
DAEMONS = ["rotactld", "rotad", "rotadbd", "rotarestd", "rotastepd"]
CONF_PAGES = ["slurm.conf", "gres.conf", "cgroup.conf", "topology.conf"]


def _cli_links():
    """The Slurm-named commands the Makefile links to rota."""
    text = (REPO / "Makefile").read_text()
    m = re.search(r"^CLI_LINKS\s*=((?:.*\\\n)*.*)$", text, re.M)
    names = m.group(1).replace("\\\n", " ").split()
    assert "sbatch" in names
    return names


COMMANDS = _cli_links() + ["rota"]


def _page(name, section):
    path = MAN / f"man{section}" / f"{name}.{section}"
    if not path.exists():
        pytest.fail(f"no man page {path} (run make man, or write "
                    f"man/man{section}/{name}.{section})")
    return path


def _plain(path):
    """The page's text with roff's escapes undone, enough to search."""
    t = path.read_text()
    t = re.sub(r"\\f[BIRP]", "", t)
    return t.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")


def _help_long_options(name):
    r = subprocess.run([str(BIN / name), "--help"], capture_output=True,
                       text=True, env=_clean_env(), timeout=30)
    text = r.stdout + r.stderr
    opts = set()
    for neg, opt in re.findall(r"--(\[no-\])?([A-Za-z][A-Za-z0-9_-]*)", text):
        opts.add(opt)
        if neg:
            opts.add("no-" + opt)
    return opts


def test_every_command_and_daemon_has_a_page():
    for name in COMMANDS:
        _page(name, 1)
    for name in DAEMONS:
        _page(name, 8)
    for name in CONF_PAGES:
        _page(name, 5)


@pytest.mark.parametrize("name", COMMANDS + DAEMONS)
def test_help_options_in_page(name):
    page = _plain(_page(name, 8 if name in DAEMONS else 1))
    opts = _help_long_options(name)
    # getopt takes an unambiguous prefix (--job for --jobs): a page option
    # that starts with what --help prints covers it
    missing = sorted(o for o in opts
                     if not re.search(r"--" + re.escape(o) + r"(?![A-Za-z0-9_])|--"
                                      + re.escape(o) + r"[a-z]", page))
    assert not missing, f"{name} --help prints options its page lacks: {missing}"


def _table_names(path, pattern):
    return set(re.findall(pattern, (REPO / path).read_text(), re.M))


def test_slurm_conf_page_has_every_key():
    page = _plain(_page("slurm.conf", 5))
    # every row of the parser's table, used, ignored or alias
    keys = _table_names("src/common/conf_keys.c",
                        r'^\s*(?:\w+\(|\{)"([A-Za-z][A-Za-z0-9]*)"')
    keys |= set(re.findall(r'"([a-z_]+)",\s*"?', (REPO / "src/common/schedparams.c")
                           .read_text().split("known_keys[] =")[1].split("};")[0]))
    assert {"SlurmctldHost", "NodeName", "PartitionName", "bf_estimate",
            "TopologyPlugin", "X11Parameters"} <= keys
    missing = sorted(k for k in keys if not re.search(r"\b" + k + r"\b", page))
    assert not missing, f"slurm.conf.5 lacks {missing}"


@pytest.mark.parametrize("page,src,array", [
    ("gres.conf", "src/common/gres_conf.c", "key_names"),
    ("cgroup.conf", "src/common/cgroup_conf.c", "used_keys"),
    ("cgroup.conf", "src/common/cgroup_conf.c", "ignored_keys"),
    ("topology.conf", "src/common/topo_conf.c", "topo_keys"),
])
def test_conf_page_has_every_key(page, src, array):
    text = (REPO / src).read_text()
    body = re.split(array + r"\[[^\]]*\]\s*=", text)[1].split("};")[0]
    keys = re.findall(r'"([A-Za-z]+)"', body)
    assert keys
    plain = _plain(_page(page, 5))
    missing = sorted(k for k in keys if not re.search(r"\b" + k + r"\b", plain))
    assert not missing, f"{page}.5 lacks {missing}"


def _all_pages():
    return sorted(MAN.glob("man[158]/*.[158]"))


def test_pages_render_without_warnings():
    if not shutil.which("groff"):
        pytest.skip("groff not installed (scripts/install-deps.sh installs groff-base)")
    pages = _all_pages()
    assert len(pages) >= len(COMMANDS) + len(DAEMONS) + len(CONF_PAGES)
    for p in pages:
        r = subprocess.run(["groff", "-man", "-Tutf8", "-z", "-ww", str(p)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and not r.stderr and not r.stdout, \
            f"{p}: {r.stdout}{r.stderr}"
        # an escape written escaped shows up as text: "\\fBup\\fR"
        r = subprocess.run(["groff", "-man", "-Tascii", "-P-cbou", str(p)],
                           capture_output=True, text=True, timeout=60)
        leaked = re.findall(r"\\[fe-]\S*", r.stdout)
        assert not leaked, f"{p}: roff escapes printed as text: {leaked[:5]}"
        if shutil.which("lexgrog"):
            r = subprocess.run(["lexgrog", str(p)], capture_output=True, text=True,
                               timeout=60)
            assert r.returncode == 0, f"{p}: lexgrog finds no NAME line: {r.stdout}"


@pytest.mark.parametrize("name,col", [("sbatch", 1), ("srun", 2), ("salloc", 3)])
def test_no_effect_list_matches_the_option_table(name, col):
    """The page's list of options accepted without effect is the one the
    option table (doc/compat.md, generated from it) says."""
    table = []
    for line in (REPO / "doc/compat.md").read_text().splitlines():
        m = re.match(r"\| `(?:-\S, )?--([a-z0-9_-]+)[^`]*` \| ([^|]*) \| ([^|]*) \| "
                     r"([^|]*) \|", line)
        if m and m.group(col + 1).strip() == "accepted, no effect":
            table.append(m.group(1))
    page = _plain(_page(name, 1))
    m = re.search(r"These are accepted so scripts written for Slurm run, and have no "
                  r"effect: ([^\n]*)\.", page)
    listed = re.findall(r"--([a-z0-9_-]+)", m.group(1)) if m else []
    assert sorted(listed) == sorted(table)
