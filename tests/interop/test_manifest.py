"""Manifests and manifest lists (src/iceberg/ice_manifest_*.c) against fastavro
and PyIceberg 0.12: files written through build/tests/manifest_tool are read by
fastavro with Iceberg's schema names and field ids and the values written, and
by PyIceberg's read_manifest_list / ManifestFile.fetch_manifest_entry with
equal values after inheritance; manifests and lists PyIceberg writes for a
table partitioned by identity (string, date), day and bucket (SqlCatalog on
SQLite, appends and a delete) are read by
floe with the values PyIceberg reads from them."""
import datetime as dt
import json
import pathlib
import subprocess

import fastavro
import pyarrow as pa
import pytest

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import read_manifest_list
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
from pyiceberg.types import DateType, DoubleType, LongType, NestedField, StringType, TimestampType

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "tests" / "manifest_tool"

FLOE_SCHEMA = "id long not null, name string, ts timestamp, price double"
SPEC = "name, day(ts), bucket(4, id)"


def tool(*args):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build first")
    p = subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def le64(v):
    return v.to_bytes(8, "little", signed=True).hex()


def le32(v):
    return v.to_bytes(4, "little", signed=True).hex()


ENTRIES = [
    {"status": 1, "file": {
        "path": "/w/t/data/name=a/f1.parquet", "format": "PARQUET", "record_count": 10,
        "file_size": 1234, "partition": ["a", "2024-01-05", 3],
        "column_sizes": {"1": 80, "2": 40}, "value_counts": {"1": 10, "2": 10, "4": 10},
        "null_value_counts": {"1": 0, "2": 1}, "nan_value_counts": {"4": 2},
        "lower_bounds": {"1": le64(-7), "2": b"aa".hex()},
        "upper_bounds": {"1": le64(99), "2": b"az".hex()},
        "split_offsets": [4, 900], "sort_order_id": 0, "key_metadata": "00ff"}},
    {"status": 0, "snapshot_id": 11, "sequence_number": 2, "file_sequence_number": 3, "file": {
        "path": "/w/t/data/name=b/f2.parquet", "format": "PARQUET", "record_count": 5,
        "file_size": 777, "partition": ["b", None, 0],
        "column_sizes": {"1": 30}, "value_counts": {"1": 5}, "null_value_counts": {"1": 0},
        "lower_bounds": {"1": le64(1)}, "upper_bounds": {"1": le64(5)}, "split_offsets": [4]}},
    {"status": 2, "snapshot_id": 12, "sequence_number": 4, "file_sequence_number": 4, "file": {
        "path": "/w/t/data/name=c/f3.parquet", "format": "PARQUET", "record_count": 7,
        "file_size": 999, "partition": [None, "2023-12-31", 1]}},
]
DAY_2024_01_05 = (dt.date(2024, 1, 5) - dt.date(1970, 1, 1)).days
DAY_2023_12_31 = (dt.date(2023, 12, 31) - dt.date(1970, 1, 1)).days


@pytest.fixture
def floe_files(tmp_path):
    inp = tmp_path / "entries.json"
    inp.write_text(json.dumps(ENTRIES))
    m = tmp_path / "m0.avro"
    lst = tmp_path / "snap-77.avro"
    mf = tool("write", "--schema", FLOE_SCHEMA, "--spec", SPEC, "--format-version", 2,
              "--content", 0, "--snapshot-id", 77, "--seq", 5, "--parent", 12,
              "--manifest", m, "--list", lst, "--input", inp)
    return m, lst, mf


