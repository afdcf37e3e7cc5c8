"""floe sql's Iceberg metadata tables ("t$snapshots", "t$files", ...) against
PyIceberg's table.inspect on the same tables: tables with several snapshots
written by floe and by PyIceberg, identity and day partitions, equality
deletes (upserts), a rewritten file, a branch and a tag. Rows are matched
by their keys (snapshot id, file path, manifest path, partition, ref name)
and compared column by column."""
import datetime as dt
import json
import re

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from conftest import run_floe


def catalog_for(wh):
    return SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def floe_at(wh, *args, check=True):
    return run_floe("--warehouse", wh, *args, check=check)


def sql(wh, query):
    p = floe_at(wh, "sql", "--format", "json", "-c", query)
    return json.loads(p.stdout)


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(map(str, r)) + "\n")


def ms_of(text):
    """'2026-12-03 14:28:28.599 UTC' -> epoch milliseconds."""
    assert text.endswith(" UTC"), text
    t = dt.datetime.strptime(text[:-4], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=dt.timezone.utc)
    return round(t.timestamp() * 1000)


def py_ms(v):
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=dt.timezone.utc)
        return round(v.timestamp() * 1000)
    return v


def int_map(text):
    """floe's '{1=46, 2=43}' -> {1: 46, 2: 43}; None stays None."""
    if text is None:
        return None
    return {int(k): int(v) for k, v in re.findall(r"(\d+)=(-?\d+)", text)}


def py_map(v):
    if v is None:
        return None
    return dict(v)


@pytest.fixture
def wh(tmp_path):
    w = tmp_path / "wh"
    w.mkdir()
    floe_at(w, "ns", "create", "default")
    return w


@pytest.fixture
def tables(wh, tmp_path):
    """default.t: identity-partitioned by cat, four floe commits (appends,
    an upsert with equality deletes, a delete rewriting a file), one
    PyIceberg append, a tag and a branch with a commit of its own.
    default.d: partitioned by day(ts), two appends."""
    floe_at(wh, "table", "create", "default.t", "--schema",
            "id long not null, cat string not null, v double, note string",
            "--partition", "cat", "--identifier", "id, cat")
    a, b, c, e = (tmp_path / n for n in ("a.csv", "b.csv", "c.csv", "e.csv"))
    write_csv(a, "id,cat,v,note", [(i, "abc"[i % 3], i * 1.5, f"n{i}") for i in range(1, 31)])
    write_csv(b, "id,cat,v,note", [(i, "bd"[i % 2], i / 4, "") for i in range(31, 41)])
    write_csv(c, "id,cat,v,note", [(3, "a", 99.5, "up"), (6, "a", 98.5, "up")])
    write_csv(e, "id,cat,v,note", [(100, "z", 1.0, "dev")])
    floe_at(wh, "table", "append", "default.t", a)
    floe_at(wh, "table", "tag", "default.t", "first")
    floe_at(wh, "table", "append", "default.t", b)
    floe_at(wh, "table", "upsert", "default.t", c)
    floe_at(wh, "table", "delete", "default.t", "--filter", "cat = 'd'")
    cat = catalog_for(wh)
    t = cat.load_table("default.t")
    t.append(pa.table({"id": pa.array([200, 201], pa.int64()),
                       "cat": pa.array(["e", "e"], pa.string()),
                       "v": pa.array([0.5, None], pa.float64()),
                       "note": pa.array(["py", None], pa.string())},
                      schema=t.schema().as_arrow()))
    floe_at(wh, "table", "branch", "default.t", "dev")
    floe_at(wh, "table", "append", "default.t", e, "--branch", "dev")

    floe_at(wh, "table", "create", "default.d", "--schema", "id long, ts timestamptz",
            "--partition", "day(ts)")
    d1, d2 = tmp_path / "d1.csv", tmp_path / "d2.csv"
    write_csv(d1, "id,ts", [(i, f"2026-11-{10 + i % 3}T0{i % 9}:00:00Z") for i in range(12)])
    write_csv(d2, "id,ts", [(i, f"2026-11-{20 + i % 2}T12:00:00Z") for i in range(12, 16)])
    floe_at(wh, "table", "append", "default.d", d1)
    floe_at(wh, "table", "append", "default.d", d2)
    return catalog_for(wh)


def test_snapshots_match_pyiceberg(wh, tables):
    py = tables.load_table("default.t").inspect.snapshots().to_pylist()
    assert len(py) == 6
    keys = sorted({k for r in py for k, _ in r["summary"] if k != "operation"})
    cols = ", ".join(f"element_at(summary, '{k}') AS \"{k}\"" for k in keys)
    fl = sql(wh, "SELECT committed_at, snapshot_id, parent_id, operation, manifest_list, "
                 f"cardinality(summary) AS n, {cols} FROM \"t$snapshots\"")
    by_id = {r["snapshot_id"]: r for r in fl}
    assert sorted(by_id) == sorted(r["snapshot_id"] for r in py)
    for r in py:
        f = by_id[r["snapshot_id"]]
        assert ms_of(f["committed_at"]) == py_ms(r["committed_at"])
        assert f["parent_id"] == r["parent_id"]
        assert f["operation"] == r["operation"]
        assert f["manifest_list"] == r["manifest_list"]
        summary = {k: v for k, v in r["summary"] if k != "operation"}
        assert f["n"] == len(summary)
        for k in keys:
            assert f[k] == summary.get(k), (r["snapshot_id"], k)


