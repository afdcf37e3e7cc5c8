"""Iceberg table metadata (src/iceberg/ice_meta*.c) against PyIceberg 0.12:
metadata files that floe writes (through build/tests/meta_tool) are parsed
by PyIceberg's TableMetadata and StaticTable with the same schemas, specs,
sort orders, properties, snapshots, refs and logs; and metadata that
PyIceberg's SQL catalog writes for a partitioned, sorted table with schema
evolution and appends is read by floe with the same values, and written
back by floe into a file PyIceberg reads as the same table metadata."""
import json
import pathlib
import subprocess

import pyarrow as pa
import pytest

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.table.metadata import TableMetadataUtil
from pyiceberg.table.sorting import NullOrder, SortDirection, SortField, SortOrder
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
from pyiceberg.types import (DecimalType, DoubleType, IntegerType, ListType, LongType, MapType, NestedField,
                             StringType, StructType, TimestamptzType)

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "tests" / "meta_tool"


def tool(*args):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build first")
    proc = subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise AssertionError(f"meta_tool {' '.join(map(str, args))} failed: {proc.stderr}")
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def norm_schema(j):
    """The spec JSON of a schema without the keys writers may leave out
    when empty (identifier-field-ids []), with decimal spellings unified."""
    j = json.loads(json.dumps(j))

    def walk(t):
        if isinstance(t, str):
            return t.replace(" ", "")
        if t.get("type") == "struct":
            for f in t["fields"]:
                f["type"] = walk(f["type"])
                for k in ("doc", "initial-default", "write-default"):
                    if f.get(k) is None:
                        f.pop(k, None)
        elif t.get("type") == "list":
            t["element"] = walk(t["element"])
        elif t.get("type") == "map":
            t["key"] = walk(t["key"])
            t["value"] = walk(t["value"])
        return t

    walk(j)
    if not j.get("identifier-field-ids"):
        j.pop("identifier-field-ids", None)
    return j


def py_schema_json(schema):
    return norm_schema(json.loads(schema.model_dump_json(by_alias=True, exclude_none=True)))


def py_spec(spec):
    return {"spec-id": spec.spec_id,
            "fields": [{"name": f.name, "transform": str(f.transform), "source-id": f.source_id,
                        "field-id": f.field_id} for f in spec.fields]}


def py_order(order):
    return {"order-id": order.order_id,
            "fields": [{"transform": str(f.transform), "source-id": f.source_id,
                        "direction": "asc" if f.direction == SortDirection.ASC else "desc",
                        "null-order": "nulls-first" if f.null_order == NullOrder.NULLS_FIRST
                        else "nulls-last"} for f in order.fields]}


def py_summary(s):
    d = {"operation": s.summary.operation.value}
    d.update(s.summary.additional_properties)
    return d


