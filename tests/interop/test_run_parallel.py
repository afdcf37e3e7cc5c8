"""`floe run --parallelism N` for keyed jobs: window aggregations (TUMBLE, HOP,
SESSION) and GROUP BY over a 4-partition Kafka topic on several worker
threads, whose rows are exchanged by key hash between the threads.

Each job's table, read with PyIceberg, must equal the table of the same job
at --parallelism 1 and the values computed here from the events; a parallel
windowed job killed with SIGKILL (and stopped at a checkpoint fault point)
over and over while events arrive must still count every event exactly once;
a restart keeps the checkpoint's parallelism and a different one is refused.
"""
import collections
import datetime
import json
import random
import signal
import time

import pytest

from test_run import check_summaries, log_events, rows_of, run_job, sql, start_job, write_job

BASE_MS = 1_760_000_000_000
PARTS = 4
KEYS = 7
SESSION_GAP_MS = 3_000


def event_ms(i):
    # 100 ms apart, with a 10 s pause every 150 events: sessions of a key end
    # there. Per partition (i % PARTS) event times only grow, so no row is late
    # whatever the parallelism.
    return BASE_MS + i * 100 + (i // 150) * 10_000


def event(i):
    ts = datetime.datetime.fromtimestamp(event_ms(i) / 1000, datetime.timezone.utc)
    return {"id": i, "k": f"k{(i * 5 + i // 11) % KEYS}", "amount": (i * 37) % 101,
            "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]}


def produce(broker, topic, first, n, parts=PARTS):
    text = "".join(json.dumps({"key": str(i), "value": json.dumps(event(i)),
                               "partition": i % parts}) + "\n"
                   for i in range(first, first + n))
    proc = broker.floe("produce", "--topic", topic, "--records", input=text)
    assert f"produced {n} messages" in proc.stderr


SOURCE = """
CREATE TEMPORARY TABLE ev (
  id BIGINT,
  k STRING,
  amount BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = '{topic}',
  'properties.bootstrap.servers' = '{brokers}',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);
"""

QUERIES = {
    "tumble": ("(window_start timestamp(6), window_end timestamp(6), k varchar, n bigint, "
               "total bigint)",
               "SELECT window_start, window_end, k, count(*), sum(amount) "
               "FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
               "GROUP BY window_start, window_end, k"),
    "hop": ("(window_start timestamp(6), window_end timestamp(6), k varchar, n bigint, "
            "top bigint)",
            "SELECT window_start, window_end, k, count(*), max(amount) "
            "FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) "
            "GROUP BY window_start, window_end, k"),
    "session": ("(window_start timestamp(6), window_end timestamp(6), k varchar, n bigint, "
                "total bigint)",
                "SELECT window_start, window_end, k, count(*), sum(amount) "
                "FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) "
                "GROUP BY window_start, window_end, k"),
    "grouped": ("(k varchar, n bigint, total bigint, first_id bigint)",
                "SELECT k, count(*), sum(amount), min(id) FROM ev GROUP BY k"),
}


def epoch_ms(ts):
    return int(ts.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


def expected(kind, n):
    """The rows of QUERIES[kind] over events 0..n-1, as sorted tuples."""
    evs = [event(i) for i in range(n)]
    acc = collections.defaultdict(list)
    if kind == "tumble":
        for i, e in enumerate(evs):
            s = event_ms(i) // 10_000 * 10_000
            acc[(s, s + 10_000, e["k"])].append(e["amount"])
        return sorted(key + (len(v), sum(v)) for key, v in acc.items())
    if kind == "hop":
        for i, e in enumerate(evs):
            t = event_ms(i)
            last = t // 2_000 * 2_000
            for s in range(last, t - 10_000, -2_000):
                acc[(s, s + 10_000, e["k"])].append(e["amount"])
        return sorted(key + (len(v), max(v)) for key, v in acc.items())
    if kind == "session":
        by_key = collections.defaultdict(list)
        for i, e in enumerate(evs):
            by_key[e["k"]].append((event_ms(i), e["amount"]))
        out = []
        for k, rows in by_key.items():
            rows.sort()
            cur = [rows[0]]
            for r in rows[1:]:
                if r[0] - cur[-1][0] < SESSION_GAP_MS:
                    cur.append(r)
                else:
                    out.append((cur[0][0], cur[-1][0] + SESSION_GAP_MS, k, len(cur),
                                sum(a for _, a in cur)))
                    cur = [r]
            out.append((cur[0][0], cur[-1][0] + SESSION_GAP_MS, k, len(cur),
                        sum(a for _, a in cur)))
        return sorted(out)
    for i, e in enumerate(evs):
        acc[e["k"]].append((e["amount"], i))
    return sorted((k, len(v), sum(a for a, _ in v), min(i for _, i in v)) for k, v in acc.items())


def table_rows(wh, ident, kind):
    rows = rows_of(wh, ident)
    if kind == "grouped":
        return sorted((r["k"], r["n"], r["total"], r["first_id"]) for r in rows)
    last = "top" if kind == "hop" else "total"
    return sorted((epoch_ms(r["window_start"]), epoch_ms(r["window_end"]), r["k"], r["n"], r[last])
                  for r in rows)


@pytest.fixture()
def wh(tmp_path):
    w = tmp_path / "wh"
    w.mkdir()
    sql(w, "CREATE SCHEMA db")
    return w


def test_keyed_jobs_give_the_same_table_at_every_parallelism(kafka_broker, wh, tmp_path):
    topic, n = "par-keyed", 3000
    kafka_broker.create_topic(topic, PARTS)
    produce(kafka_broker, topic, 0, n)
    src = SOURCE.format(topic=topic, brokers=kafka_broker.brokers)
    want = {kind: expected(kind, n) for kind in QUERIES}
    assert len(want["session"]) > 2 * KEYS  # several sessions per key
    for par in (1, 2, 3):
        inserts = []
        for kind, (cols, q) in QUERIES.items():
            sql(wh, f"CREATE TABLE db.{kind}_{par} {cols}")
            inserts.append(f"INSERT INTO db.{kind}_{par} {q};")
        job = write_job(tmp_path, f"keyed{par}.sql",
                        "SET 'execution.checkpointing.interval' = '200 ms';\n" + src +
                        "EXECUTE STATEMENT SET BEGIN\n" + "\n".join(inserts) + "\nEND;\n")
        proc = run_job(wh, job, "--once", "--parallelism", par, timeout=120)
        start = [e for e in log_events(proc.stderr) if e["msg"] == "start"][0]
        assert start["parallelism"] == par
        for kind in QUERIES:
            got = table_rows(wh, f"db.{kind}_{par}", kind)
            assert got == want[kind], (kind, par)
        check_summaries(wh, f"db.tumble_{par}", f"keyed{par}")
        # The checkpoint log line: events of every lane, no late row.
        chk = [e for e in log_events(proc.stderr) if e["msg"] == "checkpoint"]
        assert chk[-1]["events"] == n and chk[-1]["late-rows"] == 0


def test_streaming_parallel_windows_fire_on_the_combined_watermark(kafka_broker, wh, tmp_path):
    """Unbounded, on 3 threads over 4 partitions: windows fire as the minimum
    of the lanes' watermarks passes them, before any end of input."""
    topic, n = "par-stream", 1200
    kafka_broker.create_topic(topic, PARTS)
    produce(kafka_broker, topic, 0, n)
    cols, q = QUERIES["tumble"]
    sql(wh, f"CREATE TABLE db.streamed {cols}")
    job = write_job(tmp_path, "streamed.sql",
                    "SET 'execution.checkpointing.interval' = '200 ms';\n" +
                    SOURCE.format(topic=topic, brokers=kafka_broker.brokers) +
                    f"INSERT INTO db.streamed {q};\n")
    p = start_job(wh, job, "--parallelism", 3)
    # The watermark is the last event time minus 1 s: every window ending
    # at or before it fires; the last one stays open.
    wm = event_ms(n - 1) - 1000
    fired = [r for r in expected("tumble", n) if r[1] - 1 <= wm]
    deadline = time.time() + 60
    while len(rows_of(wh, "db.streamed")) < len(fired) and time.time() < deadline:
        assert p.poll() is None, p.stderr.read()
        time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert table_rows(wh, "db.streamed", "tumble") == fired


KILL_JOB = """
SET 'pipeline.name' = 'pkill';
SET 'execution.checkpointing.interval' = '150 ms';
{src}
EXECUTE STATEMENT SET BEGIN
INSERT INTO db.pk_tumble {tumble};
INSERT INTO db.pk_session {session};
END;
"""


def test_kill_9_parallel_windowed_job_keeps_exactly_once(kafka_broker, wh, tmp_path):
    topic, chunk, chunks = "par-kill", 400, 8
    kafka_broker.create_topic(topic, PARTS)
    for kind in ("tumble", "session"):
        sql(wh, f"CREATE TABLE db.pk_{kind} {QUERIES[kind][0]}")
    job = write_job(tmp_path, "pkill.sql", KILL_JOB.format(
        src=SOURCE.format(topic=topic, brokers=kafka_broker.brokers),
        tumble=QUERIES["tumble"][1], session=QUERIES["session"][1]))
    rng = random.Random(4242)
    produced = kills = 0
    faults = {3: "after-checkpoint-before-commit", 6: "mid-commit"}
    for run in range(10):
        if produced < chunk * chunks:
            produce(kafka_broker, topic, produced, chunk)
            produced += chunk
        if run in faults:
            proc = run_job(wh, job, "--parallelism", 2, env={"FLOE_FAULT_POINT": faults[run]},
                           check=False, timeout=60)
            assert proc.returncode == 86, proc.stderr
            continue
        p = start_job(wh, job, "--parallelism", 2)
        time.sleep(rng.uniform(0.3, 1.2))
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=30)
        kills += 1
    while produced < chunk * chunks:
        produce(kafka_broker, topic, produced, chunk)
        produced += chunk
    assert kills == 8
    # A different parallelism is refused, naming the checkpoint's.
    proc = run_job(wh, job, "--once", "--parallelism", 3, check=False)
    assert proc.returncode == 1
    assert "was taken with parallelism 2" in proc.stderr and "--parallelism 2" in proc.stderr
    # Without --parallelism the restart keeps the checkpoint's.
    proc = run_job(wh, job, "--once", timeout=120)
    start = [e for e in log_events(proc.stderr) if e["msg"] == "start"][0]
    assert start["parallelism"] == 2 and start["restored-checkpoint"] > 0
    for kind in ("tumble", "session"):
        assert table_rows(wh, f"db.pk_{kind}", kind) == expected(kind, produced), kind
        check_summaries(wh, f"db.pk_{kind}", "pkill")


def test_generator_keyed_job_on_several_threads(wh, tmp_path):
    """A datagen table is read by lane 0 only; with --parallelism 3 its rows
    still reach every lane's window aggregation by key, and the other lanes'
    copies of the generator input end at once (else no window would fire)."""
    body = """
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE g (
  id BIGINT,
  ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '30000', 'rows-per-second' = '0',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '30000');
INSERT INTO db.{t}
SELECT window_start, window_end, id % 50 AS k, count(*) AS n, sum(id) AS s
FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, id % 50;
"""
    want = collections.defaultdict(lambda: [0, 0])
    for i in range(1, 30001):
        start = (1700000000000 + i * 10) // 10_000 * 10_000
        w = want[(start, i % 50)]
        w[0] += 1
        w[1] += i
    for par in (1, 3):
        t = f"gen{par}"
        sql(wh, f"CREATE TABLE db.{t} (window_start timestamp(6) with time zone, "
                "window_end timestamp(6) with time zone, k bigint, n bigint, s bigint)")
        job = write_job(tmp_path, f"{t}.sql", body.format(t=t))
        proc = run_job(wh, job, "--once", "--parallelism", par)
        assert [e for e in log_events(proc.stderr) if e["msg"] == "start"][0]["parallelism"] == par
        got = {(int(r["window_start"].timestamp() * 1000), r["k"]): [r["n"], r["s"]]
               for r in rows_of(wh, f"db.{t}")}
        assert len(got) == len(rows_of(wh, f"db.{t}"))  # each (window, key) once
        assert got == dict(want), par


def test_default_parallelism(kafka_broker, wh, tmp_path):
    """Without --parallelism: one lane per core (at most 16) for a keyed job,
    no more than the topic's partitions for a pass-through job."""
    import os
    topic = "par-default"
    kafka_broker.create_topic(topic, 1)
    produce(kafka_broker, topic, 0, 300, parts=1)
    src = SOURCE.format(topic=topic, brokers=kafka_broker.brokers)
    cols, q = QUERIES["tumble"]
    sql(wh, f"CREATE TABLE db.d_keyed {cols}")
    sql(wh, "CREATE TABLE db.d_pass (id bigint)")
    cores = min(os.cpu_count(), 16)
    for name, insert, want in [("d_keyed", q, cores), ("d_pass", "SELECT id FROM ev", 1)]:
        job = write_job(tmp_path, f"{name}.sql", src + f"INSERT INTO db.{name} {insert};\n")
        proc = run_job(wh, job, "--once")
        assert [e for e in log_events(proc.stderr) if e["msg"] == "start"][0]["parallelism"] == want
    assert table_rows(wh, "db.d_keyed", "tumble") == expected("tumble", 300)
    assert sorted(r["id"] for r in rows_of(wh, "db.d_pass")) == list(range(300))
