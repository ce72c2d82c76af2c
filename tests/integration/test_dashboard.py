"""The dashboard rotarestd serves, driven by Debian's headless Chromium against
a running cluster: what a person sees after the page has fetched its data
(the DOM after the scripts ran, --dump-dom), compared with sinfo, squeue and
scontrol.  Each page is also saved as a screenshot (ROTA_ARTIFACTS, default
the test's temporary directory)."""

import html.parser
import os
import shutil
import subprocess
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(not CHROMIUM, reason="needs chromium (Debian package)")


class Page(html.parser.HTMLParser):
    """Elements with data-* attributes, their attributes and their text."""

    def __init__(self, text):
        super().__init__()
        self.items = []   # (tag, attrs, [text pieces])
        self.open = []    # indexes into items of the elements still open
        self.hidden = set()
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a and "hidden" in a:
            self.hidden.add(a["id"])
        if tag in ("br", "img", "input", "meta", "link"):
            return
        self.items.append((tag, a, []))
        self.open.append(len(self.items) - 1)

    def handle_endtag(self, tag):
        if self.open:
            self.open.pop()

    def handle_data(self, data):
        for i in self.open:
            self.items[i][2].append(data)

    def find(self, **want):
        """Elements whose attributes include want (data_x for data-x)."""
        want = {k.replace("_", "-"): v for k, v in want.items()}
        return [(a, "".join(t)) for _, a, t in self.items
                if all(a.get(k) == v for k, v in want.items())]

    def with_attr(self, name):
        return [(a, "".join(t)) for _, a, t in self.items if name in a]


def token(c, *args):
    p = c.run(["scontrol", "token", *args], check=True)
    return p.stdout.strip().split("=", 1)[1]


def url(c):
    with open(os.path.join(c.dir, "run", "rotarestd.url")) as f:
        return next(u for u in f.read().split() if u.startswith("http://"))


def browse(c, tmp_path, fragment, name):
    """The page at url#fragment as the browser shows it, and a screenshot."""
    shots = os.environ.get("ROTA_ARTIFACTS") or str(tmp_path)
    os.makedirs(shots, exist_ok=True)
    base = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--disable-dev-shm-usage",
            f"--user-data-dir={tmp_path / 'chromium'}", "--virtual-time-budget=5000",
            "--window-size=1280,1000"]
    target = f"{url(c)}/#{fragment}"
    p = subprocess.run(base + ["--dump-dom", target], capture_output=True, text=True,
                       timeout=90, stdin=subprocess.DEVNULL)
    assert p.returncode == 0 and "<html" in p.stdout, p.stderr[-2000:]
    subprocess.run(base + [f"--screenshot={os.path.join(shots, name + '.png')}", target],
                   capture_output=True, timeout=90, stdin=subprocess.DEVNULL)
    return Page(p.stdout)


def test_node_tiles_match_sinfo(cluster, tmp_path):
    run = cluster.sbatch("-o", "/dev/null", "-c", "2", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(run, "JobState") == "RUNNING",
                     what="running")
    page = browse(cluster, tmp_path, "token=" + token(cluster), "nodes")
    tiles = {a["data-name"]: (a["data-state"], text) for a, text in page.with_attr("data-name")}
    rows = [ln.split() for ln in cluster.run(["sinfo", "-h", "-N", "-o", "%N %T %C"],
                                                check=True).stdout.splitlines()]
    assert sorted(tiles) == sorted(r[0] for r in rows)
    for name, state, cpus in rows:
        alloc, _, _, total = cpus.split("/")
        assert tiles[name][0] == state, (name, tiles[name], state)
        assert f"CPU {alloc}/{total}" in tiles[name][1], tiles[name]
    summary = {a["data-what"]: text for a, text in page.with_attr("data-what")}
    assert summary["running"].startswith("1") and summary["nodes"].startswith(str(len(rows)))
    assert "login" in page.hidden and "overview" not in page.hidden
    # the chart starts from rotarestd's history (its first sample is taken
    # when it starts), then adds what the page sees
    (chart,) = [a for a, _ in page.find(id="chart")]
    assert int(chart["data-history"]) >= 1
    assert int(chart["data-points"]) > int(chart["data-history"])
    (span,) = [t for _, t in page.find(id="chart-span")]
    assert span.startswith("the last "), span
    cluster.run(["scancel", str(run)], check=True)


