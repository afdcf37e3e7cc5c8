"""`floe run`: streaming jobs from Kafka and datagen into Iceberg tables.

Jobs are Flink SQL files; their tables are read back with PyIceberg (the
independent reader) and compared with the exact rows expected. The
exactly-once tests kill the job (kill -9 at random moments, and the
FLOE_FAULT_POINT test hook at chosen points of a checkpoint) and restart
it: the tables must end with every input row exactly once, and their
snapshot summaries must carry the job id and strictly increasing
checkpoint ids.
"""
import collections
import datetime
import decimal
import json
import os
import pathlib
import random
import signal
import subprocess
import time

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from conftest import FLOE, run_floe

BASE_MS = 1_700_000_000_000


def catalog_for(wh):
    return SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def sql(wh, text):
    return run_floe("--warehouse", wh, "sql", "-c", text)


def rows_of(wh, ident):
    return catalog_for(wh).load_table(ident).scan().to_arrow().to_pylist()


def job_snapshots(wh, ident, job_id):
    """Snapshot summaries of the table that carry the job id, oldest first."""
    t = catalog_for(wh).load_table(ident)
    out = []
    for s in t.metadata.snapshots:
        summ = s.summary.additional_properties if s.summary else {}
        if summ.get("floe.job-id") == job_id:
            out.append(summ)
    return out