def assert_same(md, dump):
    """md: a PyIceberg TableMetadata; dump: meta_tool's view of a file."""
    assert md.format_version == dump["format-version"]
    assert str(md.table_uuid) == dump["table-uuid"]
    assert md.location == dump["location"]
    assert getattr(md, "last_sequence_number", 0) == dump["last-sequence-number"]
    assert md.last_updated_ms == dump["last-updated-ms"]
    assert md.last_column_id == dump["last-column-id"]
    assert md.current_schema_id == dump["current-schema-id"]
    assert [py_schema_json(s) for s in md.schemas] == [norm_schema(s) for s in dump["schemas"]]
    assert py_schema_json(md.schema()) == norm_schema(dump["current-schema"])
    assert md.default_spec_id == dump["default-spec-id"]
    assert [py_spec(s) for s in md.partition_specs] == dump["partition-specs"]
    assert py_spec(md.spec()) == dump["default-spec"]
    assert md.last_partition_id == dump["last-partition-id"]
    assert md.default_sort_order_id == dump["default-sort-order-id"]
    assert [py_order(o) for o in md.sort_orders] == dump["sort-orders"]
    assert dict(md.properties) == dump["properties"]
    assert md.current_snapshot_id == dump["current-snapshot-id"]
    assert len(md.snapshots) == len(dump["snapshots"])
    for s, d in zip(md.snapshots, dump["snapshots"]):
        assert s.snapshot_id == d["snapshot-id"]
        assert s.parent_snapshot_id == d["parent-snapshot-id"]
        assert s.sequence_number == d["sequence-number"]
        assert s.timestamp_ms == d["timestamp-ms"]
        assert s.manifest_list == d["manifest-list"]
        assert s.schema_id == d["schema-id"]
        assert py_summary(s) == d["summary"]
    refs = {name: {"snapshot-id": r.snapshot_id, "type": r.snapshot_ref_type.value,
                   "max-ref-age-ms": r.max_ref_age_ms,
                   "max-snapshot-age-ms": r.max_snapshot_age_ms,
                   "min-snapshots-to-keep": r.min_snapshots_to_keep}
            for name, r in md.refs.items()}
    assert refs == dump["refs"]
    assert [{"timestamp-ms": e.timestamp_ms, "snapshot-id": e.snapshot_id}
            for e in md.snapshot_log] == dump["snapshot-log"]
    assert [{"timestamp-ms": e.timestamp_ms, "metadata-file": e.metadata_file}
            for e in md.metadata_log] == dump["metadata-log"]


def test_pyiceberg_reads_what_floe_writes(tmp_path):
    out = tmp_path / "00001-floe.metadata.json"
    dump = tool("create", out, "--location", f"file://{tmp_path}/t",
                "--schema", "id long not null, ts timestamptz, name string, tags list<string>, "
                            "m map<string, struct<a: int, b: decimal(9,2)>>, h fixed(16)",
                "--identifier", "id", "--spec", "day(ts), bucket(4, id)",
                "--sort", "name DESC NULLS LAST, id", "--prop", "owner=floe",
                "--prop", "write.parquet.compression-codec=zstd",
                "--add-column", "extra list<long>", "--spec2", "name, bucket(4, id)",
                "--snapshots", "3")
    text = out.read_text()
    md = TableMetadataUtil.parse_raw(text)
    assert_same(md, dump)
    # What floe wrote has the layout Java writes: every v2 key, in order.
    keys = list(json.loads(text).keys())
    assert keys[:21] == ["format-version", "table-uuid", "location", "last-sequence-number",
                         "last-updated-ms", "last-column-id", "current-schema-id", "schemas",
                         "default-spec-id", "partition-specs", "last-partition-id",
                         "default-sort-order-id", "sort-orders", "properties",
                         "current-snapshot-id", "refs", "snapshots", "statistics",
                         "partition-statistics", "snapshot-log", "metadata-log"]

    # The values themselves, as PyIceberg's model gives them.
    assert md.schema().identifier_field_ids == [1]
    assert md.schema().find_field("extra").doc == "added later"
    assert md.schema_by_id(0).find_field("m").field_type == MapType(
        8, StringType(), 9, StructType(NestedField(10, "a", IntegerType(), required=False),
                                       NestedField(11, "b", DecimalType(9, 2), required=False)),
        value_required=False)
    assert md.last_column_id == 13
    assert md.specs()[0].fields[0].transform == DayTransform()
    assert md.spec().fields[1].field_id == 1001  # recycled for the same bucket field
    assert md.last_partition_id == 1002
    assert md.sort_order().fields[0].direction == SortDirection.DESC
    assert md.refs["first"].snapshot_ref_type.value == "tag"
    assert md.refs["main"].snapshot_id == md.current_snapshot_id == md.snapshots[-1].snapshot_id
    assert [s.sequence_number for s in md.snapshots] == [1, 2, 3]
    assert md.snapshots[-1].summary["total-records"] == "60"

    table = StaticTable.from_metadata(f"file://{out}")
    assert table.schema() == md.schema()
    assert table.spec() == md.spec()
    assert table.sort_order() == md.sort_order()
    assert table.properties == {"owner": "floe", "write.parquet.compression-codec": "zstd"}
    assert table.current_snapshot().snapshot_id == md.current_snapshot_id
    assert table.snapshot_by_name("first").snapshot_id == md.snapshots[0].snapshot_id


