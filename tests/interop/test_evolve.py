"""Schema and partition evolution (src/iceberg/ice_schema_update.c,
ice_spec_update.c) against PyIceberg: a table evolved by floe (through
build/tests/evolve_tool, one metadata file per change) reads in PyIceberg
with the schemas, identifier fields and partition specs floe meant; and the
same sequence of changes made with PyIceberg's own update_schema() and
update_spec() on a SqlCatalog table gives the same field ids, names, types,
partition field ids (reused from earlier specs or new), spec ids and
last-assigned ids, metadata file by metadata file."""
import json
import pathlib
import subprocess

import pytest

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import ValidationError
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.transforms import BucketTransform, DayTransform, HourTransform, TruncateTransform
from pyiceberg.types import (DecimalType, DoubleType, FloatType, IntegerType, ListType, LongType,
                             MapType, NestedField, StringType, StructType, TimestamptzType)

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "tests" / "evolve_tool"

FLOE_SCHEMA = ("id long not null, ts timestamptz, name string, n int, f float, "
               "amt decimal(9,2), p struct<x: int>")


# The mapping a table of imported files would carry (with an old alias).
NAME_MAPPING = json.dumps([
    {"field-id": 1, "names": ["id", "ID"]}, {"field-id": 2, "names": ["ts"]},
    {"field-id": 3, "names": ["name"]}, {"field-id": 4, "names": ["n"]},
    {"field-id": 5, "names": ["f"]}, {"field-id": 6, "names": ["amt"]},
    {"field-id": 7, "names": ["p"], "fields": [{"field-id": 8, "names": ["x"]}]},
])


def iceberg_schema():
    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "ts", TimestamptzType(), required=False),
        NestedField(3, "name", StringType(), required=False),
        NestedField(4, "n", IntegerType(), required=False),
        NestedField(5, "f", FloatType(), required=False),
        NestedField(6, "amt", DecimalType(9, 2), required=False),
        NestedField(7, "p", StructType(NestedField(8, "x", IntegerType(), required=False)),
                    required=False),
    )


def tool(*args, check=True):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build the tree first")
    proc = subprocess.run([str(TOOL), *args], capture_output=True, text=True, timeout=60)
    if check and proc.returncode != 0:
        raise AssertionError(f"evolve_tool {args} failed ({proc.returncode}): {proc.stderr}")
    return proc


def type_desc(t):
    """A PyIceberg type as nested tuples carrying every id and flag."""
    if isinstance(t, StructType):
        return ("struct", tuple(field_desc(f) for f in t.fields))
    if isinstance(t, ListType):
        return ("list", t.element_id, t.element_required, type_desc(t.element_type))
    if isinstance(t, MapType):
        return ("map", t.key_id, type_desc(t.key_type), t.value_id, t.value_required,
                type_desc(t.value_type))
    return str(t)


def field_desc(f):
    return (f.field_id, f.name, f.required, type_desc(f.field_type), f.doc)


def mapping_desc(entries):
    """A name mapping as nested tuples (empty "fields" dropped)."""
    return tuple((e.get("field-id"), tuple(e["names"]), mapping_desc(e.get("fields") or []))
                 for e in entries)


def meta_desc(md):
    """What evolution decides, from PyIceberg's reading of table metadata."""
    mapping = md.properties.get("schema.name-mapping.default")
    return {
        "name_mapping": mapping_desc(json.loads(mapping)) if mapping else None,
        "schemas": [(s.schema_id, tuple(field_desc(f) for f in s.fields),
                     tuple(sorted(s.identifier_field_ids))) for s in md.schemas],
        "current_schema_id": md.current_schema_id,
        "last_column_id": md.last_column_id,
        "specs": [(s.spec_id, tuple((f.source_id, f.field_id, f.name, str(f.transform))
                                    for f in s.fields)) for s in md.partition_specs],
        "default_spec_id": md.default_spec_id,
        "last_partition_id": md.last_partition_id,
    }


def floe_meta(path):
    return StaticTable.from_metadata(path).metadata


# One change per entry: the floe words, and the same change in PyIceberg on a
# transaction.
def s1(tx):
    with tx.update_schema() as u:
        u.add_column("region", StringType())
        u.add_column(("p", "y"), LongType(), doc="the y")
        u.rename_column("name", "title")
        u.update_column("n", LongType())
        u.update_column("f", DoubleType())
        u.update_column("amt", DecimalType(18, 2))
        u.move_first("region")


def s2(tx):
    with tx.update_spec() as u:
        u.add_field("id", BucketTransform(16))
        u.add_identity("region")
        u.add_field("title", TruncateTransform(4), "title4")


def s3(tx):
    with tx.update_spec() as u:
        u.remove_field("ts_day")
        u.add_field("ts", HourTransform())