def test_history_matches_pyiceberg(wh, tables):
    py = tables.load_table("default.t").inspect.history().to_pylist()
    fl = sql(wh, 'SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor '
                 'FROM "t$history"')
    by_id = {r["snapshot_id"]: r for r in fl}
    # Trino lists every snapshot; PyIceberg follows main's log, so every
    # one of its rows is one of floe's, and floe adds the branch's commit.
    assert len(fl) == len(py) + 1
    for r in py:
        f = by_id[r["snapshot_id"]]
        assert f["parent_id"] == r["parent_id"]
        assert f["is_current_ancestor"] == r["is_current_ancestor"]
        assert ms_of(f["made_current_at"]) == py_ms(r["made_current_at"])
    extra = [f for f in fl if f["snapshot_id"] not in {r["snapshot_id"] for r in py}]
    assert len(extra) == 1 and extra[0]["is_current_ancestor"] is False


def test_refs_match_pyiceberg(wh, tables):
    py = tables.load_table("default.t").inspect.refs().to_pylist()
    fl = sql(wh, 'SELECT * FROM "t$refs"')
    assert sorted(r["name"] for r in fl) == sorted(r["name"] for r in py) == ["dev", "first", "main"]
    by_name = {r["name"]: r for r in fl}
    for r in py:
        f = by_name[r["name"]]
        for k in ("type", "snapshot_id", "max_reference_age_in_ms", "min_snapshots_to_keep",
                  "max_snapshot_age_in_ms"):
            assert f[k] == r[k], (r["name"], k)


FILE_COLS = ("content, file_path, file_format, spec_id, partition.cat AS cat, record_count, "
             "file_size_in_bytes, column_sizes, value_counts, null_value_counts, "
             "nan_value_counts, sort_order_id, cardinality(split_offsets) AS nsplits, "
             "cardinality(equality_ids) AS neq, key_metadata, json_format(readable_metrics) AS rm")


def check_files(fl, py):
    assert sorted(f["file_path"] for f in fl) == sorted(r["file_path"] for r in py)
    by_path = {f["file_path"]: f for f in fl}
    for r in py:
        f = by_path[r["file_path"]]
        assert f["content"] == r["content"]
        assert f["file_format"] == r["file_format"]
        assert f["spec_id"] == r["spec_id"]
        assert f["cat"] == r["partition"]["cat"]
        assert f["record_count"] == r["record_count"]
        assert f["file_size_in_bytes"] == r["file_size_in_bytes"]
        for k in ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts"):
            assert int_map(f[k]) == (py_map(r[k]) or None), (r["file_path"], k)
        assert f["nsplits"] == (len(r["split_offsets"]) if r["split_offsets"] is not None else None)
        assert f["neq"] == (len(r["equality_ids"]) if r["equality_ids"] is not None else None)
        assert f["key_metadata"] is None and r["key_metadata"] is None
        if r["content"] == 0:
            assert f["sort_order_id"] == r["sort_order_id"]
        rm = json.loads(f["rm"])
        for col, m in r["readable_metrics"].items():
            got = rm[col]
            assert got["column_size"] == m["column_size"], (col, r["file_path"])
            assert got["value_count"] == m["value_count"]
            assert got["null_value_count"] == m["null_value_count"]
            assert got["nan_value_count"] == m["nan_value_count"]
            if r["content"] == 0:
                assert got["lower_bound"] == m["lower_bound"], (col, r["file_path"])
                assert got["upper_bound"] == m["upper_bound"], (col, r["file_path"])


def test_files_match_pyiceberg(wh, tables):
    t = tables.load_table("default.t")
    py = t.inspect.files().to_pylist()
    contents = sorted(r["content"] for r in py)
    assert 0 in contents and 2 in contents  # data and equality delete files
    check_files(sql(wh, f'SELECT {FILE_COLS} FROM "t$files"'), py)


def test_files_time_travel_matches_pyiceberg(wh, tables):
    t = tables.load_table("default.t")
    for ref in ("first", "dev"):
        sid = t.metadata.refs[ref].snapshot_id
        py = t.inspect.files(snapshot_id=sid).to_pylist()
        check_files(sql(wh, f"SELECT {FILE_COLS} FROM \"t$files\" FOR VERSION AS OF '{ref}'"), py)
        check_files(sql(wh, f'SELECT {FILE_COLS} FROM "t$files" FOR VERSION AS OF {sid}'), py)


