"""floe's Iceberg tables against Apache Spark with the Iceberg runtime.

Spark (pyspark, local[1]) opens floe's own SQLite catalog through Iceberg's
JdbcCatalog, under the same catalog name `floe`, so both sides commit to the
very same rows of `iceberg_tables`. Unlike PyIceberg, Spark applies
equality deletes, so this is the peer check of `floe table upsert`.

Every test compares exact rows (sorted) in floe's JSON text form: Spark's
values are rendered the way `floe table scan --format jsonl` prints them
(timestamps with microseconds, decimals as strings, binary as hex, NaN and
infinities as strings, floats as the shortest decimal of the 32-bit value).

The jars (Iceberg's Spark runtime, SQLite's and PostgreSQL's JDBC drivers)
come from Maven Central into ~/.m2 (mvn dependency:get) the first time;
pyspark is pinned in tests/requirements.txt. Spark 3.5's launcher adds the
--add-opens options Java 17 needs by itself. The last test opens a second
Spark session on floe's PostgreSQL catalog. When Java, Maven, a jar or
pyspark is missing the tests fail: they never skip.
"""
import datetime as dt
import decimal
import json
import os
import pathlib
import shutil
import sqlite3
import struct
import subprocess
import time
import urllib.parse

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from conftest import FLOE, run_floe

