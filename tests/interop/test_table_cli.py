"""floe's Iceberg tables and catalog against PyIceberg, through `floe table`.

Both sides open the same SQLite catalog (Iceberg's JDBC catalog schema):
tables floe writes must read identically in PyIceberg (rows, schema,
partition spec, snapshot history, summaries), tables PyIceberg writes must
read identically in floe, concurrent writers must never lose or duplicate a
commit, and a writer killed at any moment must leave a valid table.
"""
import datetime as dt
import decimal
import json
import os
import pathlib
import random
import signal
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from conftest import FLOE, run_floe

SCHEMA = "id long not null, ts timestamptz not null, name string, amount decimal(10,2), score double"


def catalog_for(wh):
    return SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def floe_at(wh, *args, check=True):
    return run_floe("--warehouse", wh, *args, check=check)


def write_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def make_rows(start, n, day):
    base = dt.datetime(2026, 11, 30, tzinfo=dt.timezone.utc) + dt.timedelta(days=day)
    out = []
    for i in range(start, start + n):
        out.append({
            "id": i,
            "ts": (base + dt.timedelta(seconds=i % 86400)).isoformat(),
            "name": None if i % 7 == 0 else f"user-{i % 13}",
            "amount": f"{(i * 37) % 10000 / 100:.2f}",
            "score": (i % 101) / 3.0,
        })
    return out


def norm_floe(row):
    """floe's JSON text form -> Python values comparable with PyIceberg's."""
    out = {}
    for k, v in row.items():
        if k == "ts" and v is not None:
            v = dt.datetime.fromisoformat(v)
        elif k == "amount" and v is not None:
            v = decimal.Decimal(v)
        out[k] = v
    return out


def floe_scan(wh, table, *extra):
    p = floe_at(wh, "table", "scan", table, "--format", "jsonl", *extra)
    return [norm_floe(json.loads(line)) for line in p.stdout.splitlines() if line.strip()]


def py_rows(tbl, **kw):
    rows = tbl.scan(**kw).to_arrow().to_pylist()
    for r in rows:
        if r.get("amount") is not None:
            r["amount"] = decimal.Decimal(r["amount"])
    return rows


def by_id(rows):
    return sorted(rows, key=lambda r: r["id"])


@pytest.fixture
def wh(tmp_path):
    w = tmp_path / "wh"
    w.mkdir()
    return w


def test_floe_table_reads_identically_in_pyiceberg(wh, tmp_path):
    floe_at(wh, "ns", "create", "db", "--property", "owner=data-eng")
    floe_at(wh, "table", "create", "db.events", "--schema", SCHEMA,
            "--partition", "day(ts), bucket(4, id)", "--sort", "id",
            "--property", "write.parquet.compression-codec=snappy")
    files = []
    for day in range(3):
        p = tmp_path / f"day{day}.jsonl"
        write_jsonl(p, make_rows(day * 1000, 1000, day))
        files.append(p)
    # One commit of two files, then one more.
    floe_at(wh, "table", "append", "db.events", files[0], files[1])
    floe_at(wh, "table", "append", "db.events", files[2])

    cat = catalog_for(wh)
    assert ("db",) in cat.list_namespaces()
    assert cat.load_namespace_properties("db")["owner"] == "data-eng"
    tbl = cat.load_table("db.events")
    fields = {f.name: (f.field_id, str(f.field_type), f.required) for f in tbl.schema().fields}
    assert fields == {"id": (1, "long", True), "ts": (2, "timestamptz", True),
                      "name": (3, "string", False), "amount": (4, "decimal(10, 2)", False),
                      "score": (5, "double", False)}
    spec = tbl.spec()
    assert [(f.source_id, str(f.transform), f.name) for f in spec.fields] == [
        (2, "day", "ts_day"), (1, "bucket[4]", "id_bucket_4")]
    assert [f.source_id for f in tbl.sort_order().fields] == [1]
    assert tbl.properties["write.parquet.compression-codec"] == "snappy"

    snaps = tbl.snapshots()
    assert len(snaps) == 2
    assert snaps[1].parent_snapshot_id == snaps[0].snapshot_id
    s0 = snaps[0].summary
    assert s0.operation.value == "append"
    assert s0["added-records"] == "2000" and s0["total-records"] == "2000"
    assert snaps[1].summary["total-records"] == "3000"
    # Day x bucket partitions: one file per partition a commit touched.
    py_files = tbl.inspect.files().to_pylist()
    assert int(s0["added-data-files"]) + int(snaps[1].summary["added-data-files"]) == \
        len(py_files)
    assert sum(f["record_count"] for f in py_files) == 3000

    expected = py_rows(tbl)
    got = floe_scan(wh, "db.events")
    assert len(got) == 3000
    assert by_id(got) == by_id(expected)

    # The history floe prints is PyIceberg's.
    hist = floe_at(wh, "table", "snapshots", "db.events", "--format", "jsonl").stdout
    ids = [json.loads(l)["snapshot_id"] for l in hist.splitlines()]
    assert ids == [s.snapshot_id for s in snaps]

    # Time travel on both sides.
    first = snaps[0].snapshot_id
    assert by_id(floe_scan(wh, "db.events", "--snapshot", str(first))) == \
        by_id(py_rows(tbl, snapshot_id=first))


