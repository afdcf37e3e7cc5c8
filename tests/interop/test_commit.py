"""Snapshot-producing commits (src/iceberg/ice_commit*.c) against PyIceberg:
floe appends, overwrites, deletes and writes row deltas (position and
equality deletes) on tables created by PyIceberg or by floe in a SqlCatalog
on sqlite; PyIceberg reads every snapshot with the rows it should have and
the summaries it expects, keeps committing on top of floe's snapshots, and
writes the same summary keys and values for the same append. floe runs
through build/tests/commit_tool over the same catalog."""
import json
import pathlib
import subprocess
import urllib.parse

import pyarrow as pa
import pytest

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import EqualTo, GreaterThanOrEqual
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "tests" / "commit_tool"

SCHEMA = Schema(NestedField(1, "id", LongType(), required=True),
                NestedField(2, "v", StringType(), required=False))
ARROW = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])

# Summary keys whose values depend on the bytes of the files each writer made.
SIZE_KEYS = {"added-files-size", "removed-files-size", "total-files-size"}


def rows(ids, v=None):
    return pa.table({"id": list(ids), "v": [v if v else f"row-{i}" for i in ids]}, schema=ARROW)


def local(path):
    return urllib.parse.urlparse(path).path if path.startswith("file:") else path


@pytest.fixture
def catalog(tmp_path):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build first")
    cat = SqlCatalog("default", uri=f"sqlite:///{tmp_path}/catalog.db",
                     warehouse=f"file://{tmp_path}/wh")
    cat.create_namespace("db")
    return cat, tmp_path


