"""The Iceberg data writer (src/iceberg/ice_data_writer.c) against pyarrow and
PyIceberg: files written through build/tests/data_writer_tool (JSON lines in,
a partitioned layout out, each file's ice_data_file_t printed as JSON) are
read by pyarrow with the same rows and field ids; every row of a file belongs
to the file's partition as PyIceberg's transforms compute it, and the folder
is PyIceberg's partition path; the column metrics equal what PyIceberg derives
from pyarrow's reading of the Parquet footer statistics (sizes, counts,
truncated bounds, split offsets), NaN counts what pyarrow counts."""
import datetime as dt
import decimal
import json
import math
import os
import pathlib
import random
import subprocess
import urllib.parse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pyiceberg.io.pyarrow import (compute_statistics_plan, data_file_statistics_from_parquet_metadata,
                                  parquet_path_to_id_mapping)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
from pyiceberg.typedef import Record
from pyiceberg.types import (BooleanType, DateType, DecimalType, DoubleType, FloatType, IntegerType,
                             ListType, LongType, NestedField, StringType, StructType, TimestampType,
                             TimestamptzType)

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "tests" / "data_writer_tool"

FLOE_SCHEMA = ("id long not null, name string, ts timestamp, tz timestamptz, d date, price double, "
               "f float, amt decimal(10,2), cat string, flag boolean, s struct<k: string, v: int>, "
               "tags list<string>")

ICEBERG_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "ts", TimestampType(), required=False),
    NestedField(4, "tz", TimestamptzType(), required=False),
    NestedField(5, "d", DateType(), required=False),
    NestedField(6, "price", DoubleType(), required=False),
    NestedField(7, "f", FloatType(), required=False),
    NestedField(8, "amt", DecimalType(10, 2), required=False),
    NestedField(9, "cat", StringType(), required=False),
    NestedField(10, "flag", BooleanType(), required=False),
    NestedField(11, "s", StructType(NestedField(13, "k", StringType(), required=False),
                                    NestedField(14, "v", IntegerType(), required=False)),
                required=False),
    NestedField(12, "tags", ListType(15, StringType(), element_required=False), required=False),
)

SPEC = PartitionSpec(
    PartitionField(source_id=3, field_id=1000, transform=DayTransform(), name="ts_day"),
    PartitionField(source_id=1, field_id=1001, transform=BucketTransform(4), name="id_bucket_4"),
    PartitionField(source_id=9, field_id=1002, transform=IdentityTransform(), name="cat"),
)

CATS = ["a", "b c", "x/y", "\u00e9t\u00e9", "plus+sign"]
EPOCH = dt.datetime(1970, 1, 1)
UTC = dt.timezone.utc


def make_rows(n, seed=7):
    rnd = random.Random(seed)
    rows = []
    base = dt.datetime(1969, 12, 29, 5, 0, 0)
    for i in range(n):
        ts = base + dt.timedelta(microseconds=rnd.randrange(0, 9 * 86400 * 10**6))
        name = None
        if rnd.random() > 0.1:
            if rnd.random() < 0.4:
                name = "long-name-\u00fcber-%05d-" % rnd.randrange(100000) + "z" * rnd.randrange(0, 20)
            else:
                name = "n%04d" % rnd.randrange(10000)
        r = rnd.random()
        price = None if r < 0.05 else (math.nan if r < 0.12 else round(rnd.uniform(-1e4, 1e4), 3))
        f = None if rnd.random() < 0.05 else (math.nan if rnd.random() < 0.05 else
                                              rnd.randrange(-4000, 4000) * 0.25)
        s = None if rnd.random() < 0.1 else {"k": "k%d" % rnd.randrange(5), "v": rnd.randrange(-99, 99)}
        tags = None if rnd.random() < 0.1 else ["t%d" % rnd.randrange(50) for _ in range(rnd.randrange(4))]
        rows.append({
            "id": i * 7919 % 100003 - 50000,
            "name": name,
            "ts": ts,
            "tz": ts.replace(tzinfo=UTC) + dt.timedelta(hours=3),
            "d": (ts + dt.timedelta(days=400)).date(),
            "price": price,
            "f": f,
            "amt": None if rnd.random() < 0.05 else decimal.Decimal(rnd.randrange(-10**7, 10**7)).scaleb(-2),
            "cat": rnd.choice(CATS),
            "flag": None if rnd.random() < 0.05 else rnd.random() < 0.5,
            "s": s,
            "tags": tags,
        })
    return rows