def test_pruned_scan_skips_files(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA, "--partition", "day(ts)")
    for day in range(4):
        p = tmp_path / f"d{day}.jsonl"
        write_jsonl(p, make_rows(day * 100, 100, day))
        floe_at(wh, "table", "append", "db.t", p)
    flt = "ts >= TIMESTAMP '2026-12-01T00:00:00+00:00' AND ts < TIMESTAMP '2026-12-02T00:00:00+00:00'"
    p = floe_at(wh, "table", "scan", "db.t", "--filter", flt, "--format", "jsonl", "--stats")
    rows = [json.loads(l) for l in p.stdout.splitlines()]
    assert sorted(r["id"] for r in rows) == list(range(100, 200))
    stats = p.stderr
    assert "data files 4 (skipped 3 by partition" in stats or "skipped 3" in stats, stats
    tbl = catalog_for(wh).load_table("db.t")
    assert sorted(r["id"] for r in py_rows(tbl, row_filter=
        "ts >= '2026-12-01T00:00:00+00:00' and ts < '2026-12-02T00:00:00+00:00'")) == \
        list(range(100, 200))


def test_pyiceberg_table_reads_identically_in_floe(wh):
    cat = catalog_for(wh)
    cat.create_namespace("py")
    from pyiceberg.schema import Schema
    from pyiceberg.types import (LongType, StringType, NestedField, DoubleType,
                                 TimestamptzType)
    from pyiceberg.partitioning import PartitionSpec, PartitionField
    from pyiceberg.transforms import DayTransform
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "ts", TimestamptzType(), required=False),
                    NestedField(3, "name", StringType(), required=False),
                    NestedField(4, "score", DoubleType(), required=False))
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000,
                                        transform=DayTransform(), name="ts_day"))
    tbl = cat.create_table("py.t", schema=schema, partition_spec=spec)
    base = dt.datetime(2026, 11, 30, tzinfo=dt.timezone.utc)

    def batch(lo, hi):
        return pa.Table.from_pylist(
            [{"id": i, "ts": base + dt.timedelta(hours=i), "name": f"n{i % 5}",
              "score": i / 2} for i in range(lo, hi)],
            schema=tbl.schema().as_arrow())

    tbl.append(batch(0, 100))
    tbl.append(batch(100, 200))
    tbl.delete("id < 20")                      # drops rows (rewrites a day's file)
    tbl.overwrite(batch(300, 320), overwrite_filter="id >= 190")
    with tbl.update_schema() as u:             # schema evolution
        u.add_column("extra", StringType())
    tbl = cat.load_table("py.t")
    tbl.append(pa.Table.from_pylist(
        [{"id": 1000 + i, "ts": base, "name": "x", "score": 0.0, "extra": f"e{i}"}
         for i in range(5)], schema=tbl.schema().as_arrow()))
    with tbl.update_spec() as u:               # partition evolution
        u.remove_field("ts_day")
    tbl = cat.load_table("py.t")
    tbl.append(pa.Table.from_pylist(
        [{"id": 2000 + i, "ts": base, "name": None, "score": 1.5, "extra": None}
         for i in range(3)], schema=tbl.schema().as_arrow()))
    tbl = cat.load_table("py.t")

    expected = by_id(tbl.scan().to_arrow().to_pylist())
    got = by_id(floe_scan(wh, "py.t"))
    assert len(got) == len(expected) and len(got) > 0
    for g, e in zip(got, expected):
        assert g["id"] == e["id"] and g["name"] == e["name"] and g["score"] == e["score"]
        assert g["extra"] == e["extra"]
        assert g["ts"] == e["ts"]
    # Every snapshot, also the old ones.
    for s in tbl.snapshots():
        exp = sorted(r["id"] for r in tbl.scan(snapshot_id=s.snapshot_id).to_arrow().to_pylist())
        assert sorted(r["id"] for r in floe_scan(wh, "py.t", "--snapshot", str(s.snapshot_id))) \
            == exp
    # A filter over the evolved table.
    assert sorted(r["id"] for r in floe_scan(wh, "py.t", "--filter", "id >= 1000")) == \
        [1000, 1001, 1002, 1003, 1004, 2000, 2001, 2002]


