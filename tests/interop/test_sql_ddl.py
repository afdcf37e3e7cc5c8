"""floe sql's table-management statements against PyIceberg.

Every statement runs through `floe sql`; PyIceberg then opens the same
SQLite catalog and must see what the statement did: evolved schemas (ids,
types, nullability, docs) and partition specs, sort orders, properties,
format version, branch and tag refs with their retention, compacted tables
reading the same rows from fewer files through a "replace" snapshot,
expired snapshots and their files gone, orphan files removed, and the
snapshot procedures moving main.
"""
import json
import os
import pathlib
import time

import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.types import (DecimalType, DoubleType, LongType, NestedField, StringType,
                             StructType)

from conftest import run_floe


def catalog_for(wh):
    return SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def sql(wh, text, check=True):
    """Runs a script; returns the rows of its last result (jsonl)."""
    proc = run_floe("--warehouse", wh, "sql", "--format", "jsonl", "-c", text, check=check)
    if not check:
        return proc
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def metrics(rows):
    return {r["metric_name"]: int(r["metric_value"]) for r in rows}


def rows_of(table, *cols):
    t = table.scan().to_arrow()
    return sorted(tuple(r[c] for c in cols) for r in t.to_pylist())


@pytest.fixture
def wh(tmp_path):
    d = tmp_path / "wh"
    sql(d, "CREATE SCHEMA s")
    return d


def test_schema_evolution(wh):
    sql(wh, "CREATE TABLE s.t (id bigint NOT NULL, v integer, r real, d decimal(9,2), name varchar);"
            "INSERT INTO s.t VALUES (1, 10, 1.5, 2.25, 'a'), (2, 20, 2.5, 3.5, 'b')")
    before = catalog_for(wh).load_table("s.t").schema()
    sql(wh, "ALTER TABLE s.t ADD COLUMN note varchar COMMENT 'free text';"
            "ALTER TABLE s.t RENAME COLUMN v TO amount;"
            "ALTER TABLE s.t ALTER COLUMN amount SET DATA TYPE bigint;"
            "ALTER TABLE s.t ALTER COLUMN r SET DATA TYPE double;"
            "ALTER TABLE s.t ALTER COLUMN d SET DATA TYPE decimal(12,2);"
            "ALTER TABLE s.t ALTER COLUMN id DROP NOT NULL;"
            "ALTER TABLE s.t DROP COLUMN name;"
            "INSERT INTO s.t VALUES (3, 30, 3.5, 4.75, 'third')")
    t = catalog_for(wh).load_table("s.t")
    sc = t.schema()
    by_name = {f.name: f for f in sc.fields}
    assert [f.name for f in sc.fields] == ["id", "amount", "r", "d", "note"]
    # Columns keep their ids through renames and type changes; new ones get fresh ids.
    assert by_name["amount"].field_id == before.find_field("v").field_id
    assert by_name["amount"].field_type == LongType()
    assert by_name["r"].field_type == DoubleType()
    assert by_name["d"].field_type == DecimalType(12, 2)
    assert not by_name["id"].required
    assert by_name["note"].doc == "free text"
    assert by_name["note"].field_id > max(f.field_id for f in before.fields)
    assert len(t.metadata.schemas) == 8  # one schema per statement
    got = rows_of(t, "id", "amount", "note")
    assert got == [(1, 10, None), (2, 20, None), (3, 30, "third")]


def test_nested_add_column(wh):
    run_floe("--warehouse", wh, "table", "create", "s.n", "--schema",
             "id long, pt struct<x: double>")
    sql(wh, "ALTER TABLE s.n ADD COLUMN pt.y double COMMENT 'height';"
            "ALTER TABLE s.n ADD COLUMN tags array(varchar)")
    sc = catalog_for(wh).load_table("s.n").schema()
    pt = sc.find_field("pt").field_type
    assert isinstance(pt, StructType)
    assert [f.name for f in pt.fields] == ["x", "y"]
    assert pt.fields[1].doc == "height"
    assert sc.find_field("tags").field_type.element_type == StringType()
    sql(wh, "ALTER TABLE s.n ADD COLUMN pt.w double FIRST;"
            "ALTER TABLE s.n ADD COLUMN k bigint AFTER id")
    sc = catalog_for(wh).load_table("s.n").schema()
    assert [f.name for f in sc.find_field("pt").field_type.fields] == ["w", "x", "y"]
    assert [f.name for f in sc.fields] == ["id", "k", "pt", "tags"]