def write_job(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def run_job(wh, job, *args, env=None, timeout=60, check=True):
    e = dict(os.environ)
    e.pop("FLOE_FAULT_POINT", None)
    if env:
        e.update(env)
    proc = subprocess.run([str(FLOE), "--warehouse", str(wh), "run", str(job), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=e)
    if check and proc.returncode != 0:
        raise AssertionError(f"floe run failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def start_job(wh, job, *args, env=None):
    e = dict(os.environ)
    e.pop("FLOE_FAULT_POINT", None)
    if env:
        e.update(env)
    return subprocess.Popen([str(FLOE), "--warehouse", str(wh), "run", str(job), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)


def log_events(stderr):
    out = []
    for line in stderr.splitlines():
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def check_summaries(wh, ident, job_id):
    chks = [int(s["floe.checkpoint-id"]) for s in job_snapshots(wh, ident, job_id)]
    assert chks, "no snapshot carries the job id"
    assert chks == sorted(set(chks)), f"checkpoint ids repeat or go back: {chks}"
    for s in job_snapshots(wh, ident, job_id):
        json.loads(s["floe.offsets"])


# ---- datagen ----

DATAGEN_JOB = """
SET 'execution.checkpointing.interval' = '{interval}';
CREATE TEMPORARY TABLE gen (
  id BIGINT,
  label AS 'n' || CAST(id AS VARCHAR),
  triple AS id * 3
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '{rate}',
  'number-of-rows' = '{rows}',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.id.end' = '{rows}'
);
INSERT INTO db.{table} SELECT id, label, triple FROM gen WHERE id % 3 <> 0;
"""


def datagen_expected(n):
    return sorted((i, f"n{i}", 3 * i) for i in range(1, n + 1) if i % 3 != 0)


def table_tuples(wh, ident):
    return sorted((r["id"], r["label"], r["triple"]) for r in rows_of(wh, ident))


@pytest.fixture()
def wh(tmp_path):
    w = tmp_path / "wh"
    w.mkdir()
    sql(w, "CREATE SCHEMA db")
    return w


def test_datagen_filter_projection_computed_columns(wh, tmp_path):
    sql(wh, "CREATE TABLE db.gen_out (id bigint, label varchar, triple bigint)")
    job = write_job(tmp_path, "gen_job.sql",
                    DATAGEN_JOB.format(interval="300 ms", rate=20000, rows=3000, table="gen_out"))
    proc = run_job(wh, job, "--once")
    assert table_tuples(wh, "db.gen_out") == datagen_expected(3000)
    # The job id is the file's base name; each checkpoint committed once.
    check_summaries(wh, "db.gen_out", "gen_job")
    ev = log_events(proc.stderr)
    assert any(e["msg"] == "checkpoint" for e in ev)
    assert all(e["job-id"] == "gen_job" for e in ev)
    commits = [e for e in ev if e["msg"] == "commit"]
    assert sum(t["files"] for c in commits for t in c["tables"]) >= 1
    # Checkpoint folders: the newest few, each with its metadata file.
    chk = sorted((wh / "_floe" / "jobs" / "gen_job").glob("chk-*"))
    assert 1 <= len(chk) <= 3
    assert all((c / "_metadata").exists() for c in chk)


def test_unbounded_datagen_with_once_is_an_error(wh, tmp_path):
    sql(wh, "CREATE TABLE db.u (id bigint)")
    job = write_job(tmp_path, "u.sql", """
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen');
INSERT INTO db.u SELECT id FROM g;
""")
    proc = run_job(wh, job, "--once", check=False)
    assert proc.returncode == 1
    assert "unbounded datagen" in proc.stderr and "line 2" in proc.stderr


def test_kill_9_at_random_moments_and_restart(wh, tmp_path):
    """kill -9 five times mid-stream; every restart resumes from the newest
    checkpoint. The table ends with every row exactly once."""
    # 5 s of rows at the rate: more than the five runs together last.
    n = 40000
    sql(wh, "CREATE TABLE db.k (id bigint, label varchar, triple bigint)")
    job = write_job(tmp_path, "kjob.sql",
                    DATAGEN_JOB.format(interval="150 ms", rate=8000, rows=n, table="k"))
    rng = random.Random(7)
    kills = 0
    for _ in range(5):
        p = start_job(wh, job)
        time.sleep(rng.uniform(0.25, 0.7))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            kills += 1
        p.communicate(timeout=30)
    assert kills >= 5
    proc = run_job(wh, job)  # runs to the end of the bounded source
    ev = log_events(proc.stderr)
    start = [e for e in ev if e["msg"] == "start"][0]
    assert start["restored-checkpoint"] > 0
    assert table_tuples(wh, "db.k") == datagen_expected(n)
    check_summaries(wh, "db.k", "kjob")
    # No data file is left that the table does not reference.
    t = catalog_for(wh).load_table("db.k")
    live = {f.file.file_path.replace("file://", "") for f in t.scan().plan_files()}
    on_disk = {str(p) for p in (wh / "db" / "k" / "data").rglob("*.parquet")}
    assert on_disk == live


@pytest.mark.parametrize("point", ["after-checkpoint-before-commit", "mid-commit"])
def test_fault_point_then_recovery_commits_once(wh, tmp_path, point):
    sql(wh, "CREATE TABLE db.f (id bigint, label varchar, triple bigint)")
    job = write_job(tmp_path, "fjob.sql",
                    DATAGEN_JOB.format(interval="200 ms", rate=10000, rows=6000, table="f"))
    proc = run_job(wh, job, env={"FLOE_FAULT_POINT": f"{point}@2"}, check=False)
    assert proc.returncode == 86, proc.stderr
    chks = [int(s["floe.checkpoint-id"]) for s in job_snapshots(wh, "db.f", "fjob")]
    assert chks == [1]
    assert (wh / "_floe" / "jobs" / "fjob" / "chk-2" / "_metadata").exists()
    proc = run_job(wh, job)
    ev = log_events(proc.stderr)
    # Recovery commits checkpoint 2 first, before reading on.
    assert ev[0]["msg"] == "commit" and ev[0]["checkpoint-id"] == 2
    assert ev[0]["tables"][0]["snapshot-id"] > 0
    chks = [int(s["floe.checkpoint-id"]) for s in job_snapshots(wh, "db.f", "fjob")]
    assert chks[:2] == [1, 2] and chks == sorted(set(chks))
    assert table_tuples(wh, "db.f") == datagen_expected(6000)
    # Restarting a finished job commits nothing twice either.
    run_job(wh, job)
    assert [int(s["floe.checkpoint-id"]) for s in job_snapshots(wh, "db.f", "fjob")] == chks
    assert table_tuples(wh, "db.f") == datagen_expected(6000)


def test_uncommitted_files_are_deleted_on_recovery(wh, tmp_path):
    sql(wh, "CREATE TABLE db.g (id bigint, label varchar, triple bigint)")
    job = write_job(tmp_path, "gjob.sql",
                    DATAGEN_JOB.format(interval="200 ms", rate=10000, rows=6000, table="g"))
    proc = run_job(wh, job, env={"FLOE_FAULT_POINT": "after-files-before-metadata@2"}, check=False)
    assert proc.returncode == 86, proc.stderr
    data = wh / "db" / "g" / "data"
    t = catalog_for(wh).load_table("db.g")
    live = {f.file.file_path.replace("file://", "") for f in t.scan().plan_files()}
    stray = {str(p) for p in data.rglob("*.parquet")} - live
    assert stray, "checkpoint 2 wrote data files before its metadata"
    proc = run_job(wh, job)
    start = [e for e in log_events(proc.stderr) if e["msg"] == "start"][0]
    assert start["deleted-uncommitted-files"] == len(stray)
    assert not any(pathlib.Path(p).exists() for p in stray)
    assert table_tuples(wh, "db.g") == datagen_expected(6000)


def test_bad_job_sql_errors_have_line_and_column(wh, tmp_path):
    sql(wh, "CREATE TABLE db.e (id bigint)")
    cases = [
        ("CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen');\nINSERT INTO db.e SELEC id FROM g;",
         "line 2, column"),
        ("CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen');\nINSERT INTO db.e SELECT nope FROM g;",
         "line 2, column 25"),
        ("CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen',\n  'rows-per-secnd' = '5');\n"
         "INSERT INTO db.e SELECT id FROM g;", "rows-per-secnd"),
        ("CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen');\nINSERT INTO db.missing SELECT id FROM g;",
         "line 2, column 1: Table 'db.missing' does not exist"),
        ("CREATE TABLE g (id BIGINT, WATERMARK FOR id AS id) WITH ('connector' = 'datagen');\n"
         "INSERT INTO db.e SELECT id FROM g;", "line 1, column 42: The rowtime column"),
        ("CREATE TABLE g (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json');\n"
         "INSERT INTO db.e SELECT id FROM g;", "properties.bootstrap.servers"),
        ("CREATE TABLE g (id BIGINT) WITH ('connector' = 'nope');\nINSERT INTO db.e SELECT id FROM g;",
         "line 1, column 34: table g: connector 'nope' is not supported"),
    ]
    for i, (text, want) in enumerate(cases):
        job = write_job(tmp_path, f"bad{i}.sql", text)
        proc = run_job(wh, job, "--once", check=False)
        assert proc.returncode == 1, (text, proc.stderr)
        assert want in proc.stderr, (text, proc.stderr)


# ---- Kafka ----

def order(i):
    return {"id": i, "customer": f"c{i % 7}", "amount": f"{(i * 37) % 10000 / 100:.2f}",
            "ts": datetime.datetime.fromtimestamp((BASE_MS + i * 1000) / 1000, datetime.timezone.utc)
            .strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]}


def produce_orders(broker, topic, first, n, partitions):
    recs = []
    for i in range(first, first + n):
        recs.append({"key": str(i), "value": json.dumps(order(i)), "partition": i % partitions,
                     "timestamp": BASE_MS + i})
    text = "".join(json.dumps(r) + "\n" for r in recs)
    proc = broker.floe("produce", "--topic", topic, "--records", input=text)
    assert f"produced {n} messages" in proc.stderr


KAFKA_TABLE = """
CREATE TABLE orders (
  id BIGINT,
  customer STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  part INT METADATA FROM 'partition' VIRTUAL,
  off BIGINT METADATA FROM 'offset',
  kts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  big AS amount > 50,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = '{topic}',
  'properties.bootstrap.servers' = '{brokers}',
  'properties.group.id' = '{group}',
  'scan.startup.mode' = 'earliest-offset',
  'scan.watermark.idle-timeout' = '1 s',
  'format' = 'json'
);
"""


def expected_orders(n, partitions):
    """(id, customer, amount, partition, offset) of the first n orders."""
    next_off = [0] * partitions
    out = []
    for i in range(n):
        p = i % partitions
        o = order(i)
        out.append((i, o["customer"], decimal.Decimal(o["amount"]), p, next_off[p]))
        next_off[p] += 1
    return out


def test_kafka_json_pass_through_with_metadata_columns(kafka_broker, wh, tmp_path):
    topic, parts, n = "run-orders", 3, 900
    kafka_broker.create_topic(topic, parts)
    produce_orders(kafka_broker, topic, 0, n, parts)
    sql(wh, "CREATE TABLE db.orders (id bigint, customer varchar, amount decimal(10,2), "
            "ts timestamp(6), part integer, off bigint, kts timestamp(6) with time zone, "
            "big boolean)")
    job = write_job(tmp_path, "orders.sql", "SET 'pipeline.name' = 'orders-job';\n" +
                    KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group="g-orders") +
                    "INSERT INTO db.orders SELECT id, customer, amount, ts, part, off, kts, big "
                    "FROM orders;\n")
    proc = run_job(wh, job, "--once")
    got = sorted((r["id"], r["customer"], r["amount"], r["part"], r["off"])
                 for r in rows_of(wh, "db.orders"))
    assert got == expected_orders(n, parts)
    for r in rows_of(wh, "db.orders"):
        assert r["ts"] == datetime.datetime.fromtimestamp((BASE_MS + r["id"] * 1000) / 1000)
        assert r["kts"] == datetime.datetime.fromtimestamp((BASE_MS + r["id"]) / 1000,
                                                           datetime.timezone.utc)
        assert r["big"] == (r["amount"] > 50)
    # pipeline.name is the job id; the offsets of the commit are the ends.
    summ = job_snapshots(wh, "db.orders", "orders-job")
    assert summ
    offs = json.loads(summ[-1]["floe.offsets"])["orders"]["offsets"]
    assert offs == {str(p): len(range(p, n, parts)) for p in range(parts)}
    wm = [e["watermark"] for e in log_events(proc.stderr) if e["msg"] == "checkpoint"]
    assert wm[-1].startswith("2023-11-14")  # the event time of the orders, minus 5 s
    # The group got the committed offsets (for monitoring).
    out = kafka_broker.floe("offsets", "--topic", topic, "--group", "g-orders").stdout
    assert str(len(range(0, n, parts))) in out


def test_kafka_bounded_modes_end_the_job(kafka_broker, wh, tmp_path):
    """Flink's 'scan.bounded.mode': without --once the job ends by itself at
    the bound, with exactly the rows before it."""
    topic, parts, n = "run-bounded", 2, 400
    kafka_broker.create_topic(topic, parts)
    produce_orders(kafka_broker, topic, 0, n, parts)
    cases = {
        "latest": ("'scan.bounded.mode' = 'latest-offset'", set(range(n))),
        # Kafka timestamps are BASE_MS + id: the bound is the first message
        # at or after BASE_MS + 300 in each partition.
        "ts": (f"'scan.bounded.mode' = 'timestamp', 'scan.bounded.timestamp-millis' = '{BASE_MS + 300}'",
               set(range(300))),
        # Offsets 10 and 25: ids 0, 2, ..., 18 of partition 0 and 1, 3, ..., 49 of partition 1.
        "specific": ("'scan.bounded.mode' = 'specific-offsets', "
                     "'scan.bounded.specific-offsets' = 'partition:0,offset:10;partition:1,offset:25'",
                     set(range(0, 20, 2)) | set(range(1, 50, 2))),
    }
    for name, (opts, want) in cases.items():
        sql(wh, f"CREATE TABLE db.b_{name} (id bigint)")
        body = KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group=f"g-b-{name}")
        body = body.replace("'format' = 'json'", "'format' = 'json', " + opts)
        job = write_job(tmp_path, f"b_{name}.sql", body + f"INSERT INTO db.b_{name} SELECT id FROM orders;\n")
        run_job(wh, job, timeout=60)  # no --once: the bound ends it
        got = [r["id"] for r in rows_of(wh, f"db.b_{name}")]
        assert sorted(got) == sorted(want), name
    body = KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group="g-b-bad")
    body = body.replace("'format' = 'json'", "'format' = 'json', 'scan.bounded.mode' = 'earliest-offset'")
    job = write_job(tmp_path, "b_bad.sql", body + "INSERT INTO db.b_latest SELECT id FROM orders;\n")
    proc = run_job(wh, job, check=False)
    assert proc.returncode == 1
    assert "scan.bounded.mode" in proc.stderr and "not a bounded mode" in proc.stderr, proc.stderr