def s4(tx):
    with tx.update_spec() as u:
        u.remove_field("ts_hour")
        u.add_field("ts", DayTransform())
        u.rename_field("id_bucket_16", "bkt")


def s5(tx):
    with tx.update_schema() as u:
        u.set_identifier_fields("id")
        u.add_column("nested", StructType(
            NestedField(100, "a", IntegerType(), required=False),
            NestedField(101, "b", ListType(102, StringType(), element_required=False),
                        required=False),
            NestedField(103, "c", MapType(104, StringType(), 105, LongType(),
                                          value_required=False), required=False)))
        u.move_after("nested", "id")
        u.update_column("title", doc="the title")


def s6(tx):
    with tx.update_spec() as u:
        u.remove_field("title4")
    with tx.update_schema() as u:
        u.delete_column("title")
        u.rename_column("p.x", "xx")


STEPS = [
    (["add-column", "region string", "add-column", "p.y long comment 'the y'",
      "rename-column", "name", "title", "update-column", "n", "long", "update-column", "f",
      "double", "update-column", "amt", "decimal(18,2)", "move-column", "region", "first"], s1),
    (["add-partition", "bucket(16, id)", "add-partition", "region",
      "add-partition", "truncate(4, title)", "title4"], s2),
    (["drop-partition", "ts_day", "add-partition", "hour(ts)"], s3),
    (["drop-partition", "ts_hour", "add-partition", "day(ts)", "rename-partition", "id_bucket_16",
      "bkt"], s4),
    (["set-identifier", "id", "add-column", "nested struct<a: int, b: list<string>, "
      "c: map<string, long>>", "move-column", "nested", "after", "id", "update-doc", "title",
      "the title"], s5),
    (["drop-partition", "title4", "drop-column", "title", "rename-column", "p.x", "xx"], s6),
]


def test_floe_evolution_reads_in_pyiceberg(tmp_path):
    path = tool("create", str(tmp_path / "t"), FLOE_SCHEMA, "day(ts)").stdout.strip()
    for words, _ in STEPS:
        path = tool("apply", path, *words).stdout.strip()
    md = floe_meta(path)
    schema = md.schema()
    assert [f.name for f in schema.fields] == ["region", "id", "nested", "ts", "n", "f", "amt", "p"]
    assert schema.find_field("region").field_id == 9
    assert schema.find_field("p.y").field_id == 10
    assert schema.find_field("p.y").doc == "the y"
    assert schema.find_field("p.xx").field_id == 8
    assert str(schema.find_field("n").field_type) == "long"
    assert str(schema.find_field("amt").field_type) == "decimal(18, 2)"
    assert schema.identifier_field_ids == [1]
    nested = schema.find_field("nested")
    assert nested.field_id == 11
    assert [f.field_id for f in nested.field_type.fields] == [12, 13, 14]
    assert nested.field_type.fields[1].field_type.element_id == 15
    assert (nested.field_type.fields[2].field_type.key_id,
            nested.field_type.fields[2].field_type.value_id) == (16, 17)
    assert md.last_column_id == 17
    spec = md.spec()
    # day(ts) came back with its id and name from spec 0.
    assert [(f.field_id, f.name, str(f.transform)) for f in spec.fields] == [
        (1001, "bkt", "bucket[16]"), (1002, "region", "identity"), (1000, "ts_day", "day")]
    assert md.last_partition_id == 1004
    assert len(md.schemas) == 4 and len(md.partition_specs) == 5
    assert md.default_spec_id == 4


@pytest.mark.parametrize("format_version", [1, 2])
def test_same_changes_same_ids_as_pyiceberg(tmp_path, format_version):
    """v2 reuses partition field ids of earlier specs and drops removed
    fields; v1 counts ids on and keeps removed fields as void."""
    catalog = SqlCatalog("default", uri=f"sqlite:///{tmp_path}/catalog.db",
                         warehouse=f"file://{tmp_path}/warehouse")
    catalog.create_namespace("db")
    table = catalog.create_table(
        "db.t", schema=iceberg_schema(),
        partition_spec=PartitionSpec(PartitionField(source_id=2, field_id=1000,
                                                    transform=DayTransform(), name="ts_day")),
        properties={"format-version": str(format_version),
                    "schema.name-mapping.default": NAME_MAPPING})
    assert table.metadata.format_version == format_version
    path = tool("create", str(tmp_path / "floe_t"), FLOE_SCHEMA, "day(ts)",
                str(format_version), NAME_MAPPING).stdout.strip()
    assert meta_desc(floe_meta(path)) == meta_desc(table.metadata)
    for i, (words, py_change) in enumerate(STEPS):
        with table.transaction() as tx:
            py_change(tx)
        table = catalog.load_table("db.t")
        path = tool("apply", path, *words).stdout.strip()
        assert meta_desc(floe_meta(path)) == meta_desc(table.metadata), f"after step {i + 1}"
    # The mapping followed: "name" kept beside "title" (dropped columns stay,
    # for older files), the added columns mapped with their nested fields.
    mapping = {e[0]: e for e in meta_desc(floe_meta(path))["name_mapping"]}
    assert mapping[3][1] == ("name", "title") and mapping[1][1] == ("id", "ID")
    assert mapping[11][1] == ("nested",) and [e[0] for e in mapping[11][2]] == [12, 13, 14]
    assert [e[1] for e in mapping[7][2]] == [("x", "xx"), ("y",)]


