"""Table maintenance (src/iceberg/ice_expire.c, ice_orphans.c) against
PyIceberg: floe expires snapshots of a table PyIceberg wrote through a
SqlCatalog on sqlite, and PyIceberg then reads every remaining snapshot with
the rows it had before, finds no dangling file reference, and the files only
expired snapshots reached are gone from the disk; the same after floe itself
appended to the table; orphan removal deletes only old unreferenced files.
floe runs through build/tests/maint_tool over the same catalog."""
import json
import os
import pathlib
import subprocess
import time
import urllib.parse

import pyarrow as pa
import pytest

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = pathlib.Path(os.environ.get("FLOE_MAINT_TOOL", ROOT / "build" / "tests" / "maint_tool"))

SCHEMA = Schema(NestedField(1, "id", LongType(), required=True),
                NestedField(2, "v", StringType(), required=False))
ARROW = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])


def rows(ids):
    return pa.table({"id": list(ids), "v": [f"row-{i}" for i in ids]}, schema=ARROW)


def local(path):
    """A local path for a file:// URI or a plain path."""
    if path.startswith("file:"):
        return urllib.parse.urlparse(path).path
    return path


@pytest.fixture
def catalog(tmp_path):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build first")
    cat = SqlCatalog("default", uri=f"sqlite:///{tmp_path}/catalog.db",
                     warehouse=f"file://{tmp_path}/wh")
    cat.create_namespace("db")
    return cat, tmp_path