def test_kafka_json_keys_match_columns_ignoring_case(kafka_broker, wh, tmp_path):
    """SQL folds the unquoted `dateTime` to lower case; the JSON key keeps
    its case and must still fill the column (and drive the watermark)."""
    topic = "run-case"
    kafka_broker.create_topic(topic, 1)
    recs = [{"value": json.dumps({"Auction": i, "dateTime": f"2024-01-01 00:00:{i:02d}.000"}),
             "partition": 0} for i in range(20)]
    kafka_broker.floe("produce", "--topic", topic, "--records",
                      input="".join(json.dumps(r) + "\n" for r in recs))
    sql(wh, "CREATE TABLE db.cased (auction bigint, dt timestamp(6))")
    job = write_job(tmp_path, "cased.sql", f"""
CREATE TABLE b (auction BIGINT, dateTime TIMESTAMP(3), WATERMARK FOR dateTime AS dateTime)
WITH ('connector' = 'kafka', 'topic' = '{topic}', 'format' = 'json',
      'properties.bootstrap.servers' = '{kafka_broker.brokers}', 'scan.startup.mode' = 'earliest-offset');
INSERT INTO db.cased SELECT auction, dateTime FROM b;
""")
    run_job(wh, job, "--once")
    got = sorted((r["auction"], r["dt"]) for r in rows_of(wh, "db.cased"))
    assert got == [(i, datetime.datetime(2024, 1, 1, 0, 0, i)) for i in range(20)]


def test_kafka_statement_set_shares_the_source(kafka_broker, wh, tmp_path):
    """Two INSERTs over one source: filter and projection into two tables,
    both committed in one catalog transaction per checkpoint."""
    topic, parts, n = "run-set", 2, 600
    kafka_broker.create_topic(topic, parts)
    produce_orders(kafka_broker, topic, 0, n, parts)
    sql(wh, "CREATE TABLE db.big (id bigint, who varchar, twice decimal(12,2))")
    sql(wh, "CREATE TABLE db.small (id bigint, off bigint)")
    job = write_job(tmp_path, "set.sql", KAFKA_TABLE.format(
        topic=topic, brokers=kafka_broker.brokers, group="g-set") + """
EXECUTE STATEMENT SET
BEGIN
  INSERT INTO db.big SELECT id, upper(customer), amount * 2 FROM orders WHERE big;
  INSERT INTO db.small SELECT id, off FROM orders WHERE NOT big;
END;
""")
    run_job(wh, job, "--once")
    exp = expected_orders(n, parts)
    assert sorted((r["id"], r["who"], r["twice"]) for r in rows_of(wh, "db.big")) == sorted(
        (i, c.upper(), a * 2) for i, c, a, p, o in exp if a > 50)
    assert sorted((r["id"], r["off"]) for r in rows_of(wh, "db.small")) == sorted(
        (i, o) for i, c, a, p, o in exp if not a > 50)
    a = [s["floe.checkpoint-id"] for s in job_snapshots(wh, "db.big", "set")]
    b = [s["floe.checkpoint-id"] for s in job_snapshots(wh, "db.small", "set")]
    assert a and a == b


def test_once_equals_streaming_run_and_sigterm_commits(kafka_broker, wh, tmp_path):
    topic, parts, n = "run-eq", 3, 1500
    kafka_broker.create_topic(topic, parts)
    produce_orders(kafka_broker, topic, 0, n, parts)
    cols = "(id bigint, customer varchar, amount decimal(10,2), part integer, off bigint)"
    for t in ("once", "streamed", "stopped"):
        sql(wh, f"CREATE TABLE db.{t} {cols}")
    body = KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group="g-eq")
    q = "SELECT id, customer, amount, part, off FROM orders WHERE id % 5 <> 1"
    once = write_job(tmp_path, "once.sql", body + f"INSERT INTO db.once {q};\n")
    run_job(wh, once, "--once")
    want = sum(1 for i in range(n) if i % 5 != 1)
    assert len(rows_of(wh, "db.once")) == want
    key = lambda r: (r["id"], r["customer"], r["amount"], r["part"], r["off"])

    # A streaming run over the same input commits the same table.
    streamed = write_job(tmp_path, "streamed.sql",
                         "SET 'execution.checkpointing.interval' = '300 ms';\n" + body +
                         f"INSERT INTO db.streamed {q};\n")
    p = start_job(wh, streamed)
    deadline = time.time() + 30
    while len(rows_of(wh, "db.streamed")) < want and time.time() < deadline:
        time.sleep(0.2)
    assert p.poll() is None, "a streaming job runs until it is stopped"
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert sorted(map(key, rows_of(wh, "db.streamed"))) == sorted(map(key, rows_of(wh, "db.once")))
    assert [e["msg"] for e in log_events(err)][-2:] == ["checkpoint", "commit"]

    # SIGTERM before any periodic checkpoint: the final one commits what was read.
    stopped = write_job(tmp_path, "stopped.sql",
                        "SET 'execution.checkpointing.interval' = '1 min';\n" + body +
                        f"INSERT INTO db.stopped {q};\n")
    p = start_job(wh, stopped)
    time.sleep(2.0)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    commits = [e for e in log_events(err) if e["msg"] == "commit"]
    assert len(commits) == 1
    offs = json.loads(job_snapshots(wh, "db.stopped", "stopped")[-1]["floe.offsets"])
    ends = {int(k): v for k, v in offs["orders"]["offsets"].items()}
    assert sum(ends.values()) > 0
    expect = [r for r in expected_orders(n, parts) if r[0] % 5 != 1 and r[4] < ends[r[3]]]
    got = sorted((r["id"], r["customer"], r["amount"], r["part"], r["off"])
                 for r in rows_of(wh, "db.stopped"))
    assert got == sorted(expect)