def test_refs_rollback_and_metadata_listings(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA)
    for k in range(3):
        p = tmp_path / f"{k}.jsonl"
        write_jsonl(p, make_rows(k * 10, 10, 0))
        floe_at(wh, "table", "append", "db.t", p)
    snaps = [json.loads(l) for l in
             floe_at(wh, "table", "snapshots", "db.t", "--format", "jsonl").stdout.splitlines()]
    assert [s["operation"] for s in snaps] == ["append"] * 3
    floe_at(wh, "table", "tag", "db.t", "v1", "--snapshot", str(snaps[0]["snapshot_id"]))
    floe_at(wh, "table", "branch", "db.t", "dev")
    p = tmp_path / "dev.jsonl"
    write_jsonl(p, make_rows(500, 5, 0))
    floe_at(wh, "table", "append", "db.t", p, "--branch", "dev")
    assert len(floe_scan(wh, "db.t")) == 30
    assert len(floe_scan(wh, "db.t", "--ref", "dev")) == 35
    assert len(floe_scan(wh, "db.t", "--ref", "v1")) == 10
    refs = {json.loads(l)["name"]: json.loads(l) for l in
            floe_at(wh, "table", "refs", "db.t", "--format", "jsonl").stdout.splitlines()}
    assert refs["v1"]["type"] == "TAG" and refs["dev"]["type"] == "BRANCH"

    tbl = catalog_for(wh).load_table("db.t")
    assert tbl.metadata.refs["v1"].snapshot_id == snaps[0]["snapshot_id"]
    assert len(tbl.scan(snapshot_id=tbl.metadata.refs["dev"].snapshot_id).to_arrow()) == 35

    # Appends commute with the branch: fast-forward main to dev fails (diverged)...
    floe_at(wh, "table", "rollback", "db.t", str(snaps[1]["snapshot_id"]))
    assert len(floe_scan(wh, "db.t")) == 20
    hist = [json.loads(l) for l in
            floe_at(wh, "table", "history", "db.t", "--format", "jsonl").stdout.splitlines()]
    assert hist[-1]["snapshot_id"] == snaps[1]["snapshot_id"]
    assert catalog_for(wh).load_table("db.t").current_snapshot().snapshot_id == \
        snaps[1]["snapshot_id"]

    files = [json.loads(l) for l in
             floe_at(wh, "table", "files", "db.t", "--format", "jsonl").stdout.splitlines()]
    assert sum(f["record_count"] for f in files) == 20
    mans = [json.loads(l) for l in
            floe_at(wh, "table", "manifests", "db.t", "--format", "jsonl").stdout.splitlines()]
    assert sum(m["added_rows_count"] + m["existing_rows_count"] for m in mans) == 20


