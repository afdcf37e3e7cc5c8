"""Iceberg scans (src/iceberg/ice_scan_*.c) against PyIceberg 0.12: every
complete table of the duckdb-iceberg fixtures (written by Spark and
PyIceberg: partition and schema evolution, v1 tables, equality deletes,
every identity-partition type) and tables PyIceberg writes here (deletes,
schema evolution, partition evolution) are read through
build/tests/scan_tool and by PyIceberg, at the current snapshot, at every
older snapshot and with filters, and must give the same rows. Position
deletes PyIceberg reads are committed here by hand (PyIceberg writes only
copy-on-write deletes); v3 deletion vectors are built with pyroaring.

PyIceberg does not read equality deletes; for tables that have them the
expected rows come from a reference in this file: PyIceberg reads each
data file alone (with its position deletes), then the equality delete
files (pyarrow) remove rows by the spec's rule (delete sequence number
above the data file's, same partition or an unpartitioned delete spec,
nulls equal)."""
import datetime as dt
import decimal
import glob
import gzip
import json
import math
import os
import pathlib
import subprocess
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = pathlib.Path(os.environ.get("FLOE_SCAN_TOOL", ROOT / "build" / "tests" / "scan_tool"))


def _testdata():
    for cand in (ROOT / ".." / "shared" / "testdata", ROOT / ".." / ".." / "shared" / "testdata"):
        if cand.exists():
            return cand.resolve()
    return (ROOT / ".." / "shared" / "testdata").resolve()


FIXTURES = _testdata() / "iceberg-fixtures" / "duckdb-iceberg"

pyiceberg = pytest.importorskip("pyiceberg")
from pyiceberg import expressions as E  # noqa: E402
from pyiceberg.io.pyarrow import ArrowScan  # noqa: E402
from pyiceberg.manifest import DataFileContent  # noqa: E402
from pyiceberg.table import FileScanTask, StaticTable  # noqa: E402
from pyiceberg import types as T  # noqa: E402
from pyiceberg.exceptions import ResolveError  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.transforms import IdentityTransform  # noqa: E402

EPOCH = dt.datetime(1970, 1, 1)
EPOCH_TZ = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True, scope="module")
def tool_built():
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build first")


# ---- running floe ----