def test_kafka_kill_9_while_producing(kafka_broker, wh, tmp_path):
    """The job is killed while messages keep arriving; after restarts and a
    final --once run the table holds each message exactly once."""
    topic, parts = "run-kill", 3
    kafka_broker.create_topic(topic, parts)
    sql(wh, "CREATE TABLE db.killed (id bigint, part integer, off bigint)")
    job = write_job(tmp_path, "killed.sql",
                    "SET 'execution.checkpointing.interval' = '100 ms';\n" +
                    KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group="g-kill") +
                    "INSERT INTO db.killed SELECT id, part, off FROM orders;\n")
    rng = random.Random(11)
    total = 0
    for _ in range(3):
        p = start_job(wh, job)
        produce_orders(kafka_broker, topic, total, 1000, parts)
        total += 1000
        time.sleep(rng.uniform(0.1, 0.6))
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=30)
    run_job(wh, job, "--once")
    got = sorted((r["id"], r["part"], r["off"]) for r in rows_of(wh, "db.killed"))
    assert got == sorted((i, p, o) for i, c, a, p, o in expected_orders(total, parts))
    check_summaries(wh, "db.killed", "killed")


def test_bad_records_fail_skip_and_dead_letter(kafka_broker, wh, tmp_path):
    topic, n = "run-bad", 300
    kafka_broker.create_topic(topic, 1)
    recs, bad = [], {}
    for i in range(n):
        if i % 50 == 7:
            v = "not json {" if i % 100 == 7 else json.dumps({"id": "abc", "customer": 1})
            bad[i] = v
        else:
            v = json.dumps(order(i))
        recs.append({"value": v, "partition": 0, "timestamp": BASE_MS + i})
    kafka_broker.floe("produce", "--topic", topic, "--records",
                      input="".join(json.dumps(r) + "\n" for r in recs))
    cols = "(id bigint, off bigint)"
    body = KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group="g-bad")
    good = sorted((i, i) for i in range(n) if i not in bad)  # one partition: offset == i

    sql(wh, f"CREATE TABLE db.bad_fail {cols}")
    job = write_job(tmp_path, "bad_fail.sql", body + "INSERT INTO db.bad_fail SELECT id, off FROM orders;")
    proc = run_job(wh, job, "--once", check=False)
    assert proc.returncode == 1
    assert f"{topic}[0] offset 7" in proc.stderr
    assert rows_of(wh, "db.bad_fail") == []

    sql(wh, f"CREATE TABLE db.bad_skip {cols}")
    job = write_job(tmp_path, "bad_skip.sql", "SET 'floe.bad-records' = 'skip';\n" + body +
                    "INSERT INTO db.bad_skip SELECT id, off FROM orders;")
    run_job(wh, job, "--once")
    assert sorted((r["id"], r["off"]) for r in rows_of(wh, "db.bad_skip")) == good

    # Flink's own option means the same.
    sql(wh, f"CREATE TABLE db.bad_ignore {cols}")
    job = write_job(tmp_path, "bad_ignore.sql", body.replace(
        "'format' = 'json'", "'format' = 'json', 'json.ignore-parse-errors' = 'true'") +
        "INSERT INTO db.bad_ignore SELECT id, off FROM orders;")
    run_job(wh, job, "--once")
    assert sorted((r["id"], r["off"]) for r in rows_of(wh, "db.bad_ignore")) == good

    sql(wh, f"CREATE TABLE db.bad_dl {cols}")
    job = write_job(tmp_path, "bad_dl.sql", "SET 'floe.bad-records' = 'dead-letter';\n"
                    "SET 'floe.dead-letter.table' = 'db.dead';\n" + body +
                    "INSERT INTO db.bad_dl SELECT id, off FROM orders;")
    run_job(wh, job, "--once")
    assert sorted((r["id"], r["off"]) for r in rows_of(wh, "db.bad_dl")) == good
    dead = sorted(rows_of(wh, "db.dead"), key=lambda r: r["offset"])
    assert [(r["source"], r["topic"], r["partition"], r["offset"], r["payload"].decode())
            for r in dead] == [("orders", topic, 0, i, v) for i, v in sorted(bad.items())]
    assert all(f"offset {r['offset']}" in r["error"] for r in dead)
    # The dead letters are committed with the rows, in the same transaction.
    a = [s["floe.checkpoint-id"] for s in job_snapshots(wh, "db.bad_dl", "bad_dl")]
    b = [s["floe.checkpoint-id"] for s in job_snapshots(wh, "db.dead", "bad_dl")]
    assert a == b and a


def test_kafka_raw_format(kafka_broker, wh, tmp_path):
    topic = "run-raw"
    kafka_broker.create_topic(topic, 1)
    values = ["plain text", "{\"not\": \"parsed\"}", None, "ünïcode", ""]
    kafka_broker.floe("produce", "--topic", topic, "--records", input="".join(
        json.dumps({"value": v, "partition": 0}) + "\n" for v in values))
    sql(wh, "CREATE TABLE db.lines (line varchar, off bigint, n bigint)")
    job = write_job(tmp_path, "raw.sql", f"""
CREATE TABLE lines (line STRING, off BIGINT METADATA FROM 'offset') WITH (
  'connector' = 'kafka', 'topic' = '{topic}', 'format' = 'raw',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}');
INSERT INTO db.lines SELECT line, off, length(line) FROM lines;
""")
    run_job(wh, job, "--once")
    got = sorted((r["off"], r["line"], r["n"]) for r in rows_of(wh, "db.lines"))
    assert got == [(i, v, None if v is None else len(v)) for i, v in enumerate(values)]
    bad = write_job(tmp_path, "raw_bad.sql", job.read_text().replace(
        "(line STRING,", "(line STRING, other INT,"))
    proc = run_job(wh, bad, "--once", check=False)
    assert proc.returncode == 1 and "format 'raw' needs exactly one physical column" in proc.stderr
    fmt = write_job(tmp_path, "fmt.sql", job.read_text().replace("'raw'", "'avro'"))
    proc = run_job(wh, fmt, "--once", check=False)
    assert proc.returncode == 1 and "reads format 'json', 'csv' or 'raw'" in proc.stderr


