"""Every Iceberg type through floe's SQL, against PyIceberg and DuckDB.

PyIceberg writes a table with every type (structs, lists and maps nested
three deep, NULLs at every level, fixed and uuid, v3's nanosecond
timestamps in a second table) and floe reads it back row for row; floe
writes the same rows (CREATE TABLE AS, INSERT with constructors) and
PyIceberg and DuckDB read what it wrote as the original."""
import datetime
import decimal
import glob
import json
import math
import uuid

import duckdb
import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType,
                             FixedType, FloatType, IntegerType, ListType, LongType, MapType,
                             NestedField, StringType, StructType, TimestampNanoType,
                             TimestamptzNanoType, TimestamptzType, TimestampType, TimeType,
                             UUIDType)

from conftest import run_floe


def catalog_for(wh):
    return SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def select(wh, text):
    out = run_floe("--warehouse", wh, "sql", "--format", "json", "-c", text).stdout.strip()
    return json.loads(out) if out else []


SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "b", BooleanType()),
    NestedField(3, "i", IntegerType()),
    NestedField(4, "f", FloatType()),
    NestedField(5, "d", DoubleType()),
    NestedField(6, "dec", DecimalType(10, 2)),
    NestedField(7, "dt", DateType()),
    NestedField(8, "tm", TimeType()),
    NestedField(9, "ts", TimestampType()),
    NestedField(10, "tstz", TimestamptzType()),
    NestedField(11, "s", StringType()),
    NestedField(12, "u", UUIDType()),
    NestedField(13, "fx", FixedType(3)),
    NestedField(14, "bin", BinaryType()),
    NestedField(15, "st", StructType(
        NestedField(16, "a", IntegerType()),
        NestedField(17, "nest", StructType(
            NestedField(18, "xs", ListType(19, StringType(), element_required=False)),
            NestedField(20, "m", MapType(21, StringType(), 22, LongType(),
                                         value_required=False)))))),
    NestedField(23, "li", ListType(24, ListType(25, IntegerType(), element_required=False),
                                   element_required=False)),
    NestedField(26, "mp", MapType(27, IntegerType(), 28, StructType(
        NestedField(29, "x", DoubleType()), NestedField(30, "fx", FixedType(2))),
        value_required=False)),
    NestedField(31, "ls", ListType(32, StructType(
        NestedField(33, "k", StringType()), NestedField(34, "v", DecimalType(5, 1))),
        element_required=False)),
)

UTC = datetime.timezone.utc
ROWS = [
    dict(id=1, b=True, i=7, f=1.5, d=2.25, dec=decimal.Decimal("12.34"),
         dt=datetime.date(2024, 2, 29), tm=datetime.time(13, 14, 15, 123456),
         ts=datetime.datetime(2024, 1, 2, 3, 4, 5, 678901),
         tstz=datetime.datetime(2024, 1, 2, 3, 4, 5, 1, tzinfo=UTC), s="héllo",
         u=uuid.UUID("123e4567-e89b-12d3-a456-426614174000").bytes, fx=b"abc", bin=b"\x00\xff",
         st=dict(a=1, nest=dict(xs=["p", None, "q"], m=[("k1", 1), ("k2", None)])),
         li=[[1, 2], None, [None, 3], []], mp=[(1, dict(x=0.5, fx=b"zz")), (2, None)],
         ls=[dict(k="a", v=decimal.Decimal("1.5")), None, dict(k=None, v=None)]),
    dict(id=2, b=None, i=None, f=None, d=None, dec=None, dt=None, tm=None, ts=None, tstz=None,
         s=None, u=None, fx=None, bin=None, st=None, li=None, mp=None, ls=None),
    dict(id=3, b=False, i=-1, f=-2.5, d=float("nan"), dec=decimal.Decimal("-0.01"),
         dt=datetime.date(1969, 12, 31), tm=datetime.time(0, 0),
         ts=datetime.datetime(1960, 1, 1), tstz=None, s="", u=None, fx=b"\x00\x01\x02",
         bin=b"", st=dict(a=None, nest=None), li=[], mp=[(3, dict(x=None, fx=None))], ls=[]),
    dict(id=4, b=True, i=0, f=0.0, d=1e300, dec=None, dt=None, tm=None, ts=None, tstz=None,
         s="x\"y", u=None, fx=None, bin=None, st=dict(a=5, nest=dict(xs=None, m=None)),
         li=[None], mp=None, ls=[None]),
]