def to_json(row):
    out = {}
    for k, v in row.items():
        if isinstance(v, dt.datetime):
            v = v.isoformat()
        elif isinstance(v, dt.date):
            v = v.isoformat()
        elif isinstance(v, decimal.Decimal):
            v = float(v)  # two decimals: the shortest text reads back exactly
        elif isinstance(v, float) and math.isnan(v):
            v = "NaN"
        out[k] = v
    return json.dumps(out)


def run_tool(tmp_path, rows, spec="day(ts), bucket(4, id), cat", props=(), extra=()):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build first")
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(to_json(r) + "\n" for r in rows))
    loc = tmp_path / "table"
    args = [str(TOOL), "--schema", FLOE_SCHEMA, "--location", loc.as_uri(), "--input", str(src)]
    if spec:
        args += ["--spec", spec]
    for k, v in props:
        args += ["--prop", f"{k}={v}"]
    args += list(extra)
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    files = [json.loads(line) for line in proc.stdout.splitlines()]
    for f in files:
        assert f["path"].startswith(loc.as_uri() + "/data/")
    return loc, files


def local(path):
    """The file a path names on disk. As in Java's and PyIceberg's file IO, the
    partition folder keeps its escapes ("cat=x%2Fy"): nothing is unquoted."""
    return urllib.parse.urlparse(path).path if path.startswith("file:") else path


def micros(ts):
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    return (ts - EPOCH) // dt.timedelta(microseconds=1)


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def field_ids(schema):
    """field name path -> field id, from pyarrow's field metadata."""
    out = {}

    def walk(prefix, field):
        md = field.metadata or {}
        if b"PARQUET:field_id" in md:
            out[prefix + field.name] = int(md[b"PARQUET:field_id"])
        t = field.type
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(prefix + field.name + ".", t.field(i))
        elif pa.types.is_list(t):
            walk(prefix + field.name + ".", t.value_field)

    for f in schema:
        walk("", f)
    return out


def pyiceberg_stats(path, props):
    md = pq.read_metadata(local(path))
    stats = data_file_statistics_from_parquet_metadata(
        md, compute_statistics_plan(ICEBERG_SCHEMA, dict(props)), parquet_path_to_id_mapping(ICEBERG_SCHEMA))
    return stats.to_serialized_dict()


def hexmap(d):
    return {str(k): v.hex() for k, v in d.items()}


def intmap(d):
    return {str(k): v for k, v in d.items()}


def struct_bounds_wanted(props, name):
    p = dict(props)
    mode = p.get("write.metadata.metrics.column." + name, p.get("write.metadata.metrics.default", "truncate(16)"))
    return mode not in ("none", "counts")


def check_metrics(f, props):
    want = pyiceberg_stats(f["path"], props)
    assert f["record_count"] == want["record_count"]
    assert f["file_size"] == os.path.getsize(local(f["path"]))
    assert f["split_offsets"] == want["split_offsets"]
    assert f["column_sizes"] == intmap(want["column_sizes"])
    assert f["value_counts"] == intmap(want["value_counts"])
    assert f["null_value_counts"] == intmap(want["null_value_counts"])
    # PyIceberg keeps no bounds for struct members; Java (ParquetUtil's
    # shouldStoreBounds) does, as floe: those are checked against pyarrow.
    lower, upper = dict(f["lower_bounds"]), dict(f["upper_bounds"])
    table = pq.read_table(local(f["path"]))
    for fid, idx, enc in ((13, 0, lambda v: v.encode()), (14, 1, lambda v: v.to_bytes(4, "little", signed=True))):
        lo, hi = lower.pop(str(fid), None), upper.pop(str(fid), None)
        if not struct_bounds_wanted(props, "s." + ("k" if idx == 0 else "v")):
            assert lo is None and hi is None
            continue
        mm = pc.min_max(pc.struct_field(table.column("s"), [idx])).as_py()
        want_lo = enc(mm["min"]).hex() if mm["min"] is not None else None
        want_hi = enc(mm["max"]).hex() if mm["max"] is not None else None
        assert (lo, hi) == (want_lo, want_hi), fid
    assert lower == hexmap(want["lower_bounds"])
    assert upper == hexmap(want["upper_bounds"])
    for name, fid in (("price", 6), ("f", 7)):
        col = table.column(name)
        nans = pc.sum(pc.is_nan(col.drop_null())).as_py() or 0
        assert f["nan_value_counts"][str(fid)] == nans, name


