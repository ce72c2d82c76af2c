// The Rota dashboard: the cluster at a glance, the queue with each pending
// job's reason in plain words, and a job's page.  It reads rotarestd's REST
// documents (slurm v0.0.38) with the user's token, every few seconds.
"use strict";

const API = "/slurm/v0.0.38";
const POLL_MS = 3000;
const DAY_MS = 24 * 3600 * 1000; // the chart's reach
const HISTORY_MS = 60000; // rotarestd's history is read again this often
let token = "";
let samples = []; // {t (ms), alloc, cpus, galloc, gpus}: the chart's points
let historyAt = 0;
let timer = null;

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
}

// Why a job waits, in words a person reads (squeue's reason otherwise).
const REASONS = {
  Priority: "Waiting for jobs of higher priority to start first",
  Resources: "Waiting for enough free CPUs, memory or GPUs",
  Dependency: "Waiting for a job it depends on to finish",
  DependencyNeverSatisfied: "Can never start: a job it depends on failed",
  JobHeldUser: "Held by its owner (scontrol release lets it run)",
  JobHeldAdmin: "Held by an administrator",
  BeginTime: "Waiting for the start time it asked for",
  PartitionDown: "Its partition is down",
  PartitionInactive: "Its partition is inactive",
  PartitionNodeLimit: "Asks for more nodes than its partition allows",
  PartitionTimeLimit: "Asks for more time than its partition allows",
  ReqNodeNotAvail: "A node it asked for is not available",
  JobArrayTaskLimit: "Its array runs as many tasks at once as allowed",
  Nodes_required_for_job_are_DOWN_DRAINED_or_reserved_for_jobs_in_higher_priority_partitions:
    "Nodes it needs are down or drained",
};

function plainReason(job) {
  if (job.job_state !== "PENDING") return job.nodes || "";
  const r = job.state_reason || "";
  return REASONS[r] || job.state_description || r;
}

function when(t) {
  if (!t) return "";
  const d = new Date(t * 1000);
  const s = Math.round((d - Date.now()) / 1000);
  const rel = Math.abs(s) < 60 ? `${Math.abs(s)} s`
    : Math.abs(s) < 3600 ? `${Math.round(Math.abs(s) / 60)} min`
    : `${(Math.abs(s) / 3600).toFixed(1)} h`;
  return `${d.toLocaleTimeString()} (${s >= 0 ? "in " + rel : rel + " ago"})`;
}

function minutes(m) {
  if (m === undefined || m >= 4294967294) return "unlimited";
  const h = Math.floor(m / 60);
  return h ? `${h} h ${m % 60} min` : `${m} min`;
}

async function api(path, method) {
  const r = await fetch(path, {method: method || "GET",
                               headers: {"X-SLURM-USER-TOKEN": token}});
  let doc = {};
  try { doc = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok) {
    const err = new Error((doc.errors && doc.errors[0] && doc.errors[0].error) ||
                          `HTTP ${r.status}`);
    err.status = r.status;
    throw err;
  }
  return doc;
}