def text_of(v):
    """The text floe's CAST(x AS varchar) gives a scalar."""
    if isinstance(v, datetime.datetime):
        s = v.strftime("%Y-%m-%d %H:%M:%S.%f")
        return s + " UTC" if v.tzinfo else s
    if isinstance(v, datetime.time):
        return v.strftime("%H:%M:%S.%f")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, uuid.UUID):
        return str(v)
    return v


def json_of(v):
    """What json.loads gives for floe's CAST(v AS json) of a PyIceberg value."""
    if v is None:
        return None
    if isinstance(v, dict):
        return {k: json_of(x) for k, x in v.items()}
    if isinstance(v, list):
        if v and all(isinstance(e, tuple) for e in v):
            return {str(text_of(k)): json_of(x) for k, x in v}
        return [json_of(e) for e in v]
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    return text_of(v)


SCALARS = ["b", "i", "f", "d", "dec", "dt", "tm", "ts", "tstz", "s", "u", "st", "li", "ls"]
FLOE_QUERY = ("SELECT id, " + ", ".join(f"CAST({c} AS json) AS {c}" for c in SCALARS) +
              ", to_hex(fx) AS fx, to_hex(bin) AS bin, CAST(map_keys(mp) AS json) AS mk,"
              " CAST(transform_x AS json) AS mx, to_hex(element_at(mp, 1).fx) AS mfx FROM ")


def floe_rows(wh, table):
    q = FLOE_QUERY.replace("transform_x", "element_at(mp, 1).x") + table + " ORDER BY id"
    out = []
    for r in select(wh, q):
        row = {"id": r["id"]}
        for c in SCALARS + ["mk", "mx"]:
            row[c] = None if r[c] is None else json.loads(r[c])
        for c in ["fx", "bin", "mfx"]:
            row[c] = r[c]
        out.append(row)
    return out


def expected_rows(rows):
    out = []
    for src in rows:
        r = {k: v for k, v in src.items()}
        if r["u"] is not None and not isinstance(r["u"], uuid.UUID):
            r["u"] = uuid.UUID(bytes=r["u"])
        row = {"id": r["id"]}
        for c in SCALARS:
            row[c] = json_of(r[c])
        row["fx"] = r["fx"].hex().upper() if r["fx"] is not None else None
        row["bin"] = r["bin"].hex().upper() if r["bin"] is not None else None
        mp = dict(r["mp"]) if r["mp"] is not None else None
        row["mk"] = None if mp is None else sorted(mp)
        first = mp.get(1) if mp else None
        row["mx"] = first["x"] if first else None
        row["mfx"] = first["fx"].hex().upper() if first and first["fx"] is not None else None
        out.append(row)
    return out


def same(got, want):
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        if g["mk"] is not None:
            g["mk"] = sorted(g["mk"])
        for k in w:
            gv, wv = g[k], w[k]
            if isinstance(wv, float) and isinstance(gv, (int, float)):
                assert math.isclose(gv, wv, rel_tol=1e-6), (w["id"], k, gv, wv)
            else:
                assert gv == wv, (w["id"], k, gv, wv)


@pytest.fixture
def wh(tmp_path):
    w = tmp_path / "wh"
    w.mkdir()
    cat = catalog_for(w)
    cat.create_namespace("db")
    t = cat.create_table("db.src", SCHEMA)
    t.append(pa.Table.from_pylist(ROWS, schema=t.schema().as_arrow()))
    return w


