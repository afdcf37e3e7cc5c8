"""Allowed lateness and late rows of windowed `floe run` jobs on a real broker.

Events reach the job one at a time (each waits until the job has read the
one before, so every event sees the watermark its predecessors made). With
no lateness a 10-second TUMBLE window fires once the watermark passes its
end and later rows of it are dropped and counted; with
SET 'table.exec.emit.allow-lateness' (or --allowed-lateness) it waits that
much longer and takes those rows in. The committed windows are read with
PyIceberg, the late-row counter is scraped from /metrics."""
import datetime
import json
import signal
import subprocess
import time

import pytest

from conftest import FLOE
from test_run import BASE_MS, rows_of, run_job, sql, write_job
from test_run_metrics import scrape, series

JOB = """
SET 'pipeline.name' = '{name}';
{settings}
CREATE TABLE ev (
  id BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH (
  'connector' = 'kafka',
  'topic' = '{topic}',
  'properties.bootstrap.servers' = '{brokers}',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);
INSERT INTO db.{table}
SELECT window_start, window_end, count(*) AS n, sum(id) AS ids
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
"""

# (id, seconds after BASE_MS): windows [0,10) [10,20) [20,30).
EVENTS = [(1, 1), (2, 12), (3, 2), (4, 16), (5, 3), (6, 25), (7, 13)]


def window_start(sec):
    return datetime.datetime.fromtimestamp(BASE_MS / 1000 + sec)