def test_cherry_pick_and_set_current(wh, tmp_path):
    """Staged appends on a branch reach main by cherry-pick (fast-forward and
    re-applied), a snapshot is never picked twice, and set-current moves main
    to a snapshot that is not its ancestor; PyIceberg sees each state."""
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA)

    def append(start, n, *extra):
        p = tmp_path / f"{start}.jsonl"
        write_jsonl(p, make_rows(start, n, 0))
        floe_at(wh, "table", "append", "db.t", p, *extra)

    def refs():
        return {json.loads(l)["name"]: json.loads(l)["snapshot_id"] for l in
                floe_at(wh, "table", "refs", "db.t", "--format", "jsonl").stdout.splitlines()}

    append(0, 10)
    floe_at(wh, "table", "branch", "db.t", "dev")
    append(100, 5, "--branch", "dev")
    staged = refs()["dev"]
    # dev's head has main's head as parent: the pick is a fast-forward.
    floe_at(wh, "table", "cherry-pick", "db.t", str(staged))
    assert refs()["main"] == staged
    assert sorted(r["id"] for r in floe_scan(wh, "db.t")) == list(range(10)) + list(range(100, 105))

    append(200, 3)                      # main moves on
    append(300, 4, "--branch", "dev")   # dev diverges
    picked = refs()["dev"]
    floe_at(wh, "table", "cherry-pick", "db.t", str(picked))
    head = refs()["main"]
    assert head != picked
    snaps = {json.loads(l)["snapshot_id"]: json.loads(l) for l in
             floe_at(wh, "table", "snapshots", "db.t", "--format", "jsonl").stdout.splitlines()}
    want = list(range(10)) + list(range(100, 105)) + list(range(200, 203)) + list(range(300, 304))
    assert sorted(r["id"] for r in floe_scan(wh, "db.t")) == want
    tbl = catalog_for(wh).load_table("db.t")
    assert tbl.current_snapshot().snapshot_id == head
    assert tbl.current_snapshot().summary["source-snapshot-id"] == str(picked)
    assert tbl.current_snapshot().summary["added-records"] == "4"
    assert sorted(r["id"] for r in py_rows(tbl)) == want
    assert snaps[head]["operation"] == "append"

    again = floe_at(wh, "table", "cherry-pick", "db.t", str(picked), check=False)
    assert again.returncode != 0 and "already picked" in again.stderr
    anc = floe_at(wh, "table", "cherry-pick", "db.t", str(staged), check=False)
    assert anc.returncode != 0 and "already an ancestor" in anc.stderr

    # set-current may leave the ancestry (rollback may not).
    bad = floe_at(wh, "table", "rollback", "db.t", str(picked), check=False)
    assert bad.returncode != 0 and "not an ancestor" in bad.stderr
    floe_at(wh, "table", "set-current", "db.t", str(picked))
    tbl = catalog_for(wh).load_table("db.t")
    assert tbl.current_snapshot().snapshot_id == picked
    assert sorted(r["id"] for r in py_rows(tbl)) == list(range(10)) + list(range(100, 105)) + \
        list(range(300, 304))
    missing = floe_at(wh, "table", "set-current", "db.t", "12345", check=False)
    assert missing.returncode != 0 and "12345" in missing.stderr


@pytest.mark.parametrize("prop,avro_codec", [(None, "deflate"), ("snappy", "snappy"),
                                              ("zstd", "zstandard"),
                                              ("uncompressed", "null")])
def test_manifest_compression_follows_the_table_property(wh, tmp_path, prop, avro_codec):
    """write.avro.compression-codec sets the codec of manifests and manifest
    lists, as the reference implementation applies it; PyIceberg reads every
    variant."""
    import fastavro
    floe_at(wh, "ns", "create", "db")
    extra = ["--property", f"write.avro.compression-codec={prop}"] if prop else []
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA, *extra)
    for k in range(2):
        p = tmp_path / f"{k}.jsonl"
        write_jsonl(p, make_rows(k * 10, 10, 0))
        floe_at(wh, "table", "append", "db.t", p)
    tbl = catalog_for(wh).load_table("db.t")
    snap = tbl.current_snapshot()
    lists = [snap.manifest_list]
    mans = [m.manifest_path for m in snap.manifests(tbl.io)]
    assert len(mans) == 2
    for path in lists + mans:
        with open(path.removeprefix("file://"), "rb") as f:
            assert fastavro.reader(f).codec == avro_codec, path
    assert sorted(r["id"] for r in py_rows(tbl)) == list(range(20))


