"""Row-level SQL (INSERT, DELETE, UPDATE, MERGE, TRUNCATE) against PyIceberg.

Tables are written only through `floe sql`, in both write modes
(copy-on-write, Iceberg's default, and merge-on-read) and in format
versions 2 (position delete files) and 3 (deletion vectors in Puffin
files). After every statement the rows PyIceberg 0.12 reads must equal
the rows floe's own SELECT returns and the rows a Python model of the
statements expects; the snapshot summaries must carry the operation and
counters Java writes. PyIceberg 0.12 applies deletion vectors (it reads
the Puffin blobs itself), so the v3 tables are checked with it as well.

Concurrent writers: several `floe sql` processes update the same rows at
once; each statement either commits or fails with the retriable conflict
error, and the final rows show every committed update exactly once.
"""
import concurrent.futures
import json
import subprocess

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from conftest import FLOE, run_floe

MODES = ["copy-on-write", "merge-on-read"]


def catalog_for(wh):
    return SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def sql(wh, text, check=True):
    p = run_floe("--warehouse", wh, "sql", "--format", "json", "-c", text, check=check)
    return p


def select(wh, text):
    out = sql(wh, text).stdout.strip()
    return json.loads(out) if out else []


def affected(wh, text):
    rows = select(wh, text)
    assert len(rows) == 1 and list(rows[0]) == ["rows"], rows
    return rows[0]["rows"]


def key(r):
    return (r["id"] is None, r["id"] or 0, r["g"] or "", r["v"] if r["v"] is not None else -1)


def py_rows(wh, table):
    tbl = catalog_for(wh).load_table(table)
    return sorted(tbl.scan().to_arrow().to_pylist(), key=key)


def check_rows(wh, table, model):
    """PyIceberg, floe's SELECT and the model agree."""
    want = sorted(model, key=key)
    got_floe = sorted(select(wh, f"SELECT id, g, v FROM {table}"), key=key)
    got_py = py_rows(wh, table)
    assert got_floe == want
    assert got_py == want


def summary(wh, table):
    tbl = catalog_for(wh).load_table(table)
    s = tbl.current_snapshot().summary
    out = dict(s.additional_properties)
    out["operation"] = s.operation.value
    return out