def test_fastavro_reads_floe_manifest_schema_and_values(floe_files):
    m, lst, mf = floe_files
    with open(m, "rb") as fp:
        r = fastavro.reader(fp)
        meta = r.metadata
        schema = json.loads(meta["avro.schema"])
        recs = list(r)
    assert meta["avro.codec"] == "deflate"
    assert meta["format-version"] == "2" and meta["content"] == "data"
    assert meta["partition-spec-id"] == "0" and meta["schema-id"] == "0"
    spec = json.loads(meta["partition-spec"])
    assert [(f["name"], f["transform"], f["source-id"], f["field-id"]) for f in spec] == [
        ("name", "identity", 2, 1000), ("ts_day", "day", 3, 1001), ("id_bucket_4", "bucket[4]", 1, 1002)]
    ts = json.loads(meta["schema"])
    assert [(f["id"], f["name"], f["type"], f["required"]) for f in ts["fields"]] == [
        (1, "id", "long", True), (2, "name", "string", False), (3, "ts", "timestamp", False),
        (4, "price", "double", False)]

    assert schema["name"] == "manifest_entry"
    top = [(f["name"], f["field-id"]) for f in schema["fields"]]
    assert top == [("status", 0), ("snapshot_id", 1), ("sequence_number", 3),
                   ("file_sequence_number", 4), ("data_file", 2)]
    df = schema["fields"][4]["type"]
    assert df["name"] == "r2"
    ids = {f["name"]: f["field-id"] for f in df["fields"]}
    assert ids == {"content": 134, "file_path": 100, "file_format": 101, "partition": 102,
                   "record_count": 103, "file_size_in_bytes": 104, "column_sizes": 108,
                   "value_counts": 109, "null_value_counts": 110, "nan_value_counts": 137,
                   "lower_bounds": 125, "upper_bounds": 128, "key_metadata": 131,
                   "split_offsets": 132, "equality_ids": 135, "sort_order_id": 140,
                   "referenced_data_file": 143}
    byname = {f["name"]: f for f in df["fields"]}
    part = byname["partition"]["type"]
    assert part["name"] == "r102"
    assert [(f["name"], f["field-id"]) for f in part["fields"]] == [
        ("name", 1000), ("ts_day", 1001), ("id_bucket_4", 1002)]
    assert part["fields"][1]["type"][1] == {"type": "int", "logicalType": "date"}
    cs = byname["column_sizes"]["type"]
    assert cs[0] == "null" and cs[1]["logicalType"] == "map"
    assert cs[1]["items"]["name"] == "k117_v118"
    assert [(f["name"], f["field-id"]) for f in cs[1]["items"]["fields"]] == [("key", 117), ("value", 118)]
    assert byname["lower_bounds"]["type"][1]["items"]["name"] == "k126_v127"
    assert byname["split_offsets"]["type"][1]["element-id"] == 133
    assert byname["equality_ids"]["type"][1]["element-id"] == 136

    assert [r["status"] for r in recs] == [1, 0, 2]
    assert recs[0]["snapshot_id"] == 77
    assert recs[0]["sequence_number"] is None and recs[0]["file_sequence_number"] is None
    assert (recs[1]["snapshot_id"], recs[1]["sequence_number"], recs[1]["file_sequence_number"]) == (11, 2, 3)
    assert (recs[2]["snapshot_id"], recs[2]["sequence_number"]) == (12, 4)
    d0 = recs[0]["data_file"]
    assert d0["content"] == 0 and d0["file_path"] == ENTRIES[0]["file"]["path"]
    assert d0["file_format"] == "PARQUET"
    assert d0["partition"] == {"name": "a", "ts_day": dt.date(2024, 1, 5), "id_bucket_4": 3}
    assert recs[1]["data_file"]["partition"] == {"name": "b", "ts_day": None, "id_bucket_4": 0}
    assert (d0["record_count"], d0["file_size_in_bytes"]) == (10, 1234)
    assert d0["column_sizes"] == [{"key": 1, "value": 80}, {"key": 2, "value": 40}]
    assert d0["value_counts"] == [{"key": 1, "value": 10}, {"key": 2, "value": 10}, {"key": 4, "value": 10}]
    assert d0["nan_value_counts"] == [{"key": 4, "value": 2}]
    assert d0["lower_bounds"] == [{"key": 1, "value": (-7).to_bytes(8, "little", signed=True)},
                                  {"key": 2, "value": b"aa"}]
    assert d0["split_offsets"] == [4, 900] and d0["sort_order_id"] == 0
    assert d0["key_metadata"] == b"\x00\xff" and d0["equality_ids"] is None
    assert recs[2]["data_file"]["column_sizes"] is None

    with open(lst, "rb") as fp:
        r = fastavro.reader(fp)
        lmeta = r.metadata
        lschema = json.loads(lmeta["avro.schema"])
        lrecs = list(r)
    assert (lmeta["snapshot-id"], lmeta["parent-snapshot-id"], lmeta["sequence-number"],
            lmeta["format-version"]) == ("77", "12", "5", "2")
    assert lschema["name"] == "manifest_file"
    assert [(f["name"], f["field-id"]) for f in lschema["fields"]] == [
        ("manifest_path", 500), ("manifest_length", 501), ("partition_spec_id", 502),
        ("content", 517), ("sequence_number", 515), ("min_sequence_number", 516),
        ("added_snapshot_id", 503), ("added_files_count", 504), ("existing_files_count", 505),
        ("deleted_files_count", 506), ("added_rows_count", 512), ("existing_rows_count", 513),
        ("deleted_rows_count", 514), ("partitions", 507), ("key_metadata", 519)]
    parts = lschema["fields"][13]["type"][1]
    assert parts["element-id"] == 508 and parts["items"]["name"] == "r508"
    assert [(f["name"], f["field-id"]) for f in parts["items"]["fields"]] == [
        ("contains_null", 509), ("contains_nan", 518), ("lower_bound", 510), ("upper_bound", 511)]
    (lr,) = lrecs
    assert lr["manifest_path"] == str(m) and lr["manifest_length"] == m.stat().st_size
    assert (lr["sequence_number"], lr["min_sequence_number"], lr["added_snapshot_id"]) == (5, 2, 77)
    assert (lr["added_files_count"], lr["existing_files_count"], lr["deleted_files_count"]) == (1, 1, 1)
    assert (lr["added_rows_count"], lr["existing_rows_count"], lr["deleted_rows_count"]) == (10, 5, 7)
    assert lr["partitions"] == [
        {"contains_null": True, "contains_nan": False, "lower_bound": b"a", "upper_bound": b"b"},
        {"contains_null": True, "contains_nan": False,
         "lower_bound": DAY_2023_12_31.to_bytes(4, "little"), "upper_bound": DAY_2024_01_05.to_bytes(4, "little")},
        {"contains_null": False, "contains_nan": False,
         "lower_bound": (0).to_bytes(4, "little"), "upper_bound": (3).to_bytes(4, "little")}]
    assert mf["length"] == m.stat().st_size