CSV_TABLE = """
SET 'floe.max-record-bytes' = '2kb';
CREATE TABLE items (
  id BIGINT NOT NULL,
  name STRING,
  tags ARRAY<STRING>,
  price DECIMAL(10, 2),
  ts TIMESTAMP(3),
  off BIGINT METADATA FROM 'offset'
) WITH (
  'connector' = 'kafka', 'topic' = '{topic}',
  'properties.bootstrap.servers' = '{brokers}',
  '{p}format' = 'csv',
  '{p}csv.field-delimiter' = '|',
  '{p}csv.quote-character' = '''',
  '{p}csv.escape-character' = '\\',
  '{p}csv.null-literal' = 'n/a',
  '{p}csv.allow-comments' = 'true',
  '{p}csv.array-element-delimiter' = ','{extra}
);
"""


def test_kafka_csv_format_with_flink_options_and_bad_records(kafka_broker, wh, tmp_path):
    topic = "run-csv"
    kafka_broker.create_topic(topic, 1)
    ts = "2024-01-02 03:04:05.678"
    good = {  # offset -> (value, the row it must give)
        0: (f"1|'a|b'|x,y|1.50|{ts}", (1, "a|b", ["x", "y"], decimal.Decimal("1.50"))),
        2: (f"2|c\\|d|n/a|n/a|{ts}\r\n", (2, "c|d", None, None)),
        4: (f"3|'it''s'||7|{ts}", (3, "it's", None, decimal.Decimal("7.00"))),
        8: (f"4|{'z' * 1900}|q|0.5|{ts}", (4, "z" * 1900, ["q"], decimal.Decimal("0.50"))),
    }
    bad = {  # offset -> (value, a part of the error)
        1: (f"x1|a|b|1|{ts}", "field 'id'"),
        3: (f"|a|b|1|{ts}", "null value for a NOT NULL column"),
        5: ("5|a|b", "expected 5 fields, found 3"),
        7: (f"6|{'z' * 3000}|q|1|{ts}", "larger than the limit of 2048 bytes"),
    }
    values = {**{o: v for o, (v, _) in good.items()}, **{o: v for o, (v, _) in bad.items()},
              6: "# a comment line"}
    kafka_broker.floe("produce", "--topic", topic, "--records", input="".join(
        json.dumps({"value": values[o], "partition": 0}) + "\n" for o in sorted(values)))
    want = sorted((r[0], r[1], r[2], r[3], o) for o, (_, r) in good.items())
    brokers = kafka_broker.brokers

    def rows(ident):
        for r in rows_of(wh, ident):
            assert r["ts"] == datetime.datetime(2024, 1, 2, 3, 4, 5, 678000)
        return sorted((r["id"], r["name"], r["tags"], r["price"], r["off"])
                      for r in rows_of(wh, ident))

    cols = "(id bigint, name varchar, tags array(varchar), price decimal(10,2), ts timestamp(6), " \
           "off bigint)"
    insert = "INSERT INTO db.{t} SELECT id, name, tags, price, ts, off FROM items;"
    # fail: the first bad record stops the job, naming where it is.
    sql(wh, f"CREATE TABLE db.csv_fail {cols}")
    job = write_job(tmp_path, "csv_fail.sql", CSV_TABLE.format(
        topic=topic, brokers=brokers, p="", extra="") + insert.format(t="csv_fail"))
    proc = run_job(wh, job, "--once", check=False)
    assert proc.returncode == 1, proc.stderr
    assert f"{topic}[0] offset 1: " in proc.stderr and "field 'id'" in proc.stderr
    assert rows_of(wh, "db.csv_fail") == []

    # dead-letter: the good rows, and each bad record once with its error.
    sql(wh, f"CREATE TABLE db.csv_dl {cols}")
    job = write_job(tmp_path, "csv_dl.sql", "SET 'floe.bad-records' = 'dead-letter';\n"
                    "SET 'floe.dead-letter.table' = 'db.csv_dead';\n" + CSV_TABLE.format(
                        topic=topic, brokers=brokers, p="", extra="") + insert.format(t="csv_dl"))
    run_job(wh, job, "--once")
    assert rows("db.csv_dl") == want
    dead = sorted(rows_of(wh, "db.csv_dead"), key=lambda r: r["offset"])
    assert [r["offset"] for r in dead] == sorted(bad)
    for r in dead:
        v, why = bad[r["offset"]]
        assert why in r["error"] and f"{topic}[0] offset {r['offset']}" in r["error"], r["error"]
        # An oversize value is not copied into the dead-letter table.
        assert r["payload"] == (None if len(v) > 2048 else v.encode())
    assert "a value of 3" in dead[-1]["error"] and "bytes" in dead[-1]["error"]

    # Flink's 'csv.ignore-parse-errors', with the 'value.' spellings.
    sql(wh, f"CREATE TABLE db.csv_skip {cols}")
    job = write_job(tmp_path, "csv_skip.sql", CSV_TABLE.format(
        topic=topic, brokers=brokers, p="value.",
        extra=",\n  'value.csv.ignore-parse-errors' = 'true'") + insert.format(t="csv_skip"))
    run_job(wh, job, "--once")
    assert rows("db.csv_skip") == want

    bad_opt = write_job(tmp_path, "csv_opt.sql", CSV_TABLE.format(
        topic=topic, brokers=brokers, p="", extra=",\n  'csv.quote-character' = 'ab'") +
        insert.format(t="csv_skip"))
    proc = run_job(wh, bad_opt, "--once", check=False)
    assert proc.returncode == 1
    assert "option 'csv.quote-character': expected one character" in proc.stderr


def test_json_missing_and_null_required_fields(kafka_broker, wh, tmp_path):
    topic = "run-missing"
    kafka_broker.create_topic(topic, 1)
    values = ['{"id": 1, "name": "a", "note": "x"}', '{"id": 2, "name": "b"}',
              '{"name": "c", "note": "y"}', '{"id": 4, "name": null, "note": "z"}',
              '{"id": 5, "name": "e", "note": null}']
    kafka_broker.floe("produce", "--topic", topic, "--records", input="".join(
        json.dumps({"value": v, "partition": 0}) + "\n" for v in values))
    table = f"""
CREATE TABLE people (
  id BIGINT, name STRING NOT NULL, note STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'kafka', 'topic' = '{topic}', 'format' = 'json',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}'{{extra}}
);
"""
    sql(wh, "CREATE TABLE db.people (id bigint, name varchar, note varchar)")
    sql(wh, "CREATE TABLE db.people_strict (id bigint, name varchar, note varchar)")

    def got(ident):
        return sorted((r["id"], r["name"], r["note"]) for r in rows_of(wh, ident))

    # By default (Flink's json.fail-on-missing-field = false) a missing
    # member is null, but the PRIMARY KEY column and the NOT NULL one must
    # not end null: those records are bad.
    job = write_job(tmp_path, "people_fail.sql", table.format(extra="") +
                    "INSERT INTO db.people SELECT * FROM people;")
    proc = run_job(wh, job, "--once", check=False)
    assert proc.returncode == 1
    assert f"{topic}[0] offset 2: " in proc.stderr and "field 'id'" in proc.stderr, proc.stderr
    job = write_job(tmp_path, "people.sql", "SET 'floe.bad-records' = 'skip';\n" +
                    table.format(extra="") + "INSERT INTO db.people SELECT * FROM people;")
    run_job(wh, job, "--once")
    assert got("db.people") == [(1, "a", "x"), (2, "b", None), (5, "e", None)]
    # With it true, a missing member is an error too (a null one is not).
    job = write_job(tmp_path, "people_strict.sql", "SET 'floe.bad-records' = 'dead-letter';\n"
                    "SET 'floe.dead-letter.table' = 'db.people_dead';\n" +
                    table.format(extra=",\n  'json.fail-on-missing-field' = 'true'") +
                    "INSERT INTO db.people_strict SELECT * FROM people;")
    run_job(wh, job, "--once")
    assert got("db.people_strict") == [(1, "a", "x"), (5, "e", None)]
    dead = sorted(rows_of(wh, "db.people_dead"), key=lambda r: r["offset"])
    assert [(r["offset"], r["payload"].decode()) for r in dead] == \
        [(1, values[1]), (2, values[2]), (3, values[3])]
    assert "field 'note': field missing" in dead[0]["error"], dead[0]["error"]
    assert "field 'id': required field missing" in dead[1]["error"], dead[1]["error"]
    assert "field 'name'" in dead[2]["error"] and "null" in dead[2]["error"], dead[2]["error"]