@pytest.fixture
def wh(tmp_path):
    w = tmp_path / "wh"
    w.mkdir()
    sql(w, "CREATE SCHEMA db")
    return w


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("mode", MODES)
def test_statements_read_identically_in_pyiceberg(wh, version, mode):
    t = "db.t"
    props = ", ".join(f"'write.{op}.mode' = '{mode}'" for op in ("delete", "update", "merge"))
    sql(wh, f"CREATE TABLE {t} (id integer, g varchar, v bigint) WITH (format_version = "
            f"{version}, partitioning = ARRAY['g'], {props})")
    model = [{"id": i, "g": "abc"[i % 3] if i % 10 else None, "v": None if i % 7 == 0 else i * 10}
             for i in range(1, 61)]
    values = ", ".join(f"({r['id']}, {repr(r['g']) if r['g'] else 'NULL'}, "
                       f"{r['v'] if r['v'] is not None else 'NULL'})" for r in model)
    assert affected(wh, f"INSERT INTO {t} VALUES {values}") == 60
    check_rows(wh, t, model)
    assert summary(wh, t)["operation"] == "append"

    # DELETE: a NULL condition keeps the row.
    n = affected(wh, f"DELETE FROM {t} WHERE v > 400 OR g = 'b'")
    gone = [r for r in model if (r["v"] is not None and r["v"] > 400) or r["g"] == "b"]
    assert n == len(gone)
    model = [r for r in model if r not in gone]
    check_rows(wh, t, model)
    s = summary(wh, t)
    assert s["deleted-records" if mode == "copy-on-write" else "added-position-deletes"]
    if mode == "copy-on-write":
        # Files that lost some rows are rewritten: an overwrite (Java's name).
        assert s["operation"] == "overwrite" and int(s["deleted-data-files"]) > 0
        assert int(s["deleted-records"]) - int(s.get("added-records", 0)) == n
        assert "added-delete-files" not in s
    else:
        # Position deletes for files that keep rows; a file all of whose rows
        # go is dropped whole (partition 'b' here).
        assert s["operation"] == "delete"
        assert int(s["added-position-deletes"]) + int(s.get("deleted-records", 0)) == n
        assert int(s["deleted-data-files"]) > 0
        assert "added-data-files" not in s
        if version == 2:
            assert int(s["added-position-delete-files"]) == int(s["added-delete-files"])
            assert "added-dvs" not in s
        else:
            # v3: deletion vectors, never position delete files.
            assert int(s["added-dvs"]) == int(s["added-delete-files"])
            assert "added-position-delete-files" not in s
    assert int(s["total-records"]) - int(s.get("total-position-deletes", 0)) == len(model)

    # UPDATE moves rows across partitions; a second DELETE on the same files
    # (merge-on-read v3: the vectors are replaced, merged).
    n = affected(wh, f"UPDATE {t} SET g = 'b', v = coalesce(v, 0) + 1 WHERE id % 4 = 0")
    upd = [r for r in model if r["id"] % 4 == 0]
    assert n == len(upd)
    for r in upd:
        r["g"] = "b"
        r["v"] = (r["v"] or 0) + 1
    check_rows(wh, t, model)
    s = summary(wh, t)
    assert s["operation"] == "overwrite" and int(s["added-records"]) >= n
    n = affected(wh, f"DELETE FROM {t} WHERE id IN (SELECT id FROM {t} WHERE id % 5 = 1)")
    gone = [r for r in model if r["id"] % 5 == 1]
    assert n == len(gone)
    model = [r for r in model if r not in gone]
    check_rows(wh, t, model)
    if mode == "merge-on-read" and version == 3:
        s = summary(wh, t)
        assert int(s.get("removed-dvs", 0)) > 0  # the previous vectors of those files

    # MERGE with every clause kind.
    src = [(2, "x", 0), (3, "y", 5), (5, None, 7), (100, "c", 1), (101, None, 2), (6, "z", 9)]
    vals = ", ".join(f"({i}, {repr(g) if g else 'NULL'}, {w})" for i, g, w in src)
    n = affected(wh, f"""MERGE INTO {t} AS t USING (VALUES {vals}) AS s(id, g, w) ON t.id = s.id
        WHEN MATCHED AND s.w = 0 THEN DELETE
        WHEN MATCHED AND s.w > 6 THEN UPDATE SET v = s.w, g = s.g
        WHEN NOT MATCHED AND s.id > 100 THEN INSERT (id, g, v) VALUES (s.id, s.g, s.w)
        WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'new', s.w * 2)""")
    expect_n = 0
    for i, g, w in src:
        hit = [r for r in model if r["id"] == i]
        if hit and w == 0:
            model.remove(hit[0])
            expect_n += 1
        elif hit and w > 6:
            hit[0]["v"], hit[0]["g"] = w, g
            expect_n += 1
        elif not hit and i > 100:
            model.append({"id": i, "g": g, "v": w})
            expect_n += 1
        elif not hit:
            model.append({"id": i, "g": "new", "v": w * 2})
            expect_n += 1
    assert n == expect_n
    check_rows(wh, t, model)

    # The multiple-match error commits nothing.
    p = sql(wh, f"MERGE INTO {t} t USING (VALUES 3, 3) AS s(id) ON t.id = s.id "
                f"WHEN MATCHED THEN DELETE", check=False)
    assert p.returncode != 0
    assert "One MERGE target table row matched more than one source row" in p.stderr
    check_rows(wh, t, model)

    sql(wh, f"TRUNCATE TABLE {t}")
    check_rows(wh, t, [])
    s = summary(wh, t)
    assert s["operation"] == "delete"
    assert s["total-records"] == "0" and s["total-data-files"] == "0"
    assert s["total-delete-files"] == "0"


def test_deletion_vectors_are_puffin_files(wh):
    sql(wh, "CREATE TABLE db.v (id integer, g varchar, v bigint) WITH (format_version = 3, "
            "'write.delete.mode' = 'merge-on-read')")
    # 20000 rows as a cross join of two VALUES lists of 200 and 100.
    hundreds = ", ".join(f"({i})" for i in range(200))
    ones = ", ".join(f"({i})" for i in range(1, 101))
    sql(wh, f"INSERT INTO db.v SELECT h.x * 100 + o.y, 'a', 0 FROM (VALUES {hundreds}) AS h(x) "
            f"CROSS JOIN (VALUES {ones}) AS o(y)")
    # Positions past 4096 in one chunk make a bitmap container; a sparse
    # rest array containers.
    assert affected(wh, "DELETE FROM db.v WHERE id <= 5000 OR id % 997 = 0") == 5000 + 15
    tbl = catalog_for(wh).load_table("db.v")
    tasks = list(tbl.scan().plan_files())
    dvs = [d for task in tasks for d in task.delete_files]
    assert len(dvs) == 1 and dvs[0].file_format.value == "PUFFIN"
    assert dvs[0].file_path.endswith(".puffin") and dvs[0].record_count == 5015
    raw = open(dvs[0].file_path.removeprefix("file://"), "rb").read()
    assert raw[:4] == b"PFA1" and raw[-4:] == b"PFA1"
    footer = json.loads(raw[-12 - int.from_bytes(raw[-12:-8], "little"):-12])
    (blob,) = footer["blobs"]
    assert blob["type"] == "deletion-vector-v1" and blob["fields"] == [2147483645]
    assert blob["properties"]["cardinality"] == "5015"
    assert blob["properties"]["referenced-data-file"] == tasks[0].file.file_path
    ids = sorted(r["id"] for r in tbl.scan().to_arrow().to_pylist())
    assert ids == [i for i in range(5001, 20001) if i % 997 != 0]
    assert select(wh, "SELECT count(*) AS n FROM db.v") == [{"n": len(ids)}]
    # The file's last rows: it goes whole, with its vector.
    assert affected(wh, "DELETE FROM db.v WHERE id > 0") == len(ids)
    s = summary(wh, "db.v")
    assert s["operation"] == "delete"
    assert s["deleted-data-files"] == "1" and s["removed-dvs"] == "1"
    assert s["total-data-files"] == "0" and s["total-delete-files"] == "0"
    assert py_rows(wh, "db.v") == []