def produce_one(broker, topic, i, sec):
    ts = datetime.datetime.fromtimestamp((BASE_MS + sec * 1000) / 1000, datetime.timezone.utc)
    value = {"id": i, "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]}
    rec = {"key": str(i), "value": json.dumps(value), "partition": 0}
    proc = broker.floe("produce", "--topic", topic, "--records", input=json.dumps(rec) + "\n")
    assert "produced 1 messages" in proc.stderr


def wait_for(url, proc, pred, what):
    deadline = time.time() + 60
    while True:
        assert proc.poll() is None, proc.stderr.read()
        m = scrape(url)
        if pred(m):
            return m
        assert time.time() < deadline, f"{what} never happened: {m}"
        time.sleep(0.2)


def windows(wh, ident):
    return sorted((r["window_start"], r["n"], r["ids"]) for r in rows_of(wh, ident))


@pytest.mark.parametrize("how", ["none", "set", "flag"])
def test_allowed_lateness_takes_late_rows_in_and_counts_the_rest(kafka_broker, tmp_path, how):
    wh = tmp_path / "wh"
    wh.mkdir()
    sql(wh, "CREATE SCHEMA db")
    sql(wh, "CREATE TABLE db.w (window_start timestamp(6), window_end timestamp(6), n bigint, "
            "ids bigint)")
    topic = f"late-{how}"
    kafka_broker.create_topic(topic, 1)
    settings = "SET 'table.exec.emit.allow-lateness' = '5 s';" if how == "set" else ""
    job = write_job(tmp_path, "late.sql", JOB.format(name="late", settings=settings, topic=topic,
                                                     brokers=kafka_broker.brokers, table="w"))
    args = ["--allowed-lateness", "5s"] if how == "flag" else []
    proc = subprocess.Popen([str(FLOE), "--warehouse", str(wh), "run", str(job), "--metrics-port",
                             "0", "--checkpoint-interval", "1s", "--no-progress", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lateness = how != "none"
    try:
        url = proc.stderr.readline().split()[1]
        for k, (i, sec) in enumerate(EVENTS, 1):
            produce_one(kafka_broker, topic, i, sec)
            wait_for(url, proc,
                     lambda m: m.get(("floe_job_events_read_total", (("source", "ev"),))) == k,
                     f"event {k} read")
        # 3 (window 0 fired at watermark 12), 5 and 7 without lateness;
        # 5 (window 0 fired at 16 = its end + 5 s) and 7 with it.
        want_late = 2 if lateness else 3
        m = wait_for(url, proc,
                     lambda m: series(m, "floe_job_late_rows_total") == {(("table", "db.w"),): want_late},
                     f"{want_late} late rows")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Window [20,30) is still open: a stopped job keeps it in its checkpoint.
    w0 = (window_start(0), 2, 4) if lateness else (window_start(0), 1, 1)
    assert windows(wh, "db.w") == [w0, (window_start(10), 2, 6)]
    # A --once run over the same topic ends its input, which fires every window.
    sql(wh, "CREATE TABLE db.w_once (window_start timestamp(6), window_end timestamp(6), "
            "n bigint, ids bigint)")
    once = write_job(tmp_path, "once.sql", JOB.format(name="once", settings=settings, topic=topic,
                                                      brokers=kafka_broker.brokers, table="w_once"))
    run_job(wh, once, "--once", *args)
    # One batch: the whole topic is read before the watermark moves, so
    # nothing is late.
    assert windows(wh, "db.w_once") == [(window_start(0), 3, 9), (window_start(10), 3, 13),
                                        (window_start(20), 1, 6)]


@pytest.mark.parametrize("setting,want", [
    ("SET 'table.exec.emit.allow-lateness' = 'soon';",
     "SET 'table.exec.emit.allow-lateness' = 'soon': expected a duration"),
    ("SET 'floe.state.memory-limit' = '12 parsecs';",
     "SET 'floe.state.memory-limit' = '12 parsecs': expected a size"),
    ("SET 'parallelism.default' = 'many';",
     "SET 'parallelism.default' = 'many': expected a number from 1 to 64"),
])
def test_bad_window_settings_are_errors(tmp_path, setting, want):
    wh = tmp_path / "wh"
    wh.mkdir()
    sql(wh, "CREATE SCHEMA db")
    sql(wh, "CREATE TABLE db.x (id bigint)")
    job = write_job(tmp_path, "x.sql", setting + """
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
INSERT INTO db.x SELECT id FROM g;
""")
    proc = run_job(wh, job, "--once", check=False)
    assert proc.returncode == 1 and want in proc.stderr, proc.stderr


def test_state_memory_limit_spills_and_keeps_results(tmp_path):
    """A windowed datagen job under a 1 MB state limit spills its windows and
    commits what an unlimited run commits."""
    wh = tmp_path / "wh"
    wh.mkdir()
    sql(wh, "CREATE SCHEMA db")
    body = """
CREATE TABLE g (
  id BIGINT,
  ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '200000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '200000');
INSERT INTO db.{t}
SELECT window_start, window_end, id % 5000 AS k, count(*) AS n, sum(id) AS s
FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, id % 5000;
"""
    for t, setting in [("free", ""), ("tight", "SET 'floe.state.memory-limit' = '1mb';")]:
        sql(wh, f"CREATE TABLE db.{t} (window_start timestamp(6) with time zone, "
                f"window_end timestamp(6) with time zone, k bigint, n bigint, s bigint)")
        job = write_job(tmp_path, f"{t}.sql", setting + body.format(t=t))
        run_job(wh, job, "--once", "--log-file", tmp_path / f"{t}.log")
    free = sorted(tuple(r.values()) for r in rows_of(wh, "db.free"))
    tight = sorted(tuple(r.values()) for r in rows_of(wh, "db.tight"))
    want = {}
    for i in range(1, 200001):
        start = (1700000000000 + i * 10) // 60000 * 60000
        n, s = want.get((start, i % 5000), (0, 0))
        want[(start, i % 5000)] = (n + 1, s + i)
    got = {(int(r[0].timestamp() * 1000), r[2]): (r[3], r[4]) for r in free}
    assert got == want
    assert tight == free

    def spills(t):
        lines = [json.loads(l) for l in (tmp_path / f"{t}.log").read_text().splitlines()]
        return [l["state-spills"] for l in lines if l["msg"] == "checkpoint"][-1]
    assert spills("free") == 0
    assert spills("tight") > 0


def test_late_rows_table_gets_each_late_row_exactly_once(kafka_broker, tmp_path):
    """SET 'floe.late-rows.table': the rows the window aggregation drops go
    to an Iceberg table in the job's checkpoint transactions. The late rows
    are late whatever the batching (the watermark that makes them late was
    checkpointed before they were produced), so a job killed after reading
    them and run again must leave each one in the table exactly once."""
    wh = tmp_path / "wh"
    wh.mkdir()
    sql(wh, "CREATE SCHEMA db")
    sql(wh, "CREATE TABLE db.lw (window_start timestamp(6), window_end timestamp(6), n bigint, "
            "ids bigint)")
    topic = "late-table"
    kafka_broker.create_topic(topic, 1)
    job = write_job(tmp_path, "late_table.sql", JOB.format(
        name="late_table", settings="SET 'floe.late-rows.table' = 'db.late';", topic=topic,
        brokers=kafka_broker.brokers, table="lw"))

    def produce(events):
        recs = []
        for i, sec in events:
            ts = datetime.datetime.fromtimestamp((BASE_MS + sec * 1000) / 1000,
                                                 datetime.timezone.utc)
            value = {"id": i, "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]}
            recs.append(json.dumps({"value": json.dumps(value), "partition": 0}) + "\n")
        kafka_broker.floe("produce", "--topic", topic, "--records", input="".join(recs))

    on_time = [(1, 1), (2, 12), (3, 25)]  # watermark 25: [0,10) and [10,20) fire
    late = [(i, (i * 7) % 20) for i in range(10, 70)]  # all before 20 s: late
    more = [(100, 26), (101, 29)]  # on time, window [20,30)
    proc = subprocess.Popen([str(FLOE), "--warehouse", str(wh), "run", str(job), "--metrics-port",
                             "0", "--checkpoint-interval", "5s", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stderr.readline().split()[1]
        produce(on_time)
        m = wait_for(url, proc,
                     lambda m: m.get(("floe_job_events_read_total", (("source", "ev"),))) == 3,
                     "3 events read")
        chk = m.get(("floe_job_last_commit_checkpoint_id", ()), 0)
        # A commit after they were read holds the watermark that makes the rest late.
        wait_for(url, proc, lambda m: m.get(("floe_job_last_commit_checkpoint_id", ()), 0) > chk,
                 "a commit after 3 events")
        produce(late + more)
        wait_for(url, proc,
                 lambda m: series(m, "floe_job_late_rows_total") == {(("table", "db.lw"),): 60},
                 "60 late rows")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # Killed before the checkpoint after them (5 s apart): the restarted job
    # reads them again, from the committed offsets, and they are late again.
    assert rows_of(wh, "db.late") == []
    run_job(wh, job, "--once")
    got = rows_of(wh, "db.late")
    assert sorted(json.loads(r["row_json"])["id"] for r in got) == [i for i, _ in late]
    for r in got:
        row = json.loads(r["row_json"])
        assert r["source"] == "ev" and r["target"] == "db.lw"
        sec = dict(late)[row["id"]]
        assert r["event_time"] == window_start(sec), r
        assert row["ts"].startswith(window_start(sec).strftime("%Y-%m-%dT%H:%M:%S")), row
    assert windows(wh, "db.lw") == [(window_start(0), 1, 1), (window_start(10), 1, 2),
                                    (window_start(20), 3, 204)]
    # The late rows came with the job's checkpoint commits.
    from test_run import check_summaries
    check_summaries(wh, "db.late", "late_table")