ICEBERG_SPARK = "1.12.0"
SQLITE_JDBC = "3.54.1.0"
POSTGRESQL_JDBC = "42.7.14"
M2 = pathlib.Path.home() / ".m2" / "repository"
JARS = [
    ("org.apache.iceberg", "iceberg-spark-runtime-3.5_2.12", ICEBERG_SPARK),
    ("org.xerial", "sqlite-jdbc", SQLITE_JDBC),
    ("org.postgresql", "postgresql", POSTGRESQL_JDBC),
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
    # pyspark turns timestamps into naive local times: make local UTC.
    saved = {k: os.environ.get(k) for k in ("SPARK_LOCAL_IP", "TZ")}
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["TZ"] = "UTC"
    time.tzset()
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
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    time.tzset()


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
    # floe writes file:///abs, Java's Hadoop file system file:/abs.
    return json.loads(pathlib.Path(urllib.parse.urlparse(loc).path).read_text())


# ---- Spark side, rendered in floe's JSON text form ----

def special(v):
    """floe's JSON writes NaN and the infinities as strings."""
    if v != v:
        return "NaN"
    return {float("inf"): "Infinity", float("-inf"): "-Infinity"}.get(v)


def float32(v):
    """A float column's value as floe prints it: the shortest decimal that
    reads back as the same 32-bit float (pyspark hands out the double)."""
    if special(v):
        return special(v)
    want = struct.pack("<f", v)
    for digits in range(1, 10):
        x = float(f"{v:.{digits}g}")
        if struct.pack("<f", x) == want:
            return x
    return v


def render(v, t):
    if v is None:
        return None
    if isinstance(t, T.FloatType):
        return float32(v)
    if isinstance(t, T.DoubleType):
        return special(v) or v
    if isinstance(t, T.TimestampType):
        # pyspark hands out naive local time (UTC here, see the fixture).
        return v.astimezone(UTC).isoformat(timespec="microseconds")
    if isinstance(t, T.TimestampNTZType):
        return v.isoformat(timespec="microseconds")
    if isinstance(t, T.DateType):
        return v.isoformat()
    if isinstance(t, T.DecimalType):
        return format(v, "f")  # str() would give 0E-10 for a zero of scale 10
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
    # As JSON text: NaN equals NaN there, and -0.0 differs from 0.0.
    sa, sb = sorted(map(key, a)), sorted(map(key, b))
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


def ms(ts):
    return ts.astimezone(UTC).isoformat(timespec="milliseconds")


def spark_history(spark, name):
    return sorted((ms(r.made_current_at), r.snapshot_id, r.parent_id, r.is_current_ancestor)
                  for r in spark.sql(f"SELECT * FROM {name}.history").collect())


def floe_history(wh, table):
    return sorted((ms(dt.datetime.fromisoformat(h["made_current_at"])), h["snapshot_id"],
                   h["parent_id"], h["is_current_ancestor"])
                  for h in floe_listing(wh, "history", table))


def spark_manifests(spark, name):
    return sorted(({0: "data", 1: "deletes"}[r.content], r.path, r.length, r.partition_spec_id,
                   r.added_snapshot_id, r.added_data_files_count + r.added_delete_files_count,
                   r.existing_data_files_count + r.existing_delete_files_count,
                   r.deleted_data_files_count + r.deleted_delete_files_count)
                  for r in spark.sql(f"SELECT * FROM {name}.manifests").collect())


def floe_manifests(wh, table):
    return sorted((m["content"], m["path"], m["length"], m["partition_spec_id"],
                   m["added_snapshot_id"], m["added_data_files_count"],
                   m["existing_data_files_count"], m["deleted_data_files_count"])
                  for m in floe_listing(wh, "manifests", table))


def spark_partitions(spark, name):
    out = []
    for r in spark.sql(f"SELECT * FROM {name}.partitions").collect():
        d = r.asDict()
        # An unpartitioned table's has no partition nor spec_id column.
        out.append((d.get("spec_id", 0), d["record_count"], d["file_count"],
                    d["total_data_file_size_in_bytes"], d["position_delete_record_count"],
                    d["equality_delete_record_count"],
                    d["position_delete_file_count"] + d["equality_delete_file_count"]))
    return sorted(out)


def floe_partitions(wh, table):
    return sorted((p["spec_id"], p["record_count"], p["file_count"],
                   p["total_data_file_size_in_bytes"], p["position_delete_record_count"],
                   p["equality_delete_record_count"], p["delete_file_count"])
                  for p in floe_listing(wh, "partitions", table))


def assert_same_metadata(spark, wh, table):
    """Spark's view of the table's history, files, manifests and partitions
    is floe's, and Java's Iceberg parses the metadata file without losing or
    changing anything: written back out it is the very same JSON."""
    name = f"floe.{table}"
    assert spark_snapshots(spark, name) == floe_snapshots(wh, table)
    assert spark_history(spark, name) == floe_history(wh, table)
    assert spark_files(spark, name) == floe_files(wh, table)
    assert spark_manifests(spark, name) == floe_manifests(wh, table)
    assert spark_partitions(spark, name) == floe_partitions(wh, table)
    ops = java_table(spark, name).operations()
    assert json.loads(spark._jvm.org.apache.iceberg.TableMetadataParser.toJson(
        ops.current())) == floe_metadata(wh, table)


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
        ("cat = 'blue'", lambda r: r["cat"] == "blue"),
        ("ts >= TIMESTAMP '2026-11-29 00:00:00' AND ts < TIMESTAMP '2026-11-30 00:00:00'",
         lambda r: "2026-11-29" <= r["ts"] < "2026-11-30"),
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


# ---- row deltas: upsert (equality deletes) and copy-on-write delete ----

KEYED_SCHEMA = ("id long not null, region string not null, ts timestamptz, name string, "
                "amount decimal(12,2), score double, tags list<string>")


def keyed_row(i, region, version):
    return {"id": i, "region": region,
            "ts": (BASE + dt.timedelta(minutes=i * 13 + version)).isoformat(
                timespec="microseconds"),
            "name": None if (i + version) % 7 == 0 else f"user-{(i + version) % 5}",
            "amount": str(decimal.Decimal(i * 100 + version).scaleb(-2)),
            "score": None if i % 4 == 0 else i * 1.25 + version,
            "tags": [f"v{version}"] * (i % 3)}


def test_upsert_and_delete_read_identically_in_spark(spark, wh, tmp_path):
    table = "t2.orders"
    floe_at(wh, "ns", "create", "t2")
    floe_at(wh, "table", "create", table, "--schema", KEYED_SCHEMA,
            "--identifier", "id,region", "--partition", "region, bucket(4, id)")
    model = {}
    step = [0]

    def check():
        fl = floe_rows(wh, table)
        same_rows(fl, list(model.values()))
        same_rows(spark_rows(spark, f"SELECT * FROM floe.{table}"), fl)
        n, s = spark.sql(f"SELECT count(*), sum(id) FROM floe.{table}").collect()[0]
        assert (n, s or 0) == (len(model), sum(k[0] for k in model))

    def append(rows):
        step[0] += 1
        floe_at(wh, "table", "append", table,
                write_jsonl(tmp_path / f"a{step[0]}.jsonl", rows))
        model.update({(r["id"], r["region"]): r for r in rows})

    def upsert(rows):
        step[0] += 1
        floe_at(wh, "table", "upsert", table,
                write_jsonl(tmp_path / f"u{step[0]}.jsonl", rows))
        model.update({(r["id"], r["region"]): r for r in rows})

    def delete(expr, pred):
        floe_at(wh, "table", "delete", table, "--filter", expr)
        for k in [k for k, r in model.items() if pred(r)]:
            del model[k]

    regions = ["north", "south", "east"]
    append([keyed_row(i, regions[i % 3], 0) for i in range(0, 200)])
    append([keyed_row(i, regions[i % 3], 0) for i in range(200, 400)])
    check()
    # The same id in another region is another key: only the matching one goes.
    upsert([keyed_row(i, regions[i % 3], 1) for i in range(0, 120, 2)] +
           [keyed_row(i, regions[(i + 1) % 3], 1) for i in range(0, 30, 3)] +
           [keyed_row(i, regions[i % 3], 1) for i in range(400, 420)])
    check()
    upsert([keyed_row(i, regions[i % 3], 2) for i in range(50, 130, 3)] +
           [keyed_row(i, regions[i % 3], 2) for i in range(410, 430)])
    check()
    # Copy-on-write over files that equality deletes apply to.
    delete("name = 'user-3'", lambda r: r["name"] == "user-3")
    check()
    upsert([keyed_row(i, regions[i % 3], 3) for i in range(0, 400, 9)])
    check()
    delete("id >= 350 OR region = 'east' AND score > 300",
           lambda r: r["id"] >= 350 or (r["region"] == "east" and r["score"] is not None
                                        and r["score"] > 300))
    check()
    upsert([keyed_row(i, regions[i % 3], 4) for i in range(340, 360)])
    check()

    # The new version of a key, alone, through Spark's filters.
    for k in [(54, "north"), (3, "north"), (3, "south"), (345, "north"), (352, "south")]:
        want = [r for kk, r in model.items() if kk == k]
        got = spark_rows(spark, f"SELECT * FROM floe.{table} WHERE id = {k[0]} "
                                f"AND region = '{k[1]}'")
        same_rows(got, want)
    files = floe_files(wh, table)
    assert {f[0] for f in files} == {"data", "equality_deletes"}
    assert_same_metadata(spark, wh, table)
    ops = [s["operation"] for s in floe_snapshots(wh, table)]
    assert ops == ["append"] * 2 + ["overwrite"] * 6


# ---- schema and partition evolution ----

def test_evolved_table_reads_identically_in_spark(spark, wh, tmp_path):
    table = "t3.evo"
    floe_at(wh, "ns", "create", "t3")
    floe_at(wh, "table", "create", table, "--schema",
            "id long not null, ts timestamptz not null, n int, f float, amount decimal(9,2), "
            "name string, old string, pt struct<x: int, y: int>",
            "--partition", "bucket(4, id)")

    def rows0(lo, hi):
        return [{"id": i, "ts": (BASE + dt.timedelta(hours=i * 5)).isoformat(
                     timespec="microseconds"),
                 "n": None if i % 5 == 0 else i * 1000, "f": i / 4,
                 "amount": str(decimal.Decimal(i * 111).scaleb(-2)),
                 "name": f"name-{i % 6}", "old": f"o{i}", "pt": {"x": i, "y": -i}}
                for i in range(lo, hi)]

    floe_at(wh, "table", "append", table, write_jsonl(tmp_path / "a0.jsonl", rows0(0, 40)))
    floe_at(wh, "table", "append", table, write_jsonl(tmp_path / "a1.jsonl", rows0(40, 80)))
    # Every kind of schema change, plus a new partition field, in one commit.
    floe_at(wh, "table", "evolve", table,
            "add-column", "extra string", "drop-column", "old", "rename-column", "name", "label",
            "update-column", "n", "long", "update-column", "f", "double",
            "update-column", "amount", "decimal(12,2)", "add-column", "pt.z long",
            "move-column", "name", "after", "id",
            "add-partition", "day(ts)", "drop-partition", "id_bucket_4")

    def rows1(lo, hi):
        return [{"id": i, "label": f"L{i % 4}",
                 "ts": (BASE + dt.timedelta(hours=i * 5)).isoformat(timespec="microseconds"),
                 "n": i * 10_000_000_000, "f": i / 3, "amount": f"{i * 1_000_000}.25",
                 "pt": {"x": i, "y": None, "z": i * 3}, "extra": f"e{i}"}
                for i in range(lo, hi)]

    floe_at(wh, "table", "append", table, write_jsonl(tmp_path / "b0.jsonl", rows1(80, 120)))
    floe_at(wh, "table", "evolve", table, "add-partition", "truncate(2, label)",
            "rename-column", "extra", "note")
    more = rows1(120, 150)
    for r in more:
        r["note"] = r.pop("extra")
    floe_at(wh, "table", "append", table, write_jsonl(tmp_path / "b1.jsonl", more))

    # The old rows as the evolved schema reads them: promoted, renamed, new
    # columns null, dropped ones gone.
    want = []
    for r in rows0(0, 80):
        want.append({"id": r["id"], "label": r["name"], "ts": r["ts"], "n": r["n"],
                     "f": r["f"], "amount": str(decimal.Decimal(r["amount"]).quantize(
                         decimal.Decimal("0.01"))),
                     "pt": {**r["pt"], "z": None}, "note": None})
    for r in rows1(80, 120):
        r["note"] = r.pop("extra")
        want.append(r)
    want += more
    fl = floe_rows(wh, table)
    same_rows(fl, want)
    same_rows(spark_rows(spark, f"SELECT * FROM floe.{table}"), fl)
    assert spark_columns(spark, f"floe.{table}") == [
        ("id", "bigint", False), ("label", "string", True), ("ts", "timestamp", False),
        ("n", "bigint", True), ("f", "double", True), ("amount", "decimal(12,2)", True),
        ("pt", "struct<x:int,y:int,z:bigint>", True), ("note", "string", True)]
    md = floe_metadata(wh, table)
    schema = next(s for s in md["schemas"] if s["schema-id"] == md["current-schema-id"])
    assert java_schema(spark, f"floe.{table}") == schema
    spec = next(s for s in md["partition-specs"] if s["spec-id"] == md["default-spec-id"])
    assert java_spec(spark, f"floe.{table}") == spec
    # A v2 spec drops a removed field (v1 would keep it as void).
    assert spark_partitioning(spark, f"floe.{table}") == ["days(ts)", "truncate(2, label)"]
    assert {f[3] for f in spark_files(spark, f"floe.{table}")} == {0, 1, 2}
    assert_same_metadata(spark, wh, table)
    for sql, pred in [("n > 500000000000", lambda r: r["n"] is not None and r["n"] > 5e11),
                      ("label = 'name-2'", lambda r: r["label"] == "name-2"),
                      ("note IS NULL", lambda r: r["note"] is None),
                      ("ts < TIMESTAMP '2026-12-01 00:00:00'",
                       lambda r: r["ts"] < "2026-12-01")]:
        same_rows(spark_rows(spark, f"SELECT * FROM floe.{table} WHERE {sql}"),
                  [r for r in fl if pred(r)])


# ---- branches and tags ----

def test_branches_and_tags_read_identically_in_spark(spark, wh, tmp_path):
    table = "t4.refs"
    floe_at(wh, "ns", "create", "t4")
    floe_at(wh, "table", "create", table, "--schema", KEYED_SCHEMA,
            "--identifier", "id,region", "--partition", "bucket(2, id)")
    for k in range(3):
        floe_at(wh, "table", "append", table, write_jsonl(
            tmp_path / f"a{k}.jsonl", [keyed_row(i, "r", 0) for i in range(k * 50, k * 50 + 50)]))
    snaps = floe_snapshots(wh, table)
    floe_at(wh, "table", "tag", table, "v1", "--snapshot", str(snaps[0]["snapshot_id"]))
    floe_at(wh, "table", "branch", table, "dev")
    floe_at(wh, "table", "append", table, "--branch", "dev",
            write_jsonl(tmp_path / "dev.jsonl", [keyed_row(i, "d", 1) for i in range(500, 530)]))
    floe_at(wh, "table", "upsert", table, "--branch", "dev",
            write_jsonl(tmp_path / "devu.jsonl", [keyed_row(i, "r", 2) for i in range(0, 150, 4)]))
    floe_at(wh, "table", "delete", table, "--filter", "id < 20")
    floe_at(wh, "table", "tag", table, "v2")
    floe_at(wh, "table", "branch", table, "audit", "--snapshot", str(snaps[1]["snapshot_id"]))
    floe_at(wh, "table", "delete", table, "--branch", "audit", "--filter", "name IS NULL")

    name = f"floe.{table}"
    for ref in ["v1", "dev", "v2", "audit", "main"]:
        fl = floe_rows(wh, table, "--ref", ref)
        assert fl
        same_rows(spark_rows(spark, f"SELECT * FROM {name} VERSION AS OF '{ref}'"), fl)
    same_rows(spark_rows(spark, f"SELECT * FROM {name}.branch_dev"),
              floe_rows(wh, table, "--ref", "dev"))
    same_rows(spark_rows(spark, f"SELECT * FROM {name}.tag_v1"),
              floe_rows(wh, table, "--ref", "v1"))
    assert len(floe_rows(wh, table, "--ref", "v1")) == 50
    same_rows(spark_rows(spark, f"SELECT * FROM {name}"), floe_rows(wh, table))

    sp = {r.name: (r.type, r.snapshot_id) for r in
          spark.sql(f"SELECT name, type, snapshot_id FROM {name}.refs").collect()}
    fr = {r["name"]: (r["type"], r["snapshot_id"]) for r in floe_listing(wh, "refs", table)}
    assert sp == fr and set(sp) == {"main", "dev", "audit", "v1", "v2"}
    assert_same_metadata(spark, wh, table)

    # floe rolls main back, Spark reads the rolled-back state and history;
    # Spark rolls forward again, floe reads that.
    before = floe_snapshots(wh, table)
    main_head = next(r for r in floe_listing(wh, "refs", table) if r["name"] == "main")
    floe_at(wh, "table", "rollback", table, str(snaps[1]["snapshot_id"]))
    same_rows(spark_rows(spark, f"SELECT * FROM {name}"),
              floe_rows(wh, table, "--snapshot", str(snaps[1]["snapshot_id"])))
    assert_same_metadata(spark, wh, table)
    current = [h for h in spark_history(spark, name) if h[3]]
    # The snapshot log lists the rolled-back-to snapshot again.
    assert [h[1] for h in current] == [s["snapshot_id"] for s in snaps[:2]] + \
        [snaps[1]["snapshot_id"]]
    spark.sql(f"CALL floe.system.set_current_snapshot('{table}', {main_head['snapshot_id']})")
    same_rows(floe_rows(wh, table), floe_rows(wh, table, "--ref", "v2"))
    assert_same_metadata(spark, wh, table)
    assert floe_snapshots(wh, table) == before  # no new snapshots, only refs moved


# ---- tables Spark writes, read by floe ----

def spark_values(rows):
    """SQL VALUES text for (id, ts, name, amount, score, d) tuples."""
    out = []
    for i, ts, name, amount, score, d in rows:
        out.append(f"({i}, TIMESTAMP '{ts}', {'NULL' if name is None else repr(name)}, "
                   f"{'NULL' if amount is None else f'CAST({amount} AS DECIMAL(10,2))'}, "
                   f"{'NULL' if score is None else score}, DATE '{d}')")
    return ", ".join(out)


def spark_batch(lo, hi, day):
    return [(i, f"2026-12-{1 + day:02d} {i % 24:02d}:{i % 60:02d}:{i % 7:02d}.{i:06d}",
             None if i % 6 == 0 else f"n{i % 9}", None if i % 5 == 0 else f"{i}.{i % 100:02d}",
             None if i % 4 == 0 else i / 8, f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}")
            for i in range(lo, hi)]


def assert_floe_reads_spark(spark, wh, table, history=False):
    """floe's scan is Spark's (with history, of every snapshot), and so are
    the listings."""
    name = f"floe.{table}"
    same_rows(floe_rows(wh, table), spark_rows(spark, f"SELECT * FROM {name}"))
    for s in spark_snapshots(spark, name) if history else []:
        sid = s["snapshot_id"]
        same_rows(floe_rows(wh, table, "--snapshot", str(sid)),
                  spark_rows(spark, f"SELECT * FROM {name} VERSION AS OF {sid}"))
    assert_same_metadata(spark, wh, table)


def test_spark_table_reads_identically_in_floe(spark, wh):
    table = "t5.sales"
    name = f"floe.{table}"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.t5")
    spark.sql(f"""CREATE TABLE {name} (id BIGINT NOT NULL, ts TIMESTAMP, name STRING,
                  amount DECIMAL(10,2), score DOUBLE, d DATE)
                  USING iceberg PARTITIONED BY (days(ts), bucket(4, id))
                  TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',
                                 'write.update.mode'='merge-on-read',
                                 'write.merge.mode'='merge-on-read')""")
    spark.sql(f"INSERT INTO {name} VALUES {spark_values(spark_batch(0, 300, 0))}")
    spark.sql(f"INSERT INTO {name} VALUES {spark_values(spark_batch(300, 500, 1))}")
    # Merge-on-read: position deletes.
    spark.sql(f"DELETE FROM {name} WHERE id % 10 = 3")
    spark.sql(f"UPDATE {name} SET name = 'updated', score = -1.0 WHERE id BETWEEN 100 AND 160")
    spark.createDataFrame(
        [(i, "merged" if i < 520 else "new") for i in range(480, 540, 2)],
        "id BIGINT, name STRING").createOrReplaceTempView("changes")
    spark.sql(f"""MERGE INTO {name} t USING changes c ON t.id = c.id
                  WHEN MATCHED AND c.id % 4 = 0 THEN DELETE
                  WHEN MATCHED THEN UPDATE SET t.name = c.name
                  WHEN NOT MATCHED THEN INSERT (id, ts, name, amount, score, d)
                       VALUES (c.id, TIMESTAMP '2026-12-05 12:00:00', c.name, 1.50, NULL,
                               DATE '2026-12-05')""")
    kinds = {f[0] for f in spark_files(spark, name)}
    assert "position_deletes" in kinds, kinds
    assert_floe_reads_spark(spark, wh, table, history=True)
    # floe's copy-on-write delete over files that Spark's position deletes
    # apply to: the rewritten files must not bring deleted rows back.
    before = spark_rows(spark, f"SELECT * FROM {name}")
    floe_at(wh, "table", "delete", table, "--filter", "id >= 150 AND id < 170 OR id = 482")
    want = [r for r in before if not (150 <= r["id"] < 170 or r["id"] == 482)]
    assert len(want) < len(before)
    same_rows(spark_rows(spark, f"SELECT * FROM {name}"), want)
    same_rows(floe_rows(wh, table), want)

    # Copy-on-write, schema and partition evolution, more writes.
    spark.sql(f"""ALTER TABLE {name} SET TBLPROPERTIES ('write.delete.mode'='copy-on-write',
                  'write.update.mode'='copy-on-write', 'write.merge.mode'='copy-on-write')""")
    spark.sql(f"DELETE FROM {name} WHERE name = 'n4'")
    spark.sql(f"UPDATE {name} SET amount = amount * 2 WHERE id < 50")
    spark.sql(f"ALTER TABLE {name} ADD COLUMN extra STRING")
    spark.sql(f"ALTER TABLE {name} ADD PARTITION FIELD truncate(2, name)")
    spark.sql(f"ALTER TABLE {name} DROP PARTITION FIELD bucket(4, id)")
    spark.sql(f"""INSERT INTO {name} SELECT id + 1000, ts, name, amount, score, d,
                  concat('x', CAST(id AS STRING)) FROM {name} WHERE id < 40""")
    spark.sql(f"ALTER TABLE {name} RENAME COLUMN score TO points")
    spark.sql(f"ALTER TABLE {name} ALTER COLUMN points COMMENT 'renamed'")
    spark.sql(f"UPDATE {name} SET extra = 'late' WHERE id % 7 = 0")
    assert_floe_reads_spark(spark, wh, table)
    n = spark.sql(f"SELECT count(*) FROM {name}").collect()[0][0]
    assert n == len(floe_rows(wh, table)) and n > 400

    # floe's filters on Spark's table.
    fl = floe_rows(wh, table)
    for expr, pred in [("id >= 1000", lambda r: r["id"] >= 1000),
                       ("name = 'updated'", lambda r: r["name"] == "updated"),
                       ("extra IS NOT NULL", lambda r: r["extra"] is not None),
                       ("ts < TIMESTAMP '2026-12-02T00:00:00Z'",
                        lambda r: r["ts"] is not None and r["ts"] < "2026-12-02")]:
        want = [r for r in fl if pred(r)]
        assert want, expr
        same_rows(floe_rows(wh, table, "--filter", expr), want)


# ---- both engines committing to one table ----

def assert_linear(snaps, n):
    assert len(snaps) == n
    assert [s["parent_id"] for s in snaps] == [None] + [s["snapshot_id"] for s in snaps[:-1]]
    assert len({s["snapshot_id"] for s in snaps}) == n


def test_floe_and_spark_append_to_each_others_tables(spark, wh, tmp_path):
    floe_at(wh, "ns", "create", "t6")
    cols = "id BIGINT NOT NULL, ts TIMESTAMP, name STRING, amount DECIMAL(10,2), score DOUBLE, d DATE"

    def floe_batch(lo, hi, day):
        return [{"id": i, "ts": ts.replace(" ", "T") + "+00:00", "name": name,
                 "amount": amount, "score": score, "d": d}
                for i, ts, name, amount, score, d in spark_batch(lo, hi, day)]

    # A Spark-created table, then a floe-created one; each written by both.
    spark.sql(f"CREATE TABLE floe.t6.by_spark ({cols}) USING iceberg "
              f"PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version'='2')")
    floe_at(wh, "table", "create", "t6.by_floe", "--schema",
            "id long not null, ts timestamptz, name string, amount decimal(10,2), "
            "score double, d date", "--partition", "day(ts), bucket(3, id)")
    for table in ["t6.by_spark", "t6.by_floe"]:
        name = f"floe.{table}"
        want = []
        for k in range(3):
            lo = k * 100
            spark.sql(f"INSERT INTO {name} VALUES {spark_values(spark_batch(lo, lo + 50, k))}")
            rows = floe_batch(lo + 50, lo + 100, k)
            floe_at(wh, "table", "append", table,
                    write_jsonl(tmp_path / f"{table}{k}.jsonl", rows))
            want += floe_batch(lo, lo + 100, k)
            fl = floe_rows(wh, table)
            same_rows(fl, want)
            same_rows(spark_rows(spark, f"SELECT * FROM {name}"), fl)
        snaps = floe_snapshots(wh, table)
        assert_linear(snaps, 6)
        assert [s["operation"] for s in snaps] == ["append"] * 6
        assert [s["summary"]["total-records"] for s in snaps] == [
            str(50 * (k + 1)) for k in range(6)]
        assert_same_metadata(spark, wh, table)
    # At the same time: floe processes and Spark commit to one table; each
    # loser of a compare-and-swap refreshes and retries, none is lost.
    table, name = "t6.by_floe", "floe.t6.by_floe"
    want = floe_rows(wh, table)
    procs = []
    for k in range(4):
        rows = floe_batch(1000 + k * 100, 1050 + k * 100, k)
        want += rows
        procs.append(subprocess.Popen(
            [str(FLOE), "--warehouse", str(wh), "table", "append", table,
             str(write_jsonl(tmp_path / f"conc{k}.jsonl", rows))],
            stderr=subprocess.PIPE, text=True))
    for k in range(4):
        lo = 1050 + k * 100
        spark.sql(f"INSERT INTO {name} VALUES {spark_values(spark_batch(lo, lo + 50, k))}")
        want += floe_batch(lo, lo + 50, k)
    for pr in procs:
        _, err = pr.communicate(timeout=300)
        assert pr.returncode == 0, err
    fl = floe_rows(wh, table)
    same_rows(fl, want)
    same_rows(spark_rows(spark, f"SELECT * FROM {name}"), fl)
    assert_linear(floe_snapshots(wh, table), 14)
    assert_same_metadata(spark, wh, table)

    # Both catalogs list both tables.
    assert sorted(r.tableName for r in spark.sql("SHOW TABLES IN floe.t6").collect()) == \
        ["by_floe", "by_spark"]
    listed = floe_at(wh, "table", "list", "t6", "--format", "jsonl").stdout.splitlines()
    assert sorted(json.loads(line)["table"] for line in listed) == ["by_floe", "by_spark"]


# ---- maintenance by one engine, reads by the other ----

def test_v3_deletion_vectors_and_spark_maintenance(spark, wh, tmp_path):
    """Spark's v3 deletion vectors, compaction and rewritten manifests read
    in floe; Spark compacts floe's equality deletes away; floe upserts into a
    table whose identifier fields Spark set; each side expires snapshots."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.t7")
    v3 = "floe.t7.dv"
    spark.sql(f"""CREATE TABLE {v3} (id BIGINT NOT NULL, name STRING, amount DECIMAL(10,2))
                  USING iceberg PARTITIONED BY (bucket(2, id))
                  TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read',
                                 'write.update.mode'='merge-on-read')""")
    spark.sql(f"INSERT INTO {v3} SELECT id, concat('n', id), id / 4 FROM range(300)")
    spark.sql(f"DELETE FROM {v3} WHERE id % 3 = 0")
    spark.sql(f"UPDATE {v3} SET name = 'up' WHERE id % 5 = 0")
    spark.sql(f"DELETE FROM {v3} WHERE id % 7 = 0")
    assert {(f[0], f[2]) for f in spark_files(spark, v3)} >= {("position_deletes", "PUFFIN")}
    assert_floe_reads_spark(spark, wh, "t7.dv", history=True)
    spark.sql("CALL floe.system.rewrite_data_files(table => 't7.dv', "
              "options => map('delete-file-threshold', '1'))")
    spark.sql("CALL floe.system.rewrite_manifests('t7.dv')")
    assert_floe_reads_spark(spark, wh, "t7.dv")
    assert [s["operation"] for s in floe_snapshots(wh, "t7.dv")][-2:] == ["replace", "replace"]

    # floe's equality deletes, compacted by Spark.
    table = "t7.keyed"
    floe_at(wh, "table", "create", table, "--schema", KEYED_SCHEMA,
            "--identifier", "id,region", "--partition", "region")
    floe_at(wh, "table", "append", table, write_jsonl(
        tmp_path / "a.jsonl", [keyed_row(i, ["a", "b"][i % 2], 0) for i in range(200)]))
    for v in (1, 2):
        floe_at(wh, "table", "upsert", table, write_jsonl(
            tmp_path / f"u{v}.jsonl",
            [keyed_row(i, ["a", "b"][i % 2], v) for i in range(v * 10, 200, 3 + v)]))
    before = floe_rows(wh, table)
    spark.sql(f"CALL floe.system.rewrite_data_files(table => '{table}', "
              "options => map('rewrite-all', 'true'))")
    spark.sql(f"CALL floe.system.rewrite_position_delete_files(table => '{table}', "
              "options => map('rewrite-all', 'true'))")
    assert floe_snapshots(wh, table)[-1]["operation"] == "replace"
    same_rows(floe_rows(wh, table), before)
    same_rows(spark_rows(spark, f"SELECT * FROM floe.{table}"), before)
    assert_same_metadata(spark, wh, table)
    # Compaction kept the equality deletes' effect: floe upserts again.
    floe_at(wh, "table", "upsert", table, write_jsonl(
        tmp_path / "u3.jsonl", [keyed_row(i, ["a", "b"][i % 2], 3) for i in range(0, 200, 11)]))
    fl = floe_rows(wh, table)
    assert len(fl) == 200 and sum(r["ts"] == keyed_row(r["id"], r["region"], 3)["ts"]
                                  for r in fl) == len(range(0, 200, 11))
    same_rows(spark_rows(spark, f"SELECT * FROM floe.{table}"), fl)

    # floe upserts into Spark's table once Spark names its identifier fields.
    sp = "floe.t7.spark_keyed"
    spark.sql(f"""CREATE TABLE {sp} (id BIGINT NOT NULL, region STRING NOT NULL,
                  ts TIMESTAMP, name STRING, amount DECIMAL(12,2), score DOUBLE,
                  tags ARRAY<STRING>) USING iceberg PARTITIONED BY (region)
                  TBLPROPERTIES ('format-version'='2')""")
    spark.sql(f"ALTER TABLE {sp} SET IDENTIFIER FIELDS id, region")
    spark.createDataFrame([keyed_row(i, "x", 0) for i in range(50)]).createOrReplaceTempView("k")
    spark.sql(f"""INSERT INTO {sp} SELECT id, region, CAST(ts AS TIMESTAMP), name,
                  CAST(amount AS DECIMAL(12,2)), score, tags FROM k""")
    floe_at(wh, "table", "upsert", "t7.spark_keyed", write_jsonl(
        tmp_path / "su.jsonl", [keyed_row(i, "x", 5) for i in range(40, 60)]))
    want = [keyed_row(i, "x", 0) for i in range(40)] + [keyed_row(i, "x", 5)
                                                         for i in range(40, 60)]
    same_rows(floe_rows(wh, "t7.spark_keyed"), want)
    same_rows(spark_rows(spark, f"SELECT * FROM {sp}"), want)

    # Expiry: Spark's on floe's table, floe's on Spark's; both still read.
    keep = floe_snapshots(wh, table)[-1]["snapshot_id"]
    spark.sql(f"CALL floe.system.expire_snapshots(table => '{table}', "
              "older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)")
    assert [s["snapshot_id"] for s in floe_snapshots(wh, table)] == [keep]
    same_rows(floe_rows(wh, table), fl)
    floe_at(wh, "table", "expire", "t7.dv", "--older-than", "0s", "--retain-last", "1")
    assert len(spark_snapshots(spark, v3)) == 1
    assert_floe_reads_spark(spark, wh, "t7.dv")
    # floe's orphan sweep on Spark's table (file:/ paths, Puffin files)
    # takes only what no metadata reaches.
    stray = wh / "t7" / "dv" / "data" / "stray.parquet"
    stray.write_bytes(b"not a table file")
    before = spark_rows(spark, f"SELECT * FROM {v3}")
    p = floe_at(wh, "table", "remove-orphans", "t7.dv", "--older-than", "0s")
    assert "1 orphans deleted" in p.stdout + p.stderr, p.stdout + p.stderr
    assert not stray.exists()
    same_rows(spark_rows(spark, f"SELECT * FROM {v3}"), before)
    assert_floe_reads_spark(spark, wh, "t7.dv")


def test_floe_prunes_spark_pages_and_row_groups(spark, wh):
    """Spark's Parquet (parquet-mr: dictionaries, small pages with column
    indexes, several row groups) read by floe, whole and through filters
    that prune row groups and pages."""
    name = "floe.t8.big"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.t8")
    spark.sql(f"""CREATE TABLE {name} (id BIGINT NOT NULL, k INT, s STRING, d DECIMAL(18,3),
                  ts TIMESTAMP, dd DATE, f DOUBLE, tags ARRAY<STRING>)
                  USING iceberg PARTITIONED BY (bucket(2, k))
                  TBLPROPERTIES ('format-version'='2', 'write.parquet.page-size-bytes'='2048',
                                 'write.parquet.page-row-limit'='500',
                                 'write.parquet.row-group-size-bytes'='200000',
                                 'write.parquet.dict-size-bytes'='4096')""")
    spark.sql(f"""INSERT INTO {name} SELECT id, CAST(id % 1000 AS INT),
                  concat('s', CAST(id % 777 AS STRING), repeat('x', CAST(id % 5 AS INT))),
                  CAST(id * 1.125 AS DECIMAL(18,3)), timestamp_seconds(1700000000 + id * 37),
                  date_add(DATE '2020-01-01', CAST(id % 3000 AS INT)),
                  CASE WHEN id % 11 = 0 THEN NULL ELSE id / 7e0 END,
                  CASE WHEN id % 13 = 0 THEN NULL ELSE array(CAST(id % 3 AS STRING), 'z') END
                  FROM range(60000) ORDER BY id""")
    sp = spark_rows(spark, f"SELECT * FROM {name}")
    assert len(sp) == 60000
    same_rows(floe_rows(wh, "t8.big"), sp)
    for expr, pred in [
            ("id >= 30000 AND id < 30010", lambda r: 30000 <= r["id"] < 30010),
            ("id = 59999 OR id = 0", lambda r: r["id"] in (0, 59999)),
            ("s = 's5x'", lambda r: r["s"] == "s5x"),
            ("k IN (7, 999)", lambda r: r["k"] in (7, 999)),
            ("ts >= TIMESTAMP '2023-11-20T00:00:00Z' AND ts < TIMESTAMP '2023-11-20T01:00:00Z'",
             lambda r: "2023-11-20T00" <= r["ts"] < "2023-11-20T01"),
            ("d > 67400", lambda r: decimal.Decimal(r["d"]) > 67400),
            ("f IS NULL AND id < 1000", lambda r: r["f"] is None and r["id"] < 1000),
            ("dd = DATE '2027-03-01'", lambda r: r["dd"] == "2027-03-01")]:
        want = [r for r in sp if pred(r)]
        assert want, expr
        p = floe_at(wh, "table", "scan", "t8.big", "--filter", expr, "--format", "jsonl",
                    "--stats")
        same_rows([json.loads(line) for line in p.stdout.splitlines()], want)
    # The narrow id range skips row groups or pages, not only rows.
    p = floe_at(wh, "table", "scan", "t8.big", "--filter", "id >= 30000 AND id < 30010",
                "--stats", "--format", "jsonl")
    assert "rows read 60000" not in p.stderr, p.stderr


def test_namespaces_renames_and_drops_shared_with_spark(spark, wh, tmp_path):
    """Catalog operations of one engine are seen by the other."""
    floe_at(wh, "ns", "create", "t9", "--property", "team=floe")
    floe_at(wh, "ns", "create", "t9.inner")
    desc = {r[0]: r[1] for r in spark.sql("DESCRIBE NAMESPACE EXTENDED floe.t9").collect()}
    assert "(team,floe)" in desc["Properties"], desc
    spark.sql("CREATE NAMESPACE floe.t9s WITH DBPROPERTIES ('team' = 'spark')")
    props = {r["property"]: r["value"] for r in
             map(json.loads, floe_at(wh, "ns", "describe", "t9s", "--format", "jsonl")
                 .stdout.splitlines())}
    assert props.get("team") == "spark", props
    assert {tuple(r) for r in spark.sql("SHOW NAMESPACES IN floe.t9").collect()} == \
        {("t9.inner",)}

    floe_at(wh, "table", "create", "t9.inner.a", "--schema", "id long not null, v string")
    floe_at(wh, "table", "append", "t9.inner.a",
            write_jsonl(tmp_path / "a.jsonl", [{"id": i, "v": f"v{i}"} for i in range(10)]))
    same_rows(spark_rows(spark, "SELECT * FROM floe.t9.inner.a"),
              [{"id": i, "v": f"v{i}"} for i in range(10)])
    # The new name is within the same catalog.
    spark.sql("ALTER TABLE floe.t9.inner.a RENAME TO t9.inner.b")
    same_rows(floe_rows(wh, "t9.inner.b"), [{"id": i, "v": f"v{i}"} for i in range(10)])
    assert_same_metadata(spark, wh, "t9.inner.b")  # unpartitioned manifests
    assert floe_at(wh, "table", "scan", "t9.inner.a", check=False).returncode != 0
    floe_at(wh, "table", "rename", "t9.inner.b", "t9s.c")
    assert spark_rows(spark, "SELECT count(*) AS n FROM floe.t9s.c") == [{"n": 10}]
    spark.sql("DROP TABLE floe.t9s.c")
    listed = floe_at(wh, "table", "list", "t9s", "--format", "jsonl").stdout
    assert listed.strip() == ""
    floe_at(wh, "ns", "drop", "t9s")
    assert "t9s" not in {r[0] for r in spark.sql("SHOW NAMESPACES IN floe").collect()}


# ---- v3 row lineage across engines ----

def assert_row_ids_unique(spark, name, n):
    """Every live row has its own _row_id, and ids stay below next-row-id."""
    rows = spark.sql(f"SELECT _row_id FROM {name}").collect()
    ids = [r[0] for r in rows]
    assert len(ids) == n and None not in ids
    assert len(set(ids)) == n, sorted(ids)
    return set(ids)


def test_v3_row_ids_stay_unique_across_engines(spark, wh, tmp_path):
    """floe's commits to v3 tables (its own and Spark's) carry row lineage:
    first-row-id, added-rows and next-row-id, so Spark's _row_id never
    repeats, and both read the same rows."""
    floe_at(wh, "ns", "create", "t10")
    table, name = "t10.lineage", "floe.t10.lineage"
    floe_at(wh, "table", "create", table, "--schema", KEYED_SCHEMA,
            "--identifier", "id,region", "--partition", "region",
            "--property", "format-version=3")
    floe_at(wh, "table", "append", table, write_jsonl(
        tmp_path / "a.jsonl", [keyed_row(i, ["p", "q"][i % 2], 0) for i in range(100)]))
    floe_at(wh, "table", "append", table, write_jsonl(
        tmp_path / "b.jsonl", [keyed_row(i, ["p", "q"][i % 2], 0) for i in range(100, 150)]))
    md = floe_metadata(wh, table)
    assert md["format-version"] == 3
    assert [(s["first-row-id"], s["added-rows"]) for s in md["snapshots"]] == [(0, 100), (100, 50)]
    assert md["next-row-id"] == 150
    assert assert_row_ids_unique(spark, name, 150) == set(range(150))
    floe_at(wh, "table", "delete", table, "--filter", "id < 10")
    spark.sql(f"INSERT INTO {name} SELECT id + 1000, region, ts, name, amount, score, tags "
              f"FROM {name} WHERE id < 30")
    floe_at(wh, "table", "upsert", table, write_jsonl(
        tmp_path / "u.jsonl", [keyed_row(i, ["p", "q"][i % 2], 1) for i in range(40, 60)]))
    fl = floe_rows(wh, table)
    assert len(fl) == 160
    same_rows(spark_rows(spark, f"SELECT * FROM {name}"), fl)
    assert_row_ids_unique(spark, name, 160)
    assert_same_metadata(spark, wh, table)
    md = floe_metadata(wh, table)
    ends = [s["first-row-id"] + s["added-rows"] for s in md["snapshots"]]
    assert md["next-row-id"] == max(ends)
    assert all(b["first-row-id"] >= a["first-row-id"] + a["added-rows"]
               for a, b in zip(md["snapshots"], md["snapshots"][1:]))

    # Spark's v3 table with deletion vectors, appended to by floe, then by Spark.
    sp = "floe.t10.spark_v3"
    spark.sql(f"""CREATE TABLE {sp} (id BIGINT NOT NULL, name STRING) USING iceberg
                  TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')""")
    spark.sql(f"INSERT INTO {sp} SELECT id, concat('n', id) FROM range(20)")
    spark.sql(f"DELETE FROM {sp} WHERE id % 3 = 0")
    floe_at(wh, "table", "append", "t10.spark_v3", write_jsonl(
        tmp_path / "f.jsonl", [{"id": 100 + i, "name": "floe"} for i in range(5)]))
    floe_at(wh, "table", "delete", "t10.spark_v3", "--filter", "id = 4")
    spark.sql(f"INSERT INTO {sp} VALUES (200, 'spark')")
    want = [{"id": i, "name": f"n{i}"} for i in range(20) if i % 3 and i != 4] + \
        [{"id": 100 + i, "name": "floe"} for i in range(5)] + [{"id": 200, "name": "spark"}]
    same_rows(floe_rows(wh, "t10.spark_v3"), want)
    same_rows(spark_rows(spark, f"SELECT * FROM {sp}"), want)
    assert_row_ids_unique(spark, sp, len(want))
    assert_same_metadata(spark, wh, "t10.spark_v3")