def test_selecting_hidden_columns(wh):
    sql(wh, "CREATE TABLE db.h (id integer, g varchar) WITH (partitioning = ARRAY['g'])")
    sql(wh, "INSERT INTO db.h VALUES (1, 'a'), (2, 'a')")
    sql(wh, "INSERT INTO db.h VALUES (3, 'b')")
    rows = select(wh, 'SELECT id, "$path" AS p, "$partition" AS part, "$pos" AS pos '
                      'FROM db.h ORDER BY id')
    files = {f.file.file_path: f.file.partition
             for f in catalog_for(wh).load_table("db.h").scan().plan_files()}
    assert {r["p"] for r in rows} == set(files) and len(files) == 2
    assert rows[0]["p"] == rows[1]["p"] != rows[2]["p"]
    assert [r["part"] for r in rows] == [f"g={files[r['p']][0]}" for r in rows] == \
        ["g=a", "g=a", "g=b"]
    assert [r["pos"] for r in rows] == [0, 1, 0]
    # `*` leaves the hidden columns out.
    assert select(wh, "SELECT * FROM db.h ORDER BY id") == \
        [{"id": 1, "g": "a"}, {"id": 2, "g": "a"}, {"id": 3, "g": "b"}]


@pytest.mark.parametrize("mode", MODES)
def test_concurrent_updates_lose_nothing(wh, mode):
    sql(wh, f"CREATE TABLE db.c (id integer, g varchar, v bigint) WITH (format_version = 2, "
            f"'write.update.mode' = '{mode}')")
    sql(wh, "INSERT INTO db.c VALUES (1, 'a', 0), (2, 'a', 0), (3, 'a', 0)")

    def one(_):
        return subprocess.run([str(FLOE), "--warehouse", str(wh), "sql", "-c",
                               "UPDATE db.c SET v = v + 1"],
                              capture_output=True, text=True, timeout=120)

    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        results = list(ex.map(one, range(12)))
    ok = sum(r.returncode == 0 for r in results)
    for r in results:
        if r.returncode != 0:
            assert "conflicts with this change" in r.stderr, r.stderr
            assert "run the statement again" in r.stderr
    assert ok >= 1
    rows = select(wh, "SELECT id, v FROM db.c ORDER BY id")
    assert rows == [{"id": i, "v": ok} for i in (1, 2, 3)]
    assert sorted(r["v"] for r in py_rows(wh, "db.c")) == [ok, ok, ok]
    # The statements that lost left no files behind.
    tbl = catalog_for(wh).load_table("db.c")
    referenced = {e.data_file.file_path.removeprefix("file://")
                  for snap in tbl.snapshots() for m in snap.manifests(tbl.io)
                  for e in m.fetch_manifest_entry(tbl.io, discard_deleted=False)}
    on_disk = {str(p) for p in (wh / "db" / "c" / "data").rglob("*") if p.is_file()}
    assert on_disk and on_disk <= referenced


@pytest.mark.parametrize("mode", MODES)
def test_delete_and_update_keep_nested_columns(wh, tmp_path, mode):
    """DELETE rewrites (or deletes from) files with struct and list
    columns, and UPDATE writes them (rows and arrays in SQL); their values
    survive."""
    run_floe("--warehouse", wh, "table", "create", "db.s", "--schema",
             "id long, p struct<x: int, y: string>, n list<int>",
             "--property", f"write.delete.mode={mode}")
    rows = [{"id": i, "p": {"x": i, "y": f"y{i}"}, "n": [i, i + 1]} for i in range(6)]
    src = tmp_path / "s.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run_floe("--warehouse", wh, "table", "append", "db.s", src)
    assert affected(wh, "DELETE FROM db.s WHERE id % 2 = 0") == 3
    got = sorted(catalog_for(wh).load_table("db.s").scan().to_arrow().to_pylist(),
                 key=lambda r: r["id"])
    assert got == [r for r in rows if r["id"] % 2]
    assert affected(wh, "UPDATE db.s SET id = id + 100 WHERE id = 1") == 1
    got = sorted(catalog_for(wh).load_table("db.s").scan().to_arrow().to_pylist(),
                 key=lambda r: r["id"])
    want = sorted([dict(r, id=r["id"] + 100) if r["id"] == 1 else r for r in rows if r["id"] % 2],
                  key=lambda r: r["id"])
    assert got == want
