"""Many jobs: a job list larger than one frame (4096 jobs) arrives whole, and the
controller keeps answering while thousands of held jobs wait."""

import subprocess

from conftest import ROTA


def test_more_jobs_than_one_frame(fresh_cluster):
    c = fresh_cluster
    flood = ROTA.parent.parent / "bench" / "submit_flood"
    p = subprocess.run([str(flood), "-n", "9000", "-c", "4", "-d", "32"], env=c.env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    ids = c.run(["squeue", "-h", "-o", "%i"]).stdout.split()
    assert len(ids) == 9000
    assert sorted(map(int, ids)) == list(range(1, 9001))
    p = c.run(["squeue", "-h", "-t", "PD", "-o", "%r"])
    assert set(p.stdout.split()) == {"JobHeldUser"}
    jobid = c.sbatch("--wrap", "true")
    assert c.wait_job(jobid) == "COMPLETED"
    # MaxJobCount (10000 by default) is enforced with Slurm's message
    p = subprocess.run([str(flood), "-n", "2000", "-c", "1", "-d", "8"], env=c.env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    p = c.run(["sbatch", "--wrap", "true"])
    assert p.returncode == 1
    assert "Batch job submission failed" in p.stderr
