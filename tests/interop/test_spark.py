"""floe's Iceberg tables against Apache Spark with the Iceberg runtime.

Spark (pyspark, local[1]) opens floe's own SQLite catalog through Iceberg's
JdbcCatalog, under the same catalog name `floe`, so both sides commit to the
very same rows of `iceberg_tables`. Unlike PyIceberg, Spark applies
equality deletes, so this is the peer check of `floe table upsert`.

Every test compares exact rows (sorted) in floe's JSON text form: Spark's
values are rendered the way `floe table scan --format jsonl` prints them
(timestamps with microseconds, decimals as strings, binary as hex).

The Spark runtime jars come from Maven Central into ~/.m2 (mvn
dependency:get) the first time; pyspark is pinned in tests/requirements.txt.
When either is missing the tests fail: they never skip.
"""
import datetime as dt
import decimal
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from conftest import run_floe

ICEBERG_SPARK = "1.12.0"
SQLITE_JDBC = "3.54.1.0"
M2 = pathlib.Path.home() / ".m2" / "repository"
JARS = [
    ("org.apache.iceberg", "iceberg-spark-runtime-3.5_2.12", ICEBERG_SPARK),
    ("org.xerial", "sqlite-jdbc", SQLITE_JDBC),
]
UTC = dt.timezone.utc


def jar_path(group, artifact, version):
    return M2 / group.replace(".", "/") / artifact / version / f"{artifact}-{version}.jar"


def fetch_jars():
    if not shutil.which("mvn") or not shutil.which("java"):
        pytest.fail("Spark interop needs java and mvn (scripts/install-deps.sh)")
    paths = []
    for g, a, v in JARS:
        p = jar_path(g, a, v)
        if not p.exists():
            got = subprocess.run(["mvn", "-q", "dependency:get", f"-Dartifact={g}:{a}:{v}",
                                  "-Dtransitive=false"],
                                 capture_output=True, text=True, timeout=600)
            if got.returncode != 0 or not p.exists():
                pytest.fail(f"{g}:{a}:{v} not available from Maven: {got.stdout[-800:]}")
        paths.append(str(p))
    return paths


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    """One warehouse for the module (the Spark catalog is fixed per session);
    each test works in its own namespace."""
    w = tmp_path_factory.mktemp("spark") / "wh"
    w.mkdir()
    # floe creates the catalog database; Spark then finds its tables.
    floe_at(w, "ns", "create", "setup")
    return w


@pytest.fixture(scope="module")
def spark(wh):
    jars = fetch_jars()
    # Loopback only: without this Spark binds the host's first interface.
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    s = (SparkSession.builder.master("local[1]").appName("floe-interop")
         .config("spark.jars", ",".join(jars))
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "1")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
         .config("spark.sql.extensions",
                 "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.floe.type", "jdbc")
         .config("spark.sql.catalog.floe.uri", f"jdbc:sqlite:{wh}/catalog.db")
         .config("spark.sql.catalog.floe.jdbc.schema-version", "V1")
         .config("spark.sql.catalog.floe.warehouse", f"file://{wh}")
         # floe commits between Spark's queries: always load the current metadata.
         .config("spark.sql.catalog.floe.cache-enabled", "false")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


# ---- floe side ----

def floe_at(wh, *args, check=True):
    return run_floe("--warehouse", wh, *args, check=check)


def write_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return path


def floe_rows(wh, table, *extra):
    p = floe_at(wh, "table", "scan", table, "--format", "jsonl", *extra)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def floe_listing(wh, what, table):
    p = floe_at(wh, "table", what, table, "--format", "jsonl")
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def floe_metadata(wh, table):
    """The table's current metadata JSON, as the catalog row points to it."""
    ns, name = table.rsplit(".", 1)
    con = sqlite3.connect(wh / "catalog.db")
    try:
        (loc,) = con.execute("SELECT metadata_location FROM iceberg_tables WHERE "
                             "catalog_name = 'floe' AND table_namespace = ? AND table_name = ?",
                             (ns, name)).fetchone()
    finally:
        con.close()
    return json.loads(pathlib.Path(loc.removeprefix("file://")).read_text())