def floe_scan(metadata, base_dir=None, snapshot=None, filt=None, columns=None, limit=None,
              ref=None, as_of=None, case_insensitive=False, check=True):
    args = [str(TOOL), "--metadata", str(metadata)]
    if base_dir:
        args += ["--base-dir", str(base_dir)]
    if snapshot is not None:
        args += ["--snapshot", str(snapshot)]
    if ref is not None:
        args += ["--ref", ref]
    if as_of is not None:
        args += ["--as-of", str(as_of)]
    if filt is not None:
        args += ["--filter", filt]
    if columns is not None:
        args += ["--columns", ",".join(columns)]
    if limit is not None:
        args += ["--limit", str(limit)]
    if case_insensitive:
        args += ["--case-insensitive"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if not check:
        return proc
    if proc.returncode != 0:
        raise AssertionError(f"scan_tool {' '.join(args[1:])} failed ({proc.returncode}):\n"
                             f"{proc.stderr}")
    rows, stats = [], None
    for line in proc.stdout.splitlines():
        obj = json.loads(line)
        if "__stats__" in obj:
            stats = obj["__stats__"]
        else:
            rows.append(obj)
    assert stats is not None, proc.stdout[-500:]
    return rows, stats


# ---- normalizing PyIceberg's values to scan_tool's raw forms ----

def norm(v, t):
    if v is None:
        return None
    if isinstance(t, T.StructType):
        return {f.name: norm(v.get(f.name), f.field_type) for f in t.fields}
    if isinstance(t, T.ListType):
        return [norm(x, t.element_type) for x in v]
    if isinstance(t, T.MapType):
        items = v.items() if isinstance(v, dict) else v
        return [[norm(k, t.key_type), norm(x, t.value_type)] for k, x in items]
    if isinstance(t, (T.FloatType, T.DoubleType)):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return float(v)
    if isinstance(t, T.DecimalType):
        return format(decimal.Decimal(v), "f")
    if isinstance(v, int) and isinstance(t, (T.DateType, T.TimeType, T.TimestampType,
                                             T.TimestamptzType)):
        return v  # partition values come raw
    if isinstance(t, T.DateType):
        return (v - EPOCH.date()).days
    if isinstance(t, T.TimeType):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond
    if isinstance(t, (T.TimestampType, T.TimestamptzType)):
        if v.tzinfo is not None:
            d = v - EPOCH_TZ
        else:
            d = v - EPOCH
        return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
    if isinstance(t, T.UUIDType):
        return str(v if isinstance(v, uuid.UUID) else uuid.UUID(bytes=bytes(v)))
    if isinstance(t, (T.BinaryType, T.FixedType)):
        return bytes(v).hex()
    if isinstance(t, T.BooleanType):
        return bool(v)
    if isinstance(t, (T.IntegerType, T.LongType)):
        return int(v)
    return v


def norm_floe(v):
    """JSON floats of integral value stay floats; make comparisons exact."""
    if isinstance(v, dict):
        return {k: norm_floe(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm_floe(x) for x in v]
    if isinstance(v, float):
        return float(v)
    return v


def arrow_rows(tbl, schema):
    out = []
    cols = [f for f in schema.fields if f.name in tbl.column_names]
    for r in tbl.to_pylist():
        out.append({f.name: norm(r[f.name], f.field_type) for f in cols})
    return out


def key(row):
    return json.dumps(row, sort_keys=True, default=str)


def same_rows(got, want, what):
    g = sorted((norm_floe(r) for r in got), key=key)
    w = sorted(want, key=key)
    if g != w:
        gs, ws = {key(r) for r in g}, {key(r) for r in w}
        extra = [r for r in g if key(r) not in ws][:5]
        missing = [r for r in w if key(r) not in gs][:5]
        raise AssertionError(f"{what}: floe {len(g)} rows, expected {len(w)}; "
                             f"extra {extra}; missing {missing}")


# ---- the expected side ----

def has_eq_deletes(table, snapshot):
    for m in snapshot.manifests(table.io):
        if int(getattr(m.content, "value", m.content)) == 1:
            for e in m.fetch_manifest_entry(table.io):
                if e.data_file.content == DataFileContent.EQUALITY_DELETES:
                    return True
    return False


def snapshot_schema(table, snapshot_id):
    return table.scan(snapshot_id=snapshot_id).projection()


def eq_delete_keys(table, df, schema):
    """The equality key tuples of an equality delete file (normalized)."""
    pf = pq.ParquetFile(resolve(df.file_path))
    by_id = {}
    for i, f in enumerate(pf.schema_arrow):
        if f.metadata and b"PARQUET:field_id" in f.metadata:
            by_id[int(f.metadata[b"PARQUET:field_id"])] = f.name
    tbl = pf.read()
    names = [by_id[i] for i in df.equality_ids]
    types = [schema.find_field(i).field_type for i in df.equality_ids]
    cols = [tbl.column(n).to_pylist() for n in names]
    return {tuple(norm(c[k], t) for c, t in zip(cols, types)) for k in range(tbl.num_rows)}


def data_entries(table, snapshot_id):
    snap = table.metadata.snapshot_by_id(snapshot_id)
    return [e for m in snap.manifests(table.io) for e in m.fetch_manifest_entry(table.io)]


def reference_rows(table, snapshot_id, row_filter=None):
    """Rows of a snapshot with equality deletes applied by the spec's rules."""
    snap = table.metadata.snapshot_by_id(snapshot_id)
    schema = snapshot_schema(table, snapshot_id)
    data, pos, eqs = [], [], []
    for m in snap.manifests(table.io):
        for e in m.fetch_manifest_entry(table.io):
            c = e.data_file.content
            (data if c == DataFileContent.DATA else pos if c == DataFileContent.POSITION_DELETES
             else eqs).append(e)
    specs = table.metadata.specs()
    out = []
    key_cache = {}
    for d in data:
        dels = {p.data_file for p in pos if p.sequence_number >= d.sequence_number}
        # Identity partition values stand in for source columns the file lacks.
        file_ids = set()
        for f in pq.read_schema(resolve(d.data_file.file_path)):
            if f.metadata and b"PARQUET:field_id" in f.metadata:
                file_ids.add(int(f.metadata[b"PARQUET:field_id"]))
        spec = specs[d.data_file.spec_id]
        consts = {pf.source_id: d.data_file.partition[i] for i, pf in enumerate(spec.fields)
                  if isinstance(pf.transform, IdentityTransform) and pf.source_id not in file_ids}
        proj = Schema(*[f for f in schema.fields if f.field_id not in consts])
        scan = ArrowScan(table.metadata, table.io, proj,
                         row_filter if row_filter is not None and not consts else E.AlwaysTrue())
        tbl = scan.to_table([FileScanTask(d.data_file, delete_files=dels)])
        rows = arrow_rows(tbl, proj)
        for fid, v in consts.items():
            f = schema.find_field(fid)
            for r in rows:
                r[f.name] = norm(v, f.field_type)
        for x in eqs:
            if x.sequence_number <= d.sequence_number:
                continue
            xs = specs[x.data_file.spec_id]
            if not xs.is_unpartitioned() and (x.data_file.spec_id != d.data_file.spec_id or
                                              x.data_file.partition != d.data_file.partition):
                continue
            if x.data_file.file_path not in key_cache:
                key_cache[x.data_file.file_path] = eq_delete_keys(table, x.data_file, schema)
            keys = key_cache[x.data_file.file_path]
            names = [schema.find_field(i).name for i in x.data_file.equality_ids]
            rows = [r for r in rows if tuple(r[n] for n in names) not in keys]
        out.extend(rows)
    return out


def expected_rows(table, snapshot_id, pyi_filter=None, py_filter=None):
    """PyIceberg's rows, or the reference's where PyIceberg cannot read the
    table (equality deletes; identity partition columns missing from the
    files, which PyIceberg 0.12 refuses when they are required)."""
    snap = table.metadata.snapshot_by_id(snapshot_id)
    schema = snapshot_schema(table, snapshot_id)
    if not has_eq_deletes(table, snap):
        try:
            scan = table.scan(snapshot_id=snapshot_id,
                              row_filter=pyi_filter if pyi_filter is not None else E.AlwaysTrue())
            return arrow_rows(scan.to_arrow(), schema)
        except ResolveError:
            pass
    rows = reference_rows(table, snapshot_id, pyi_filter)
    return [r for r in rows if py_filter(r)] if py_filter else rows


# ---- the fixtures ----

def read_json(path):
    b = open(path, "rb").read()
    if b[:2] == b"\x1f\x8b":
        b = gzip.decompress(b)
    return json.loads(b)


def resolve(p):
    if p.startswith("file://"):
        p = p[len("file://"):]
    return p if p.startswith("/") else str(FIXTURES / p)


def snapshot_complete(md, snap):
    import fastavro
    ml = snap.get("manifest-list")
    mans = []
    if ml:
        if not os.path.exists(resolve(ml)):
            return False
        with open(resolve(ml), "rb") as f:
            mans = [r["manifest_path"] for r in fastavro.reader(f)]
    else:
        mans = snap.get("manifests", [])
    for mp in mans:
        if not os.path.exists(resolve(mp)):
            return False
        with open(resolve(mp), "rb") as f:
            for e in fastavro.reader(f):
                if not os.path.exists(resolve(e["data_file"]["file_path"])):
                    return False
    return True


def live_record_count(md, sid):
    """Rows of a snapshot without delete files, from its manifests."""
    import fastavro
    snap = next(s for s in md["snapshots"] if s["snapshot-id"] == sid)
    if snap.get("manifest-list"):
        with open(resolve(snap["manifest-list"]), "rb") as f:
            mans = [r["manifest_path"] for r in fastavro.reader(f)]
    else:
        mans = snap["manifests"]
    n = 0
    for mp in mans:
        with open(resolve(mp), "rb") as f:
            for e in fastavro.reader(f):
                assert e["data_file"].get("content", 0) == 0
                if e["status"] != 2:
                    n += e["data_file"]["record_count"]
    return n


def fixture_tables():
    """(name, newest metadata file, [complete snapshot ids]) per fixture table."""
    out = []
    metas = glob.glob(str(FIXTURES / "data" / "persistent" / "**" / "*.metadata.json"),
                      recursive=True)
    by_dir = {}
    for m in metas:
        if "/." in m:
            continue
        by_dir.setdefault(os.path.dirname(m), []).append(m)
    for d, ms in sorted(by_dir.items()):
        best = None
        for m in ms:
            try:
                md = read_json(m)
            except Exception:
                continue
            if "format-version" not in md:
                continue
            k = (md.get("last-updated-ms", 0), len(md.get("snapshots", [])), m)
            if best is None or k > best[0]:
                best = (k, m, md)
        if best is None:
            continue
        _, m, md = best
        snaps = [s["snapshot-id"] for s in md.get("snapshots", []) if snapshot_complete(md, s)]
        if not snaps:
            continue
        name = os.path.relpath(d, FIXTURES / "data" / "persistent")
        out.append((name, m, snaps))
    return out


FIXTURE_TABLES = fixture_tables() if FIXTURES.exists() else []

# Tables whose reading needs what neither side supports.
UNSUPPORTED = {}
# Tables PyIceberg 0.12 cannot read: floe's rows are checked against the
# manifests' record counts instead.
PEER_FAILS = {
    "legacy_bare_deletion_vector": "PyIceberg reads deletion vectors only inside Puffin framing",
    "big_query_error": "PyIceberg rejects the metadata",
    "name_mapping": "PyIceberg fails applying this name mapping",
    "iceberg_v1_deprecated": "PyIceberg rejects the metadata",
}
# Snapshot ids beyond 64 bits: not valid Iceberg (ids are Java longs).
INVALID = {"equality_delete_cross_partition", "equality_delete_extra_column"}


def load_static(meta):
    text = open(meta, "rb").read()
    if b'"file://' in text and b'"file:///' not in text:
        # Relative paths written as file://data/...: fsspec reads them from
        # the current folder, pyarrow's file system takes "data" for a host.
        return StaticTable.from_metadata(str(meta),
                                         properties={"py-io-impl": "pyiceberg.io.fsspec.FsspecFileIO"})
    return StaticTable.from_metadata(str(meta))


def literal(v, t):
    """floe filter text for a normalized value."""
    if isinstance(t, T.StringType):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(t, T.DateType):
        return "'" + (EPOCH.date() + dt.timedelta(days=v)).isoformat() + "'"
    return str(v)


def pyi_literal(v, t):
    if isinstance(t, T.DateType):
        return (EPOCH.date() + dt.timedelta(days=v)).isoformat()
    if isinstance(t, T.DecimalType):
        return decimal.Decimal(v)
    return v


FILTER_TYPES = (T.IntegerType, T.LongType, T.StringType, T.DateType, T.DecimalType)


def filters_for(table, schema, snapshot_id):
    """A few filters on the table's own values: (floe text, PyIceberg
    expression, the same as a Python predicate on normalized rows)."""
    rows = reference_rows(table, snapshot_id)
    out = []
    picked = 0
    for f in schema.fields:
        if picked == 2:
            break
        if not isinstance(f.field_type, FILTER_TYPES):
            continue
        if any(c in f.name for c in " .\"'"):
            continue
        ft = f.field_type
        c = (lambda x: None if x is None else decimal.Decimal(x)) if isinstance(
            ft, T.DecimalType) else (lambda x: x)
        vals = sorted(c(r.get(f.name)) for r in rows if r.get(f.name) is not None)
        if not vals:
            continue
        picked += 1
        lv = vals[len(vals) // 2]
        v = format(lv, "f") if isinstance(ft, T.DecimalType) else lv
        n, lit = f.name, literal(v, ft)
        pv = pyi_literal(v, ft)

        def get(r, n=n, c=c):
            return c(r.get(n))
        out.append((f"{n} = {lit}", E.EqualTo(n, pv),
                    lambda r, g=get, lv=lv: g(r) is not None and g(r) == lv))
        out.append((f"{n} < {lit}", E.LessThan(n, pv),
                    lambda r, g=get, lv=lv: g(r) is not None and g(r) < lv))
        out.append((f"{n} >= {lit} OR {n} IS NULL",
                    E.Or(E.GreaterThanOrEqual(n, pv), E.IsNull(n)),
                    lambda r, g=get, lv=lv: g(r) is None or g(r) >= lv))
        out.append((f"{n} IS NOT NULL", E.NotNull(n), lambda r, g=get: g(r) is not None))
        out.append((f"NOT ({n} = {lit})", E.Not(E.EqualTo(n, pv)),
                    lambda r, g=get, lv=lv: g(r) is not None and g(r) != lv))
    return out


@pytest.fixture
def in_fixtures(monkeypatch):
    """PyIceberg opens the fixtures' relative paths from the current folder."""
    monkeypatch.chdir(FIXTURES)


@pytest.mark.parametrize("name,meta,snaps", FIXTURE_TABLES, ids=[t[0] for t in FIXTURE_TABLES])
def test_fixture_table(name, meta, snaps, in_fixtures):
    top = name.split("/")[0]
    if top in UNSUPPORTED:
        proc = floe_scan(meta, base_dir=FIXTURES, check=False)
        assert proc.returncode != 0 and "not supported" in proc.stderr, proc.stderr
        return
    if top in INVALID:
        proc = floe_scan(meta, base_dir=FIXTURES, check=False)
        assert proc.returncode == 1 and "scan_tool:" in proc.stderr, proc.stderr
        return
    if top == "legacy_bare_deletion_vector":
        # A bare deletion-vector blob deleting position 1 of the only data file.
        got, stats = floe_scan(meta, base_dir=FIXTURES)
        assert sorted(r["id"] for r in got) == [1, 3] and stats["rows_deleted"] == 1
        return
    if top in PEER_FAILS:
        md = read_json(meta)
        for sid in snaps:
            got, stats = floe_scan(meta, base_dir=FIXTURES, snapshot=sid)
            assert len(got) == live_record_count(md, sid)
        return
    table = load_static(meta)
    current = table.metadata.current_snapshot_id
    for sid in snaps:
        want = expected_rows(table, sid)
        args = {} if sid == current else {"snapshot": sid}
        got, stats = floe_scan(meta, base_dir=FIXTURES, **args)
        same_rows(got, want, f"{name} snapshot {sid}")
        assert stats["rows_out"] == len(want)
        assert stats["snapshot_id"] == sid
    # Filters on the current snapshot (or the newest complete one).
    sid = current if current in snaps else snaps[-1]
    schema = snapshot_schema(table, sid)
    for text, expr, pyf in filters_for(table, schema, sid):
        want = expected_rows(table, sid, expr, pyf)
        got, stats = floe_scan(meta, base_dir=FIXTURES, snapshot=sid, filt=text)
        same_rows(got, want, f"{name} snapshot {sid} filter {text}")
        assert stats["files_skipped_partition"] + stats["files_skipped_metrics"] <= \
            stats["files_total"]


def test_fixtures_found():
    names = {t[0].split("/")[0] for t in FIXTURE_TABLES}
    # The kinds of tables the brief names must be among the complete ones.
    for want in ("equality_deletes", "iceberg_v1_repro", "partition_integer",
                 "add_columns_with_defaults", "hive_partitioned_table"):
        assert want in names, sorted(names)


# ---- tables PyIceberg writes ----

def make_catalog(tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog
    wh = tmp_path / "warehouse"
    wh.mkdir()
    cat = SqlCatalog("scan", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{wh}")
    cat.create_namespace("ns")
    return cat


def metadata_path(table):
    loc = table.metadata_location
    return loc[len("file://"):] if loc.startswith("file://") else loc


def check_table(table, filters=()):
    """floe reads every snapshot of a PyIceberg table as PyIceberg does."""
    meta = metadata_path(table)
    for snap in table.metadata.snapshots:
        sid = snap.snapshot_id
        want = arrow_rows(table.scan(snapshot_id=sid).to_arrow(), snapshot_schema(table, sid))
        got, stats = floe_scan(meta, snapshot=sid)
        same_rows(got, want, f"snapshot {sid}")
        assert stats["rows_out"] == len(want)
    schema = table.schema()
    full = arrow_rows(table.scan().to_arrow(), schema)
    for text, expr, *pyf in filters:
        if pyf:
            # PyIceberg's own full scan, filtered here: where its filter is wrong.
            want = [r for r in full if pyf[0](r)]
        else:
            want = arrow_rows(table.scan(row_filter=expr).to_arrow(), schema)
        got, stats = floe_scan(meta, filt=text)
        same_rows(got, want, f"filter {text}")
        yield text, stats


def rows_batch(start, n, with_extra=False):
    base = dt.datetime(2024, 1, 1)
    cols = {
        "id": pa.array(range(start, start + n), pa.int64()),
        "name": pa.array([None if i % 7 == 0 else f"n{i % 10}" for i in range(start, start + n)]),
        "amt": pa.array([decimal.Decimal(i * 3 % 1000) / 100 for i in range(start, start + n)],
                        pa.decimal128(10, 2)),
        "d": pa.array([(base + dt.timedelta(days=i % 20)).date() for i in range(start, start + n)]),
        "ts": pa.array([base + dt.timedelta(hours=5 * i) for i in range(start, start + n)],
                       pa.timestamp("us")),
        "f": pa.array([float(i) / 4 if i % 11 else float("nan") for i in range(start, start + n)],
                      pa.float32()),
        "i": pa.array([i % 50 for i in range(start, start + n)], pa.int32()),
    }
    return cols


def test_pyiceberg_table_deletes_and_evolution(tmp_path):
    from pyiceberg.schema import Schema
    from pyiceberg.partitioning import PartitionSpec, PartitionField
    from pyiceberg.transforms import BucketTransform, DayTransform
    schema = Schema(
        T.NestedField(1, "id", T.LongType(), required=False),
        T.NestedField(2, "name", T.StringType(), required=False),
        T.NestedField(3, "amt", T.DecimalType(10, 2), required=False),
        T.NestedField(4, "d", T.DateType(), required=False),
        T.NestedField(5, "ts", T.TimestampType(), required=False),
        T.NestedField(6, "f", T.FloatType(), required=False),
        T.NestedField(7, "i", T.IntegerType(), required=False),
    )
    spec = PartitionSpec(PartitionField(source_id=5, field_id=1000, transform=DayTransform(),
                                        name="ts_day"))
    cat = make_catalog(tmp_path)
    table = cat.create_table("ns.t", schema=schema, partition_spec=spec)
    table.append(pa.table(rows_batch(0, 300)))
    table.append(pa.table(rows_batch(300, 200)))
    table.delete("id < 40")
    table.delete("name = 'n3'")
    # Schema evolution: promotions, a rename, a new column.
    with table.update_schema() as u:
        u.update_column("i", T.LongType())
        u.update_column("f", T.DoubleType())
        u.update_column("amt", T.DecimalType(12, 2))
        u.rename_column("name", "label")
        u.add_column("extra", T.StringType())
    table = cat.load_table("ns.t")
    cols = rows_batch(500, 150)
    cols["label"] = cols.pop("name")
    cols["i"] = cols["i"].cast(pa.int64())
    cols["f"] = cols["f"].cast(pa.float64())
    cols["amt"] = cols["amt"].cast(pa.decimal128(12, 2))
    cols["extra"] = pa.array([f"x{i % 3}" for i in range(150)])
    arrow_schema = table.schema().as_arrow()
    table.append(pa.table(cols).select(arrow_schema.names).cast(arrow_schema))
    # Partition evolution: by id bucket and label instead of by day.
    with table.update_spec() as u:
        u.remove_field("ts_day")
        u.add_field("id", BucketTransform(4), "id_bucket")
        u.add_identity("label")
    table = cat.load_table("ns.t")
    cols = rows_batch(650, 120)
    cols["label"] = cols.pop("name")
    cols["extra"] = pa.array([None if i % 2 else "y" for i in range(120)])
    table.append(pa.table(cols).select(arrow_schema.names).cast(arrow_schema))
    table.delete("id >= 700 AND id < 710")
    table = cat.load_table("ns.t")
    filters = [
        ("id >= 600", E.GreaterThanOrEqual("id", 600)),
        ("id = 711", E.EqualTo("id", 711)),
        ("label IS NULL", E.IsNull("label")),
        ("label = 'n5'", E.EqualTo("label", "n5")),
        ("i < 10", E.LessThan("i", 10)),
        ("d >= '2024-01-15'", E.GreaterThanOrEqual("d", "2024-01-15")),
        ("amt > 5.5", E.GreaterThan("amt", decimal.Decimal("5.50"))),
        ("extra IN ('x1', 'y')", E.In("extra", ["x1", "y"])),
        ("ts < '2024-01-20T00:00:00'", E.LessThan("ts", "2024-01-20T00:00:00")),
        # PyIceberg 0.12's IS NAN drops NaN rows its own full scan returns
        # (6 of 61 here, in bucket-partitioned files).
        ("f IS NAN", E.IsNaN("f"), lambda r: r["f"] == "NaN"),
        ("NOT (id < 500) AND label IS NOT NULL",
         E.And(E.Not(E.LessThan("id", 500)), E.NotNull("label"))),
    ]
    pruned = {}
    for text, stats in check_table(table, filters):
        pruned[text] = stats
    # Day partitions and metrics rule files out.
    assert pruned["id >= 600"]["files_skipped_metrics"] + \
        pruned["id >= 600"]["files_skipped_partition"] > 0
    assert pruned["d >= '2024-01-15'"]["files_total"] > 0
    # The id bucket rules out files of the evolved spec, metrics the older ones.
    one = pruned["id = 711"]
    assert one["files_skipped_partition"] > 0 and one["files_skipped_metrics"] > 0
    assert one["rows_out"] == 1


def test_scan_options(tmp_path):
    from pyiceberg.schema import Schema
    schema = Schema(T.NestedField(1, "id", T.LongType(), required=False),
                    T.NestedField(2, "Name", T.StringType(), required=False),
                    T.NestedField(3, "s", T.StructType(
                        T.NestedField(4, "a", T.IntegerType(), required=False),
                        T.NestedField(5, "b", T.StringType(), required=False)), required=False))
    cat = make_catalog(tmp_path)
    table = cat.create_table("ns.o", schema=schema)
    arrow_schema = table.schema().as_arrow()

    def batch(lo, hi):
        return pa.table({"id": pa.array(range(lo, hi), pa.int64()),
                         "Name": pa.array([f"v{i}" for i in range(lo, hi)]),
                         "s": pa.array([{"a": i, "b": f"b{i}"} if i % 5 else None
                                        for i in range(lo, hi)])}).cast(arrow_schema)
    table.append(batch(0, 100))
    first = table.metadata.current_snapshot_id
    first_ms = table.metadata.current_snapshot().timestamp_ms
    table.manage_snapshots().create_tag(first, "v1").commit()
    table.append(batch(100, 150))
    table = cat.load_table("ns.o")
    meta = metadata_path(table)
    rows, stats = floe_scan(meta)
    assert len(rows) == 150 and stats["tasks"] == 2
    rows, _ = floe_scan(meta, ref="v1")
    assert sorted(r["id"] for r in rows) == list(range(100))
    rows, _ = floe_scan(meta, as_of=first_ms)
    assert sorted(r["id"] for r in rows) == list(range(100))
    rows, stats = floe_scan(meta, limit=7)
    assert len(rows) == 7 and stats["rows_out"] == 7
    rows, _ = floe_scan(meta, columns=["s.b", "id"], filt="s.a >= 140")
    want = arrow_rows(table.scan(row_filter="s.a >= 140", selected_fields=("id", "s.b")).to_arrow(),
                      table.scan(selected_fields=("id", "s.b")).projection())
    same_rows(rows, want, "columns s.b, id where s.a >= 140")
    assert all(set(r) == {"id", "s"} and set(r["s"]) == {"b"} for r in rows)
    rows, _ = floe_scan(meta, columns=["name"], filt="NAME = 'v3'", case_insensitive=True)
    assert rows == [{"Name": "v3"}]
    for args, msg in [({"snapshot": 12345}, "12345"), ({"ref": "nope"}, "nope"),
                      ({"as_of": 1}, "before"), ({"columns": ["missing"]}, "missing"),
                      ({"filt": "nope > 1"}, "nope")]:
        proc = floe_scan(meta, check=False, **args)
        assert proc.returncode == 1 and msg in proc.stderr, (args, proc.stderr)


def add_position_deletes(cat, table, deletes):
    """Commits position delete files (one per data file: {path: [pos]}) as a
    new snapshot, the way Java's row delta does; PyIceberg only writes
    copy-on-write deletes, but reads these."""
    import random
    import time
    from pyiceberg.manifest import (DataFile, FileFormat, ManifestContent, ManifestEntry,
                                    ManifestEntryStatus, ManifestWriterV2, write_manifest_list)
    from pyiceberg.table.snapshots import Operation, Snapshot, Summary
    from pyiceberg.table.update import AddSnapshotUpdate, AssertRefSnapshotId, SetSnapshotRefUpdate

    class DeleteManifestWriter(ManifestWriterV2):
        def content(self):
            return ManifestContent.DELETES

        @property
        def _meta(self):
            return {**super()._meta, "content": "deletes"}

    io = table.io
    parent = table.current_snapshot()
    seq = table.metadata.next_sequence_number()
    sid = random.getrandbits(62)
    data_files = {e.data_file.file_path: e.data_file for m in parent.manifests(io)
                  for e in m.fetch_manifest_entry(io) if e.data_file.content == DataFileContent.DATA}
    loc = table.location()
    loc = loc[len("file://"):] if loc.startswith("file://") else loc
    new_manifests = []
    pa_schema = pa.schema([
        pa.field("file_path", pa.string(), nullable=False,
                 metadata={"PARQUET:field_id": "2147483546"}),
        pa.field("pos", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "2147483545"}),
    ])
    for n, (path, positions) in enumerate(sorted(deletes.items())):
        dfile = data_files[path]
        out = f"{loc}/data/pos-{sid}-{n}.parquet"
        tbl = pa.table({"file_path": [path] * len(positions), "pos": sorted(positions)},
                       schema=pa_schema)
        pq.write_table(tbl, out, row_group_size=max(1, len(positions) // 3))
        df = DataFile.from_args(content=DataFileContent.POSITION_DELETES, file_path=out,
                                file_format=FileFormat.PARQUET, partition=dfile.partition,
                                record_count=len(positions), file_size_in_bytes=os.path.getsize(out))
        df.spec_id = dfile.spec_id
        mpath = f"{loc}/metadata/pos-{sid}-{n}-m0.avro"
        w = DeleteManifestWriter(table.specs()[dfile.spec_id], table.schema(), io.new_output(mpath),
                                 sid, "deflate")
        with w:
            w.add_entry(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=sid,
                                                data_file=df))
        new_manifests.append(w.to_manifest_file())
    list_path = f"{loc}/metadata/snap-{sid}-pos.avro"
    with write_manifest_list(2, io.new_output(list_path), sid, parent.snapshot_id, seq,
                             "deflate") as lw:
        lw.add_manifests(parent.manifests(io) + new_manifests)
    snap = Snapshot(snapshot_id=sid, parent_snapshot_id=parent.snapshot_id, sequence_number=seq,
                    timestamp_ms=int(time.time() * 1000), manifest_list=list_path,
                    summary=Summary(Operation.DELETE), schema_id=table.schema().schema_id)
    cat.commit_table(table, (AssertRefSnapshotId(ref="main", snapshot_id=parent.snapshot_id),),
                     (AddSnapshotUpdate(snapshot=snap),
                      SetSnapshotRefUpdate(ref_name="main", type="branch", snapshot_id=sid)))
    return cat.load_table(table.name())


def test_position_deletes(tmp_path):
    from pyiceberg.schema import Schema
    from pyiceberg.partitioning import PartitionSpec, PartitionField
    from pyiceberg.transforms import IdentityTransform
    schema = Schema(T.NestedField(1, "id", T.LongType(), required=False),
                    T.NestedField(2, "k", T.StringType(), required=False),
                    T.NestedField(3, "v", T.IntegerType(), required=False))
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(),
                                        name="k"))
    cat = make_catalog(tmp_path)
    table = cat.create_table("ns.p", schema=schema, partition_spec=spec,
                             properties={"write.parquet.row-group-limit": "100"})
    arrow_schema = table.schema().as_arrow()
    n = 5000
    table.append(pa.table({"id": pa.array(range(n), pa.int64()),
                           "k": pa.array(["a" if i % 3 else "b" for i in range(n)]),
                           "v": pa.array([i % 97 for i in range(n)], pa.int32())}
                          ).cast(arrow_schema))
    files = sorted(e.data_file.file_path for m in table.current_snapshot().manifests(table.io)
                   for e in m.fetch_manifest_entry(table.io))
    assert len(files) == 2
    deletes = {files[0]: list(range(0, 3000, 7)) + [1, 1, 2],
               files[1]: [0, 5, 6, 7, 1000, 1666]}
    table = add_position_deletes(cat, table, deletes)
    # Data appended after the deletes is not touched by them.
    table.append(pa.table({"id": pa.array(range(n, n + 10), pa.int64()),
                           "k": pa.array(["a"] * 10), "v": pa.array([1] * 10, pa.int32())}
                          ).cast(arrow_schema))
    table = cat.load_table("ns.p")
    results = dict(check_table(table, [("v = 3", E.EqualTo("v", 3)),
                                       ("id >= 2990 AND id < 3010",
                                        E.And(E.GreaterThanOrEqual("id", 2990),
                                              E.LessThan("id", 3010))),
                                       ("k = 'b'", E.EqualTo("k", "b"))]))
    _, stats = floe_scan(metadata_path(table))
    assert stats["delete_files"] == 2
    assert stats["rows_deleted"] == sum(len(set(p)) for p in deletes.values())
    assert results["k = 'b'"]["files_skipped_partition"] >= 1
    # The last append's manifest holds only k = 'a': its partition summary rules it out.
    assert results["k = 'b'"]["manifests_skipped"] >= 1


def test_scan_streams_with_bounded_memory(tmp_path):
    """A table far larger than the scan's memory is read in batches: the
    tool's peak RSS stays well below the data's size."""
    import random
    from pyiceberg.schema import Schema
    schema = Schema(T.NestedField(1, "id", T.LongType(), required=False),
                    T.NestedField(2, "note", T.StringType(), required=False),
                    T.NestedField(3, "v", T.DoubleType(), required=False))
    cat = make_catalog(tmp_path)
    table = cat.create_table("ns.big", schema=schema,
                             properties={"write.parquet.row-group-limit": "100000"})
    rnd = random.Random(3)
    rows = 0
    for part in range(4):
        n = 500_000
        notes = ["".join(rnd.choice("abcdefghij") for _ in range(8)) * 8 for _ in range(1000)]
        table.append(pa.table({"id": pa.array(range(rows, rows + n), pa.int64()),
                               "note": pa.array([notes[i % 1000] for i in range(n)]),
                               "v": pa.array([i * 0.5 for i in range(n)], pa.float64())}))
        rows += n
    table = cat.load_table("ns.big")
    data_mib = rows * (8 + 64 + 8) / 2**20
    assert data_mib > 150
    proc = subprocess.run(["/usr/bin/time", "-f", "PEAK_RSS_KB=%M", str(TOOL), "--metadata",
                           metadata_path(table), "--quiet", "--filter", "v >= 0"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout.splitlines()[-1])["__stats__"]
    assert stats["rows_out"] == rows
    peak = [l for l in proc.stderr.splitlines() if l.startswith("PEAK_RSS_KB=")]
    rss_mib = int(peak[-1].split("=")[1]) / 1024
    assert rss_mib < data_mib / 3, (rss_mib, data_mib)


def dv_frame(vec):
    import struct
    import zlib
    body = b"\xd1\xd3\x39\x64" + vec
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def dv_blob(positions):
    """A deletion-vector-v1 blob (Iceberg spec, Puffin) for the positions."""
    import struct
    from pyroaring import BitMap
    by_key = {}
    for p in positions:
        by_key.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    vec = struct.pack("<Q", len(by_key))
    for k in sorted(by_key):
        bm = BitMap(by_key[k])
        bm.run_optimize()
        vec += struct.pack("<I", k) + bm.serialize()
    return dv_frame(vec)


def test_deletion_vector_containers(tmp_path):
    """Deletion vectors with every Roaring container kind (array, bitmap,
    run) and a 64-bit key, in a copy of the legacy fixture; a damaged blob
    is an error naming the file."""
    import shutil
    import stat
    import fastavro
    rel = "data/persistent/legacy_bare_deletion_vector"
    shutil.copytree(FIXTURES / rel, tmp_path / rel)
    for dirpath, _, files in os.walk(tmp_path):
        for f in files:
            os.chmod(os.path.join(dirpath, f), stat.S_IRUSR | stat.S_IWUSR)
    tdir = tmp_path / rel / "warehouse/default/legacy_bare_deletion_vector"
    meta = tdir / "metadata/00002-legacy-bare-dv.metadata.json"
    # {0, 2}: an array; every other value of 70000..79999: a bitmap; 200000..259999: runs.
    positions = [0, 2] + list(range(70000, 80000, 2)) + list(range(200000, 260000)) + [2**32 + 5]
    blob = dv_blob(positions)

    def install(blob):
        (tdir / "data/legacy-bare-deletion-vector.puffin").write_bytes(blob)
        mpath = tdir / "metadata/legacy-bare-deletion-vector-m0.avro"
        with open(mpath, "rb") as f:
            r = fastavro.reader(f)
            schema, recs = r.writer_schema, list(r)
            extra = {k: v for k, v in r.metadata.items() if not k.startswith("avro.")}
        for e in recs:
            e["data_file"]["content_size_in_bytes"] = len(blob)
            e["data_file"]["file_size_in_bytes"] = len(blob)
            e["data_file"]["record_count"] = len(positions)
        with open(mpath, "wb") as f:
            fastavro.writer(f, schema, recs, metadata=extra)
    install(blob)
    got, stats = floe_scan(meta, base_dir=tmp_path)
    assert sorted(r["id"] for r in got) == [2]
    assert stats["rows_deleted"] == 2
    # A data file long enough for every container: ids are positions.
    n = 300_000
    data = tdir / "data/00000-0-cac6cfea-266f-44f8-9a3a-70dd8fb68014.parquet"
    arrow_schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "1"}),
        pa.field("source", pa.string(), nullable=False, metadata={"PARQUET:field_id": "2"})])
    pq.write_table(pa.table({"id": pa.array(range(n), pa.int64()), "source": ["x"] * n},
                            schema=arrow_schema), data, row_group_size=50_000)
    mpath = tdir / "metadata/cac6cfea-266f-44f8-9a3a-70dd8fb68014-m0.avro"
    with open(mpath, "rb") as f:
        r = fastavro.reader(f)
        schema, recs = r.writer_schema, list(r)
        extra = {k: v for k, v in r.metadata.items() if not k.startswith("avro.")}
    for e in recs:
        df = e["data_file"]
        df["record_count"] = n
        df["file_size_in_bytes"] = os.path.getsize(data)
        for k in ("column_sizes", "value_counts", "null_value_counts", "lower_bounds",
                  "upper_bounds", "split_offsets"):
            df[k] = None
    with open(mpath, "wb") as f:
        fastavro.writer(f, schema, recs, metadata=extra)
    got, stats = floe_scan(meta, base_dir=tmp_path, columns=["id"])
    gone = set(positions)
    assert sorted(r["id"] for r in got) == [i for i in range(n) if i not in gone]
    assert stats["rows_deleted"] == len([p for p in positions if p < n])
    bad = bytearray(blob)
    bad[20] ^= 0xFF
    install(bytes(bad))
    proc = floe_scan(meta, base_dir=tmp_path, check=False)
    assert proc.returncode == 1 and "CRC" in proc.stderr and "legacy-bare-deletion-vector" in \
        proc.stderr, proc.stderr
    # Damaged bitmaps behind a valid CRC: an error or a result, never a crash.
    import random
    rnd = random.Random(11)
    vec = blob[8:-4]
    for _ in range(60):
        v = bytearray(vec[:rnd.randrange(1, len(vec) + 1)])
        for _ in range(rnd.randrange(1, 4)):
            v[rnd.randrange(len(v))] = rnd.randrange(256)
        install(dv_frame(bytes(v)))
        proc = floe_scan(meta, base_dir=tmp_path, columns=["id"], check=False)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        if proc.returncode == 1:
            assert "deletion vector" in proc.stderr, proc.stderr