def test_partitioned_target_and_two_inserts_into_one_table(wh, tmp_path):
    """The sink writes with the table's partition spec and write properties;
    two INSERTs into one table make one snapshot per checkpoint."""
    sql(wh, "CREATE TABLE db.parted (id bigint, label varchar, triple bigint) WITH ("
            "partitioning = ARRAY['bucket(label, 4)', 'truncate(id, 1000)'], "
            "'write.parquet.compression-codec' = 'snappy')")
    job = write_job(tmp_path, "parted.sql", DATAGEN_JOB.format(
        interval="300 ms", rate=20000, rows=4000, table="parted").replace(
        "INSERT INTO db.parted SELECT id, label, triple FROM gen WHERE id % 3 <> 0;",
        "EXECUTE STATEMENT SET BEGIN\n"
        "INSERT INTO db.parted SELECT id, label, triple FROM gen WHERE id % 3 = 1;\n"
        "INSERT INTO db.parted SELECT id, label, triple FROM gen WHERE id % 3 = 2;\n"
        "END;"))
    run_job(wh, job, "--once")
    assert table_tuples(wh, "db.parted") == datagen_expected(4000)
    t = catalog_for(wh).load_table("db.parted")
    tasks = list(t.scan().plan_files())
    parts = {(f.file.partition[0], f.file.partition[1]) for f in tasks}
    assert len(parts) > 4  # 4 buckets x 4 id ranges
    for f in tasks:
        assert "/data/label_bucket_4=" in f.file.file_path and "/id_trunc_1000=" in f.file.file_path
    import pyarrow.parquet as pq
    md = pq.ParquetFile(tasks[0].file.file_path.replace("file://", "")).metadata
    assert md.row_group(0).column(0).compression == "SNAPPY"
    chks = [s["floe.checkpoint-id"] for s in job_snapshots(wh, "db.parted", "parted")]
    assert chks and len(chks) == len(set(chks))  # one snapshot per checkpoint


def test_concurrent_writer_conflicts_are_retried(wh, tmp_path):
    """`floe sql` inserts into the job's table while the job commits every
    100 ms: lost races are retried on the new head, nothing is lost."""
    sql(wh, "CREATE TABLE db.shared (id bigint, label varchar, triple bigint)")
    job = write_job(tmp_path, "shared.sql",
                    DATAGEN_JOB.format(interval="100 ms", rate=5000, rows=10000, table="shared"))
    p = start_job(wh, job)
    for k in range(8):
        sql(wh, f"INSERT INTO db.shared VALUES ({-1 - k}, 'sql', 0)")
    _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    got = table_tuples(wh, "db.shared")
    assert [r for r in got if r[0] < 0] == sorted((-1 - k, "sql", 0) for k in range(8))
    assert [r for r in got if r[0] > 0] == datagen_expected(10000)
    check_summaries(wh, "db.shared", "shared")


def test_parallelism_spreads_partitions_over_threads(kafka_broker, wh, tmp_path):
    topic, parts = "run-par", 5
    kafka_broker.create_topic(topic, parts)
    produce_orders(kafka_broker, topic, 0, 2000, parts)
    sql(wh, "CREATE TABLE db.par (id bigint, part integer, off bigint)")
    sql(wh, "CREATE TABLE db.par_gen (id bigint, label varchar, triple bigint)")
    body = KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group="g-par")
    job = write_job(tmp_path, "par.sql",
                    "SET 'execution.checkpointing.interval' = '100 ms';\n" + body +
                    "INSERT INTO db.par SELECT id, part, off FROM orders WHERE id >= 0;\n")
    # A streaming run on 3 threads, killed, then finished with --once.
    p = start_job(wh, job, "--parallelism", 3)
    produce_orders(kafka_broker, topic, 2000, 2000, parts)
    time.sleep(0.8)
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=30)
    proc = run_job(wh, job, "--once", "--parallelism", 3)
    got = sorted((r["id"], r["part"], r["off"]) for r in rows_of(wh, "db.par"))
    assert got == sorted((i, p, o) for i, c, a, p, o in expected_orders(4000, parts))
    check_summaries(wh, "db.par", "par")
    offs = json.loads(job_snapshots(wh, "db.par", "par")[-1]["floe.offsets"])
    assert offs["orders"]["offsets"] == {str(q): len(range(q, 4000, parts)) for q in range(parts)}
    # A generator is read by one thread only: no row twice.
    gen = write_job(tmp_path, "par_gen.sql", DATAGEN_JOB.format(
        interval="200 ms", rate=20000, rows=3000, table="par_gen"))
    run_job(wh, gen, "--once", "--parallelism", 2)
    assert table_tuples(wh, "db.par_gen") == datagen_expected(3000)
    # Operators that hold rows of several partitions need one thread.
    agg = write_job(tmp_path, "par_agg.sql", body +
                    "INSERT INTO db.par SELECT max(id), 0, count(*) FROM orders;\n")
    proc = run_job(wh, agg, "--once", "--parallelism", 2, check=False)
    assert proc.returncode == 1 and "--parallelism above 1" in proc.stderr


# ---- the nexmark connector ----

NEXMARK_BID = """
SET 'execution.checkpointing.interval' = '200 ms';
CREATE TEMPORARY TABLE bid (
  `dateTime` TIMESTAMP(3),
  auction BIGINT,
  bidder BIGINT,
  price BIGINT,
  Channel STRING,
  url STRING,
  extra STRING
) WITH (
  'connector' = 'nexmark',
  'nexmark.table' = 'bid',
  'nexmark.events.num' = '{events}',
  'seed' = '7'{extra}
);
INSERT INTO db.{table} SELECT auction, bidder, price, channel, url, `dateTime`, extra FROM bid;
"""

BID_COLS = "(auction bigint, bidder bigint, price bigint, channel varchar, url varchar, " \
           "datetime timestamp(6), extra varchar)"