# ---- Spark side, rendered in floe's JSON text form ----

def render(v, t):
    if v is None:
        return None
    if isinstance(t, T.TimestampType):
        # pyspark hands out naive local time; astimezone reads it as local.
        return v.astimezone(UTC).isoformat(timespec="microseconds")
    if isinstance(t, T.TimestampNTZType):
        return v.isoformat(timespec="microseconds")
    if isinstance(t, T.DateType):
        return v.isoformat()
    if isinstance(t, T.DecimalType):
        return str(v)
    if isinstance(t, T.BinaryType):
        return bytes(v).hex()
    if isinstance(t, T.ArrayType):
        return [render(x, t.elementType) for x in v]
    if isinstance(t, T.MapType):
        return {render(k, t.keyType): render(x, t.valueType) for k, x in v.items()}
    if isinstance(t, T.StructType):
        return {f.name: render(v[f.name], f.dataType) for f in t.fields}
    return v


def spark_rows(spark, sql):
    df = spark.sql(sql)
    return [render(r, df.schema) for r in df.collect()]


def key(r):
    return json.dumps(r, sort_keys=True)


def same_rows(a, b):
    """Exact multiset equality, with a readable difference on failure."""
    sa, sb = sorted(a, key=key), sorted(b, key=key)
    if sa != sb:
        ka, kb = {key(r) for r in a}, {key(r) for r in b}
        only_a = sorted(ka - kb)[:5]
        only_b = sorted(kb - ka)[:5]
        raise AssertionError(f"rows differ: {len(a)} vs {len(b)}\n"
                             f"only left: {only_a}\nonly right: {only_b}")


def java_table(spark, name):
    return spark._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
        spark._jsparkSession, name)


def java_schema(spark, name):
    t = java_table(spark, name)
    return json.loads(spark._jvm.org.apache.iceberg.SchemaParser.toJson(t.schema()))


def java_spec(spark, name):
    t = java_table(spark, name)
    return json.loads(spark._jvm.org.apache.iceberg.PartitionSpecParser.toJson(t.spec()))


def spark_columns(spark, name):
    return [(f.name, f.dataType.simpleString(), f.nullable)
            for f in spark.table(name).schema.fields]


def spark_partitioning(spark, name):
    rows = spark.sql(f"DESCRIBE {name}").collect()
    names = [r.col_name for r in rows]
    start = names.index("# Partitioning") + 1
    return [r.data_type for r in rows[start:] if r.col_name.startswith("Part ")]


def spark_snapshots(spark, name):
    rows = spark.sql(f"SELECT committed_at, snapshot_id, parent_id, operation, summary "
                     f"FROM {name}.snapshots ORDER BY committed_at, snapshot_id").collect()
    return [{"committed_at": r.committed_at.astimezone(UTC).isoformat(timespec="milliseconds"),
             "snapshot_id": r.snapshot_id, "parent_id": r.parent_id,
             "operation": r.operation, "summary": dict(r.summary)} for r in rows]


def floe_snapshots(wh, table):
    out = []
    for s in floe_listing(wh, "snapshots", table):
        ts = dt.datetime.fromisoformat(s["committed_at"]).astimezone(UTC)
        out.append({"committed_at": ts.isoformat(timespec="milliseconds"),
                    "snapshot_id": s["snapshot_id"], "parent_id": s["parent_id"],
                    "operation": s["operation"], "summary": s["summary"]})
    return sorted(out, key=lambda s: (s["committed_at"], s["snapshot_id"]))


CONTENT = {0: "data", 1: "position_deletes", 2: "equality_deletes"}