def test_sql_dml_deletes_read_identically_in_spark(spark, wh):
    """floe sql's DELETE, UPDATE and MERGE in merge-on-read mode: the
    position delete files (v2) and deletion vectors (v3, Puffin) floe
    writes are applied by Spark, and Spark's own DELETE on the same data
    files merges floe's vectors into its own."""
    floe_at(wh, "ns", "create", "t11")
    modes = ", ".join(f"'write.{op}.mode' = 'merge-on-read'" for op in ("delete", "update", "merge"))
    for version in (2, 3):
        t = f"t11.dml{version}"
        floe_at(wh, "sql", "-c", f"CREATE TABLE {t} (id bigint, name varchar) WITH (format_version = "
                                 f"{version}, partitioning = ARRAY['bucket(id, 2)'], {modes})")
        floe_at(wh, "sql", "-c", f"INSERT INTO {t} VALUES " +
                ", ".join(f"({i}, 'n{i}')" for i in range(40)))
        floe_at(wh, "sql", "-c", f"DELETE FROM {t} WHERE id % 3 = 0")
        floe_at(wh, "sql", "-c", f"UPDATE {t} SET name = 'up' WHERE id % 5 = 0")
        floe_at(wh, "sql", "-c", f"MERGE INTO {t} t USING (VALUES (1, 'm'), (2, 'x'), (100, 'new')) "
                                 f"AS s(id, name) ON t.id = s.id "
                                 f"WHEN MATCHED AND s.name = 'x' THEN DELETE "
                                 f"WHEN MATCHED THEN UPDATE SET name = s.name "
                                 f"WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name)")
        want = {i: ("up" if i % 5 == 0 else f"n{i}") for i in range(40) if i % 3}
        want[1] = "m"
        del want[2]
        want[100] = "new"
        rows = [{"id": i, "name": n} for i, n in want.items()]
        same_rows(floe_rows(wh, t), rows)
        same_rows(spark_rows(spark, f"SELECT * FROM floe.{t}"), rows)
        formats = {(f[0], f[2]) for f in spark_files(spark, f"floe.{t}") if f[0] != "data"}
        assert formats == {("position_deletes", "PUFFIN" if version == 3 else "PARQUET")}
        spark.sql(f"DELETE FROM floe.{t} WHERE id % 7 = 0")
        rows = [r for r in rows if r["id"] % 7]
        same_rows(floe_rows(wh, t), rows)
        same_rows(spark_rows(spark, f"SELECT * FROM floe.{t}"), rows)
        assert_same_metadata(spark, wh, t)