def bid_rows(wh, ident):
    return sorted(tuple(r.values()) for r in rows_of(wh, ident))


def nexmark_bids_via_kafka(kafka_broker, wh, tmp_path, events, rate=10000):
    """The bids `floe kafka produce-nexmark` writes for the same seed, read
    back from Kafka by a JSON job: what the nexmark connector must give."""
    topic = f"run-nexmark-bids-{events}"
    kafka_broker.create_topic(topic, 1)
    kafka_broker.floe("produce-nexmark", "--bids", topic, "--events", events, "--seed", 7,
                      "--rate", rate)
    sql(wh, f"CREATE TABLE db.nx_kafka_{events} {BID_COLS}")
    job = write_job(tmp_path, f"nx_kafka_{events}.sql", f"""
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  `dateTime` TIMESTAMP(3), extra STRING) WITH (
  'connector' = 'kafka', 'topic' = '{topic}', 'format' = 'json',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}');
INSERT INTO db.nx_kafka_{events} SELECT * FROM bid;
""")
    run_job(wh, job, "--once")
    return bid_rows(wh, f"db.nx_kafka_{events}")


def test_nexmark_connector_gives_the_generator_rows(kafka_broker, wh, tmp_path):
    events = 5000
    want = nexmark_bids_via_kafka(kafka_broker, wh, tmp_path, events)
    assert len(want) == events // 50 * 46  # 46 of every 50 events are bids
    sql(wh, f"CREATE TABLE db.nx_bids {BID_COLS}")
    job = write_job(tmp_path, "nx_bids.sql",
                    NEXMARK_BID.format(events=events, extra="", table="nx_bids"))
    run_job(wh, job, "--once")
    assert bid_rows(wh, "db.nx_bids") == want
    # Bounded by its options, the job ends by itself without --once.
    sql(wh, f"CREATE TABLE db.nx_bids2 {BID_COLS}")
    job = write_job(tmp_path, "nx_bids2.sql",
                    NEXMARK_BID.format(events=events, extra="", table="nx_bids2"))
    run_job(wh, job, timeout=60)
    assert bid_rows(wh, "db.nx_bids2") == want

    # number-of-rows counts the table's rows; people get ids from 1000 on.
    sql(wh, "CREATE TABLE db.nx_people (id bigint, name varchar, t timestamp(6) with time zone)")
    job = write_job(tmp_path, "nx_people.sql", """
CREATE TABLE person (name STRING, id BIGINT, `dateTime` TIMESTAMP_LTZ(3)) WITH (
  'connector' = 'nexmark', 'nexmark.table' = 'person', 'number-of-rows' = '30');
INSERT INTO db.nx_people SELECT id, name, `dateTime` FROM person;
""")
    run_job(wh, job, "--once")
    people = sorted(rows_of(wh, "db.nx_people"), key=lambda r: r["id"])
    assert [r["id"] for r in people] == list(range(1000, 1030))
    # Event 50 k is person 1000 + k, 50 k * 100 us after 2024-01-01 (10000 events/s).
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    assert [r["t"] for r in people] == [base + datetime.timedelta(microseconds=5000 * k)
                                        for k in range(30)]

    for text, msg in [
        ("'nexmark.table' = 'bids'", "option 'nexmark.table': 'bids' is not a valid value"),
        ("'nexmark.table' = 'bid', 'nexmark.speed' = '1'", "unknown option of the nexmark"),
    ]:
        bad = write_job(tmp_path, "nx_bad.sql", f"""
CREATE TABLE bid (price BIGINT) WITH ('connector' = 'nexmark', {text});
INSERT INTO db.nx_bids SELECT price, price, price, '', '', NULL, '' FROM bid;
""")
        proc = run_job(wh, bad, "--once", check=False)
        assert proc.returncode == 1 and msg in proc.stderr, proc.stderr
    for cols, msg in [("price STRING", "column price: nexmark's price is BIGINT"),
                      ("cost BIGINT", "column cost is not a column of nexmark's bid records")]:
        bad = write_job(tmp_path, "nx_bad.sql", f"""
CREATE TABLE bid ({cols}) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid');
INSERT INTO db.nx_people SELECT 1, 'x', NULL FROM bid;
""")
        proc = run_job(wh, bad, "--once", check=False)
        assert proc.returncode == 1 and msg in proc.stderr, proc.stderr
        assert "line 2, column" in proc.stderr
    unbounded = write_job(tmp_path, "nx_unb.sql", NEXMARK_BID.format(
        events=1, extra="", table="nx_bids").replace("'nexmark.events.num' = '1',", ""))
    proc = run_job(wh, unbounded, "--once", check=False)
    assert proc.returncode == 1 and "an unbounded nexmark source cannot run with --once" \
        in proc.stderr


def test_nexmark_connector_restarts_exactly_once(kafka_broker, wh, tmp_path):
    events = 6000
    want = nexmark_bids_via_kafka(kafka_broker, wh, tmp_path, events, rate=2000)
    sql(wh, f"CREATE TABLE db.nx_restart {BID_COLS}")
    # Rate-limited (Flink's option: bids at their share of 2000 events/s),
    # so that the job is killed in the middle of the sequence.
    job = write_job(tmp_path, "nx_restart.sql", NEXMARK_BID.format(
        events=events, table="nx_restart",
        extra=",\n  'nexmark.first-event.rate' = '2000', 'nexmark.rate.limited' = 'true'"))
    proc = run_job(wh, job, env={"FLOE_FAULT_POINT": "after-checkpoint-before-commit@3"},
                   check=False)
    assert proc.returncode == 86, proc.stderr
    p = start_job(wh, job)
    time.sleep(1.0)
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=30)
    mid = len(rows_of(wh, "db.nx_restart"))
    assert 0 < mid < len(want), mid
    run_job(wh, job, "--once", timeout=120)
    assert bid_rows(wh, "db.nx_restart") == want
    check_summaries(wh, "db.nx_restart", "nx_restart")
    assert len(job_snapshots(wh, "db.nx_restart", "nx_restart")) >= 3


# ---- blocking operators over unbounded sources ----