def test_manifest_compression_rejects_unknown_codecs(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA,
            "--property", "write.avro.compression-codec=brotli")
    p = tmp_path / "r.jsonl"
    write_jsonl(p, make_rows(0, 3, 0))
    bad = floe_at(wh, "table", "append", "db.t", p, check=False)
    assert bad.returncode != 0
    assert "write.avro.compression-codec" in bad.stderr and "brotli" in bad.stderr
    assert floe_at(wh, "table", "snapshots", "db.t", "--format", "jsonl").stdout.strip() == ""


def test_delete_and_upsert(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA, "--identifier", "id",
            "--partition", "bucket(2, id)")
    p = tmp_path / "a.jsonl"
    write_jsonl(p, make_rows(0, 200, 0))
    floe_at(wh, "table", "append", "db.t", p)
    floe_at(wh, "table", "delete", "db.t", "--filter", "id < 50 OR name IS NULL")
    left = sorted(r["id"] for r in floe_scan(wh, "db.t"))
    expect = [i for i in range(50, 200) if i % 7 != 0]
    assert left == expect
    tbl = catalog_for(wh).load_table("db.t")
    assert sorted(r["id"] for r in tbl.scan().to_arrow().to_pylist()) == expect

    up = make_rows(100, 10, 1)
    for r in up:
        r["name"] = "updated"
    write_jsonl(tmp_path / "up.jsonl", up)
    floe_at(wh, "table", "upsert", "db.t", tmp_path / "up.jsonl")
    rows = floe_scan(wh, "db.t")
    ids = sorted(r["id"] for r in rows)
    assert ids == sorted(set(expect) | set(range(100, 110)))
    assert all(r["name"] == "updated" for r in rows if 100 <= r["id"] < 110)
    assert len(ids) == len(set(ids))
    files = [json.loads(l) for l in
             floe_at(wh, "table", "files", "db.t", "--format", "jsonl").stdout.splitlines()]
    assert any(f["content"] == "equality_deletes" for f in files)
    # The table stays valid metadata for PyIceberg.
    tbl = catalog_for(wh).load_table("db.t")
    assert tbl.current_snapshot().summary["added-equality-delete-files"]


def test_bad_input_gives_one_clear_line(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA)
    cases = [
        (["table", "scan", "db.nope"], "nope"),
        (["table", "create", "nons.t", "--schema", "a int"], "nons"),
        (["table", "scan", "db.t", "--filter", "id >"], "filter"),
        (["table", "scan", "db.t", "--filter", "missing = 1"], "missing"),
        (["table", "scan", "db.t", "--filter", "id = 'abc'"], "abc"),
        (["table", "scan", "db.t", "--columns", "zzz"], "zzz"),
        (["table", "scan", "db.t", "--snapshot", "12345"], "12345"),
        (["table", "scan", "db.t", "--ref", "nobranch"], "nobranch"),
        (["table", "create", "db.t", "--schema", "a int"], "exists"),
        (["table", "create", "db.u", "--schema", "a int", "--partition", "day(a)"], "day"),
        (["ns", "drop", "db"], "db"),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "not a number", "ts": "2026-01-01T00:00:00Z"}\n')
    cases.append((["table", "append", "db.t", bad], "bad.jsonl"))
    pq.write_table(pa.table({"id": pa.array(["x"])}), tmp_path / "wrong.parquet")
    cases.append((["table", "append", "db.t", tmp_path / "wrong.parquet"], "id"))
    for args, needle in cases:
        p = floe_at(wh, *args, check=False)
        assert p.returncode != 0, args
        msg = p.stderr.strip()
        assert msg and needle in msg, (args, msg)
        assert "Traceback" not in msg and len(msg.splitlines()) <= 3, msg
    # Nothing was committed by the failed appends.
    assert floe_scan(wh, "db.t") == []
    assert catalog_for(wh).load_table("db.t").current_snapshot() is None