def test_queue_says_why_a_job_waits(cluster, tmp_path):
    held = cluster.sbatch("-H", "-J", "dash-held", "--wrap", "true")
    run = cluster.sbatch("-J", "dash-run", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(run, "JobState") == "RUNNING",
                     what="running")
    page = browse(cluster, tmp_path, "token=" + token(cluster), "queue")
    rows = {a["data-job-id"]: (a["data-state"], text) for a, text in page.with_attr("data-job-id")}
    assert rows[str(held)][0] == "PENDING"
    assert "dash-held" in rows[str(held)][1]
    assert "Held by its owner" in rows[str(held)][1]
    node = cluster.job_field(run, "NodeList")
    assert rows[str(run)][0] == "RUNNING" and node in rows[str(run)][1]
    # the job's page
    page = browse(cluster, tmp_path, f"token={token(cluster)}&job={held}", "job")
    facts = {a["data-fact"]: text for a, text in page.with_attr("data-fact")}
    assert facts["State"].startswith("PENDING") and "Held by its owner" in facts["State"]
    assert facts["Partition"] == "debug" and facts["User"].startswith("root")
    cluster.run(["scancel", str(held), str(run)], check=True)


def test_cancelled_job_changes_state(cluster, tmp_path):
    job = cluster.sbatch("-J", "dash-cancel", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "RUNNING",
                     what="running")
    t = token(cluster)
    page = browse(cluster, tmp_path, "token=" + t, "before-cancel")
    assert page.find(data_job_id=str(job))[0][0]["data-state"] == "RUNNING"
    cluster.run(["scancel", str(job)], check=True)
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "CANCELLED",
                     what="cancelled")
    page = browse(cluster, tmp_path, "token=" + t, "after-cancel")
    assert not page.find(data_job_id=str(job))  # the queue shows live jobs
    page = browse(cluster, tmp_path, f"token={t}&job={job}", "cancelled-job")
    facts = {a["data-fact"]: text for a, text in page.with_attr("data-fact")}
    assert facts["State"] == "CANCELLED"


def test_sign_in_is_needed(cluster, tmp_path):
    page = browse(cluster, tmp_path, "", "signed-out")
    assert "login" not in page.hidden and "overview" in page.hidden
    page = browse(cluster, tmp_path, "token=not.a.token", "bad-token")
    assert "login" not in page.hidden
    err = page.find(id="login-error")[0][1]
    assert "authentication failed" in err, err


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make test users")
def test_output_only_for_its_owner(cluster, users, tmp_path):
    """A job's page shows the end of its output to its owner; another user's
    page says they cannot read it, and shows none of it."""
    from unixusers import sbatch_as, user_work
    a, b = users["a"], users["b"]
    cluster.work = user_work()
    job = sbatch_as(cluster, a, "-o out-%j.txt --wrap 'echo the-output-of-a'")
    assert cluster.wait_job(job) == "COMPLETED"
    page = browse(cluster, tmp_path, f"token={token(cluster, 'username=' + a.name)}&job={job}",
                  "output-owner")
    out = page.find(id="job-output")[0]
    assert out[0]["data-output"] == "shown" and out[1] == "the-output-of-a\n"
    page = browse(cluster, tmp_path, f"token={token(cluster, 'username=' + b.name)}&job={job}",
                  "output-other")
    out = page.find(id="job-output")[0]
    assert out[0]["data-output"] == "403" and "the-output-of-a" not in out[1]
    assert "owner" in out[1]


def test_job_page_has_its_history_and_steps(cluster, tmp_path):
    """A finished job's page lists what accounting kept: submitted, started
    and ended in order, and its steps with their states and exit codes, as
    sacct has them."""
    job = cluster.sbatch("-J", "dash-steps", "-o", "/dev/null",
                         "--wrap", "srun -J one true; srun -J two false; exit 0")
    assert cluster.wait_job(job) == "COMPLETED"
    want = {}
    for _ in range(100):  # rotadbd follows the controller
        rows = [ln.split("|") for ln in cluster.run(
            ["sacct", "-n", "-P", "-j", str(job), "-o", "JobID,JobName,State,ExitCode"],
            check=True).stdout.splitlines()]
        want = {r[0]: r for r in rows if r[0] != str(job)}
        if len(want) >= 3 and all(r[2] != "RUNNING" for r in want.values()):
            break
        time.sleep(0.2)
    page = browse(cluster, tmp_path, f"token={token(cluster)}&job={job}", "job-record")
    assert "job-record" not in page.hidden
    events = [a["data-event"] for a, _ in page.with_attr("data-event")]
    assert events[0] == "submitted" and "started" in events and events[-1] == "ended"
    (ended,) = [t for a, t in page.with_attr("data-event") if a["data-event"] == "ended"]
    assert "COMPLETED" in ended and "exit code 0" in ended
    steps = {a["data-step"]: t for a, t in page.with_attr("data-step")}
    assert set(steps) == set(want), (steps, want)
    assert "two" in steps[f"{job}.1"] and "FAILED" in steps[f"{job}.1"]
    assert "one" in steps[f"{job}.0"] and "COMPLETED" in steps[f"{job}.0"]