def test_partitioned_rows_ids_partitions_metrics(tmp_path):
    rows = make_rows(3000)
    loc, files = run_tool(tmp_path, rows)
    by_id = {r["id"]: r for r in rows}
    assert len(by_id) == len(rows)
    seen = set()
    day = DayTransform().transform(TimestampType())
    bucket = BucketTransform(4).transform(LongType())
    expected_ids = {"id": 1, "name": 2, "ts": 3, "tz": 4, "d": 5, "price": 6, "f": 7, "amt": 8, "cat": 9,
                    "flag": 10, "s": 11, "s.k": 13, "s.v": 14, "tags": 12, "tags.element": 15}
    for f in files:
        assert f["content"] == 0 and f["format"] == "PARQUET" and f["spec_id"] == 0
        path = local(f["path"])
        pf = pq.ParquetFile(path)
        assert field_ids(pf.schema_arrow) == expected_ids
        footer = json.loads(pf.metadata.metadata[b"iceberg.schema"])
        assert [(x["id"], x["name"]) for x in footer["fields"]] == \
            [(x.field_id, x.name) for x in ICEBERG_SCHEMA.fields]
        # The partition tuple, decoded from its single-value binary form.
        p = f["partition"]
        tup = (int.from_bytes(bytes.fromhex(p[0]), "little", signed=True),
               int.from_bytes(bytes.fromhex(p[1]), "little", signed=True),
               bytes.fromhex(p[2]).decode())
        ppath = SPEC.partition_to_path(Record(*tup), ICEBERG_SCHEMA)
        assert f"/data/{ppath}/00000-0-" in f["path"], (f["path"], ppath)
        got = pf.read().to_pylist()
        assert len(got) == f["record_count"]
        for g in got:
            want = by_id[g["id"]]
            assert g["id"] not in seen
            seen.add(g["id"])
            assert (day(micros(want["ts"])), bucket(want["id"]), want["cat"]) == tup
            for k in want:
                if k in ("ts", "tz"):
                    assert micros(g[k]) == micros(want[k]), k
                else:
                    assert same(g[k], want[k]), (k, g[k], want[k])
        check_metrics(f, {})
    assert seen == set(by_id)


def test_rolling_codec_and_row_groups(tmp_path):
    rows = make_rows(6000, seed=11)
    props = [("write.target-file-size-bytes", "60000"), ("write.parquet.row-group-size-bytes", "20000"),
             ("write.parquet.compression-codec", "gzip"), ("write.parquet.page-size-bytes", "4096")]
    loc, files = run_tool(tmp_path, rows, spec="", props=props)
    assert len(files) >= 3
    names = [os.path.basename(local(f["path"])) for f in files]
    assert len(set(names)) == len(names)
    assert all(n.endswith("-%05d.parquet" % (i + 1)) for i, n in enumerate(names))
    total = 0
    for f in files:
        md = pq.read_metadata(local(f["path"]))
        assert md.row_group(0).column(0).compression == "GZIP"
        assert md.num_row_groups == len(f["split_offsets"])
        total += md.num_rows
        check_metrics(f, props)
    assert total == len(rows)
    assert any(len(f["split_offsets"]) > 1 for f in files)
    ids = sorted(i for f in files for i in pq.read_table(local(f["path"])).column("id").to_pylist())
    assert ids == sorted(r["id"] for r in rows)


def test_metrics_modes_match_pyiceberg(tmp_path):
    rows = make_rows(800, seed=3)
    props = [("write.metadata.metrics.default", "counts"), ("write.metadata.metrics.column.name", "full"),
             ("write.metadata.metrics.column.cat", "truncate(1)"), ("write.metadata.metrics.column.s.k", "full"),
             ("write.metadata.metrics.column.ts", "truncate(4)")]
    loc, files = run_tool(tmp_path, rows, spec="bucket(2, id)", props=props)
    assert len(files) == 2
    for f in files:
        check_metrics(f, props)
        assert set(f["lower_bounds"]) == {"2", "3", "9", "13"}
        assert len(bytes.fromhex(f["lower_bounds"]["9"]).decode()) == 1
        # full: the smallest name is one of the long ones, kept whole.
        lo = bytes.fromhex(f["lower_bounds"]["2"]).decode()
        assert len(lo) > 16 and lo.startswith("long-name-")


def test_fanout_bound_keeps_every_row(tmp_path):
    rows = make_rows(5000, seed=5)  # three batches: partitions come back after being closed
    loc, files = run_tool(tmp_path, rows, spec="bucket(16, id)", extra=["--max-open", "3"])
    assert len(files) > 16
    ids = sorted(i for f in files for i in pq.read_table(local(f["path"])).column("id").to_pylist())
    assert ids == sorted(r["id"] for r in rows)
    bucket = BucketTransform(16).transform(LongType())
    for f in files:
        b = int.from_bytes(bytes.fromhex(f["partition"][0]), "little", signed=True)
        assert f"/data/id_bucket_16={b}/" in f["path"]
        for i in pq.read_table(local(f["path"])).column("id").to_pylist():
            assert bucket(i) == b