def test_pyiceberg_table_reads_row_for_row(wh):
    py = catalog_for(wh).load_table("db.src").scan().to_arrow().to_pylist()
    same(floe_rows(wh, "db.src"), expected_rows(sorted(py, key=lambda r: r["id"])))
    # The same data file through read_parquet (fixed columns read as varbinary).
    files = glob.glob(f"{wh}/db/src/data/**/*.parquet", recursive=True)
    same(floe_rows(wh, f"read_parquet({files!r})".replace('"', "'")),
         expected_rows(sorted(py, key=lambda r: r["id"])))
    # Every column is in *, with Trino's types.
    cols = {r["Column"]: r["Type"] for r in select(wh, "DESCRIBE db.src")}
    assert cols["st"] == "row(a integer, nest row(xs array(varchar), m map(varchar, bigint)))"
    assert cols["mp"] == "map(integer, row(x double, fx varbinary))"
    assert cols["ts"] == "timestamp(6)" and cols["tm"] == "time(6)" and cols["fx"] == "varbinary"
    # Filters reach into nested values.
    got = select(wh, "SELECT id FROM db.src WHERE st.nest.xs[1] = 'p' OR contains(element_at(li, 3), 3)"
                     " OR cardinality(mp) = 1 ORDER BY id")
    assert [r["id"] for r in got] == [1, 3]


def norm(v):
    """PyIceberg's and DuckDB's Python values in one shape (an empty map
    as an empty list: no struct here is empty)."""
    if isinstance(v, dict) and not v:
        return []
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list):
        if v and all(isinstance(e, tuple) and len(e) == 2 for e in v):
            return {k: norm(x) for k, x in v}
        return [norm(e) for e in v]
    if isinstance(v, uuid.UUID):
        return v.bytes
    if isinstance(v, datetime.datetime) and v.tzinfo:
        return v.astimezone(UTC)
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    return v


def by_id(rows):
    return sorted((norm(r) for r in rows), key=lambda r: r["id"])


def duck_rows(wh, table):
    files = glob.glob(f"{wh}/db/{table}/data/**/*.parquet", recursive=True)
    assert files
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    rel = con.sql(f"SELECT * FROM read_parquet({files!r})")
    names = rel.columns
    return [dict(zip(names, t)) for t in rel.fetchall()]


def test_floe_writes_what_pyiceberg_and_duckdb_read(wh):
    # What PyIceberg itself reads of its table is the reference (pyarrow
    # writes some NULL lists and maps of structs as empty ones).
    cat = catalog_for(wh)
    want = by_id(cat.load_table("db.src").scan().to_arrow().to_pylist())
    # CREATE TABLE AS: fixed columns become binary (varbinary), the rest
    # keep their types; the file has Iceberg's field ids and 3-level lists.
    run_floe("--warehouse", wh, "sql", "-c", "CREATE TABLE db.ctas AS SELECT * FROM db.src")
    # INSERT into the PyIceberg table: varbinary back into fixed(3).
    run_floe("--warehouse", wh, "sql", "-c",
             "INSERT INTO db.src SELECT id + 10, b, i, f, d, dec, dt, tm, ts, tstz, s, u, fx, bin,"
             " st, li, mp, ls FROM db.src")
    ctas = by_id(cat.load_table("db.ctas").scan().to_arrow().to_pylist())
    assert ctas == want
    assert by_id(duck_rows(wh, "ctas")) == want
    src = by_id(cat.load_table("db.src").scan().to_arrow().to_pylist())
    moved = [dict(r, id=r["id"] - 10) for r in src if r["id"] > 10]
    assert moved == want
    assert str(cat.load_table("db.src").schema().find_field("fx").field_type) == "fixed[3]"


