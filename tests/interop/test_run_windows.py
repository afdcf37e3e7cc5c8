"""Window aggregations of streaming `floe run` jobs on a real broker.

- Every window kind (TUMBLE, HOP, CUMULATE, SESSION) over a 3-partition
  topic, run as a streaming job that fires windows while it runs and is
  stopped with SIGTERM, equals the windows computed here from the events,
  and equals a `--once` run over the same topic.
- Idle partitions: with one partition that never gets a message, the
  watermark (the minimum over the partitions) does not move, so no window
  fires; with 'scan.watermark.idle-timeout' the silent partition stops
  holding it back and windows are committed while the job runs.
- Processing time: TUMBLE over PROCTIME() windows rows by when the job
  handles them.
Tables are read with PyIceberg; the watermark is scraped from /metrics.
"""
import collections
import datetime
import json
import signal
import subprocess
import time

import pytest

from conftest import FLOE
from test_run import rows_of, run_job, sql, write_job
from test_run_metrics import scrape

BASE_MS = 1_760_000_000_000
PARTS = 3


def event(i):
    # Event times move forward 700 ms per event, with a gap of 9 s after
    # every 25th, so that SESSION windows of a 5 s gap close.
    t = BASE_MS + i * 700 + (i // 25) * 9000
    return {"id": i, "k": f"k{i % 3}", "v": i % 11, "ts": t}


def ts_text(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S.%f")[:-3]


def produce(broker, topic, events, partitions):
    text = "".join(json.dumps({"key": str(e["id"]), "partition": p, "value": json.dumps(
        {"id": e["id"], "k": e["k"], "v": e["v"], "ts": ts_text(e["ts"])})}) + "\n"
        for e, p in zip(events, partitions))
    proc = broker.floe("produce", "--topic", topic, "--records", input=text)
    assert f"produced {len(events)} messages" in proc.stderr


SOURCE = """
CREATE TABLE ev (
  id BIGINT,
  k STRING,
  v BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = '{topic}',
  'properties.bootstrap.servers' = '{brokers}',
  'scan.startup.mode' = 'earliest-offset',
  {extra}
  'format' = 'json'
);
"""

SEC = 1000
KINDS = {
    "tumble": ("TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)", None),
    "hop": ("HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)", None),
    "cumulate": ("CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '4' SECOND, INTERVAL '12' SECOND)",
                 None),
    "session": ("SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)", None),
}


def windows_of(kind, t):
    """The [start, end) windows (epoch ms) event time t belongs to."""
    if kind == "tumble":
        s = t // (10 * SEC) * 10 * SEC
        return [(s, s + 10 * SEC)]
    if kind == "hop":
        last = t // (5 * SEC) * 5 * SEC
        return [(s, s + 15 * SEC) for s in range(last - 10 * SEC, last + 1, 5 * SEC)]
    if kind == "cumulate":
        s = t // (12 * SEC) * 12 * SEC
        return [(s, e) for e in range(s + 4 * SEC, s + 12 * SEC + 1, 4 * SEC) if t < e]
    raise AssertionError(kind)


def expected(kind, events):
    acc = collections.defaultdict(lambda: [0, 0])
    if kind == "session":
        by_key = collections.defaultdict(list)
        for e in events:
            by_key[e["k"]].append(e)
        for k, es in by_key.items():
            es.sort(key=lambda e: e["ts"])
            start = end = None
            members = []
            for e in es + [None]:
                if e is None or (start is not None and e["ts"] >= end):
                    a = acc[(start, end, k)]
                    a[0] += len(members)
                    a[1] += sum(m["v"] for m in members)
                    members = []
                    start = None
                if e is None:
                    break
                if start is None:
                    start, end = e["ts"], e["ts"] + 5 * SEC
                end = max(end, e["ts"] + 5 * SEC)
                members.append(e)
    else:
        for e in events:
            for w in windows_of(kind, e["ts"]):
                a = acc[(w[0], w[1], e["k"])]
                a[0] += 1
                a[1] += e["v"]
    return sorted((s, e, k, n, t) for (s, e, k), (n, t) in acc.items())


def epoch_ms(ts):
    return int(ts.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


def table_windows(wh, ident):
    return sorted((epoch_ms(r["window_start"]), epoch_ms(r["window_end"]), r["k"], r["n"], r["s"])
                  for r in rows_of(wh, ident))


def job_text(kind, topic, brokers, table, extra="", settings=""):
    return (settings + SOURCE.format(topic=topic, brokers=brokers, extra=extra) +
            f"INSERT INTO db.{table}\nSELECT window_start, window_end, k, count(*) AS n, "
            f"sum(v) AS s\nFROM TABLE({KINDS[kind][0]})\n"
            f"GROUP BY window_start, window_end, k;\n")


def create_table(wh, name):
    sql(wh, f"CREATE TABLE db.{name} (window_start timestamp(6), window_end timestamp(6), "
            f"k varchar, n bigint, s bigint)")


def start(wh, job, *args):
    return subprocess.Popen([str(FLOE), "--warehouse", str(wh), "run", str(job), "--metrics-port",
                             "0", "--no-progress", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    return err


@pytest.fixture()
def wh(tmp_path):
    w = tmp_path / "wh"
    w.mkdir()
    sql(w, "CREATE SCHEMA db")
    return w


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_streaming_windows_of_every_kind(kafka_broker, wh, tmp_path, kind):
    topic = f"win-{kind}"
    kafka_broker.create_topic(topic, PARTS)
    events = [event(i) for i in range(300)]
    # Round robin over the partitions: each partition's times increase, so
    # with a 1 s watermark delay nothing is late.
    produce(kafka_broker, topic, events, [i % PARTS for i in range(len(events))])
    # A last event per partition far ahead closes every window of the 300.
    tail = [dict(event(10_000 + p), k="k9") for p in range(PARTS)]
    produce(kafka_broker, topic, tail, list(range(PARTS)))
    create_table(wh, "streamed")
    create_table(wh, "once")
    streamed = write_job(tmp_path, "streamed.sql", job_text(
        kind, topic, kafka_broker.brokers, "streamed",
        settings="SET 'execution.checkpointing.interval' = '300 ms';\n"))
    want = expected(kind, events)
    proc = start(wh, streamed)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            assert proc.poll() is None, proc.stderr.read()
            got = table_windows(wh, "db.streamed")
            if len(got) >= len(want):
                break
            time.sleep(0.3)
    finally:
        stop(proc)
    # The streaming run fired every window of the 300 events while it ran;
    # the far-ahead tail events' windows are still open (in its checkpoint).
    assert table_windows(wh, "db.streamed") == want
    # --once ends the input, which fires the tail's windows too.
    once = write_job(tmp_path, "once.sql", job_text(kind, topic, kafka_broker.brokers, "once"))
    run_job(wh, once, "--once")
    once_rows = table_windows(wh, "db.once")
    assert [r for r in once_rows if r[2] != "k9"] == want
    tail_rows = [r for r in once_rows if r[2] == "k9"]
    assert tail_rows == expected(kind, tail)


def watermark(url):
    return scrape(url).get(("floe_job_watermark_seconds", ()))


@pytest.mark.parametrize("idle", [False, True])
def test_idle_partition_holds_the_watermark_unless_idle_timeout(kafka_broker, wh, tmp_path, idle):
    topic = f"win-idle-{int(idle)}"
    kafka_broker.create_topic(topic, 2)
    events = [event(i) for i in range(100)]
    # Every event goes to partition 0; partition 1 never gets one.
    produce(kafka_broker, topic, events, [0] * len(events))
    create_table(wh, "w")
    extra = "'scan.watermark.idle-timeout' = '500 ms'," if idle else ""
    job = write_job(tmp_path, "idle.sql", job_text(
        "tumble", topic, kafka_broker.brokers, "w", extra=extra,
        settings="SET 'execution.checkpointing.interval' = '300 ms';\n"))
    proc = start(wh, job)
    try:
        url = proc.stderr.readline().split()[1]
        # Long enough for the idle timeout, checkpoints and commits many times over.
        deadline = time.time() + (30 if idle else 6)
        want = [r for r in expected("tumble", events)
                if r[1] + 1000 <= events[-1]["ts"]]  # windows the last event's watermark closes
        got = []
        while time.time() < deadline:
            assert proc.poll() is None
            got = table_windows(wh, "db.w")
            if idle and len(got) >= len(want):
                break
            time.sleep(0.3)
        wm = watermark(url)
    finally:
        stop(proc)
    if idle:
        assert got == want
        assert wm == pytest.approx((events[-1]["ts"] - 1000) / 1000, abs=0.001)
    else:
        # 6 s of waiting: the silent partition kept the watermark back.
        assert got == []
        assert wm is None


def test_processing_time_tumble_windows(wh, tmp_path):
    sql(wh, "CREATE TABLE db.pt (window_start timestamp(6) with time zone, "
            "window_end timestamp(6) with time zone, n bigint, s bigint)")
    job = write_job(tmp_path, "pt.sql", """
SET 'execution.checkpointing.interval' = '500 ms';
CREATE TABLE g (
  id BIGINT,
  pt AS PROCTIME()
) WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'number-of-rows' = '3000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000');
INSERT INTO db.pt
SELECT window_start, window_end, count(*) AS n, sum(id) AS s
FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(pt), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
""")
    t0 = time.time()
    run_job(wh, job)  # bounded by number-of-rows: ends by itself
    t1 = time.time()
    rows = sorted((r["window_start"].timestamp(), r["window_end"].timestamp(), r["n"], r["s"])
                  for r in rows_of(wh, "db.pt"))
    assert sum(r[2] for r in rows) == 3000
    assert sum(r[3] for r in rows) == 3000 * 3001 // 2
    # About 3 s of rows at 1000 rows/s: at least 3 one-second windows, each
    # aligned to the second, inside the run, none holding more than its share.
    assert len(rows) >= 3
    for s, e, n, _ in rows:
        assert e - s == 1.0 and s == int(s)
        assert t0 - 1 <= s <= t1
        assert n <= 1500