def test_partitioning_sort_and_properties(wh):
    sql(wh, "CREATE TABLE s.p (id bigint, ts timestamp(6), k varchar);"
            "INSERT INTO s.p VALUES (1, TIMESTAMP '2024-01-01 10:00:00', 'a')")
    sql(wh, "ALTER TABLE s.p SET PROPERTIES partitioning = ARRAY['day(ts)', 'bucket(id, 16)'],"
            " sorted_by = ARRAY['id DESC'], 'write.delete.mode' = 'merge-on-read',"
            " max_commit_retry = 7, extra_properties = MAP(ARRAY['owner'], ARRAY['ana'])")
    t = catalog_for(wh).load_table("s.p")
    spec = t.spec()
    assert [(f.name, str(f.transform)) for f in spec.fields] == [("ts_day", "day"),
                                                                ("id_bucket_16", "bucket[16]")]
    first_ids = [f.field_id for f in spec.fields]
    order = t.sort_order()
    assert len(order.fields) == 1 and order.fields[0].direction.name == "DESC"
    assert t.properties["write.delete.mode"] == "merge-on-read"
    assert t.properties["commit.retry.num-retries"] == "7"
    assert t.properties["owner"] == "ana"
    # Rows written now land in the new spec; PyIceberg reads both.
    sql(wh, "INSERT INTO s.p VALUES (2, TIMESTAMP '2024-01-02 10:00:00', 'b')")
    t = catalog_for(wh).load_table("s.p")
    files = t.inspect.files().to_pylist()
    assert sorted(f["spec_id"] for f in files) == [0, spec.spec_id]
    assert rows_of(t, "id", "k") == [(1, "a"), (2, "b")]
    # Dropping one field keeps the other's id; re-adding it reuses its old id.
    sql(wh, "ALTER TABLE s.p SET PARTITIONING ARRAY['day(ts)'];"
            "ALTER TABLE s.p SET PROPERTIES partitioning = ARRAY['day(ts)', 'bucket(id, 16)'],"
            " 'write.delete.mode' = DEFAULT")
    t = catalog_for(wh).load_table("s.p")
    assert [f.field_id for f in t.spec().fields] == first_ids
    assert "write.delete.mode" not in t.properties
    sql(wh, "ALTER TABLE s.p SET PROPERTIES partitioning = ARRAY[], sorted_by = ARRAY[]")
    t = catalog_for(wh).load_table("s.p")
    assert t.spec().fields == () or len(t.spec().fields) == 0
    assert t.sort_order().is_unsorted


def test_format_version_upgrade(wh):
    run_floe("--warehouse", wh, "table", "create", "s.v", "--schema", "id long",
             "--property", "format-version=1")
    assert catalog_for(wh).load_table("s.v").metadata.format_version == 1
    proc = sql(wh, "INSERT INTO s.v VALUES (1)", check=False)
    assert proc.returncode == 1 and "format version 1" in proc.stderr
    sql(wh, "ALTER TABLE s.v SET PROPERTIES format_version = 2;"
            "INSERT INTO s.v VALUES (1), (2)")
    t = catalog_for(wh).load_table("s.v")
    assert t.metadata.format_version == 2
    assert rows_of(t, "id") == [(1,), (2,)]


def test_rename_table(wh):
    sql(wh, "CREATE SCHEMA o; CREATE TABLE s.a (id bigint); INSERT INTO s.a VALUES (7);"
            "ALTER TABLE s.a RENAME TO o.b")
    cat = catalog_for(wh)
    assert ("s", "a") not in cat.list_tables("s")
    assert rows_of(cat.load_table("o.b"), "id") == [(7,)]


