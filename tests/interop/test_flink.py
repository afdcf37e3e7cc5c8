"""floe's Iceberg tables against Apache Flink with Iceberg's Flink runtime.

Flink (2.0, a local MiniCluster, through scripts/flink-sql.sh and
bench/flink) opens floe's own SQLite catalog through Iceberg's JdbcCatalog
as catalog `floe`, so both sides commit to the same rows of
`iceberg_tables`:

- Flink creates a table and writes known rows of many types in a batch job;
  `floe sql` reads exactly those rows.
- A streaming Flink job reads a topic of the real Kafka broker (JSON), with a
  checkpoint every second, into a pass-through table and a 10-second
  tumbling window table; rows produced before and after its first commit,
  and per-partition sentinels that close the windows, all arrive exactly
  once, one snapshot per checkpoint carrying Flink's checkpoint id.
- floe creates and fills a table; Flink's batch SELECT returns its rows.

Rows are compared exactly, in `floe sql --format jsonl`'s text form (which
FlinkSql prints too). The first run builds bench/flink through mvn (the
jars come from Maven Central into ~/.m2); when Java or Maven is missing, or
the build fails, the tests fail: they never skip.
"""
import json
import shutil
import subprocess
import time

import pytest

from conftest import ROOT, run_floe

FLINK_SQL = ROOT / "scripts" / "flink-sql.sh"


def floe_at(wh, *args, check=True):
    return run_floe("--warehouse", wh, *args, check=check)