def test_concurrent_writers_lose_nothing(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA,
            "--property", "commit.retry.num-retries=50",
            "--property", "commit.retry.min-wait-ms=5",
            "--property", "commit.retry.max-wait-ms=200")
    writers, per_writer, rows_each = 3, 6, 20
    procs = []
    script = []
    for w in range(writers):
        cmds = []
        for k in range(per_writer):
            start = (w * per_writer + k) * rows_each
            p = tmp_path / f"w{w}-{k}.jsonl"
            write_jsonl(p, make_rows(start, rows_each, 0))
            cmds.append(f"'{FLOE}' --warehouse '{wh}' table append db.t '{p}' || exit 1")
        script.append(" && ".join(cmds))
    for s in script:
        procs.append(subprocess.Popen(["bash", "-c", s], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True))
    # PyIceberg appends at the same time.
    cat = catalog_for(wh)
    py_ids = []
    base = 100000
    for k in range(4):
        for attempt in range(50):
            try:
                tbl = cat.load_table("db.t")
                rows = make_rows(base + k * 10, 10, 0)
                arrow = pa.Table.from_pylist([norm_floe(r) for r in rows],
                                             schema=tbl.schema().as_arrow())
                tbl.append(arrow)
                py_ids += [r["id"] for r in rows]
                break
            except Exception as e:  # CommitFailedException: retry like a real client
                if "CommitFailed" not in type(e).__name__ and "conflict" not in str(e).lower():
                    raise
                time.sleep(0.05)
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    ids = sorted(r["id"] for r in floe_scan(wh, "db.t"))
    expected = sorted(list(range(writers * per_writer * rows_each)) + py_ids)
    assert ids == expected
    tbl = cat.load_table("db.t")
    snaps = tbl.snapshots()
    assert len(snaps) == writers * per_writer + len(py_ids) // 10
    # Linear history: every snapshot's parent is the one before it.
    for a, b in zip(snaps, snaps[1:]):
        assert b.parent_snapshot_id == a.snapshot_id
    assert tbl.current_snapshot().summary["total-records"] == str(len(expected))


def test_killed_writer_leaves_a_valid_table(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA, "--partition", "bucket(8, id)")
    p = tmp_path / "rows.jsonl"
    rng = random.Random(7)
    committed = 0
    for k in range(15):
        write_jsonl(p, make_rows(k * 1000, 1000, 0))
        proc = subprocess.Popen([str(FLOE), "--warehouse", str(wh), "table", "append", "db.t",
                                 str(p)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.0, 0.08))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # Whatever happened, the table opens at a valid snapshot with whole commits.
        rows = floe_scan(wh, "db.t")
        assert len(rows) % 1000 == 0
        assert len(rows) >= committed
        committed = len(rows)
        ids = [r["id"] for r in rows]
        assert len(ids) == len(set(ids))
    tbl = catalog_for(wh).load_table("db.t")
    assert len(tbl.scan().to_arrow()) == committed
    # Leftovers of killed commits are orphans; remove them and nothing else.
    floe_at(wh, "table", "remove-orphans", "db.t", "--older-than", "0ms")
    assert len(floe_scan(wh, "db.t")) == committed
    assert len(catalog_for(wh).load_table("db.t").scan().to_arrow()) == committed
    p2 = floe_at(wh, "table", "remove-orphans", "db.t", "--older-than", "0ms", "--dry-run")
    assert p2.stdout.strip() == ""


def test_drop_purge_and_rename(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "ns", "create", "db2")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA)
    p = tmp_path / "a.jsonl"
    write_jsonl(p, make_rows(0, 10, 0))
    floe_at(wh, "table", "append", "db.t", p)
    floe_at(wh, "table", "rename", "db.t", "db2.t2")
    assert len(floe_scan(wh, "db2.t2")) == 10
    assert catalog_for(wh).list_tables("db2") == [("db2", "t2")]
    loc = catalog_for(wh).load_table("db2.t2").location().removeprefix("file://")
    data = list(pathlib.Path(loc).rglob("*.parquet"))
    assert data
    floe_at(wh, "table", "drop", "db2.t2", "--purge")
    assert catalog_for(wh).list_tables("db2") == []
    assert not any(pathlib.Path(loc).rglob("*.parquet"))
    assert not any(pathlib.Path(loc).rglob("*.avro"))