def test_manifests_match_pyiceberg(wh, tables):
    t = tables.load_table("default.t")
    py = t.inspect.manifests().to_pylist()
    fl = sql(wh, 'SELECT content, path, length, partition_spec_id, added_snapshot_id, '
                 'added_data_files_count, existing_data_files_count, deleted_data_files_count, '
                 'partition_summaries FROM "t$manifests"')
    assert sorted(f["path"] for f in fl) == sorted(r["path"] for r in py)
    by_path = {f["path"]: f for f in fl}
    for r in py:
        f = by_path[r["path"]]
        for k in ("content", "length", "partition_spec_id", "added_snapshot_id"):
            assert f[k] == r[k], (r["path"], k)
        # Trino counts files of either content; PyIceberg splits them.
        kind = "data" if r["content"] == 0 else "delete"
        assert f["added_data_files_count"] == r[f"added_{kind}_files_count"]
        assert f["existing_data_files_count"] == r[f"existing_{kind}_files_count"]
        assert f["deleted_data_files_count"] == r[f"deleted_{kind}_files_count"]
        got = re.findall(r"\{contains_null=(\w+), contains_nan=(\w+), lower_bound=([^,]*), "
                         r"upper_bound=([^}]*)\}", f["partition_summaries"])
        want = [(str(s["contains_null"]).lower(),
                 "NULL" if s["contains_nan"] is None else str(s["contains_nan"]).lower(),
                 s["lower_bound"], s["upper_bound"]) for s in r["partition_summaries"]]
        assert got == want, r["path"]


def test_all_manifests_cover_every_snapshot(wh, tables):
    t = tables.load_table("default.t")
    fl = sql(wh, 'SELECT reference_snapshot_id AS s, path, added_data_files_count AS a, '
                 'added_delete_files_count AS ad FROM "t$all_manifests"')
    assert {f["s"] for f in fl} == {s.snapshot_id for s in t.metadata.snapshots}
    for snap in t.metadata.snapshots:
        listed = snap.manifests(t.io)
        mine = [f for f in fl if f["s"] == snap.snapshot_id]
        assert sorted(f["path"] for f in mine) == sorted(m.manifest_path for m in listed)
        assert sum(f["a"] + f["ad"] for f in mine) == sum(m.added_files_count for m in listed)


def test_partitions_match_pyiceberg(wh, tables):
    for name in ("t", "d"):
        t = tables.load_table(f"default.{name}")
        py = t.inspect.partitions().to_pylist()
        field = "cat" if name == "t" else "ts_day"
        fl = sql(wh, f'SELECT CAST(partition.{field} AS varchar) AS p, record_count, file_count, '
                     f'total_size FROM "{name}$partitions"')
        assert len(fl) == len(py), name
        by_p = {f["p"]: f for f in fl}
        for r in py:
            key = r["partition"][field]
            f = by_p[key if isinstance(key, str) else key.isoformat()]
            assert f["record_count"] == r["record_count"], (name, key)
            assert f["file_count"] == r["file_count"], (name, key)
            assert f["total_size"] == r["total_data_file_size_in_bytes"], (name, key)


def test_metadata_tables_in_queries(wh, tables):
    """Joins, aggregates and filters over metadata tables, checked against
    PyIceberg's numbers."""
    t = tables.load_table("default.t")
    files = t.inspect.files().to_pylist()
    rows = sql(wh, 'SELECT s.operation AS op, count(*) AS n FROM "t$snapshots" s '
                   'JOIN default."t$history" h ON s.snapshot_id = h.snapshot_id '
                   'WHERE h.is_current_ancestor GROUP BY 1 ORDER BY 1')
    ops = {}
    for s in t.inspect.snapshots().to_pylist():
        if s["snapshot_id"] in {h["snapshot_id"] for h in t.inspect.history().to_pylist()
                                if h["is_current_ancestor"]}:
            ops[s["operation"]] = ops.get(s["operation"], 0) + 1
    assert {r["op"]: r["n"] for r in rows} == ops
    rows = sql(wh, 'SELECT sum(record_count) AS n, count(*) AS f FROM "t$files" WHERE content = 0')
    data = [r for r in files if r["content"] == 0]
    assert rows == [{"n": sum(r["record_count"] for r in data), "f": len(data)}]
    rows = sql(wh, 'SELECT f.partition.cat AS cat, sum(f.record_count) AS n, max(p.record_count) AS pn '
                   'FROM "t$files" f JOIN "t$partitions" p ON f.partition.cat = p.partition.cat '
                   'WHERE f.content = 0 GROUP BY 1 ORDER BY 1')
    for r in rows:
        assert r["n"] == r["pn"]
    assert [r["cat"] for r in rows] == sorted({r["partition"]["cat"] for r in data})