def floe_rows(wh, sql):
    out = floe_at(wh, "sql", "--format", "jsonl", "-c", sql).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def flink(wh, sql_text, tmp, *args, timeout=240):
    """Runs a Flink SQL text to its end; returns its JSON-line rows."""
    f = tmp / f"job-{time.monotonic_ns()}.sql"
    f.write_text(sql_text)
    p = subprocess.run([str(FLINK_SQL), "--warehouse", str(wh), *args, str(f)],
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise AssertionError(f"Flink failed ({p.returncode}):\n{p.stderr[-4000:]}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def key(r):
    return json.dumps(r, sort_keys=True)


def same_rows(a, b):
    sa, sb = sorted(map(key, a)), sorted(map(key, b))
    if sa != sb:
        ka, kb = set(sa), set(sb)
        raise AssertionError(f"rows differ: {len(a)} vs {len(b)}\n"
                             f"only left: {sorted(ka - kb)[:5]}\n"
                             f"only right: {sorted(kb - ka)[:5]}")


@pytest.fixture(scope="module")
def flink_built():
    if not shutil.which("mvn") or not shutil.which("java"):
        pytest.fail("Flink interop needs java and mvn (scripts/install-deps.sh)")
    p = subprocess.run([str(FLINK_SQL), "--build"], capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        pytest.fail(f"could not build bench/flink:\n{p.stderr[-3000:]}")


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    w = tmp_path_factory.mktemp("flink") / "wh"
    w.mkdir()
    # floe makes the catalog database; Flink's catalog then finds it.
    floe_at(w, "sql", "-c", "CREATE SCHEMA db")
    return w


# ---- batch: Flink writes, floe reads; floe writes, Flink reads ----

FLINK_VALUES = [
    "(1, 7, 'alpha', 12.50, 0.25, CAST(1.5 AS FLOAT), TRUE, DATE '2024-02-29', "
    "TIMESTAMP '2024-01-01 00:00:00.000001', TO_TIMESTAMP_LTZ(1704067201500, 3))",
    "(2, -2147483648, 'bêta \"quoted\"', -99999999.99, -1e300, CAST(-0.125 AS FLOAT), FALSE, "
    "DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.999999', TO_TIMESTAMP_LTZ(-1, 3))",
    "(3, CAST(NULL AS INT), CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10, 2)), "
    "CAST(NULL AS DOUBLE), CAST(NULL AS FLOAT), CAST(NULL AS BOOLEAN), CAST(NULL AS DATE), "
    "CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP_LTZ(3)))",
    "(9223372036854775807, 2147483647, '', 0.00, 1e-10, CAST(3.25 AS FLOAT), TRUE, "
    "DATE '9999-12-31', TIMESTAMP '2262-04-11 23:47:16.854775', TO_TIMESTAMP_LTZ(0, 3))",
]
FLINK_EXPECTED = [
    {"id": 1, "i": 7, "s": "alpha", "dec": "12.50", "x": 0.25, "f": 1.5, "ok": True,
     "d": "2024-02-29", "ts": "2024-01-01 00:00:00.000001", "tz": "2024-01-01 00:00:01.500000 UTC"},
    {"id": 2, "i": -2147483648, "s": "bêta \"quoted\"", "dec": "-99999999.99", "x": -1e300,
     "f": -0.125, "ok": False, "d": "1969-12-31", "ts": "1969-12-31 23:59:59.999999",
     "tz": "1969-12-31 23:59:59.999000 UTC"},
    {"id": 3, "i": None, "s": None, "dec": None, "x": None, "f": None, "ok": None, "d": None,
     "ts": None, "tz": None},
    {"id": 9223372036854775807, "i": 2147483647, "s": "", "dec": "0.00", "x": 1e-10, "f": 3.25,
     "ok": True, "d": "9999-12-31", "ts": "2262-04-11 23:47:16.854775",
     "tz": "1970-01-01 00:00:00.000000 UTC"},
]

FLOE_DDL = ("CREATE TABLE db.from_floe (id bigint, n integer, name varchar, amount decimal(12, 3), "
            "score double, r real, flag boolean, d date, ts timestamp(6), "
            "tz timestamp(6) with time zone)")


def floe_insert():
    rows = []
    for i in range(40):
        rows.append(
            f"({i}, {'NULL' if i % 7 == 0 else i * 1000 - 20000}, "
            f"{'NULL' if i % 5 == 0 else repr(f'name-{i % 6}')}, "
            f"{'NULL' if i % 4 == 0 else f'{i * 37.125 - 500:.3f}'}, "
            f"{'NULL' if i % 9 == 0 else f'{i / 8}'}, "
            f"CAST({i / 4} AS real), {'NULL' if i % 3 == 0 else ('true' if i % 2 else 'false')}, "
            f"DATE '2024-01-01' + INTERVAL '{i}' DAY, "
            f"TIMESTAMP '2024-03-01 12:00:00.123456' + INTERVAL '{i * 3601}' SECOND, "
            f"TIMESTAMP '2024-03-01 12:00:00.5 UTC' + INTERVAL '{i * 61}' SECOND)")
    return "INSERT INTO db.from_floe VALUES " + ", ".join(rows)


@pytest.fixture(scope="module")
def batch_run(flink_built, wh, tmp_path_factory):
    """One Flink batch run: floe's table is written first; Flink then creates
    and fills db.from_flink and reads db.from_floe. Returns Flink's rows."""
    floe_at(wh, "sql", "-c", FLOE_DDL + "; " + floe_insert())
    sql = ("SET 'execution.runtime-mode' = 'batch';\n"
           "CREATE TABLE db.from_flink (id BIGINT NOT NULL, i INT, s STRING, `dec` DECIMAL(10, 2), "
           "x DOUBLE, f FLOAT, ok BOOLEAN, d DATE, ts TIMESTAMP(6), tz TIMESTAMP_LTZ(6));\n"
           "INSERT INTO db.from_flink VALUES " + ", ".join(FLINK_VALUES) + ";\n"
           "SELECT * FROM db.from_floe;\n")
    return flink(wh, sql, tmp_path_factory.mktemp("flinkjobs"))


def test_flink_batch_write_floe_reads(batch_run, wh):
    got = floe_rows(wh, "SELECT * FROM db.from_flink")
    same_rows(got, FLINK_EXPECTED)
    cols = floe_rows(wh, "SHOW COLUMNS FROM db.from_flink")
    types = {c["Column"]: c["Type"] for c in cols}
    assert types == {"id": "bigint", "i": "integer", "s": "varchar", "dec": "decimal(10,2)",
                     "x": "double", "f": "real", "ok": "boolean", "d": "date",
                     "ts": "timestamp(6)", "tz": "timestamp(6) with time zone"}, types
    snaps = [json.loads(line) for line in floe_at(wh, "table", "snapshots", "db.from_flink",
                                                   "--format", "jsonl").stdout.splitlines()]
    assert len(snaps) == 1 and snaps[0]["operation"] == "append"
    assert snaps[0]["summary"]["added-records"] == "4"
    assert "flink.job-id" in snaps[0]["summary"]


def test_floe_write_flink_reads(batch_run, wh):
    want = floe_rows(wh, "SELECT * FROM db.from_floe")
    assert len(want) == 40
    same_rows(batch_run, want)


# ---- streaming: Kafka -> Flink (checkpoints) -> Iceberg -> floe ----

def stream_records(lo, hi, partitions=2):
    """Events lo..hi-1, event time id/10 s after midnight, in time order
    within each partition."""
    out = []
    for i in range(lo, hi):
        ms = i * 100
        value = {"id": i, "name": f"n{i % 7}", "amount": i % 50 + 0.5,
                 "ts": f"2024-01-01 00:{ms // 60000:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"}
        out.append({"key": str(i), "value": json.dumps(value), "partition": i % partitions})
    return out


def produce(broker, topic, recs):
    text = "".join(json.dumps(r) + "\n" for r in recs)
    broker.floe("produce", "--topic", topic, "--records", input=text)


def wait_rows(wh, sql, want, proc, timeout=120):
    deadline = time.monotonic() + timeout
    got = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            proc.err.seek(0)
            raise AssertionError(f"the Flink job ended ({proc.returncode}):\n"
                                 f"{proc.err.read()[-4000:]}")
        p = floe_at(wh, "sql", "--format", "csv", "-c", sql, check=False)
        if p.returncode == 0:
            got = p.stdout.strip().splitlines()[-1]
            if got == str(want):
                return
        time.sleep(0.5)
    raise AssertionError(f"{sql}: {got} after {timeout} s, want {want}")


def test_flink_streaming_from_kafka(flink_built, wh, kafka_broker, tmp_path):
    topic = "flink-interop"
    kafka_broker.create_topic(topic, partitions=2)
    floe_at(wh, "sql", "-c",
            "CREATE TABLE db.stream_rows (id bigint, name varchar, amount double, "
            "ts timestamp(6)); "
            "CREATE TABLE db.stream_windows (window_start timestamp(6), window_end timestamp(6), "
            "n bigint, total double)")
    job = tmp_path / "stream.sql"
    job.write_text(f"""
CREATE TEMPORARY TABLE events (
  id BIGINT, name STRING, amount DOUBLE, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'kafka', 'topic' = '{topic}',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}',
  'properties.group.id' = 'flink-interop', 'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);
EXECUTE STATEMENT SET BEGIN
INSERT INTO db.stream_rows SELECT id, name, amount, ts FROM events;
INSERT INTO db.stream_windows
SELECT window_start, window_end, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
END;
""")
    first = stream_records(0, 200)
    produce(kafka_broker, topic, first)
    err = open(tmp_path / "flink.err", "w+")
    proc = subprocess.Popen([str(FLINK_SQL), "--warehouse", str(wh), "--checkpoint-interval", "1s",
                             str(job)], stdout=subprocess.DEVNULL, stderr=err, text=True)
    proc.err = err
    try:
        wait_rows(wh, "SELECT count(*) FROM db.stream_rows", 200, proc)
        second = stream_records(200, 400)
        # One late-enough event per partition moves the watermark past
        # 00:00:40, so the windows up to there close.
        sentinels = [{"key": "s", "partition": p, "value": json.dumps(
            {"id": 1000 + p, "name": "end", "amount": 0.0, "ts": "2024-01-01 00:01:00.000"})}
            for p in range(2)]
        produce(kafka_broker, topic, second + sentinels)
        wait_rows(wh, "SELECT count(*) FROM db.stream_rows", 402, proc)
        wait_rows(wh, "SELECT count(*) FROM db.stream_windows", 4, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    want = [{"id": v["id"], "name": v["name"], "amount": v["amount"], "ts": v["ts"] + "000"}
            for v in (json.loads(r["value"]) for r in first + second + sentinels)]
    same_rows(floe_rows(wh, "SELECT * FROM db.stream_rows"), want)

    windows = {}
    for r in want:
        if r["id"] >= 1000:
            continue
        sec = r["id"] // 100 * 10  # 100 events of 0.1 s per 10 s window
        w = windows.setdefault(sec, {"n": 0, "total": 0.0})
        w["n"] += 1
        w["total"] += r["amount"]
    want_w = [{"window_start": f"2024-01-01 00:00:{s:02d}.000000",
               "window_end": f"2024-01-01 00:{(s + 10) // 60:02d}:{(s + 10) % 60:02d}.000000",
               "n": w["n"], "total": w["total"]} for s, w in sorted(windows.items())]
    same_rows(floe_rows(wh, "SELECT * FROM db.stream_windows"), want_w)

    # Each commit is one checkpoint of the job: ids rise, none is the
    # end-of-input commit (the job never ended).
    snaps = [json.loads(line) for line in floe_at(wh, "table", "snapshots", "db.stream_rows",
                                                   "--format", "jsonl").stdout.splitlines()]
    assert len(snaps) >= 2
    ids = [int(s["summary"]["flink.max-committed-checkpoint-id"]) for s in snaps]
    assert ids == sorted(set(ids)) and 0 < ids[-1] < 2**63 - 1, ids
    assert len({s["summary"]["flink.job-id"] for s in snaps}) == 1