def spark_files(spark, name):
    rows = spark.sql(f"SELECT content, file_path, file_format, spec_id, record_count, "
                     f"file_size_in_bytes FROM {name}.files").collect()
    return sorted((CONTENT[r.content], r.file_path, r.file_format, r.spec_id, r.record_count,
                   r.file_size_in_bytes) for r in rows)


def floe_files(wh, table):
    return sorted((f["content"], f["file_path"], f["file_format"], f["spec_id"],
                   f["record_count"], f["file_size_in_bytes"])
                  for f in floe_listing(wh, "files", table))


def assert_same_metadata(spark, wh, table):
    """Spark's view of the table's history and files is floe's."""
    name = f"floe.{table}"
    assert spark_snapshots(spark, name) == floe_snapshots(wh, table)
    assert spark_files(spark, name) == floe_files(wh, table)


# ---- rows ----

BASE = dt.datetime(2026, 11, 28, tzinfo=UTC)


def wide_rows(lo, hi, day):
    out = []
    for i in range(lo, hi):
        ts = BASE + dt.timedelta(days=day, seconds=(i * 7919) % 86400, microseconds=i % 1000)
        out.append({
            "id": i,
            "ts": ts.isoformat(timespec="microseconds"),
            "lt": None if i % 11 == 0 else
                  (ts.replace(tzinfo=None) - dt.timedelta(hours=5)).isoformat(
                      timespec="microseconds"),
            "d": (BASE.date() + dt.timedelta(days=i % 400 - 200)).isoformat(),
            "n": None if i % 9 == 0 else (i * 31) % 1000 - 500,
            "name": None if i % 7 == 0 else f"user-{i % 13}",
            "cat": ["red", "green", "blue", None][i % 4],
            "amount": None if i % 5 == 0 else str(decimal.Decimal((i * 37) % 100000 - 30000)
                                                   .scaleb(-2)),
            "score": None if i % 6 == 0 else (i % 101) / 3.0,
            "flag": None if i % 10 == 0 else i % 2 == 0,
            "b": None if i % 8 == 0 else bytes([i % 256, (i * 3) % 256]).hex(),
            "tags": None if i % 12 == 0 else [f"t{i % 3}", f"t{i % 5}"][: 1 + i % 2],
            "pt": None if i % 13 == 0 else {"x": i / 4, "y": None if i % 2 else -i / 8},
            "m": None if i % 14 == 0 else {f"k{i % 3}": i, "z": None},
        })
    return out


WIDE_SCHEMA = ("id long not null, ts timestamptz not null, lt timestamp, d date, n int, "
               "name string, cat string, amount decimal(10,2), score double, flag boolean, "
               "b binary, tags list<string>, pt struct<x: double not null, y: double>, "
               "m map<string, long>")