def test_pyiceberg_reads_floe_list_and_manifest(floe_files):
    m, lst, _ = floe_files
    io = PyArrowFileIO()
    (mf,) = list(read_manifest_list(io.new_input(str(lst))))
    assert mf.manifest_path == str(m) and mf.manifest_length == m.stat().st_size
    assert mf.partition_spec_id == 0 and int(mf.content) == 0
    assert (mf.sequence_number, mf.min_sequence_number, mf.added_snapshot_id) == (5, 2, 77)
    assert (mf.added_files_count, mf.existing_files_count, mf.deleted_files_count) == (1, 1, 1)
    assert (mf.added_rows_count, mf.existing_rows_count, mf.deleted_rows_count) == (10, 5, 7)
    assert [p.contains_null for p in mf.partitions] == [True, True, False]
    assert mf.partitions[0].lower_bound == b"a" and mf.partitions[0].upper_bound == b"b"
    entries = mf.fetch_manifest_entry(io, discard_deleted=False)
    assert [int(e.status) for e in entries] == [1, 0, 2]
    e0, e1, e2 = entries
    assert (e0.snapshot_id, e0.sequence_number, e0.file_sequence_number) == (77, 5, 5)
    assert (e1.snapshot_id, e1.sequence_number, e1.file_sequence_number) == (11, 2, 3)
    assert (e2.snapshot_id, e2.sequence_number, e2.file_sequence_number) == (12, 4, 4)
    d = e0.data_file
    assert d.file_path == ENTRIES[0]["file"]["path"] and d.file_format.value == "PARQUET"
    assert (d.record_count, d.file_size_in_bytes) == (10, 1234)
    assert d.partition[0] == "a" and d.partition[2] == 3
    assert d.partition[1] in (DAY_2024_01_05, dt.date(2024, 1, 5))
    assert e1.data_file.partition[1] is None
    assert d.column_sizes == {1: 80, 2: 40}
    assert d.value_counts == {1: 10, 2: 10, 4: 10}
    assert d.null_value_counts == {1: 0, 2: 1}
    assert d.nan_value_counts == {4: 2}
    assert d.lower_bounds == {1: (-7).to_bytes(8, "little", signed=True), 2: b"aa"}
    assert d.upper_bounds == {1: (99).to_bytes(8, "little", signed=True), 2: b"az"}
    assert d.split_offsets == [4, 900] and d.sort_order_id == 0 and d.key_metadata == b"\x00\xff"
    assert not e2.data_file.column_sizes