@pytest.mark.parametrize("version", [1, 2, 3])
def test_floe_writes_unpartitioned_table_pyiceberg_reads(tmp_path, version):
    out = tmp_path / "00000-floe.metadata.json"
    dump = tool("create", out, "--location", f"file://{tmp_path}/u", "--schema", "a int, b string",
                "--prop", f"format-version={version}", "--snapshots", "1")
    md = TableMetadataUtil.parse_raw(out.read_text())
    assert md.format_version == version
    assert_same(md, dump)
    assert md.current_snapshot_id == dump["snapshots"][0]["snapshot-id"]
    if version == 1:
        # v1 keeps the deprecated single schema and spec for older readers.
        raw = json.loads(out.read_text())
        assert raw["schema"]["fields"][0]["name"] == "a" and raw["partition-spec"] == []
        assert "sequence-number" not in raw["snapshots"][0]


def test_floe_writes_empty_table_pyiceberg_reads(tmp_path):
    out = tmp_path / "00000-floe.metadata.json"
    dump = tool("create", out, "--location", f"file://{tmp_path}/u", "--schema", "a int, b string")
    md = TableMetadataUtil.parse_raw(out.read_text())
    assert_same(md, dump)
    assert md.spec().is_unpartitioned()
    assert md.sort_order().is_unsorted
    assert md.current_snapshot_id is None
    assert json.loads(out.read_text())["current-snapshot-id"] == -1
    assert md.last_partition_id == 999


@pytest.fixture
def pyiceberg_table(tmp_path):
    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    catalog = SqlCatalog("default", uri=f"sqlite:///{tmp_path}/catalog.db",
                         warehouse=f"file://{warehouse}")
    catalog.create_namespace("ns")
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "ts", TimestamptzType(), required=False),
        NestedField(3, "name", StringType(), required=False, doc="who"),
        NestedField(4, "score", DoubleType(), required=False),
        NestedField(5, "tags", ListType(6, StringType(), element_required=False), required=False),
        identifier_field_ids=[1],
    )
    # Only identity partitions while data is written (PyIceberg needs
    # pyiceberg-core to compute the others); the spec evolves afterwards.
    spec = PartitionSpec(
        PartitionField(source_id=3, field_id=1000, transform=IdentityTransform(), name="name"))
    order = SortOrder(SortField(source_id=3, transform=IdentityTransform(),
                                direction=SortDirection.DESC, null_order=NullOrder.NULLS_LAST))
    table = catalog.create_table("ns.t", schema=schema, partition_spec=spec, sort_order=order,
                                 properties={"owner": "pyiceberg"})
    import datetime as dt
    utc = dt.timezone.utc

    def rows(start, with_extra=False):
        cols = {
            "id": pa.array([start, start + 1], pa.int64()),
            "ts": pa.array([dt.datetime(2024, 1, 5, 1, tzinfo=utc),
                            dt.datetime(2024, 1, 6, 2, tzinfo=utc)], pa.timestamp("us", "UTC")),
            "name": pa.array(["a", None]),
            "score": pa.array([1.5, 2.5]),
            "tags": pa.array([["x"], []], pa.list_(pa.string())),
        }
        fields = [pa.field("id", pa.int64(), nullable=False), pa.field("ts", pa.timestamp("us", "UTC")),
                  pa.field("name", pa.string()), pa.field("score", pa.float64()),
                  pa.field("tags", pa.list_(pa.string()))]
        if with_extra:
            cols["note"] = pa.array(["n1", "n2"])
            fields.append(pa.field("note", pa.string()))
        return pa.Table.from_pydict(cols, schema=pa.schema(fields))

    table.append(rows(0))
    table.append(rows(10))
    with table.update_schema() as up:
        up.add_column("note", StringType(), doc="added")
    table = catalog.load_table("ns.t")
    table.append(rows(20, with_extra=True))
    with table.transaction() as tx:
        tx.set_properties({"write.metadata.previous-versions-max": "50"})
    table = catalog.load_table("ns.t")
    with table.update_spec() as up:
        up.add_field("ts", DayTransform(), "ts_day")
        up.add_field("id", BucketTransform(4), "id_bucket")
    table = catalog.load_table("ns.t")
    table.manage_snapshots().create_tag(table.metadata.snapshots[0].snapshot_id, "v0").commit()
    return catalog.load_table("ns.t")


