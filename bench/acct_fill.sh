#!/bin/bash
# acct_fill.sh - fill a stopped rotadbd's SQLite store with N finished job
# runs spread over [START, END) (1 to 64 CPUs, 1 s to 2 h, 50 accounts a0..,
# 200 users u0.. with uids 1000..1199), each with its N.batch and N.extern
# steps, written straight into the tables rotadbd made (faster than feeding
# a million jobs through a controller; what is measured is reading them).
#
# Usage: bench/acct_fill.sh DB N START END   (epoch seconds)
set -eu
DB=$1 N=$2 START=$3 END=$4
SPAN=$((END - START))
sqlite3 "$DB" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
PRAGMA synchronous=OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
INSERT INTO job(job_id, submit, restarts, array_job_id, array_task_id, name, uid,
                gid, user, grp, account, partition, qos, state, reason, exit_code,
                derived_exit, cancel_by, eligible, start, end_time, time_limit,
                priority, nodes, nnodes, ncpus, req_cpus, req_nodes, req_mem,
                work_dir, batch, batch_cpus, superseded)
SELECT i, s - 60, 0, 0, 4294967294, 'job' || (i % 97), 1000 + i % 200, 1000,
       'u' || (i % 200), 'g', 'a' || (i % 50), 'debug', 'normal', 3, 0, 0, 0, 0,
       s - 60, s, s + 1 + (i * 7919) % 7200, 120, 1, 'node01', 1, 1 + i % 64,
       1 + i % 64, 1, 1000, '/tmp', 1, 1 + i % 64, 0
FROM (SELECT i, $START + (i * $SPAN / $N) AS s FROM n);
INSERT INTO step(db_id, step_id, name, nodes, nnodes, ntasks, ncpus, start, end_time,
                 state, exit_code, max_rss, max_vm, ave_rss, user_usec, sys_usec)
SELECT db_id, 4294967291, 'batch', 'node01', 1, 1, ncpus, start, end_time, 3, 0,
       1024, 0, 1024, 1000, 100 FROM job;
INSERT INTO step(db_id, step_id, name, nodes, nnodes, ntasks, ncpus, start, end_time,
                 state, exit_code, max_rss, max_vm, ave_rss, user_usec, sys_usec)
SELECT db_id, 4294967292, 'extern', 'node01', 1, 1, ncpus, start, end_time, 3, 0,
       0, 0, 0, 0, 0 FROM job;
COMMIT;
SQL