def test_sql_constructors_write_nested_values(wh):
    run_floe("--warehouse", wh, "sql", "-c",
             "CREATE TABLE db.n (id bigint, r row(a integer, b array(map(varchar, double))),"
             " l array(array(row(x bigint))), m map(bigint, array(varchar)))")
    run_floe("--warehouse", wh, "sql", "-c",
             "INSERT INTO db.n VALUES"
             " (1, CAST(ROW(1, ARRAY[map(ARRAY['k'], ARRAY[1.5]), NULL]) AS"
             " row(a integer, b array(map(varchar, double)))),"
             " ARRAY[ARRAY[CAST(ROW(7) AS row(x bigint)), NULL], NULL],"
             " map(ARRAY[CAST(5 AS bigint)], ARRAY[ARRAY['a', NULL]])),"
             " (2, NULL, ARRAY[], map()), (3, CAST(ROW(NULL, NULL) AS"
             " row(a integer, b array(map(varchar, double)))), NULL, NULL)")
    want = [
        dict(id=1, r=dict(a=1, b=[{"k": 1.5}, None]), l=[[dict(x=7), None], None],
             m={5: ["a", None]}),
        dict(id=2, r=None, l=[], m=[]),
        dict(id=3, r=dict(a=None, b=None), l=None, m=None),
    ]
    py = by_id(catalog_for(wh).load_table("db.n").scan().to_arrow().to_pylist())
    assert py == want
    assert by_id(duck_rows(wh, "n")) == want
    # UPDATE keeps the nested columns of the rows it rewrites.
    run_floe("--warehouse", wh, "sql", "-c", "UPDATE db.n SET id = id * 10 WHERE id = 1")
    py = by_id(catalog_for(wh).load_table("db.n").scan().to_arrow().to_pylist())
    assert py[-1] == dict(want[0], id=10)


def test_nanosecond_timestamps_of_a_v3_table(tmp_path):
    # PyIceberg does not write v3 tables yet: floe writes, PyIceberg's
    # schema, pyarrow and DuckDB read.
    wh = tmp_path / "wh"
    wh.mkdir()
    run_floe("--warehouse", wh, "sql", "-c", "CREATE SCHEMA db")
    run_floe("--warehouse", wh, "sql", "-c",
             "CREATE TABLE db.ns (id bigint, ts timestamp(9), tz timestamp(9) with time zone)"
             " WITH (format_version = 3)")
    run_floe("--warehouse", wh, "sql", "-c",
             "INSERT INTO db.ns VALUES (1, TIMESTAMP '2024-01-02 03:04:05.123456789',"
             " TIMESTAMP '1970-01-01 00:00:00.000000005 UTC'), (2, NULL, NULL)")
    got = select(wh, "SELECT id, CAST(ts AS varchar) AS ts, CAST(tz AS varchar) AS tz,"
                     " typeof(ts) AS t FROM db.ns ORDER BY id")
    assert got == [
        {"id": 1, "ts": "2024-01-02 03:04:05.123456789",
         "tz": "1970-01-01 00:00:00.000000005 UTC", "t": "timestamp(9)"},
        {"id": 2, "ts": None, "tz": None, "t": "timestamp(9)"},
    ]
    assert select(wh, "SELECT count(*) AS n FROM db.ns WHERE ts > TIMESTAMP"
                      " '2024-01-02 03:04:05.123456788'") == [{"n": 1}]
    schema = catalog_for(wh).load_table("db.ns").schema()
    assert isinstance(schema.find_field("ts").field_type, TimestampNanoType)
    assert isinstance(schema.find_field("tz").field_type, TimestamptzNanoType)
    files = glob.glob(f"{wh}/db/ns/data/**/*.parquet", recursive=True)
    import pyarrow.parquet as pq
    t = pa.concat_tables([pq.read_table(f) for f in files]).sort_by("id")
    assert t.schema.field("ts").type == pa.timestamp("ns")
    assert t.schema.field("tz").type == pa.timestamp("ns", tz="UTC")
    assert t.column("ts").cast(pa.int64()).to_pylist() == [1704164645123456789, None]
    assert t.column("tz").cast(pa.int64()).to_pylist() == [5, None]
    con = duckdb.connect()
    n = con.sql(f"SELECT count(*) FROM read_parquet({files!r})"
                " WHERE ts = TIMESTAMP_NS '2024-01-02 03:04:05.123456789'").fetchall()[0][0]
    assert n == 1