def test_floe_reads_what_pyiceberg_writes(pyiceberg_table):
    t = pyiceberg_table
    path = t.metadata_location.removeprefix("file://")
    dump = tool("dump", path)
    assert_same(t.metadata, dump)
    # The values floe found, spelled out.
    assert dump["format-version"] == 2
    assert len(dump["snapshots"]) == 3
    assert [s["sequence-number"] for s in dump["snapshots"]] == [1, 2, 3]
    assert dump["current-schema-id"] == 1
    assert dump["current-schema"]["identifier-field-ids"] == [1]
    assert [f["name"] for f in dump["current-schema"]["fields"]][-1] == "note"
    assert len(dump["partition-specs"]) == 2
    assert dump["default-spec-id"] == 1
    assert [f["transform"] for f in dump["default-spec"]["fields"]] == ["identity", "day", "bucket[4]"]
    assert dump["last-partition-id"] == 1002
    assert dump["default-sort-order"]["fields"][0]["direction"] == "desc"
    assert dump["refs"]["v0"]["type"] == "tag"
    assert dump["properties"]["owner"] == "pyiceberg"
    assert dump["snapshots"][-1]["summary"]["total-records"] == "6"
    assert len(dump["metadata-log"]) == len(t.metadata.metadata_log) > 0
    # Time travel through the snapshot log: each snapshot is current at its time.
    for s in dump["snapshots"]:
        assert s["as-of-own-timestamp"] == s["snapshot-id"]


def test_floe_rewrite_of_pyiceberg_metadata_is_the_same_table(pyiceberg_table, tmp_path):
    t = pyiceberg_table
    src = t.metadata_location.removeprefix("file://")
    out = tmp_path / "00099-rewritten.metadata.json"
    tool("rewrite", src, out)
    again = TableMetadataUtil.parse_raw(out.read_text())
    original = t.metadata
    assert again == original
    # Writing is exclusive: the second attempt finds the file taken.
    proc = subprocess.run([str(TOOL), "rewrite", src, str(out)], capture_output=True, text=True)
    assert proc.returncode == 1 and "EXISTS" in proc.stderr
    # And PyIceberg's own serialization of its model reads the same in floe.
    mine = tmp_path / "00100-pyiceberg.metadata.json"
    mine.write_text(original.model_dump_json())
    assert_same(original, tool("dump", mine))


def test_floe_gzip_metadata_pyiceberg_reads(tmp_path):
    out = tmp_path / "00001-floe.gz.metadata.json"
    dump = tool("create", out, "--location", f"file://{tmp_path}/g", "--schema", "a int not null",
                "--snapshots", "2")
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    table = StaticTable.from_metadata(f"file://{out}")
    assert_same(table.metadata, dump)
    # And floe reads its own compressed file back to the same view (the
    # statistics lists it always writes come back as kept keys).
    back = tool("dump", out)
    assert back.pop("extra") == {"statistics": [], "partition-statistics": []}
    dump.pop("extra")
    assert back == dump