def floe(tmp_path, *args, check=True):
    proc = subprocess.run([str(TOOL), "--catalog", f"sqlite:{tmp_path}/catalog.db",
                           "--warehouse", f"file://{tmp_path}/wh", "--name", "default",
                           "--table", "db.t", *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"maint_tool {' '.join(map(str, args))} failed ({proc.returncode}):\n"
                             f"{proc.stderr}")
    return json.loads(proc.stdout) if proc.returncode == 0 else proc


def snapshot_files(tbl, snapshot):
    """The manifest list, manifests and live data/delete files of a snapshot."""
    files = {"lists": {local(snapshot.manifest_list)}, "manifests": set(), "data": set()}
    for m in snapshot.manifests(tbl.io):
        files["manifests"].add(local(m.manifest_path))
        for e in m.fetch_manifest_entry(tbl.io, discard_deleted=True):
            files["data"].add(local(e.data_file.file_path))
    return files


def census(tbl):
    return {s.snapshot_id: snapshot_files(tbl, s) for s in tbl.metadata.snapshots}


def scan_ids(tbl, snapshot_id):
    t = tbl.scan(snapshot_id=snapshot_id).to_arrow()
    return sorted(t.column("id").to_pylist())


def check_after_expiry(tbl, before, rows_before, result):
    """Remaining snapshots read as before; files of expired ones are gone
    unless a remaining snapshot still reaches them; counts match the disk."""
    remaining = {s.snapshot_id for s in tbl.metadata.snapshots}
    kept = {k: set() for k in ("lists", "manifests", "data")}
    for sid in remaining:
        for k in kept:
            kept[k] |= before[sid][k]
    gone = {k: set() for k in kept}
    for sid, files in before.items():
        if sid in remaining:
            continue
        for k in kept:
            gone[k] |= files[k] - kept[k]
    for k in kept:
        for p in kept[k]:
            assert os.path.exists(p), f"{p} is referenced by a remaining snapshot but missing"
        for p in gone[k]:
            assert not os.path.exists(p), f"{p} was only reachable from expired snapshots"
    assert result["manifest_lists_deleted"] == len(gone["lists"])
    assert result["manifests_deleted"] == len(gone["manifests"])
    assert result["data_files_deleted"] == len(gone["data"])
    for sid in remaining:
        assert scan_ids(tbl, sid) == rows_before[sid]
        # Nothing the reloaded metadata names is missing.
        for k, paths in snapshot_files(tbl, tbl.metadata.snapshot_by_id(sid)).items():
            for p in paths:
                assert os.path.exists(p), p
    return gone


def test_expire_pyiceberg_table(catalog):
    cat, tmp = catalog
    tbl = cat.create_table("db.t", SCHEMA)
    tbl.append(rows(range(0, 10)))                       # s1
    tbl.append(rows(range(10, 20)))                      # s2
    s2 = tbl.current_snapshot().snapshot_id
    tbl.manage_snapshots().create_tag(s2, "t1").commit()
    tbl.delete("id < 5")                                 # s3: rewrites the first file
    s3 = tbl.current_snapshot().snapshot_id
    tbl.manage_snapshots().create_branch(s3, "audit").commit()
    tbl.append(rows(range(50, 53)), branch="audit")      # audit: s3 - b1
    tbl.overwrite(rows(range(100, 105)))                 # s4: replaces everything
    tbl.append(rows(range(200, 203)))                    # s5
    tbl = cat.load_table("db.t")
    snaps = [s.snapshot_id for s in tbl.metadata.snapshots]
    assert len(snaps) >= 5
    before = census(tbl)
    rows_before = {sid: scan_ids(tbl, sid) for sid in snaps}
    main_history = [s.snapshot_id for s in tbl.history()]
    head = tbl.current_snapshot().snapshot_id
    loc_before = tbl.metadata_location

    # Dry run: the counts, and nothing changes.
    dry = floe(tmp, "expire", "--older-than", int(time.time() * 1000) + 60000,
               "--retain-last", 2, "--dry-run")
    assert dry["metadata_location"] == loc_before
    assert cat.load_table("db.t").metadata_location == loc_before
    for files in before.values():
        for paths in files.values():
            for p in paths:
                assert os.path.exists(p)

    res = floe(tmp, "expire", "--older-than", int(time.time() * 1000) + 60000,
               "--retain-last", 2)
    tbl = cat.load_table("db.t")
    assert tbl.metadata_location != loc_before
    remaining = {s.snapshot_id for s in tbl.metadata.snapshots}
    # main keeps its head and parent; the tag keeps s2.
    parent = tbl.metadata.snapshot_by_id(head).parent_snapshot_id
    b1 = tbl.metadata.refs["audit"].snapshot_id
    assert b1 != s3
    # audit keeps its head and the parent within retain-last 2: s3.
    assert remaining == {head, parent, s2, b1, s3}
    assert res["snapshots_expired"] == len(snaps) - 5
    assert tbl.metadata.refs["t1"].snapshot_id == s2
    assert tbl.current_snapshot().snapshot_id == head
    assert res == {**dry, "metadata_location": res["metadata_location"]}
    gone = check_after_expiry(tbl, before, rows_before, res)
    # Expired: s1, and on main the delete half of the overwrite. The tag
    # still reaches s2's files, the branch the file the delete wrote.
    assert gone["lists"]
    assert scan_ids(tbl, s2) == list(range(0, 20))
    assert scan_ids(tbl, b1) == list(range(5, 20)) + list(range(50, 53))
    assert scan_ids(tbl, head) == list(range(100, 105)) + list(range(200, 203))
    # The snapshot log keeps what follows the last expired entry (an earlier
    # entry would make a later snapshot look current when it was not).
    suffix = []
    for h in main_history:
        suffix = suffix + [h] if h in remaining else []
    assert [e.snapshot_id for e in tbl.history()] == suffix
    # PyIceberg can keep writing on the expired table.
    tbl.append(rows(range(300, 302)))
    assert scan_ids(cat.load_table("db.t"), None)[-2:] == [300, 301]


def test_pyiceberg_reads_floe_appends_after_expiry(catalog):
    cat, tmp = catalog
    tbl = cat.create_table("db.t", SCHEMA)
    tbl.append(rows(range(0, 4)))
    ids = [floe(tmp, "append", "--rows", 5, "--start", 10 * k)["snapshot_id"] for k in range(1, 4)]
    tbl = cat.load_table("db.t")
    assert tbl.current_snapshot().snapshot_id == ids[-1]
    tbl.delete("id >= 30")                               # PyIceberg on top of floe's commits
    floe(tmp, "append", "--rows", 2, "--start", 40)
    tbl = cat.load_table("db.t")
    snaps = [s.snapshot_id for s in tbl.metadata.snapshots]
    before = census(tbl)
    rows_before = {sid: scan_ids(tbl, sid) for sid in snaps}
    res = floe(tmp, "expire", "--older-than", int(time.time() * 1000) + 60000,
               "--retain-last", 1)
    tbl = cat.load_table("db.t")
    assert len(tbl.metadata.snapshots) == 1
    assert res["snapshots_expired"] == len(snaps) - 1
    check_after_expiry(tbl, before, rows_before, res)
    expected = list(range(0, 4)) + list(range(10, 15)) + list(range(20, 25)) + [40, 41]
    assert scan_ids(tbl, tbl.current_snapshot().snapshot_id) == expected


def test_orphans(catalog):
    cat, tmp = catalog
    tbl = cat.create_table("db.t", SCHEMA)
    tbl.append(rows(range(0, 10)))
    tbl.overwrite(rows(range(10, 15)))
    tbl = cat.load_table("db.t")
    loc = local(tbl.location())
    data = pathlib.Path(loc) / "data"
    old = time.time() - 3 * 86400
    every = [p for p in pathlib.Path(loc).rglob("*") if p.is_file()]
    for p in every:
        os.utime(p, (old, old))
    stray_old = data / "00000-0-lost.parquet"
    stray_new = data / "00000-0-in-flight.parquet"
    stray_meta = pathlib.Path(loc) / "metadata" / "snap-1-0-lost.avro"
    for p in (stray_old, stray_new, stray_meta):
        p.write_bytes(b"not referenced")
    os.utime(stray_old, (old, old))
    os.utime(stray_meta, (old, old))

    reach = floe(tmp, "reachable")["paths"]
    assert local(tbl.metadata_location) in reach
    for s in tbl.metadata.snapshots:
        assert local(s.manifest_list) in reach

    threshold = int((time.time() - 86400) * 1000)
    dry = floe(tmp, "orphans", "--older-than", threshold, "--dry-run")
    assert sorted(dry["paths"]) == sorted([str(stray_old), str(stray_meta)])
    assert stray_old.exists() and stray_meta.exists()
    res = floe(tmp, "orphans", "--older-than", threshold)
    assert sorted(res["paths"]) == sorted(dry["paths"])
    assert res["orphans_deleted"] == 2
    assert res["bytes_deleted"] == 2 * len(b"not referenced")
    assert not stray_old.exists() and not stray_meta.exists() and stray_new.exists()
    for p in every:
        assert p.exists(), p
    tbl = cat.load_table("db.t")
    for s in tbl.metadata.snapshots:
        scan_ids(tbl, s.snapshot_id)
    assert scan_ids(tbl, tbl.current_snapshot().snapshot_id) == list(range(10, 15))