FIXTURE_TABLES = [
    # (name, table location under the fixture root, metadata file, data files)
    ("u", "data/persistent/uuid", "00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json",
     "data/persistent/uuid/data"),
    ("ms", "data/persistent/map_stats/default.db/map_stats",
     "00002-0e059d4b-e5e8-41af-a763-76cbf3a3d0bc.metadata.json",
     "data/persistent/map_stats/default.db/map_stats/data"),
    ("cm", "data/persistent/column_mapping/warehouse/default.db/my_table",
     "00001-75643dae-a7a7-46ae-ab30-ea80d3793f3f.metadata.json",
     "data/persistent/column_mapping/warehouse/example"),
]


def test_tables_of_other_writers(tmp_path, testdata):
    """Spark and PyIceberg tables from the shared test data (uuid, a map,
    a name-mapped table of a map, a list and a struct) read as the files
    hold them; their paths are relative to the fixture folder."""
    import subprocess
    import pyarrow.parquet as pq
    from conftest import FLOE
    root = testdata / "iceberg-fixtures" / "duckdb-iceberg"
    wh = tmp_path / "wh"
    wh.mkdir()

    def floe_in_root(text):
        p = subprocess.run([str(FLOE), "--warehouse", str(wh), "sql", "--format", "json", "-c",
                            text], cwd=root, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        out = p.stdout.strip()
        return json.loads(out) if out else []

    floe_in_root("CREATE SCHEMA db")
    for name, loc, meta, data in FIXTURE_TABLES:
        floe_in_root(f"CALL system.register_table('db', '{name}', '{loc}', '{meta}')")
        cols = [r["Column"] for r in floe_in_root(f"DESCRIBE db.{name}")]
        types = {r["Column"]: r["Type"] for r in floe_in_root(f"DESCRIBE db.{name}")}
        sel = ", ".join(f'CAST("{c}" AS json) AS "{c}"' if types[c] != "uuid" else
                        f'CAST("{c}" AS varchar) AS "{c}"' for c in cols)
        got = [{c: (json.loads(r[c]) if r[c] is not None and types[c] != "uuid" else r[c])
                for c in cols} for r in floe_in_root(f"SELECT {sel} FROM db.{name}")]
        files = sorted(glob.glob(str(root / data / "**" / "*.parquet"), recursive=True))
        want = []
        for f in files:
            for r in pq.read_table(f).to_pylist():
                want.append({c: json_of(uuid.UUID(bytes=r[c]) if isinstance(r[c], bytes) and
                                        types[c] == "uuid" else r[c]) for c in cols})
        key = lambda r: json.dumps(r, sort_keys=True, default=str)
        assert sorted(got, key=key) == sorted(want, key=key), name
    assert {r["Column"]: r["Type"] for r in floe_in_root("DESCRIBE db.cm")}["profile"] == \
        "row(email varchar, verified boolean)"


def test_insert_into_a_branch_reads_in_pyiceberg(wh):
    run_floe("--warehouse", wh, "sql", "-c", "ALTER TABLE db.src CREATE BRANCH dev")
    run_floe("--warehouse", wh, "sql", "-c",
             "INSERT INTO db.src.branch_dev SELECT id + 100, b, i, f, d, dec, dt, tm, ts, tstz, s,"
             " u, fx, bin, st, li, mp, ls FROM db.src")
    t = catalog_for(wh).load_table("db.src")
    main = t.scan().to_arrow().column("id").to_pylist()
    dev = t.scan(snapshot_id=t.refs()["dev"].snapshot_id).to_arrow()
    assert sorted(main) == [1, 2, 3, 4]
    assert sorted(dev.column("id").to_pylist()) == [1, 2, 3, 4, 101, 102, 103, 104]
    moved = by_id(r for r in dev.to_pylist() if r["id"] > 100)
    orig = by_id(t.scan().to_arrow().to_pylist())
    assert [dict(r, id=r["id"] - 100) for r in moved] == orig