# ---- the PostgreSQL catalog ----

def test_postgresql_catalog_shared_with_spark(spark, pg_uri, tmp_path):
    """floe on its PostgreSQL catalog and Spark's JdbcCatalog on the same
    database (a second session of the same Spark, catalog name floe)."""
    wh = tmp_path / "pgwh"
    wh.mkdir()
    ns = "spark_" + tmp_path.name.replace("-", "_")[-20:]
    table = f"{ns}.keyed"

    def pf(*args):
        return run_floe("--warehouse", wh, "--catalog", pg_uri, *args)

    def rows_of(*extra):
        out = pf("table", "scan", table, "--format", "jsonl", *extra).stdout
        return [json.loads(line) for line in out.splitlines()]

    u = urllib.parse.urlparse(pg_uri)
    pg = spark.newSession()
    pg.conf.set("spark.sql.catalog.floe.uri", f"jdbc:postgresql://{u.hostname}:{u.port}{u.path}")
    pg.conf.set("spark.sql.catalog.floe.jdbc.user", u.username)
    pg.conf.set("spark.sql.catalog.floe.warehouse", f"file://{wh}")

    pf("ns", "create", ns)
    pf("table", "create", table, "--schema", KEYED_SCHEMA, "--identifier", "id,region",
       "--partition", "region, bucket(2, id)")
    model = {}
    pf("table", "append", table, write_jsonl(
        tmp_path / "a.jsonl", [keyed_row(i, ["x", "y"][i % 2], 0) for i in range(120)]))
    model.update({(i, ["x", "y"][i % 2]): keyed_row(i, ["x", "y"][i % 2], 0) for i in range(120)})
    up = [keyed_row(i, ["x", "y"][i % 2], 1) for i in range(0, 140, 3)]
    pf("table", "upsert", table, write_jsonl(tmp_path / "u.jsonl", up))
    model.update({(r["id"], r["region"]): r for r in up})
    pf("table", "delete", table, "--filter", "id >= 100 AND id < 110")
    model = {k: r for k, r in model.items() if not 100 <= k[0] < 110}
    fl = rows_of()
    same_rows(fl, list(model.values()))
    same_rows(spark_rows(pg, f"SELECT * FROM floe.{table}"), fl)
    # The SQLite session does not see the PostgreSQL catalog's namespace.
    assert ns not in {r[0] for r in spark.sql("SHOW NAMESPACES IN floe").collect()}

    pg.sql(f"INSERT INTO floe.{table} SELECT id + 1000, region, ts, name, amount, score, tags "
           f"FROM floe.{table} WHERE id < 20")
    fl = rows_of()
    assert len(fl) == len(model) + len([k for k in model if k[0] < 20])
    same_rows(spark_rows(pg, f"SELECT * FROM floe.{table}"), fl)
    snaps = [json.loads(line) for line in
             pf("table", "snapshots", table, "--format", "jsonl").stdout.splitlines()]
    assert [s["operation"] for s in snaps] == ["append", "overwrite", "overwrite", "append"]
    assert [s["parent_id"] for s in snaps] == [None] + [s["snapshot_id"] for s in snaps[:-1]]
    assert [r.snapshot_id for r in pg.sql(
        f"SELECT snapshot_id FROM floe.{table}.snapshots ORDER BY committed_at").collect()] == \
        [s["snapshot_id"] for s in snaps]