function gpus(gres) {
  let n = 0;
  for (const item of (gres || "").split(",")) {
    const m = /^gpu(?::[^:(]+)?(?::(\d+))?/.exec(item);
    if (m) n += m[1] ? Number(m[1]) : 1;
  }
  return n;
}

function renderNodes(nodes) {
  const grid = $("nodes");
  grid.replaceChildren(...nodes.map((n) => {
    const state = n.state + (n.state_flags.length ? "+" + n.state_flags.join("+") : "");
    const cls = n.state_flags.includes("DRAIN") ? "drain" : n.state;
    const g = gpus(n.gres), gu = gpus(n.gres_used);
    const pct = n.cpus ? Math.round(100 * n.alloc_cpus / n.cpus) : 0;
    return el("div", {class: `node state-${cls}`, "data-name": n.name, "data-state": state,
                      title: n.reason || state},
              el("div", {class: "name"}, n.name),
              el("div", {class: "use"}, `${state} · CPU ${n.alloc_cpus}/${n.cpus}` +
                 (g ? ` · GPU ${gu}/${g}` : "")),
              el("div", {class: "bar"}, el("div", {style: `width:${pct}%`})));
  }));
}

function renderSummary(nodes, jobs) {
  const cpus = nodes.reduce((a, n) => a + n.cpus, 0);
  const alloc = nodes.reduce((a, n) => a + n.alloc_cpus, 0);
  const count = (s) => jobs.filter((j) => j.job_state === s).length;
  $("summary").replaceChildren(
    el("div", {"data-what": "running"}, el("b", {}, count("RUNNING")), "running"),
    el("div", {"data-what": "pending"}, el("b", {}, count("PENDING")), "pending"),
    el("div", {"data-what": "cpus"}, el("b", {}, `${alloc}/${cpus}`), "CPUs in use"),
    el("div", {"data-what": "nodes"}, el("b", {}, nodes.length), "nodes"));
  const galloc = nodes.reduce((a, n) => a + gpus(n.gres_used), 0);
  const gtotal = nodes.reduce((a, n) => a + gpus(n.gres), 0);
  samples.push({t: Date.now(), alloc, cpus, galloc, gpus: gtotal});
  while (samples.length && samples[0].t < Date.now() - DAY_MS) samples.shift();
  drawChart();
}

// The last day as rotarestd kept it (a sample a minute), so that the chart
// shows the hours before the page was opened; live points are added
// between readings.
async function loadHistory() {
  historyAt = Date.now();
  let doc;
  try { doc = await api("/rota/v1/history"); } catch (e) { return; }
  const past = doc.samples.map((s) => ({t: s.time * 1000, alloc: s.cpus_alloc,
                                        cpus: s.cpus, galloc: s.gpus_alloc, gpus: s.gpus}));
  const last = past.length ? past[past.length - 1].t : 0;
  samples = past.concat(samples.filter((s) => s.t > last));
  $("chart").setAttribute("data-history", String(past.length));
}

// Allocated CPUs (red) and GPUs (blue, when there are any) as a share of
// all, over the samples' span.
function drawChart() {
  const c = $("chart"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  g.strokeStyle = "#ddd";
  g.beginPath(); g.moveTo(0, c.height - 1); g.lineTo(c.width, c.height - 1); g.stroke();
  g.fillStyle = "#888"; g.font = "11px sans-serif";
  g.fillText("100%", 4, 12); g.fillText("0%", 4, c.height - 6);
  c.setAttribute("data-points", String(samples.length));
  if (samples.length < 2) { $("chart-span").textContent = ""; return; }
  const t0 = samples[0].t, span = Math.max(samples[samples.length - 1].t - t0, 1);
  const line = (color, share) => {
    g.strokeStyle = color; g.lineWidth = 2; g.beginPath();
    samples.forEach((h, i) => {
      const x = (h.t - t0) / span * (c.width - 2) + 1;
      const y = c.height - 2 - share(h) * (c.height - 4);
      if (i) g.lineTo(x, y); else g.moveTo(x, y);
    });
    g.stroke();
  };
  line("#c0392b", (h) => (h.cpus ? h.alloc / h.cpus : 0));
  if (samples.some((h) => h.gpus)) line("#2471a3", (h) => (h.gpus ? h.galloc / h.gpus : 0));
  const mins = span / 60000;
  $("chart-span").textContent = "the last " +
    (mins < 90 ? `${Math.max(1, Math.round(mins))} min` : `${(mins / 60).toFixed(1)} h`) +
    (samples.some((h) => h.gpus) ? " · CPUs red, GPUs blue" : " · CPUs in use");
}

function renderPartitions(parts, jobs) {
  $("partitions").tBodies[0].replaceChildren(...parts.map((p) => el("tr",
    {"data-partition": p.name},
    el("td", {}, p.name + (p.flags.includes("default") ? " (default)" : "")),
    el("td", {}, p.state), el("td", {}, `${p.total_nodes} (${p.nodes})`),
    el("td", {}, p.total_cpus), el("td", {}, minutes(p.max_time_limit)),
    el("td", {}, jobs.filter((j) => j.partition === p.name &&
                                    j.job_state === "PENDING").length))));
}

function renderQueue(jobs) {
  const live = jobs.filter((j) => ["PENDING", "RUNNING", "SUSPENDED", "CONFIGURING",
                                   "COMPLETING"].includes(j.job_state));
  $("queue").tBodies[0].replaceChildren(...live.map((j) => el("tr",
    {"data-job-id": j.job_id, "data-state": j.job_state},
    el("td", {}, el("a", {href: `#job=${j.job_id}`}, j.job_id)),
    el("td", {}, j.name), el("td", {}, j.user_name),
    el("td", {}, el("span", {class: `badge ${j.job_state}`}, j.job_state)),
    el("td", {}, j.partition),
    el("td", {class: "why"}, plainReason(j)),
    el("td", {}, j.job_state === "PENDING" && j.start_time ? when(j.start_time) : ""))));
  if (!live.length)
    $("queue").tBodies[0].replaceChildren(el("tr", {}, el("td", {colSpan: 7},
                                                           "No jobs waiting or running")));
}

async function showOverview() {
  if (Date.now() - historyAt > HISTORY_MS) await loadHistory();
  const [nodes, parts, jobs] = await Promise.all(
    [api(`${API}/nodes`), api(`${API}/partitions`), api(`${API}/jobs`)]);
  $("cluster").textContent = jobs.jobs.length ? jobs.jobs[0].cluster : "";
  renderNodes(nodes.nodes);
  renderSummary(nodes.nodes, jobs.jobs);
  renderPartitions(parts.partitions, jobs.jobs);
  renderQueue(jobs.jobs);
}

async function showJob(id) {
  const doc = await api(`${API}/job/${id}`);
  const j = doc.jobs[0];
  $("job-title").textContent = `Job ${j.job_id}: ${j.name}`;
  $("job").setAttribute("data-state", j.job_state);
  const rc = j.exit_code >> 8, sig = j.exit_code & 0x7f;
  const facts = [
    ["State", j.job_state + (j.job_state === "PENDING" ? ` — ${plainReason(j)}` : "")],
    ["User", `${j.user_name} (account ${j.account})`],
    ["Partition", j.partition], ["Nodes", j.nodes || "(not yet)"],
    ["Asked for", `${j.node_count} node(s), ${j.tasks} task(s), ${j.cpus} CPU(s), ` +
                  `time limit ${minutes(j.time_limit)}`],
    ["Submitted", when(j.submit_time)],
    ["Started", j.start_time && j.job_state !== "PENDING" ? when(j.start_time) : ""],
    ["Expected start", j.job_state === "PENDING" ? when(j.start_time) : ""],
    ["Ended", j.end_time && !["PENDING", "RUNNING"].includes(j.job_state)
      ? when(j.end_time) : ""],
    ["Exit code", ["PENDING", "RUNNING"].includes(j.job_state) ? ""
      : sig ? `signal ${sig}` : String(rc)],
    ["Working directory", j.current_working_directory],
    ["Output", j.standard_output],
  ];
  $("job-facts").replaceChildren(...facts.filter((f) => f[1]).flatMap(
    ([k, v]) => [el("dt", {}, k), el("dd", {"data-fact": k}, v)]));
  $("job-cancel").hidden = !["PENDING", "RUNNING"].includes(j.job_state);
  showOutput(j);
  showRecord(j.job_id);
  $("job-cancel").onclick = async () => {
    try { await api(`${API}/job/${j.job_id}`, "DELETE"); refresh(); }
    catch (e) { $("job-error").textContent = e.message; }
  };
}

function seconds(s) {
  if (s === undefined || s === null) return "";
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}

// What accounting kept of the job (slurmdb): each run's events in order (a
// requeued job has several runs) and its steps.  Hidden without accounting.
async function showRecord(id) {
  let doc;
  try { doc = await api(`/slurmdb/v0.0.38/job/${id}`); }
  catch (e) { $("job-record").hidden = true; return; }
  const runs = doc.jobs.slice().sort((a, b) => a.time.submission - b.time.submission);
  const events = [];
  runs.forEach((r, n) => {
    const t = r.time, state = r.state.current;
    const ev = (what, at, text) => { if (at) events.push([what, at, text]); };
    ev("submitted", t.submission, n ? "Requeued: waiting again" : "Submitted");
    if (t.eligible && t.eligible !== t.submission) ev("eligible", t.eligible, "Eligible to start");
    ev("started", t.start, `Started on ${r.nodes || "?"}`);
    if (!["PENDING", "RUNNING", "REQUEUED"].includes(state) || t.end)
      ev("ended", t.end, `Ended: ${state}` + (r.exit_code.status === "SIGNALED"
        ? ` (signal ${r.exit_code.signal ? r.exit_code.signal.name : "?"})`
        : ` (exit code ${r.exit_code.return_code})`));
  });
  $("job-history").replaceChildren(...events.map(([what, at, text]) =>
    el("li", {"data-event": what}, `${new Date(at * 1000).toLocaleString()} — ${text}`)));
  const steps = runs.length ? runs[runs.length - 1].steps : [];
  $("job-steps").tBodies[0].replaceChildren(...steps.map((s) => el("tr",
    {"data-step": s.step.id},
    el("td", {}, s.step.id), el("td", {}, s.step.name), el("td", {}, s.state),
    el("td", {}, s.exit_code.status === "SIGNALED" && s.exit_code.signal
      ? s.exit_code.signal.name : String(s.exit_code.return_code)),
    el("td", {}, seconds(s.time.elapsed)), el("td", {}, s.nodes.range))));
  $("job-record").hidden = false;
}

// The end of the job's output: for its owner only (rotarestd checks).
async function showOutput(j) {
  const pre = $("job-output");
  $("job-output-path").textContent = j.standard_output ? `(${j.standard_output})` : "";
  if (j.job_state === "PENDING" || !j.batch_flag) {
    pre.textContent = "(none yet)";
    pre.setAttribute("data-output", "none");
    return;
  }
  try {
    const doc = await api(`/rota/v1/job/${j.job_id}/output?tail=16384`);
    pre.textContent = doc.output || "(empty)";
    pre.setAttribute("data-output", "shown");
  } catch (e) {
    pre.textContent = e.status === 403 ? "Only the job's owner can read its output."
      : e.status === 404 ? "No output file (yet)." : e.message;
    pre.setAttribute("data-output", String(e.status || "error"));
  }
}

function route() {
  const m = /^#job=(\d+)$/.exec(location.hash);
  $("overview").hidden = !!m;
  $("job").hidden = !m;
  return m ? m[1] : null;
}

async function refresh() {
  const id = route();
  try {
    if (id) await showJob(id); else await showOverview();
    $("updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
    $("updated").setAttribute("data-ok", "1");
    $("login").hidden = true;
  } catch (e) {
    if (e.status === 401) return signOut(e.message);
    (id ? $("job-error") : $("updated")).textContent = e.message;
  }
}

function signIn(t) {
  token = t;
  sessionStorage.setItem("rota-token", t);
  try {
    const claims = JSON.parse(atob(t.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    $("who").textContent = `signed in as ${claims.sun}`;
  } catch (e) { $("who").textContent = ""; }
  $("logout").hidden = false;
  clearInterval(timer);
  timer = setInterval(refresh, POLL_MS);
  refresh();
}

function signOut(why) {
  token = "";
  sessionStorage.removeItem("rota-token");
  clearInterval(timer);
  $("overview").hidden = $("job").hidden = true;
  $("logout").hidden = true;
  $("who").textContent = "";
  $("login").hidden = false;
  $("login-error").textContent = why || "";
}

// A token in the address (#token=...[&job=N], never sent to the server)
// signs in; the address keeps only the page.
function tokenFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const t = params.get("token");
  if (!t) return false;
  params.delete("token");
  history.replaceState(null, "", "#" + params.toString());
  samples = [];
  historyAt = 0;
  signIn(t);
  return true;
}

window.addEventListener("hashchange", () => { if (!tokenFromHash()) refresh(); });
$("login-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  signIn($("token").value.trim());
});
$("logout").addEventListener("click", () => signOut(""));

if (!tokenFromHash()) {
  if (sessionStorage.getItem("rota-token")) signIn(sessionStorage.getItem("rota-token"));
  else signOut("");
}