@pytest.mark.parametrize("words,message", [
    (["add-column", "c string not null"], "cannot add required column"),
    (["update-column", "id", "int"], "Cannot change column type: id: long -> int"),
    (["update-column", "amt", "decimal(9,3)"], "decimal(9,2) -> decimal(9,3)"),
    (["make-required", "name"], "optional -> required"),
    (["drop-column", "ts"], "Cannot drop column ts"),
    (["set-identifier", "name"], "not a required field"),
    (["set-identifier", "p.x"], "not a required field"),
    (["add-partition", "day(ts)"], "Cannot add duplicate partition field"),
    (["add-partition", "hour(id)"], "Invalid source type long for transform: hour"),
    (["add-partition", "bucket(4, id)", "add-partition", "bucket(4, id)"], "already added"),
    (["drop-partition", "nope"], "Cannot find partition field to remove: nope"),
])
def test_refused_changes_leave_the_table(tmp_path, words, message):
    path = tool("create", str(tmp_path / "t"), FLOE_SCHEMA, "day(ts)").stdout.strip()
    proc = tool("apply", path, *words, check=False)
    assert proc.returncode == 1
    assert message in proc.stderr
    assert sorted(p.name for p in (tmp_path / "t" / "metadata").iterdir()) == [pathlib.Path(path).name]


@pytest.mark.parametrize("change,pyiceberg_refuses", [
    (["add-column", "c string not null"], lambda u: u.add_column("c", StringType(), required=True)),
    (["update-column", "id", "int"], lambda u: u.update_column("id", IntegerType())),
    (["make-required", "name"], lambda u: u.update_column("name", required=True)),
])
def test_pyiceberg_refuses_the_same_schema_changes(tmp_path, change, pyiceberg_refuses):
    catalog = SqlCatalog("default", uri=f"sqlite:///{tmp_path}/catalog.db",
                         warehouse=f"file://{tmp_path}/warehouse")
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", schema=iceberg_schema())
    with pytest.raises((ValueError, ValidationError)):
        with table.update_schema() as u:
            pyiceberg_refuses(u)
    path = tool("create", str(tmp_path / "t"), FLOE_SCHEMA).stdout.strip()
    assert tool("apply", path, *change, check=False).returncode == 1


def test_v1_removed_partition_field_becomes_void(tmp_path):
    path = tool("create", str(tmp_path / "t"), FLOE_SCHEMA, "day(ts), bucket(4, id)", "1").stdout.strip()
    path = tool("apply", path, "drop-partition", "ts_day").stdout.strip()
    path = tool("apply", path, "add-partition", "day(ts)").stdout.strip()
    md = floe_meta(path)
    assert md.format_version == 1
    assert [(f.field_id, f.name, str(f.transform)) for f in md.spec().fields] == [
        (1000, "ts_day_1000", "void"), (1001, "id_bucket_4", "bucket[4]"), (1002, "ts_day", "day")]


def test_removed_and_added_back_keeps_the_field(tmp_path):
    """Java's rewriteDeleteAndAddField: removing a field and adding the same
    source and transform back in one change keeps the field where it was,
    with its name (PyIceberg 0.12 instead appends it under the name of the
    oldest field with that transform). The spec is the current one again."""
    path = tool("create", str(tmp_path / "t"), FLOE_SCHEMA, "day(ts), bucket(16, id)").stdout.strip()
    path = tool("apply", path, "rename-partition", "id_bucket_16", "bkt").stdout.strip()
    path = tool("apply", path, "drop-partition", "bkt", "add-partition", "bucket(16, id)").stdout.strip()
    md = floe_meta(path)
    assert [(f.field_id, f.name) for f in md.spec().fields] == [(1000, "ts_day"), (1001, "bkt")]
    assert md.default_spec_id == 1 and len(md.partition_specs) == 2
    path = tool("apply", path, "drop-partition", "bkt", "add-partition", "bucket(16, id)",
                "by_id").stdout.strip()
    assert [(f.field_id, f.name) for f in floe_meta(path).spec().fields] == [(1000, "ts_day"),
                                                                           (1001, "by_id")]