# ---- nested types and edge values, both ways ----

EDGE_SQL = """SELECT id,
  CASE WHEN id % 5 = 0 THEN NULL
       ELSE CAST(id * 123456789.0123456789 - 5e12 AS DECIMAL(38,10)) END,
  CAST(id * -1.5 AS DECIMAL(18,4)), CAST(id % 999 - 500 AS DECIMAL(5,2)),
  timestamp_seconds(-86400 * 365 * 60 + id * 3600 * 24 * 7),
  TIMESTAMP_NTZ '1900-01-01 00:00:00' + make_interval(0, 0, 0, CAST(id AS INT), 0, 0, 0.000123),
  date_add(DATE '1950-06-15', CAST(id * 13 AS INT)),
  CASE WHEN id % 7 = 0 THEN float('nan') WHEN id % 11 = 0 THEN float('-inf')
       ELSE CAST(id / 3 AS FLOAT) END,
  CASE WHEN id % 13 = 0 THEN double('nan') WHEN id % 17 = 0 THEN -0.0 ELSE id * 1.1 END,
  CASE WHEN id % 4 = 0 THEN '' WHEN id % 4 = 1 THEN NULL
       WHEN id % 4 = 2 THEN concat('ünïcödé-', repeat('z', CAST(id AS INT))) ELSE 'plain' END,
  CASE WHEN id % 3 = 0 THEN NULL ELSE unhex(repeat('ab', CAST(id % 5 AS INT))) END,
  id % 2 = 0, CAST(id AS INT) - 100,
  CASE WHEN id % 6 = 0 THEN NULL WHEN id % 6 = 1 THEN array()
       ELSE array(named_struct('a', CAST(id AS INT), 'b', CAST(NULL AS STRING)),
                  named_struct('a', CAST(NULL AS INT), 'b', 'x')) END,
  CASE WHEN id % 5 = 0 THEN NULL WHEN id % 5 = 1 THEN map()
       ELSE map('k', named_struct('x', id * 0.5, 'y', array(1, NULL, 3)), 'n', NULL) END,
  CASE WHEN id % 4 = 0 THEN array(array(), NULL, array('a', NULL)) ELSE NULL END,
  CASE WHEN id % 3 = 0 THEN NULL
       ELSE named_struct('p', CASE WHEN id % 2 = 0 THEN NULL
                                   ELSE named_struct('q', CAST(id AS INT), 'r', array('r1')) END,
                         'z', 'zz') END
  FROM range(300)"""