def test_branches_and_tags(wh):
    sql(wh, "CREATE TABLE s.r (id bigint); INSERT INTO s.r VALUES (1)")
    first = catalog_for(wh).load_table("s.r").metadata.current_snapshot_id
    sql(wh, "INSERT INTO s.r VALUES (2);"
            f"ALTER TABLE s.r CREATE BRANCH dev AS OF VERSION {first} RETAIN 7 DAYS"
            " WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 DAYS;"
            "ALTER TABLE s.r CREATE TAG v2 RETAIN 30 DAYS")
    t = catalog_for(wh).load_table("s.r")
    refs = t.metadata.refs
    assert refs["dev"].snapshot_id == first
    assert refs["dev"].snapshot_ref_type == "branch"
    assert refs["dev"].max_ref_age_ms == 7 * 86400000
    assert refs["dev"].min_snapshots_to_keep == 3
    assert refs["dev"].max_snapshot_age_ms == 2 * 86400000
    assert refs["v2"].snapshot_ref_type == "tag"
    assert refs["v2"].snapshot_id == t.metadata.current_snapshot_id
    assert refs["v2"].max_ref_age_ms == 30 * 86400000
    assert len(t.scan(snapshot_id=refs["dev"].snapshot_id).to_arrow()) == 1
    # REPLACE keeps the retention it does not restate; fast_forward catches up.
    sql(wh, "ALTER TABLE s.r REPLACE BRANCH dev AS OF VERSION " + str(first) + " RETAIN 1 DAYS;"
            "CALL system.fast_forward('s.r', 'dev', 'main')")
    refs = catalog_for(wh).load_table("s.r").metadata.refs
    assert refs["dev"].max_ref_age_ms == 86400000
    assert refs["dev"].min_snapshots_to_keep == 3
    assert refs["dev"].snapshot_id == refs["main"].snapshot_id
    sql(wh, "ALTER TABLE s.r DROP BRANCH dev; ALTER TABLE s.r DROP TAG v2")
    assert set(catalog_for(wh).load_table("s.r").metadata.refs) == {"main"}


def test_optimize_same_rows_fewer_files(wh, tmp_path):
    sql(wh, "CREATE TABLE s.o (id bigint NOT NULL, k varchar, v double)"
            " WITH (partitioning = ARRAY['k'])")
    for i in range(12):
        sql(wh, f"INSERT INTO s.o VALUES ({i}, '{'abc'[i % 3]}', {i * 1.5}),"
                f" ({i + 100}, '{'abc'[(i + 1) % 3]}', NULL)")
    t = catalog_for(wh).load_table("s.o")
    before_rows = rows_of(t, "id", "k", "v")
    before_files = len(t.inspect.files())
    assert before_files == 24
    m = metrics(sql(wh, "ALTER TABLE s.o EXECUTE optimize(file_size_threshold => '1MB')"))
    assert m == {"rewritten_data_files_count": 24, "removed_delete_files_count": 0,
                 "added_data_files_count": 3}
    t = catalog_for(wh).load_table("s.o")
    assert rows_of(t, "id", "k", "v") == before_rows
    files = t.inspect.files().to_pylist()
    assert len(files) == 3
    assert sorted(f["partition"]["k"] for f in files) == ["a", "b", "c"]
    snap = t.current_snapshot()
    assert snap.summary.operation.value == "replace"
    s = snap.summary.additional_properties
    assert s["added-data-files"] == "3" and s["deleted-data-files"] == "24"
    assert s["added-records"] == s["deleted-records"] == "24"
    assert s["total-records"] == "24" and s["total-data-files"] == "3"


def test_optimize_applies_and_removes_deletes(wh, tmp_path):
    run_floe("--warehouse", wh, "table", "create", "s.u", "--schema",
             "id long not null, v string", "--identifier", "id")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,v\n1,one\n2,two\n3,three\n")
    b.write_text("id,v\n2,TWO\n4,four\n")
    run_floe("--warehouse", wh, "table", "append", "s.u", a)
    run_floe("--warehouse", wh, "table", "upsert", "s.u", b)
    t = catalog_for(wh).load_table("s.u")
    assert len(t.inspect.delete_files()) == 1
    m = metrics(sql(wh, "ALTER TABLE s.u EXECUTE optimize"))
    assert m == {"rewritten_data_files_count": 2, "removed_delete_files_count": 1,
                 "added_data_files_count": 1}
    t = catalog_for(wh).load_table("s.u")
    assert len(t.inspect.delete_files()) == 0
    # PyIceberg reads the compacted table (it could not apply equality deletes).
    assert rows_of(t, "id", "v") == [(1, "one"), (2, "TWO"), (3, "three"), (4, "four")]
    s = t.current_snapshot().summary.additional_properties
    assert s["removed-equality-delete-files"] == "1" and s["total-delete-files"] == "0"
    assert s["total-equality-deletes"] == "0"


def test_optimize_where_partition(wh):
    sql(wh, "CREATE TABLE s.w (id bigint, k varchar) WITH (partitioning = ARRAY['k'])")
    for i in range(4):
        sql(wh, f"INSERT INTO s.w VALUES ({i}, 'a'), ({i + 10}, 'b')")
    m = metrics(sql(wh, "ALTER TABLE s.w EXECUTE optimize WHERE k = 'a'"))
    assert m["rewritten_data_files_count"] == 4 and m["added_data_files_count"] == 1
    files = catalog_for(wh).load_table("s.w").inspect.files().to_pylist()
    assert sorted(f["partition"]["k"] for f in files) == ["a"] + ["b"] * 4
    proc = sql(wh, "ALTER TABLE s.w EXECUTE optimize WHERE id > 2", check=False)
    assert proc.returncode == 1 and "must select whole partitions" in proc.stderr