def test_evolve_then_write_and_read(wh, tmp_path):
    floe_at(wh, "ns", "create", "db")
    floe_at(wh, "table", "create", "db.t", "--schema", SCHEMA)
    p = tmp_path / "old.jsonl"
    write_jsonl(p, make_rows(0, 10, 0))
    floe_at(wh, "table", "append", "db.t", p)
    floe_at(wh, "table", "evolve", "db.t", "add-column", "tag string", "rename-column", "name",
            "user", "add-partition", "day(ts)")
    new = make_rows(10, 5, 1)
    for r in new:
        r["user"] = r.pop("name")
        r["tag"] = "t"
    write_jsonl(tmp_path / "new.jsonl", new)
    floe_at(wh, "table", "append", "db.t", tmp_path / "new.jsonl")
    tbl = catalog_for(wh).load_table("db.t")
    assert [f.name for f in tbl.schema().fields] == ["id", "ts", "user", "amount", "score", "tag"]
    assert [f.name for f in tbl.spec().fields] == ["ts_day"]
    py = by_id(py_rows(tbl))
    fl = by_id(floe_scan(wh, "db.t"))
    assert fl == py and len(fl) == 15
    assert all(r["tag"] is None for r in fl[:10]) and all(r["tag"] == "t" for r in fl[10:])
    assert fl[3]["user"] == "user-3"  # renamed column reads the old files by field id
    bad = floe_at(wh, "table", "evolve", "db.t", "update-column", "user", "long", check=False)
    assert bad.returncode != 0 and "user" in bad.stderr


def test_postgresql_catalog_shared_with_pyiceberg(pg_uri, tmp_path):
    """The same table commands on the PostgreSQL catalog; PyIceberg's
    SqlCatalog on the same database sees and extends floe's table."""
    wh = tmp_path / "pgwh"
    wh.mkdir()
    ns = "pg_" + tmp_path.name.replace("-", "_")[-20:]

    def pf(*args, check=True):
        return run_floe("--warehouse", wh, "--catalog", pg_uri, *args, check=check)

    pf("ns", "create", ns)
    pf("table", "create", f"{ns}.t", "--schema", SCHEMA, "--partition", "day(ts)")
    p = tmp_path / "a.jsonl"
    write_jsonl(p, make_rows(0, 300, 0) + make_rows(300, 300, 1))
    pf("table", "append", f"{ns}.t", p)
    sa_uri = pg_uri.replace("postgresql://", "postgresql+psycopg2://", 1)
    cat = SqlCatalog("floe", uri=sa_uri, warehouse=f"file://{wh}")
    tbl = cat.load_table(f"{ns}.t")
    assert len(tbl.scan().to_arrow()) == 600
    tbl.append(pa.Table.from_pylist([norm_floe(r) for r in make_rows(1000, 50, 2)],
                                    schema=tbl.schema().as_arrow()))
    p2 = pf("table", "scan", f"{ns}.t", "--format", "jsonl")
    ids = sorted(json.loads(l)["id"] for l in p2.stdout.splitlines())
    assert ids == list(range(600)) + list(range(1000, 1050))
    # Concurrent floe writers on the server: every commit lands once.
    procs = []
    for w in range(3):
        f = tmp_path / f"w{w}.jsonl"
        write_jsonl(f, make_rows(5000 + w * 100, 100, 0))
        procs.append(subprocess.Popen([str(FLOE), "--warehouse", str(wh), "--catalog", pg_uri,
                                       "table", "append", f"{ns}.t", str(f)],
                                      stderr=subprocess.PIPE, text=True))
    for pr in procs:
        _, err = pr.communicate(timeout=300)
        assert pr.returncode == 0, err
    tbl = cat.load_table(f"{ns}.t")
    assert len(tbl.scan().to_arrow()) == 950
    snaps = tbl.snapshots()
    assert len(snaps) == 5
    for a, b in zip(snaps, snaps[1:]):
        assert b.parent_snapshot_id == a.snapshot_id
