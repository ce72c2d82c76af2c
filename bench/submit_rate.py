#!/usr/bin/env python3
"""Submission and throughput benchmark for Rota.

Boots a cluster in a temp dir (`rota up`), then measures
  1. serial submissions/s: N x `sbatch --hold --wrap true`, one submitter;
  2. parallel submissions/s: the same N split over P concurrent submitters;
  3. trivial jobs completed/s: J x `sbatch --wrap true`, timed from the first
     submission until squeue shows none of them left;
prints the figures and stops the cluster (`rota down`).

Usage: bench/submit_rate.py [--build DIR] [-n 500] [-p 8] [-j 200] [--nodes 4]
"""

import argparse
import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("ROTA_BUILD", str(REPO / "build")))
    ap.add_argument("-n", "--submissions", type=int, default=500)
    ap.add_argument("-p", "--parallel", type=int, default=8)
    ap.add_argument("-j", "--jobs", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--keep", action="store_true", help="keep the cluster directory")
    args = ap.parse_args()

    rota = pathlib.Path(args.build).resolve() / "bin" / "rota"
    if not rota.exists():
        sys.exit(f"{rota} not found: run make first")
    top = tempfile.mkdtemp(prefix="rota-bench-")
    cdir = os.path.join(top, "cluster")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    p = subprocess.run([str(rota), "up", "--dir", cdir, "--nodes", str(args.nodes)],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"rota up failed:\n{p.stderr}")
    env["PATH"] = f"{rota.parent}:{env.get('PATH', '/usr/bin:/bin')}"
    env["SLURM_CONF"] = os.path.join(cdir, "slurm.conf")
    try:
        run_bench(args, env, top)
    finally:
        subprocess.run([str(rota), "down", "--dir", cdir], env=env,
                       capture_output=True)
        if not args.keep:
            shutil.rmtree(top, ignore_errors=True)


def sbatch(env, cwd, *extra):
    p = subprocess.run(["sbatch", *extra, "--wrap", "true"], capture_output=True,
                       text=True, env=env, cwd=cwd)
    m = re.match(r"Submitted batch job (\d+)", p.stdout)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"sbatch failed: {p.stderr.strip()}")
    return int(m.group(1))


def submit_many(env, cwd, count, parallel, *extra):
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        ids = list(pool.map(lambda _: sbatch(env, cwd, *extra), range(count)))
    return ids, time.monotonic() - t0


def queued(env):
    p = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True,
                       env=env)
    return p.stdout.split()


def cancel_all(env):
    ids = queued(env)
    for i in range(0, len(ids), 200):
        subprocess.run(["scancel", *ids[i:i + 200]], env=env, capture_output=True)
    while queued(env):
        time.sleep(0.1)


def run_bench(args, env, top):
    work = os.path.join(top, "work")
    os.mkdir(work)
    results = []

    ids, dt = submit_many(env, work, args.submissions, 1, "--hold")
    results.append((f"serial submit ({args.submissions} held jobs, 1 submitter)",
                    args.submissions / dt, "jobs/s"))
    cancel_all(env)

    ids, dt = submit_many(env, work, args.submissions, args.parallel, "--hold")
    results.append((f"parallel submit ({args.submissions} held jobs, "
                    f"{args.parallel} submitters)", args.submissions / dt, "jobs/s"))
    if len(set(ids)) != len(ids):
        raise RuntimeError("duplicate job ids from parallel submission")
    cancel_all(env)

    t0 = time.monotonic()
    ids, _ = submit_many(env, work, args.jobs, args.parallel)
    want = {str(i) for i in ids}
    while want & set(queued(env)):
        time.sleep(0.05)
    dt = time.monotonic() - t0
    results.append((f"throughput ({args.jobs} x --wrap true, submit to finish)",
                    args.jobs / dt, "jobs/s"))
    p = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i %T"], capture_output=True,
                       text=True, env=env)
    states = dict(line.split() for line in p.stdout.splitlines() if line.strip())
    bad = [i for i in want if states.get(i) != "COMPLETED"]
    if bad:
        print(f"warning: {len(bad)} of {args.jobs} jobs did not complete "
              f"(e.g. {bad[0]}: {states.get(bad[0], 'gone')})", file=sys.stderr)

    width = max(len(r[0]) for r in results)
    for name, value, unit in results:
        print(f"{name:<{width}}  {value:8.1f} {unit}")


if __name__ == "__main__":
    main()