def test_expire_snapshots_removes_files(wh):
    sql(wh, "CREATE TABLE s.e (id bigint)")
    for i in range(4):
        sql(wh, f"INSERT INTO s.e VALUES ({i})")
    sql(wh, "ALTER TABLE s.e EXECUTE optimize")
    t = catalog_for(wh).load_table("s.e")
    old_files = {f.file.file_path for f in t.scan(snapshot_id=t.history()[0].snapshot_id)
                 .plan_files()}
    assert len(t.metadata.snapshots) == 5
    proc = sql(wh, "ALTER TABLE s.e EXECUTE expire_snapshots(retention_threshold => '0s')",
               check=False)
    assert proc.returncode == 1 and "Retention specified (0.00s) is shorter" in proc.stderr
    m = metrics(sql(wh, "SET SESSION iceberg.expire_snapshots_min_retention = '0s';"
                        "ALTER TABLE s.e EXECUTE expire_snapshots(retention_threshold => '0s')"))
    assert m["deleted_data_files_count"] == 4 and m["deleted_manifest_lists_count"] == 4
    t = catalog_for(wh).load_table("s.e")
    assert len(t.metadata.snapshots) == 1
    assert t.metadata.snapshots[0].snapshot_id == t.metadata.current_snapshot_id
    for p in old_files:
        assert not os.path.exists(p.removeprefix("file://"))
    assert rows_of(t, "id") == [(0,), (1,), (2,), (3,)]


def test_remove_orphan_files(wh):
    sql(wh, "CREATE TABLE s.f (id bigint); INSERT INTO s.f VALUES (1), (2)")
    t = catalog_for(wh).load_table("s.f")
    loc = pathlib.Path(t.location().removeprefix("file://"))
    old = loc / "data" / "orphan-old.parquet"
    new = loc / "data" / "orphan-new.parquet"
    old.write_bytes(b"x" * 100)
    new.write_bytes(b"y" * 10)
    ten_days_ago = time.time() - 10 * 86400
    os.utime(old, (ten_days_ago, ten_days_ago))
    m = metrics(sql(wh, "ALTER TABLE s.f EXECUTE remove_orphan_files(retention_threshold => '7d')"))
    assert m["deleted_files_count"] == 1 and m["deleted_bytes"] == 100
    assert not old.exists() and new.exists()
    # A lower minimum lets a shorter threshold take the new one too.
    os.utime(new, (time.time() - 7200, time.time() - 7200))
    m = metrics(sql(wh, "SET SESSION iceberg.remove_orphan_files_min_retention = '1h';"
                        "ALTER TABLE s.f EXECUTE remove_orphan_files(retention_threshold => '1h')"))
    assert m["deleted_files_count"] == 1 and not new.exists()
    assert rows_of(catalog_for(wh).load_table("s.f"), "id") == [(1,), (2,)]


def test_call_snapshot_procedures(wh):
    sql(wh, "CREATE TABLE s.c (id bigint); INSERT INTO s.c VALUES (1); INSERT INTO s.c VALUES (2)")
    t = catalog_for(wh).load_table("s.c")
    first, second = [h.snapshot_id for h in t.history()]
    sql(wh, f"CALL system.rollback_to_snapshot('s', 'c', {first})")
    t = catalog_for(wh).load_table("s.c")
    assert t.metadata.current_snapshot_id == first
    assert rows_of(t, "id") == [(1,)]
    rows = sql(wh, f"CALL system.set_current_snapshot(table => 's.c', snapshot_id => {second})")
    assert rows == [{"previous_snapshot_id": first, "current_snapshot_id": second}]
    assert catalog_for(wh).load_table("s.c").metadata.current_snapshot_id == second
    # An append on a branch, cherry-picked onto main.
    sql(wh, f"ALTER TABLE s.c EXECUTE rollback_to_snapshot(snapshot_id => {first})")
    assert catalog_for(wh).load_table("s.c").metadata.current_snapshot_id == first
    rows = sql(wh, f"CALL system.cherrypick_snapshot('s.c', {second})")
    t = catalog_for(wh).load_table("s.c")
    assert rows[0]["source_snapshot_id"] == second
    assert rows[0]["current_snapshot_id"] == t.metadata.current_snapshot_id
    assert rows_of(t, "id") == [(1,), (2,)]
    # second's parent is main's head: the pick is a fast-forward to it.
    assert t.metadata.current_snapshot_id == second
    # On a diverged main the pick is a new snapshot naming its source.
    sql(wh, "INSERT INTO s.c VALUES (3)")
    third = catalog_for(wh).load_table("s.c").metadata.current_snapshot_id
    sql(wh, f"CALL system.rollback_to_snapshot(table => 's.c', snapshot_id => {second});"
            "INSERT INTO s.c VALUES (4);"
            f"CALL system.cherrypick_snapshot(table => 's.c', snapshot_id => {third})")
    t = catalog_for(wh).load_table("s.c")
    assert t.current_snapshot().summary.additional_properties["source-snapshot-id"] == str(third)
    assert rows_of(t, "id") == [(1,), (2,), (3,), (4,)]