def pyiceberg_table(tmp_path, fv):
    wh = tmp_path / "wh"
    wh.mkdir()
    cat = SqlCatalog("c", uri=f"sqlite:///{tmp_path}/cat.db", warehouse=f"file://{wh}")
    cat.create_namespace("ns")
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType(), required=False),
                    NestedField(3, "ts", TimestampType(), required=False),
                    NestedField(4, "price", DoubleType(), required=False),
                    NestedField(5, "d", DateType(), required=False))
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "name"),
                         PartitionField(5, 1001, IdentityTransform(), "d"),
                         PartitionField(3, 1002, DayTransform(), "ts_day"),
                         PartitionField(1, 1003, BucketTransform(4), "id_bucket"))
    tbl = cat.create_table("ns.t", schema=schema, partition_spec=spec,
                           properties={"format-version": str(fv)})
    arrow_schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                              ("ts", pa.timestamp("us")), ("price", pa.float64()),
                              ("d", pa.date32())])
    base = dt.datetime(2024, 3, 1, 12)
    for batch in range(2):
        rows = [(i + 100 * batch, ["x", "y", None][i % 3], base + dt.timedelta(days=i % 4, hours=i),
                 float("nan") if i == 5 else i * 1.5) for i in range(12)]
        tbl.append(pa.table({"id": [r[0] for r in rows], "name": [r[1] for r in rows],
                             "ts": [r[2] for r in rows], "price": [r[3] for r in rows],
                             "d": [r[2].date() if r[0] % 5 else None for r in rows]},
                            schema=arrow_schema))
    tbl.delete("name == 'x'")
    return cat.load_table("ns.t")


def local(path):
    return path[len("file://"):] if path.startswith("file://") else path


@pytest.mark.parametrize("fv", [1, 2])
def test_floe_reads_pyiceberg_manifests(tmp_path, fv):
    tbl = pyiceberg_table(tmp_path, fv)
    assert tbl.metadata.format_version == fv
    io = tbl.io
    snaps = tbl.metadata.snapshots
    assert len(snaps) >= 3
    statuses = set()
    for snap in snaps:
        got = tool("dump", local(snap.manifest_list))
        want = list(read_manifest_list(io.new_input(snap.manifest_list)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g["path"] == w.manifest_path
            assert g["length"] == w.manifest_length
            assert (g["spec_id"], g["content"]) == (w.partition_spec_id, int(w.content))
            assert (g["sequence_number"], g["min_sequence_number"]) == (w.sequence_number,
                                                                        w.min_sequence_number)
            assert g["added_snapshot_id"] == w.added_snapshot_id
            assert (g["added_files"], g["existing_files"], g["deleted_files"]) == (
                w.added_files_count, w.existing_files_count, w.deleted_files_count)
            assert (g["added_rows"], g["existing_rows"], g["deleted_rows"]) == (
                w.added_rows_count, w.existing_rows_count, w.deleted_rows_count)
            assert len(g["partitions"]) == len(w.partitions) == 4
            for gp, wp in zip(g["partitions"], w.partitions):
                assert gp["contains_null"] == wp.contains_null
                assert gp["contains_nan"] == wp.contains_nan
                assert gp["lower_bound"] == (wp.lower_bound.hex() if wp.lower_bound is not None else None)
                assert gp["upper_bound"] == (wp.upper_bound.hex() if wp.upper_bound is not None else None)
            wes = w.fetch_manifest_entry(io, discard_deleted=False)
            assert len(g["entries"]) == len(wes)
            for ge, we in zip(g["entries"], wes):
                statuses.add(ge["status"])
                assert ge["status"] == int(we.status)
                assert ge["snapshot_id"] == we.snapshot_id
                assert ge["sequence_number"] == we.sequence_number
                assert ge["file_sequence_number"] == we.file_sequence_number
                gf, wf = ge["file"], we.data_file
                assert gf["path"] == wf.file_path and gf["format"] == wf.file_format.value
                assert (gf["record_count"], gf["file_size"]) == (wf.record_count, wf.file_size_in_bytes)
                assert gf["content"] == int(wf.content)
                wpart = [wf.partition[i] for i in range(4)]
                for i in (1, 2):
                    if isinstance(wpart[i], dt.date):
                        wpart[i] = (wpart[i] - dt.date(1970, 1, 1)).days
                assert gf["partition_plain"] == wpart
                for key, attr in [("column_sizes", "column_sizes"), ("value_counts", "value_counts"),
                                  ("null_value_counts", "null_value_counts"),
                                  ("nan_value_counts", "nan_value_counts")]:
                    assert {int(k): v for k, v in gf[key].items()} == dict(getattr(wf, attr) or {})
                for key in ("lower_bounds", "upper_bounds"):
                    assert {int(k): v for k, v in gf[key].items()} == {
                        k: v.hex() for k, v in (getattr(wf, key) or {}).items()}
                assert gf["split_offsets"] == list(wf.split_offsets or [])
                assert gf["sort_order_id"] == (wf.sort_order_id if wf.sort_order_id is not None else -1)
    assert {0, 1, 2} <= statuses or {1, 2} <= statuses