def test_blocking_operators_over_unbounded_sources_are_refused(kafka_broker, wh, tmp_path):
    topic, n = "run-blocking", 40
    kafka_broker.create_topic(topic, 2)
    produce_orders(kafka_broker, topic, 0, n, 2)
    sql(wh, "CREATE TABLE db.per_customer (customer varchar, n bigint, total decimal(38,2))")
    table = KAFKA_TABLE.format(topic=topic, brokers=kafka_broker.brokers, group="g-blk")
    group_by = ("INSERT INTO db.per_customer\n"
                "SELECT customer, count(*), sum(amount) FROM orders GROUP BY customer;")
    job = write_job(tmp_path, "blk.sql", table + group_by)
    line = table.count("\n") + 1  # the INSERT's line in the file
    t0 = time.monotonic()
    proc = run_job(wh, job, check=False, timeout=30)
    assert proc.returncode == 1, proc.stderr
    assert time.monotonic() - t0 < 10  # refused at start, not after waiting
    assert (f"line {line}, column 1: INSERT INTO db.per_customer: a GROUP BY or DISTINCT "
            f"without a window over the unbounded table orders") in proc.stderr, proc.stderr
    assert "window TVF" in proc.stderr and "--once" in proc.stderr
    assert "'scan.bounded.mode'" in proc.stderr
    assert rows_of(wh, "db.per_customer") == []

    want = collections.Counter(order(i)["customer"] for i in range(n))

    def counts():
        return {r["customer"]: r["n"] for r in rows_of(wh, "db.per_customer")}

    # --once bounds the source: the same job runs and emits at the end.
    run_job(wh, job, "--once")
    assert counts() == dict(want)
    # So does Flink's scan.bounded.mode, without --once.
    sql(wh, "DELETE FROM db.per_customer")
    bounded = write_job(tmp_path, "blk_bounded.sql", table.replace(
        "'format' = 'json'", "'format' = 'json', 'scan.bounded.mode' = 'latest-offset'") +
        group_by)
    run_job(wh, bounded, timeout=60)
    assert counts() == dict(want)

    # Other blocking operators, each named.
    sql(wh, "CREATE TABLE db.sorted (id bigint, customer varchar)")
    for query, what in [
        ("SELECT id, customer FROM orders ORDER BY id", "an ORDER BY"),
        ("SELECT DISTINCT id, customer FROM orders", "a GROUP BY or DISTINCT without a window"),
        ("SELECT id, customer FROM (SELECT id, customer, row_number() OVER (PARTITION BY "
         "customer ORDER BY id) AS rn FROM orders) WHERE rn = 1", "a window function (OVER)"),
        ("SELECT o.id, p.customer FROM orders o JOIN orders2 p ON o.id = p.id", "a join"),
    ]:
        text = table + table.replace("CREATE TABLE orders", "CREATE TABLE orders2") + \
            f"INSERT INTO db.sorted {query};"
        proc = run_job(wh, write_job(tmp_path, "blk2.sql", text), check=False, timeout=30)
        assert proc.returncode == 1, (query, proc.stderr)
        assert f"INSERT INTO db.sorted: {what}" in proc.stderr, (query, proc.stderr)
    # A bounded datagen table may feed a GROUP BY without --once (window
    # aggregations over unbounded tables run in test_exactly_once.py).
    sql(wh, "CREATE TABLE db.gen_groups (k bigint, n bigint)")
    gen = write_job(tmp_path, "blk_gen.sql", """
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '100',
  'rows-per-second' = '0', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
  'fields.id.end' = '100');
INSERT INTO db.gen_groups SELECT id % 3, count(*) FROM gen GROUP BY id % 3;
""")
    run_job(wh, gen, timeout=60)
    assert sorted((r["k"], r["n"]) for r in rows_of(wh, "db.gen_groups")) == \
        [(0, 33), (1, 34), (2, 33)]


def test_kafka_key_format_and_key_fields(kafka_broker, wh, tmp_path):
    topic = "run-keys"
    kafka_broker.create_topic(topic, 1)
    msgs = [('{"id": 1}', "a,10"), (None, "b,20"), ("not json", "c,30"), ('{"id": 4}', "d,x"),
            ('{"id": 5, "other": true}', "e,50")]
    kafka_broker.floe("produce", "--topic", topic, "--records", input="".join(
        json.dumps({"key": k, "value": v, "partition": 0}) + "\n" for k, v in msgs))
    sql(wh, "CREATE TABLE db.keyed (k_id bigint, name varchar, amount integer, off bigint)")
    job = write_job(tmp_path, "keyed.sql", f"""
SET 'floe.bad-records' = 'dead-letter';
SET 'floe.dead-letter.table' = 'db.keyed_dead';
CREATE TABLE t (
  k_id BIGINT, name STRING, amount INT, off BIGINT METADATA FROM 'offset'
) WITH (
  'connector' = 'kafka', 'topic' = '{topic}',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}',
  'key.format' = 'json', 'key.fields' = 'k_id', 'key.fields-prefix' = 'k_',
  'value.format' = 'csv', 'value.fields-include' = 'EXCEPT_KEY'
);
INSERT INTO db.keyed SELECT * FROM t;
""")
    run_job(wh, job, "--once")
    got = sorted((r["off"], r["k_id"], r["name"], r["amount"]) for r in rows_of(wh, "db.keyed"))
    assert got == [(0, 1, "a", 10), (1, None, "b", 20), (4, 5, "e", 50)]
    dead = sorted((r["offset"], r["error"]) for r in rows_of(wh, "db.keyed_dead"))
    assert [o for o, _ in dead] == [2, 3]
    assert "key: " in dead[0][1] and "field 'amount'" in dead[1][1], dead

    # Flink's default 'value.fields-include' = 'ALL': the value holds every
    # column (and wins over the key), so the key is not read.
    sql(wh, "CREATE TABLE db.keyed_all (id bigint, v varchar)")
    topic2 = "run-keys-all"
    kafka_broker.create_topic(topic2, 1)
    kafka_broker.floe("produce", "--topic", topic2, "--records", input=json.dumps(
        {"key": "garbage", "value": json.dumps({"id": 7, "v": "x"}), "partition": 0}) + "\n")
    job = write_job(tmp_path, "keyed_all.sql", f"""
CREATE TABLE t (id BIGINT, v STRING) WITH (
  'connector' = 'kafka', 'topic' = '{topic2}',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}',
  'key.format' = 'json', 'key.fields' = 'id', 'value.format' = 'json');
INSERT INTO db.keyed_all SELECT * FROM t;
""")
    run_job(wh, job, "--once")
    assert [(r["id"], r["v"]) for r in rows_of(wh, "db.keyed_all")] == [(7, "x")]
    # A raw key into one STRING column.
    sql(wh, "CREATE TABLE db.keyed_raw (k varchar, v varchar)")
    job = write_job(tmp_path, "keyed_raw.sql", f"""
CREATE TABLE t (k STRING, v STRING) WITH (
  'connector' = 'kafka', 'topic' = '{topic2}',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}',
  'key.format' = 'raw', 'key.fields' = 'k', 'value.format' = 'json',
  'value.fields-include' = 'EXCEPT_KEY');
INSERT INTO db.keyed_raw SELECT * FROM t;
""")
    run_job(wh, job, "--once")
    assert [(r["k"], r["v"]) for r in rows_of(wh, "db.keyed_raw")] == [("garbage", "x")]
    for opts, msg in [("'key.format' = 'json', 'key.fields' = 'k', 'format' = 'json'",
                       "with 'key.format' the value"),
                      ("'key.format' = 'json', 'key.fields' = 'nope', 'value.format' = 'json'",
                       "'nope' is not a physical column"),
                      ("'key.fields' = 'k', 'value.format' = 'json'", "go together")]:
        bad = write_job(tmp_path, "keyed_bad.sql", f"""
CREATE TABLE t (k STRING, v STRING) WITH (
  'connector' = 'kafka', 'topic' = '{topic2}',
  'properties.bootstrap.servers' = '{kafka_broker.brokers}', {opts});
INSERT INTO db.keyed_raw SELECT * FROM t;
""")
        proc = run_job(wh, bad, "--once", check=False)
        assert proc.returncode == 1 and msg in proc.stderr, (opts, proc.stderr)