EDGE_SPARK = """(id BIGINT NOT NULL, d38 DECIMAL(38,10), d18 DECIMAL(18,4), d5 DECIMAL(5,2),
  ts TIMESTAMP, tsn TIMESTAMP_NTZ, dt DATE, f FLOAT, db DOUBLE, s STRING, b BINARY, bo BOOLEAN,
  i INT, ls ARRAY<STRUCT<a: INT, b: STRING>>, mp MAP<STRING, STRUCT<x: DOUBLE, y: ARRAY<INT>>>,
  nested ARRAY<ARRAY<STRING>>, st STRUCT<p: STRUCT<q: INT, r: ARRAY<STRING>>, z: STRING>)"""

EDGE_FLOE = ("id long not null, d38 decimal(38,10), d18 decimal(18,4), d5 decimal(5,2), "
             "ts timestamptz, tsn timestamp, dt date, f float, db double, s string, b binary, "
             "bo boolean, i int, ls list<struct<a: int, b: string>>, "
             "mp map<string, struct<x: double, y: list<int>>>, nested list<list<string>>, "
             "st struct<p: struct<q: int, r: list<string>>, z: string>")


def metrics_summary(spark, name):
    """Per column (Spark's readable_metrics: top-level and struct leaves):
    summed value, null and NaN counts, smallest lower and largest upper
    bound over the table's data files. Leaves inside lists and maps are
    left out: Java keeps no metrics for them, floe keeps counts."""
    out = {}
    for r in spark.sql(f"SELECT readable_metrics FROM {name}.files WHERE content = 0").collect():
        for col, m in r.readable_metrics.asDict().items():
            if {"element", "key", "value"} & set(col.split(".")):
                continue
            o = out.setdefault(col, {"values": 0, "nulls": 0, "nans": 0, "lower": None,
                                     "upper": None})
            for k, f in (("values", "value_count"), ("nulls", "null_value_count"),
                         ("nans", "nan_value_count")):
                v = m[f]
                o[k] = None if v is None or o[k] is None else o[k] + v
            if m["lower_bound"] is not None:
                o["lower"] = m["lower_bound"] if o["lower"] is None else min(o["lower"],
                                                                               m["lower_bound"])
            if m["upper_bound"] is not None:
                o["upper"] = m["upper_bound"] if o["upper"] is None else max(o["upper"],
                                                                               m["upper_bound"])
    return out