def test_register_and_unregister(wh):
    sql(wh, "CREATE TABLE s.g (id bigint); INSERT INTO s.g VALUES (5)")
    loc = catalog_for(wh).load_table("s.g").location().removeprefix("file://")
    sql(wh, "CALL system.unregister_table(schema_name => 's', table_name => 'g')")
    assert ("s", "g") not in catalog_for(wh).list_tables("s")
    assert os.path.isdir(loc)
    sql(wh, f"CALL system.register_table('s', 'g2', '{loc}')")
    assert rows_of(catalog_for(wh).load_table("s.g2"), "id") == [(5,)]
    meta = sorted(p.name for p in pathlib.Path(loc, "metadata").glob("*.metadata.json"))[0]
    sql(wh, f"CALL system.register_table('s', 'g3', '{loc}', '{meta}')")
    assert len(catalog_for(wh).load_table("s.g3").metadata.snapshots) == 0


def test_spark_extensions_and_comments(wh):
    sql(wh, "CREATE TABLE s.x (id bigint NOT NULL, region varchar NOT NULL, ts timestamp(6),"
            " amount double);"
            "ALTER TABLE s.x SET IDENTIFIER FIELDS id, region;"
            "ALTER TABLE s.x ADD PARTITION FIELD days(ts);"
            "ALTER TABLE s.x ADD PARTITION FIELD bucket(8, id) AS shard;"
            "ALTER TABLE s.x ALTER COLUMN amount FIRST;"
            "ALTER TABLE s.x ALTER COLUMN id COMMENT 'the key';"
            "COMMENT ON TABLE s.x IS 'sales'")
    t = catalog_for(wh).load_table("s.x")
    sc = t.schema()
    assert [f.name for f in sc.fields] == ["amount", "id", "region", "ts"]
    assert sorted(sc.identifier_field_names()) == ["id", "region"]
    assert sc.find_field("id").doc == "the key"
    assert [(f.name, str(f.transform)) for f in t.spec().fields] == [("ts_day", "day"),
                                                                    ("shard", "bucket[8]")]
    assert t.properties["comment"] == "sales"
    sql(wh, "ALTER TABLE s.x REPLACE PARTITION FIELD ts_day WITH hours(ts);"
            "ALTER TABLE s.x DROP PARTITION FIELD bucket(8, id);"
            "ALTER TABLE s.x DROP IDENTIFIER FIELDS region;"
            "COMMENT ON TABLE s.x IS NULL")
    t = catalog_for(wh).load_table("s.x")
    assert [(f.name, str(f.transform)) for f in t.spec().fields] == [("ts_hour", "hour")]
    assert t.schema().identifier_field_names() == {"id"}
    assert "comment" not in t.properties


def test_optimize_moves_old_spec_files_to_current_spec(wh):
    sql(wh, "CREATE TABLE s.ev (id bigint, k varchar)")
    for i in range(3):
        sql(wh, f"INSERT INTO s.ev VALUES ({i}, 'a'), ({i + 10}, 'b')")
    sql(wh, "ALTER TABLE s.ev SET PROPERTIES partitioning = ARRAY['k']")
    sql(wh, "INSERT INTO s.ev VALUES (20, 'a')")
    t = catalog_for(wh).load_table("s.ev")
    before = rows_of(t, "id", "k")
    m = metrics(sql(wh, "ALTER TABLE s.ev EXECUTE optimize"))
    # The three unpartitioned files form one group; the lone file of spec 1 stays.
    assert m == {"rewritten_data_files_count": 3, "removed_delete_files_count": 0,
                 "added_data_files_count": 2}
    t = catalog_for(wh).load_table("s.ev")
    files = t.inspect.files().to_pylist()
    assert [f["spec_id"] for f in files] == [t.spec().spec_id] * 3
    assert rows_of(t, "id", "k") == before
