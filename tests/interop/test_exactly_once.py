"""Exactly-once under faults: a pass-through job and a windowed aggregation
job (one statement set over one Kafka source) are killed over and over
while events keep arriving, and the Kafka broker is restarted once in the
middle.

A known set of events is produced in chunks. Between chunks the job is
started and then killed with SIGKILL at a random moment, or made to exit
at a chosen point of a checkpoint (the FLOE_FAULT_POINT test hook: after
the checkpoint and before the commit, and in the middle of the commit):
RUNS = 26 runs in all, 4 of them at chosen points and the other 22 ended
by SIGKILL at a random moment; once the broker is stopped and started
again while the job runs. A last `floe run --once` drains the topic and fires the open
windows. The tables, read by PyIceberg, must then hold every event exactly
once and every (window, key) exactly once with the count and sum computed
here from the events — no duplicates, no losses — and the snapshots of
each table must carry strictly increasing checkpoint ids of the job.
"""
import collections
import datetime
import json
import random
import signal
import time

from test_run import (catalog_for, check_summaries, job_snapshots, rows_of, run_job, sql,
                      start_job, write_job)

BASE_MS = 1_750_000_000_000
PARTS = 3
CHUNK = 500
CHUNKS = 12
WINDOW_MS = 10_000
RUNS = 26


def event(i):
    ts = datetime.datetime.fromtimestamp((BASE_MS + i * 40) / 1000, datetime.timezone.utc)
    return {"id": i, "k": f"k{i % 5}", "amount": i % 97,
            "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]}


def produce(broker, topic, first, n):
    text = "".join(json.dumps({"key": str(i), "value": json.dumps(event(i)),
                               "partition": i % PARTS}) + "\n"
                   for i in range(first, first + n))
    proc = broker.floe("produce", "--topic", topic, "--records", input=text)
    assert f"produced {n} messages" in proc.stderr


JOB = """
SET 'pipeline.name' = 'eo';
SET 'execution.checkpointing.interval' = '150 ms';
CREATE TEMPORARY TABLE ev (
  id BIGINT,
  k STRING,
  amount BIGINT,
  ts TIMESTAMP(3),
  part INT METADATA FROM 'partition' VIRTUAL,
  off BIGINT METADATA FROM 'offset' VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = '{topic}',
  'properties.bootstrap.servers' = '{brokers}',
  'properties.group.id' = 'eo',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);
EXECUTE STATEMENT SET BEGIN
INSERT INTO db.eo_pass SELECT id, k, amount, part, off FROM ev;
INSERT INTO db.eo_win
  SELECT window_start, window_end, k, count(*), sum(amount)
  FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, k;
END;
"""


def expected_windows(n):
    acc = collections.defaultdict(lambda: [0, 0])
    for i in range(n):
        e = event(i)
        start = (BASE_MS + i * 40) // WINDOW_MS * WINDOW_MS
        a = acc[(start, e["k"])]
        a[0] += 1
        a[1] += e["amount"]
    return sorted((s, s + WINDOW_MS, k, c, t) for (s, k), (c, t) in acc.items())


def epoch_ms(ts):
    return int(ts.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


def test_kill_restart_and_broker_restart_keep_exactly_once(kafka_broker, tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    sql(wh, "CREATE SCHEMA db")
    sql(wh, "CREATE TABLE db.eo_pass (id bigint, k varchar, amount bigint, part integer, off bigint)")
    sql(wh, "CREATE TABLE db.eo_win (window_start timestamp(6), window_end timestamp(6), "
            "k varchar, n bigint, total bigint)")
    topic = "eo-events"
    kafka_broker.create_topic(topic, PARTS)
    job = write_job(tmp_path, "eo.sql", JOB.format(topic=topic, brokers=kafka_broker.brokers))

    rng = random.Random(20261203)
    faults = {4: "after-checkpoint-before-commit", 9: "mid-commit",
              14: "after-checkpoint-before-commit", 18: "mid-commit"}
    broker_restart_at = 11
    produced = 0
    kills = exits = 0
    for run in range(RUNS):
        if produced < CHUNK * CHUNKS and run % 2 == 0:
            produce(kafka_broker, topic, produced, CHUNK)
            produced += CHUNK
        if run in faults:
            # Exits by itself at the chosen point of its first checkpoint.
            proc = run_job(wh, job, env={"FLOE_FAULT_POINT": faults[run]}, check=False,
                           timeout=60)
            assert proc.returncode == 86, proc.stderr
            exits += 1
            continue
        p = start_job(wh, job)
        if run == broker_restart_at:
            time.sleep(0.5)
            kafka_broker.restart()  # the job rides out the outage
            produce(kafka_broker, topic, produced, CHUNK)
            produced += CHUNK
        time.sleep(rng.uniform(0.2, 1.4))
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=30)
        kills += 1
    while produced < CHUNK * CHUNKS:
        produce(kafka_broker, topic, produced, CHUNK)
        produced += CHUNK
    assert kills == RUNS - len(faults) and kills >= 20 and exits == len(faults) == 4

    # Every kill left a partial state behind; the last run drains the topic
    # and, being bounded, fires every window still open.
    run_job(wh, job, "--once", timeout=120)

    got = sorted((r["id"], r["k"], r["amount"], r["part"], r["off"])
                 for r in rows_of(wh, "db.eo_pass"))
    next_off = [0] * PARTS
    want = []
    for i in range(produced):
        e = event(i)
        want.append((i, e["k"], e["amount"], i % PARTS, next_off[i % PARTS]))
        next_off[i % PARTS] += 1
    assert len(got) == len(want), f"{len(got)} rows for {len(want)} events"
    assert got == sorted(want)

    wins = sorted((epoch_ms(r["window_start"]), epoch_ms(r["window_end"]), r["k"], r["n"],
                   r["total"]) for r in rows_of(wh, "db.eo_win"))
    assert wins == expected_windows(produced)

    for ident in ("db.eo_pass", "db.eo_win"):
        check_summaries(wh, ident, "eo")
    # The crashed runs committed too, not only the last one (a table gets a
    # snapshot only at checkpoints that wrote rows to it).
    for ident in ("db.eo_pass", "db.eo_win"):
        assert len(job_snapshots(wh, ident, "eo")) >= 5, ident
    # No data file outside the tables is left over from the crashes once
    # recovery ran: each file under the data folders is live.
    for ident, name in (("db.eo_pass", "eo_pass"), ("db.eo_win", "eo_win")):
        t = catalog_for(wh).load_table(ident)
        live = {f.file.file_path.replace("file://", "") for f in t.scan().plan_files()}
        on_disk = {str(p) for p in (wh / "db" / name / "data").rglob("*.parquet")}
        assert on_disk == live, sorted(on_disk - live)[:3]