def test_floe_partitioned_table_reads_identically_in_spark(spark, wh, tmp_path):
    floe_at(wh, "ns", "create", "t1")
    floe_at(wh, "table", "create", "t1.events", "--schema", WIDE_SCHEMA,
            "--partition", "day(ts), bucket(8, id), truncate(4, name), cat",
            "--property", "write.parquet.compression-codec=zstd")
    rows = []
    # Three commits; the first of two files.
    batches = [[(0, 300, 0), (300, 600, 1)], [(600, 800, 2)], [(800, 1000, 0)]]
    for k, commit in enumerate(batches):
        files = []
        for j, (lo, hi, day) in enumerate(commit):
            part = wide_rows(lo, hi, day)
            rows += part
            files.append(write_jsonl(tmp_path / f"c{k}_{j}.jsonl", part))
        floe_at(wh, "table", "append", "t1.events", *files)

    fl = floe_rows(wh, "t1.events")
    same_rows(fl, rows)
    same_rows(spark_rows(spark, "SELECT * FROM floe.t1.events"), fl)

    assert spark_columns(spark, "floe.t1.events") == [
        ("id", "bigint", False), ("ts", "timestamp", False), ("lt", "timestamp_ntz", True),
        ("d", "date", True), ("n", "int", True), ("name", "string", True),
        ("cat", "string", True), ("amount", "decimal(10,2)", True),
        ("score", "double", True), ("flag", "boolean", True), ("b", "binary", True),
        ("tags", "array<string>", True), ("pt", "struct<x:double,y:double>", True),
        ("m", "map<string,bigint>", True)]
    assert spark_partitioning(spark, "floe.t1.events") == [
        "days(ts)", "bucket(8, id)", "truncate(4, name)", "cat"]
    # Field ids, types and the spec as Java's Iceberg parsed them are floe's.
    md = floe_metadata(wh, "t1.events")
    schema = next(s for s in md["schemas"] if s["schema-id"] == md["current-schema-id"])
    assert java_schema(spark, "floe.t1.events") == schema
    spec = next(s for s in md["partition-specs"] if s["spec-id"] == md["default-spec-id"])
    assert java_spec(spark, "floe.t1.events") == spec
    assert [(f["name"], f["transform"], f["source-id"], f["field-id"]) for f in spec["fields"]] \
        == [("ts_day", "day", 2, 1000), ("id_bucket_8", "bucket[8]", 1, 1001),
            ("name_trunc_4", "truncate[4]", 6, 1002), ("cat", "identity", 7, 1003)]

    snaps = floe_snapshots(wh, "t1.events")
    assert [s["operation"] for s in snaps] == ["append"] * 3
    assert [s["parent_id"] for s in snaps] == [None] + [s["snapshot_id"] for s in snaps[:-1]]
    assert_same_metadata(spark, wh, "t1.events")
    props = {r.key: r.value for r in
             spark.sql("SHOW TBLPROPERTIES floe.t1.events").collect()}
    assert props["write.parquet.compression-codec"] == "zstd"

    # Spark prunes by floe's partition values and column bounds: a wrong
    # bound or partition value loses rows here.
    filters = [
        ("id = 417", lambda r: r["id"] == 417),
        ("id IN (3, 333, 999)", lambda r: r["id"] in (3, 333, 999)),
        ("name = 'user-3'", lambda r: r["name"] == "user-3"),
        ("name >= 'user-12'", lambda r: r["name"] is not None and r["name"] >= "user-12"),
        ("cat = 'blue'", lambda r: r["cat"] == "blue"),
        ("cat IS NULL", lambda r: r["cat"] is None),
        ("ts >= TIMESTAMP '2026-11-29 00:00:00' AND ts < TIMESTAMP '2026-11-30 00:00:00'",
         lambda r: "2026-11-29" <= r["ts"] < "2026-11-30"),
        ("d < DATE '2026-06-01'", lambda r: r["d"] < "2026-06-01"),
        ("n BETWEEN -20 AND 20", lambda r: r["n"] is not None and -20 <= r["n"] <= 20),
        ("amount > 50.00", lambda r: r["amount"] is not None and
         decimal.Decimal(r["amount"]) > 50),
        ("lt < TIMESTAMP_NTZ '2026-11-28 03:00:00'",
         lambda r: r["lt"] is not None and r["lt"] < "2026-11-28T03:00:00"),
    ]
    for sql, pred in filters:
        want = [r for r in fl if pred(r)]
        assert want, sql
        same_rows(spark_rows(spark, f"SELECT * FROM floe.t1.events WHERE {sql}"), want)

    # Time travel to each snapshot.
    total = 0
    for s, commit in zip(snaps, batches):
        total += sum(hi - lo for lo, hi, _ in commit)
        got = spark_rows(spark, f"SELECT * FROM floe.t1.events VERSION AS OF {s['snapshot_id']}")
        same_rows(got, floe_rows(wh, "t1.events", "--snapshot", str(s["snapshot_id"])))
        assert len(got) == total