def floe(tmp_path, table, *args, check=True):
    proc = subprocess.run([str(TOOL), "--catalog", f"sqlite:{tmp_path}/catalog.db",
                           "--warehouse", f"file://{tmp_path}/wh", "--name", "default",
                           "--table", table, *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"commit_tool {' '.join(map(str, args))} failed "
                             f"({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout) if proc.returncode == 0 else proc


def ids_at(tbl, snapshot_id, row_filter=None):
    scan = tbl.scan(snapshot_id=snapshot_id) if row_filter is None else \
        tbl.scan(snapshot_id=snapshot_id, row_filter=row_filter)
    return sorted(scan.to_arrow().column("id").to_pylist())


def live_entries(tbl, snapshot):
    out = []
    for m in snapshot.manifests(tbl.io):
        for e in m.fetch_manifest_entry(tbl.io, discard_deleted=True):
            out.append((m, e))
    return out


def summary_of(tbl, snapshot_id):
    s = tbl.metadata.snapshot_by_id(snapshot_id)
    d = dict(s.summary.additional_properties)
    d["operation"] = s.summary.operation.value
    return d


def check_totals(tbl, snapshot_id):
    """The totals match the live files PyIceberg finds."""
    s = tbl.metadata.snapshot_by_id(snapshot_id)
    entries = live_entries(tbl, s)
    data = [e.data_file for _, e in entries if e.data_file.content.value == 0]
    pos = [e.data_file for _, e in entries if e.data_file.content.value == 1]
    eq = [e.data_file for _, e in entries if e.data_file.content.value == 2]
    summ = summary_of(tbl, snapshot_id)
    assert int(summ["total-data-files"]) == len(data)
    assert int(summ["total-records"]) == sum(f.record_count for f in data)
    assert int(summ["total-delete-files"]) == len(pos) + len(eq)
    assert int(summ["total-position-deletes"]) == sum(f.record_count for f in pos)
    assert int(summ["total-equality-deletes"]) == sum(f.record_count for f in eq)
    assert int(summ["total-files-size"]) == sum(f.file_size_in_bytes for _, e in entries
                                                for f in [e.data_file])


def test_floe_commits_on_pyiceberg_table(catalog):
    cat, tmp = catalog
    tbl = cat.create_table("db.t", SCHEMA)
    tbl.append(rows(range(0, 10)))
    s1 = tbl.current_snapshot()

    r = floe(tmp, "db.t", "append", "--rows", 10, "--start", 10)
    tbl = cat.load_table("db.t")
    s2 = tbl.current_snapshot()
    assert s2.snapshot_id == r["snapshot_id"]
    assert s2.parent_snapshot_id == s1.snapshot_id
    assert s2.sequence_number == s1.sequence_number + 1
    assert s2.timestamp_ms >= s1.timestamp_ms
    assert ids_at(tbl, s2.snapshot_id) == list(range(20))
    assert ids_at(tbl, s1.snapshot_id) == list(range(10))
    summ = summary_of(tbl, s2.snapshot_id)
    assert summ == r["summary"]
    assert summ["operation"] == "append"
    assert summ["added-data-files"] == "1" and summ["added-records"] == "10"
    assert summ["total-records"] == "20" and summ["total-data-files"] == "2"
    # The same keys PyIceberg wrote for its own append, and Java's
    # changed-partition-count, which PyIceberg leaves out for an
    # unpartitioned table (Java counts the one partition "").
    assert summ["changed-partition-count"] == "1"
    assert set(summ) - {"changed-partition-count"} == set(summary_of(tbl, s1.snapshot_id))
    check_totals(tbl, s2.snapshot_id)
    # Sequence numbers: PyIceberg's file kept 1, floe's inherited 2.
    seqs = {e.data_file.file_path: e.sequence_number for _, e in live_entries(tbl, s2)}
    assert seqs[r["files"][0]] == s2.sequence_number
    assert sorted(seqs.values()) == [s1.sequence_number, s2.sequence_number]

    # Overwrite: floe's file (ids 10..19) goes, 100..104 arrive.
    r = floe(tmp, "db.t", "overwrite", "--filter", "id >= 10", "--rows", 5, "--start", 100)
    tbl = cat.load_table("db.t")
    s3 = tbl.current_snapshot()
    assert r["operation"] == "overwrite"
    assert ids_at(tbl, s3.snapshot_id) == list(range(10)) + list(range(100, 105))
    summ = summary_of(tbl, s3.snapshot_id)
    assert summ["operation"] == "overwrite"
    assert summ["deleted-data-files"] == "1" and summ["deleted-records"] == "10"
    assert summ["added-data-files"] == "1" and summ["added-records"] == "5"
    assert summ["total-records"] == "15"
    check_totals(tbl, s3.snapshot_id)
    assert ids_at(tbl, s2.snapshot_id) == list(range(20))

    # PyIceberg appends on top of floe's snapshot; its totals build on floe's.
    tbl.append(rows(range(200, 203)))
    s4 = tbl.current_snapshot()
    assert s4.parent_snapshot_id == s3.snapshot_id
    assert summary_of(tbl, s4.snapshot_id)["total-records"] == "18"
    check_totals(tbl, s4.snapshot_id)

    # Delete by filter: PyIceberg's first file (ids 0..9, by its metrics).
    r = floe(tmp, "db.t", "delete", "--filter", "id < 10")
    tbl = cat.load_table("db.t")
    s5 = tbl.current_snapshot()
    assert r["operation"] == "delete"
    assert summary_of(tbl, s5.snapshot_id)["operation"] == "delete"
    assert ids_at(tbl, s5.snapshot_id) == list(range(100, 105)) + list(range(200, 203))
    check_totals(tbl, s5.snapshot_id)

    # Row delta with position deletes on floe's file of 100..104.
    path = [e.data_file.file_path for _, e in live_entries(tbl, s5)
            if e.data_file.record_count == 5][0]
    r = floe(tmp, "db.t", "pos-delete", "--path", path, "--pos", "1,3")
    tbl = cat.load_table("db.t")
    s6 = tbl.current_snapshot()
    summ = summary_of(tbl, s6.snapshot_id)
    assert summ["operation"] == "delete"
    assert summ["added-delete-files"] == "1"
    assert summ["added-position-delete-files"] == "1"
    assert summ["added-position-deletes"] == "2"
    assert summ["total-position-deletes"] == "2"
    check_totals(tbl, s6.snapshot_id)
    assert ids_at(tbl, s6.snapshot_id) == [100, 102, 104, 200, 201, 202]
    dm = [m for m in s6.manifests(tbl.io) if m.content.value == 1]
    assert len(dm) == 1 and dm[0].sequence_number == s6.sequence_number

    # Remove by path.
    r = floe(tmp, "db.t", "delete", "--path", path)
    tbl = cat.load_table("db.t")
    assert ids_at(tbl, tbl.current_snapshot().snapshot_id) == [200, 201, 202]
    assert ids_at(tbl, s6.snapshot_id) == [100, 102, 104, 200, 201, 202]


def test_floe_table_partitioned_with_equality_deletes(catalog):
    cat, tmp = catalog
    floe(tmp, "db.p", "create", "--spec", "v", "--prop", "commit.manifest.min-count-to-merge=3")
    r1 = floe(tmp, "db.p", "append", "--rows", 4, "--start", 0, "--v", "a")
    r2 = floe(tmp, "db.p", "append", "--rows", 4, "--start", 10, "--v", "b")
    r3 = floe(tmp, "db.p", "append", "--rows", 4, "--start", 20, "--v", "a")
    assert r3["sequence_number"] == 3
    tbl = cat.load_table("db.p")
    assert [f.name for f in tbl.spec().fields] == ["v"]
    s3 = tbl.current_snapshot()
    assert ids_at(tbl, s3.snapshot_id) == [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]
    # Merged at the third manifest: one data manifest, every file once.
    assert len(s3.manifests(tbl.io)) == 1
    files = sorted(e.data_file.file_path for _, e in live_entries(tbl, s3))
    assert files == sorted(r1["files"] + r2["files"] + r3["files"])
    seqs = {e.data_file.file_path: e.sequence_number for _, e in live_entries(tbl, s3)}
    assert [seqs[r["files"][0]] for r in (r1, r2, r3)] == [1, 2, 3]
    check_totals(tbl, s3.snapshot_id)
    assert summary_of(tbl, s3.snapshot_id)["changed-partition-count"] == "1"

    # Delete partition b by filter.
    r = floe(tmp, "db.p", "delete", "--filter", "v = 'b'")
    tbl = cat.load_table("db.p")
    s4 = tbl.current_snapshot()
    assert r["operation"] == "delete"
    assert ids_at(tbl, s4.snapshot_id) == [0, 1, 2, 3, 20, 21, 22, 23]
    check_totals(tbl, s4.snapshot_id)

    # Equality deletes in partition a: the manifests say so (PyIceberg's
    # scan does not apply equality deletes, so only metadata is checked).
    r = floe(tmp, "db.p", "eq-delete", "--ids", "1,21", "--v", "a")
    tbl = cat.load_table("db.p")
    s5 = tbl.current_snapshot()
    summ = summary_of(tbl, s5.snapshot_id)
    assert summ["operation"] == "delete"
    assert summ["added-equality-delete-files"] == "1"
    assert summ["added-equality-deletes"] == "2"
    assert summ["total-equality-deletes"] == "2"
    check_totals(tbl, s5.snapshot_id)
    eq = [e for m, e in live_entries(tbl, s5) if m.content.value == 1]
    assert len(eq) == 1
    assert eq[0].data_file.content.value == 2
    assert list(eq[0].data_file.equality_ids) == [1]
    assert eq[0].sequence_number == s5.sequence_number
    assert eq[0].data_file.partition[0] == "a"

    # PyIceberg appends to floe's partitioned table and reads its rows.
    tbl.append(rows(range(30, 32), v="c"))
    tbl = cat.load_table("db.p")
    s6 = tbl.current_snapshot()
    assert s6.parent_snapshot_id == s5.snapshot_id
    assert ids_at(tbl, s6.snapshot_id, GreaterThanOrEqual("id", 30)) == [30, 31]
    check_totals(tbl, s6.snapshot_id)


def test_append_summary_matches_pyiceberg(catalog):
    cat, tmp = catalog
    for spec_args, name in (([], "u"), (["--spec", "v"], "q")):
        floe(tmp, f"db.f{name}", "create", *spec_args)
        py = cat.create_table(f"db.p{name}", SCHEMA,
                              partition_spec=cat.load_table(f"db.f{name}").spec())
        for start in (0, 100):
            batch = rows(range(start, start + 6), v="x" if start else None)
            py.append(batch)
            if start:
                r = floe(tmp, f"db.f{name}", "append", "--rows", 6, "--start", start, "--v", "x")
            else:
                r = floe(tmp, f"db.f{name}", "append", "--rows", 6, "--start", start)
            py = cat.load_table(f"db.p{name}")
            ft = cat.load_table(f"db.f{name}")
            mine = summary_of(ft, r["snapshot_id"])
            theirs = summary_of(py, py.current_snapshot().snapshot_id)
            if name == "u":
                # Java's count for an unpartitioned table; PyIceberg omits it.
                assert mine.pop("changed-partition-count") == "1"
                assert "changed-partition-count" not in theirs
            assert set(mine) == set(theirs), (name, start, mine, theirs)
            for k in mine:
                if k not in SIZE_KEYS:
                    assert mine[k] == theirs[k], (name, start, k, mine[k], theirs[k])
            check_totals(ft, r["snapshot_id"])


def test_conflicts_leave_the_table_as_it_was(catalog):
    """A delete computed against an older snapshot fails with a conflict
    (exit status 3) when PyIceberg appended matching rows since, and
    removing a file that is already gone names it; either way PyIceberg
    sees the table unchanged and no file of the failed commit remains."""
    cat, tmp = catalog
    floe(tmp, "db.c", "create")
    r = floe(tmp, "db.c", "append", "--rows", 3, "--start", 0)
    base = r["snapshot_id"]
    tbl = cat.load_table("db.c")
    tbl.append(rows(range(5, 8)))
    tbl = cat.load_table("db.c")
    before = tbl.metadata_location
    meta_dir = pathlib.Path(local(tbl.metadata.location)) / "metadata"
    files_before = sorted(p.name for p in meta_dir.iterdir())
    proc = floe(tmp, "db.c", "delete", "--filter", "id >= 0", "--base", base, check=False)
    assert proc.returncode == 3, proc.stderr
    assert "conflict" in proc.stderr
    tbl = cat.load_table("db.c")
    assert tbl.metadata_location == before
    assert sorted(p.name for p in meta_dir.iterdir()) == files_before
    assert ids_at(tbl, tbl.current_snapshot().snapshot_id) == [0, 1, 2, 5, 6, 7]
    # Based on the current head the same delete goes through.
    head = tbl.current_snapshot().snapshot_id
    r2 = floe(tmp, "db.c", "delete", "--filter", "id >= 0", "--base", head)
    assert r2["operation"] == "delete"
    tbl = cat.load_table("db.c")
    assert ids_at(tbl, tbl.current_snapshot().snapshot_id) == []
    assert summary_of(tbl, r2["snapshot_id"])["total-records"] == "0"

    proc = floe(tmp, "db.c", "delete", "--path", r["files"][0], check=False)
    assert proc.returncode == 1
    assert r["files"][0] in proc.stderr


def test_delete_summary_matches_pyiceberg(catalog):
    """The same whole-partition delete by floe and by PyIceberg gives the
    same summary (file sizes aside)."""
    cat, tmp = catalog
    floe(tmp, "db.fd", "create", "--spec", "v")
    py = cat.create_table("db.pd", SCHEMA, partition_spec=cat.load_table("db.fd").spec())
    for start, v in ((0, "a"), (10, "b"), (20, "b")):
        py.append(rows(range(start, start + 4), v=v))
        floe(tmp, "db.fd", "append", "--rows", 4, "--start", start, "--v", v)
    py = cat.load_table("db.pd")
    py.delete(EqualTo("v", "b"))
    py = cat.load_table("db.pd")
    r = floe(tmp, "db.fd", "delete", "--filter", "v = 'b'")
    ft = cat.load_table("db.fd")
    mine = summary_of(ft, r["snapshot_id"])
    theirs = summary_of(py, py.current_snapshot().snapshot_id)
    assert set(mine) == set(theirs), (mine, theirs)
    for k in mine:
        if k not in SIZE_KEYS:
            assert mine[k] == theirs[k], (k, mine[k], theirs[k])
    assert ids_at(ft, r["snapshot_id"]) == ids_at(py, py.current_snapshot().snapshot_id)