def test_nested_types_and_edge_values_both_ways(spark, wh, tmp_path):
    """Pre-1970 times, 38-digit decimals, NaN, -0.0, infinities, empty and
    Unicode strings, lists of structs, maps of structs, lists of lists,
    null and empty collections: Spark's file read by floe, and the same
    rows written by floe read by Spark, also through Spark's filters."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.t11")
    spark.sql(f"CREATE TABLE floe.t11.by_spark {EDGE_SPARK} USING iceberg "
              "TBLPROPERTIES ('format-version'='2', 'write.parquet.compression-codec'='snappy')")
    spark.sql(f"INSERT INTO floe.t11.by_spark {EDGE_SQL}")
    sp = spark_rows(spark, "SELECT * FROM floe.t11.by_spark")
    assert len(sp) == 300
    fl = floe_rows(wh, "t11.by_spark")
    same_rows(fl, sp)

    floe_at(wh, "table", "create", "t11.by_floe", "--schema", EDGE_FLOE,
            "--partition", "bucket(3, id), year(ts)")
    floe_at(wh, "table", "append", "t11.by_floe", write_jsonl(tmp_path / "edge.jsonl", fl))
    same_rows(floe_rows(wh, "t11.by_floe"), sp)
    same_rows(spark_rows(spark, "SELECT * FROM floe.t11.by_floe"), sp)
    assert spark_columns(spark, "floe.t11.by_floe") == \
        spark_columns(spark, "floe.t11.by_spark")
    assert_same_metadata(spark, wh, "t11.by_floe")
    # Column metrics over all data files, as Java decodes them: counts and
    # the overall bounds of floe's files are those of Spark's.
    summary = metrics_summary(spark, "floe.t11.by_floe")
    assert summary == metrics_summary(spark, "floe.t11.by_spark")
    assert {"d38", "ts", "s", "b", "f", "db", "st.p.q", "st.z"} <= set(summary)
    for sql in ["d38 > -4970000000000.5", "d38 < -4999000000000", "d18 BETWEEN -100 AND -50",
                "ts < TIMESTAMP '1911-01-01 00:00:00'", "dt >= DATE '1960-01-01'",
                "tsn < TIMESTAMP_NTZ '1900-01-20 00:00:00'", "s = ''", "s > 'ünï'",
                "isnan(db)", "db = 0.0", "f < 2.0", "b = X'ABAB'", "st.p.q = 7",
                "i IN (-100, 0, 199)"]:
        want = spark_rows(spark, f"SELECT * FROM floe.t11.by_spark WHERE {sql}")
        assert want, sql
        same_rows(spark_rows(spark, f"SELECT * FROM floe.t11.by_floe WHERE {sql}"), want)
