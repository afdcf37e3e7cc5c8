"""`floe sql` over files: read_parquet, read_csv and read_json compared with
pyarrow and DuckDB on the same files, `--format parquet` read back by
pyarrow, and the progress line on a pseudo-terminal.

floe's results are taken as Parquet (`--format parquet`) so that values
come back typed and compare exactly with what pyarrow wrote and what
DuckDB's read_parquet / read_csv / read_json return.
"""
import datetime as dt
import decimal
import math
import os
import pty
import select
import subprocess
import time

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE, run_floe

UTC = dt.timezone.utc


def floe_rows(sql, tmp_path, name="out.parquet"):
    """Runs one query with --format parquet; returns (schema, rows as tuples)."""
    out = tmp_path / name
    run_floe("sql", "--format", "parquet", "--output", out, "-c", sql)
    t = pq.read_table(out)
    return t.schema, [tuple(r.values()) for r in t.to_pylist()]


def norm(v):
    """One value in a form both sides agree on."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC)
    if isinstance(v, list):
        return tuple(norm(x) for x in v)
    return v


def norm_rows(rows):
    return [tuple(norm(v) for v in r) for r in rows]


# ---- Parquet ----

def typed_table(start, n, id_type=pa.int64()):
    ids = list(range(start, start + n))

    def maybe(i, v):
        return None if i % 7 == 3 else v

    return pa.table({
        "id": pa.array(ids, id_type),
        "i8": pa.array([maybe(i, i % 100 - 50) for i in ids], pa.int8()),
        "i16": pa.array([maybe(i, i * 3 - 1000) for i in ids], pa.int16()),
        "i32": pa.array([maybe(i, i * 100003 - 2**30) for i in ids], pa.int32()),
        "i64": pa.array([maybe(i, i * 10**12 - 2**62) for i in ids], pa.int64()),
        "f32": pa.array([maybe(i, i / 4) for i in ids], pa.float32()),
        "f64": pa.array([maybe(i, float("nan") if i % 11 == 5 else i * 1.1 - 7) for i in ids],
                        pa.float64()),
        "b": pa.array([maybe(i, i % 3 == 0) for i in ids], pa.bool_()),
        "s": pa.array([maybe(i, f"str-{i}-é" * (i % 3)) for i in ids], pa.string()),
        "bin": pa.array([maybe(i, bytes([i % 256, 0, 255])) for i in ids], pa.binary()),
        "d": pa.array([maybe(i, dt.date(1960, 1, 1) + dt.timedelta(days=i * 37)) for i in ids],
                      pa.date32()),
        "ts": pa.array([maybe(i, dt.datetime(2024, 3, 1) + dt.timedelta(seconds=i * 3601,
                                                                       microseconds=i))
                        for i in ids], pa.timestamp("us")),
        "tstz": pa.array([maybe(i, dt.datetime(1969, 12, 31, tzinfo=UTC)
                                + dt.timedelta(minutes=i * 13)) for i in ids],
                         pa.timestamp("us", tz="UTC")),
        "dec": pa.array([maybe(i, decimal.Decimal(i * 12345 - 50000).scaleb(-2)) for i in ids],
                        pa.decimal128(12, 2)),
        "dec38": pa.array([maybe(i, decimal.Decimal(i * 10**20 + 7).scaleb(-9)) for i in ids],
                          pa.decimal128(38, 9)),
        "t": pa.array([maybe(i, dt.time(i % 24, i % 60, i % 60, i)) for i in ids],
                      pa.time64("us")),
        "tags": pa.array([maybe(i, [f"t{i}", None][: i % 3]) for i in ids],
                         pa.list_(pa.string())),
    })


@pytest.fixture(scope="module")
def pq_tree(tmp_path_factory):
    """Parquet files in nested folders: several row groups, nulls, an int32 id."""
    root = tmp_path_factory.mktemp("pqtree")
    (root / "y=2024" / "m=01").mkdir(parents=True)
    (root / "y=2024" / "m=02").mkdir(parents=True)
    (root / "y=2025" / "m=03").mkdir(parents=True)
    pq.write_table(typed_table(0, 500), root / "y=2024" / "m=01" / "a.parquet",
                   row_group_size=64)
    pq.write_table(typed_table(500, 300), root / "y=2024" / "m=02" / "b.parquet",
                   row_group_size=100, compression="zstd")
    pq.write_table(typed_table(800, 77), root / "y=2025" / "m=03" / "c.parquet", compression="gzip",
                   use_dictionary=False)
    pq.write_table(typed_table(877, 50, pa.int32()), root / "y=2025" / "m=03" / "d.parquet",
                   data_page_version="2.0")
    (root / "notes.txt").write_text("not parquet\n")
    return root


def test_read_parquet_equals_pyarrow(pq_tree, tmp_path):
    """Every type, nulls, row groups, a glob across directories."""
    schema, rows = floe_rows(f"SELECT * FROM read_parquet('{pq_tree}/**/*.parquet', "
                             "hive_partitioning => false) ORDER BY id", tmp_path)
    want = pa.concat_tables([pq.read_table(p).cast(pq.read_table(
        pq_tree / "y=2024" / "m=01" / "a.parquet").schema)
        for p in sorted(pq_tree.glob("**/*.parquet"))])
    want_rows = sorted((tuple(r.values()) for r in want.to_pylist()), key=lambda r: r[0])
    assert len(rows) == 927
    assert schema.names == want.schema.names
    assert norm_rows(rows) == norm_rows(want_rows)
    # The types as floe's SQL types write them back.
    types = {f.name: f.type for f in schema}
    assert types["id"] == pa.int64()  # int32 in d.parquet widened
    assert types["i32"] == pa.int32() and types["i64"] == pa.int64()
    assert types["f32"] == pa.float32() and types["f64"] == pa.float64()
    assert types["s"] == pa.string() and types["bin"] == pa.binary()
    assert types["d"] == pa.date32()
    assert types["ts"] == pa.timestamp("us")
    assert types["tstz"] == pa.timestamp("us", tz="UTC")
    assert types["dec"] == pa.decimal128(12, 2) and types["dec38"] == pa.decimal128(38, 9)
    assert types["tags"] == pa.list_(pa.field("element", pa.string())) or \
        pa.types.is_list(types["tags"])


def test_hive_partitions_equal_duckdb(pq_tree, tmp_path):
    """y=2024/m=01 folders become columns m (varchar: "01" is not how a bigint
    prints, as DuckDB decides too) and y (bigint) after the files' own."""
    q = f"SELECT * FROM read_parquet('{pq_tree}/**/*.parquet') ORDER BY id"
    schema, rows = floe_rows(q, tmp_path)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    rel = con.execute(q)
    assert schema.names == [d[0] for d in rel.description]
    assert schema.names[-2:] == ["m", "y"]
    assert norm_rows(rows) == norm_rows(rel.fetchall())
    # A filter on a partition key skips whole files.
    out = run_floe("sql", "-c", f"EXPLAIN ANALYZE SELECT count(*) FROM "
                   f"read_parquet('{pq_tree}/**/*.parquet') WHERE y = 2025 AND m IS NULL").stdout
    assert "files 0 of 4 (skipped 4 by partition)" in out, out
    # Partition and row-group pruning together: a.parquet holds ids 0..499 in
    # row groups of 64 (one read), b.parquet 500..799 in groups of 100 (all read).
    out = run_floe("sql", "-c", f"EXPLAIN ANALYZE SELECT count(*) FROM "
                   f"read_parquet('{pq_tree}/**/*.parquet') WHERE y = 2024 AND id >= 450").stdout
    assert "files 2 of 4 (skipped 2 by partition), row groups read 4 (skipped 7)" in out, out
    _, rows = floe_rows(f"SELECT y, m, count(*) FROM read_parquet('{pq_tree}/**/*.parquet') "
                        "WHERE y = 2024 GROUP BY 1, 2 ORDER BY 1, 2", tmp_path)
    assert rows == [(2024, "01", 500), (2024, "02", 300)]


def test_hive_values_decoded_like_duckdb(tmp_path):
    d1 = tmp_path / "h" / "dt=2024-01-01" / "city=New%20York"
    d2 = tmp_path / "h" / "dt=2024-01-02" / "city=__HIVE_DEFAULT_PARTITION__"
    d1.mkdir(parents=True)
    d2.mkdir(parents=True)
    pq.write_table(pa.table({"a": [1, 2]}), d1 / "f.parquet")
    pq.write_table(pa.table({"a": [3]}), d2 / "f.parquet")
    q = f"SELECT * FROM read_parquet('{tmp_path}/h/*/*/*.parquet') ORDER BY a"
    schema, rows = floe_rows(q, tmp_path)
    rel = duckdb.connect().execute(q)
    assert schema.names == [d[0] for d in rel.description] == ["a", "city", "dt"]
    assert rows == rel.fetchall()
    assert rows[2] == (3, None, dt.date(2024, 1, 2))


def test_read_parquet_equals_duckdb(pq_tree, tmp_path):
    glob = f"{pq_tree}/**/*.parquet"
    cols = "id, i8, i16, i32, i64, f32, f64, b, s, bin, d, ts, tstz, dec, dec38, t, tags"
    _, rows = floe_rows(f"SELECT {cols} FROM read_parquet('{glob}') ORDER BY id", tmp_path)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    want = con.execute(f"SELECT {cols} FROM read_parquet('{glob}') ORDER BY id").fetchall()
    assert norm_rows(rows) == norm_rows(want)


@pytest.mark.parametrize("query", [
    "SELECT count(*), sum(i32), min(s), max(d), count(tags) FROM read_parquet('{g}')",
    "SELECT id, s FROM read_parquet('{g}') WHERE id BETWEEN 60 AND 70 ORDER BY id",
    "SELECT b, count(*), sum(dec) FROM read_parquet('{g}') GROUP BY b ORDER BY b NULLS FIRST",
    "SELECT id FROM read_parquet('{g}') WHERE s IS NULL AND id > 850 ORDER BY id",
    "SELECT x.id, y.i8 FROM read_parquet('{g}') x JOIN read_parquet('{g}') y "
    "ON x.id = y.id + 1 WHERE x.id < 5 ORDER BY 1",
])
def test_queries_match_duckdb(pq_tree, tmp_path, query):
    q = query.format(g=f"{pq_tree}/**/*.parquet")
    _, rows = floe_rows(q, tmp_path)
    con = duckdb.connect()
    want = con.execute(q).fetchall()
    assert norm_rows(rows) == norm_rows(want)


def test_row_group_pruning(pq_tree):
    p = pq_tree / "y=2024" / "m=01" / "a.parquet"  # 8 row groups of 64 ids
    out = run_floe("sql", "-c",
                   f"EXPLAIN ANALYZE SELECT id FROM read_parquet('{p}') WHERE id >= 450").stdout
    assert "row groups read 1 (skipped 7)" in out, out


def test_lists_of_files_and_globs(pq_tree, tmp_path):
    a = pq_tree / "y=2024" / "m=01" / "a.parquet"
    _, rows = floe_rows(f"SELECT count(*) FROM read_parquet(['{a}', '{pq_tree}/y=2025/*/*.parquet'])",
                        tmp_path)
    assert rows == [(500 + 77 + 50,)]
    _, rows = floe_rows(f"SELECT count(*) FROM read_parquet('{pq_tree}/y=2024/m=0[2-9]/*')",
                        tmp_path)
    assert rows == [(300,)]


def test_errors_name_the_file(pq_tree):
    r = run_floe("sql", "-c", f"SELECT * FROM read_parquet('{pq_tree}/notes.txt')", check=False)
    assert r.returncode == 1 and "notes.txt" in r.stderr
    r = run_floe("sql", "-c", f"SELECT * FROM read_parquet('{pq_tree}/nothing/**/*.parquet')",
                 check=False)
    assert r.returncode == 1 and "no files match the pattern" in r.stderr
    r = run_floe("sql", "-c", f"SELECT * FROM read_parquet('{pq_tree}/x.parquet')", check=False)
    assert r.returncode == 1 and "does not exist" in r.stderr


def test_truncated_file_is_an_error(pq_tree, tmp_path):
    src = (pq_tree / "y=2025" / "m=03" / "c.parquet").read_bytes()
    bad = tmp_path / "cut.parquet"
    bad.write_bytes(src[: len(src) // 2] + src[-8:])
    r = run_floe("sql", "-c", f"SELECT sum(i64) FROM read_parquet('{bad}')", check=False)
    assert r.returncode == 1 and "cut.parquet" in r.stderr, r.stderr


def test_union_by_name(tmp_path):
    pq.write_table(pa.table({"k": [1, 2], "a": ["x", "y"]}), tmp_path / "p1.parquet")
    pq.write_table(pa.table({"b": [True], "k": [3]}), tmp_path / "p2.parquet")
    g = f"{tmp_path}/p*.parquet"
    q = f"SELECT k, a, b FROM read_parquet('{g}', union_by_name => true) ORDER BY k"
    _, rows = floe_rows(q, tmp_path)
    want = duckdb.connect().execute(q.replace("=>", "=")).fetchall()
    assert rows == want == [(1, "x", None), (2, "y", None), (3, None, True)]
    r = run_floe("sql", "-c", f"SELECT * FROM read_parquet('{g}')", check=False)
    assert r.returncode == 1 and "union_by_name" in r.stderr


# ---- CSV and JSON ----

CSV = "\n".join([
    "id,name,amount,day,tm,ok",
    "1,ann,1.5,2024-01-01,2024-01-01 10:00:00,true",
    "2,,2.25,2024-01-02,2024-01-02 11:30:00,false",
    '3,"c, ""d""",,2024-01-03,,true',
    "4,eve,-7,1999-12-31,1999-12-31 23:59:59,",
]) + "\n"


def test_read_csv_equals_duckdb(tmp_path):
    (tmp_path / "c1").mkdir()
    (tmp_path / "c1" / "a.csv").write_text(CSV)
    (tmp_path / "c1" / "b.csv").write_text("id,name,amount,day,tm,ok\n"
                                           "5,fay,3,2024-05-05,2024-05-05 05:05:05,false\n")
    for pattern in (f"{tmp_path}/c1/a.csv", f"{tmp_path}/c1/*.csv"):
        q = f"SELECT id, name, amount, day, tm, ok FROM read_csv('{pattern}') ORDER BY id"
        _, rows = floe_rows(q, tmp_path)
        want = duckdb.connect().execute(q).fetchall()
        assert rows == want


def test_read_csv_options_equal_duckdb(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("7|seven|1.0\n8|eight|2.5\n")
    fq = (f"SELECT * FROM read_csv('{p}', delim => '|', header => false, "
          "columns => 'n integer, word varchar, v double') ORDER BY n")
    dq = (f"SELECT * FROM read_csv('{p}', delim = '|', header = false, "
          "columns = {'n': 'INTEGER', 'word': 'VARCHAR', 'v': 'DOUBLE'}) ORDER BY n")
    schema, rows = floe_rows(fq, tmp_path)
    assert rows == duckdb.connect().execute(dq).fetchall()
    assert schema.field("n").type == pa.int32()
    # DuckDB's own spelling of the columns works too.
    _, rows2 = floe_rows(dq.replace(" = ", " => "), tmp_path, "out2.parquet")
    assert rows2 == rows


JSONL = [
    '{"id": 1, "name": "ann", "score": 1.5, "tags": ["a", "b"], "tm": "2024-01-01 10:00:00"}',
    '{"id": 2, "name": null, "score": 2, "tags": [], "tm": "2024-01-02 11:00:00"}',
    '{"id": 3, "score": -0.25, "tm": null}',
]


def test_read_json_lines_equals_duckdb(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text("\n".join(JSONL) + "\n")
    q = f"SELECT id, name, score, tags, tm FROM read_json('{p}') ORDER BY id"
    _, rows = floe_rows(q, tmp_path)
    want = duckdb.connect().execute(q).fetchall()
    assert norm_rows(rows) == norm_rows(want)


def test_read_json_array_equals_duckdb(tmp_path):
    p = tmp_path / "a.json"
    p.write_text("[\n  " + ",\n  ".join(JSONL) + "\n]\n")
    for fmt in ("", ", format => 'array'"):
        q = f"SELECT id, name, score, tags FROM read_json('{p}'{fmt}) ORDER BY id"
        _, rows = floe_rows(q, tmp_path)
        want = duckdb.connect().execute(q.replace("=>", "=")).fetchall()
        assert norm_rows(rows) == norm_rows(want)


def test_read_json_glob_union_equals_duckdb(tmp_path):
    (tmp_path / "j" / "k").mkdir(parents=True)
    (tmp_path / "j" / "a.jsonl").write_text('{"id": 1, "v": "x"}\n')
    (tmp_path / "j" / "k" / "b.jsonl").write_text('{"id": 2, "w": 2.5}\n')
    g = f"{tmp_path}/j/**/*.jsonl"
    q = f"SELECT id, v, w FROM read_json('{g}', union_by_name => true) ORDER BY id"
    _, rows = floe_rows(q, tmp_path)
    want = duckdb.connect().execute(q.replace("=>", "=")).fetchall()
    assert rows == want == [(1, "x", None), (2, None, 2.5)]


# ---- --format parquet ----

def test_format_parquet_types(tmp_path):
    q = ("SELECT 2 AS i, CAST(3 AS bigint) AS l, REAL '1.5' AS r, "
         "2.5e0 AS d, CAST(12.34 AS decimal(10, 2)) AS m, 'x' AS s, true AS b, "
         "DATE '2024-02-29' AS dd, TIMESTAMP '2024-01-01 01:02:03.456789' AS ts, "
         "TIMESTAMP '2024-01-01 00:00:00 UTC' AS tz")
    out = subprocess.run([str(FLOE), "sql", "--format", "parquet", "-c", q],
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    path = tmp_path / "stdout.parquet"
    path.write_bytes(out.stdout)
    t = pq.read_table(path)
    types = {f.name: f.type for f in t.schema}
    assert types["i"] == pa.int32() and types["l"] == pa.int64()
    assert types["r"] == pa.float32() and types["d"] == pa.float64()
    assert types["m"] == pa.decimal128(10, 2)
    assert types["s"] == pa.string()
    assert types["b"] == pa.bool_() and types["dd"] == pa.date32()
    assert types["ts"] == pa.timestamp("us")
    assert types["tz"] == pa.timestamp("us", tz="UTC")
    row = t.to_pylist()[0]
    assert row["i"] == 2 and row["l"] == 3 and row["r"] == 1.5 and row["d"] == 2.5
    assert row["m"] == decimal.Decimal("12.34") and row["s"] == "x"
    assert row["b"] is True
    assert row["dd"] == dt.date(2024, 2, 29)
    assert row["ts"] == dt.datetime(2024, 1, 1, 1, 2, 3, 456789)
    assert row["tz"] == dt.datetime(2024, 1, 1, tzinfo=UTC)


def test_format_parquet_many_rows_and_output_file(pq_tree, tmp_path):
    out = tmp_path / "o.parquet"
    run_floe("sql", "--format", "parquet", "--output", out, "-c",
             f"SELECT id, s FROM read_parquet('{pq_tree}/**/*.parquet') WHERE id % 2 = 0")
    t = pq.read_table(out)
    assert t.num_rows == 464
    assert sorted(t.column("id").to_pylist()) == list(range(0, 927, 2))


def test_format_parquet_refuses_two_queries(tmp_path):
    r = run_floe("sql", "--format", "parquet", "--output", tmp_path / "x.parquet", "-c",
                 "SELECT 1; SELECT 2", check=False)
    assert r.returncode == 1 and "one query" in r.stderr


def test_output_file_for_text_formats(tmp_path):
    out = tmp_path / "o.csv"
    run_floe("sql", "--format", "csv", "--output", out, "-c", "VALUES (1, 'a'), (2, 'b')")
    assert out.read_text().splitlines() == ["_col0,_col1", "1,a", "2,b"]


# ---- the progress line ----

@pytest.fixture(scope="module")
def big_tree(tmp_path_factory):
    """Enough Parquet for a query that runs for a while: 40 files."""
    root = tmp_path_factory.mktemp("big")
    n = 250_000
    for i in range(40):
        t = pa.table({"k": pa.array(range(i * n, (i + 1) * n), pa.int64()),
                      "v": pa.array([float(x % 977) for x in range(n)], pa.float64())})
        pq.write_table(t, root / f"part-{i:03d}.parquet", row_group_size=50_000)
    return root


def run_on_pty(args, env_extra=None, timeout=120):
    """Runs floe with standard error on a pseudo-terminal; returns (status,
    stdout bytes, what the terminal showed)."""
    master, slave = pty.openpty()
    env = dict(os.environ, **(env_extra or {}))
    p = subprocess.Popen([str(FLOE), *map(str, args)], stdout=subprocess.PIPE, stderr=slave,
                         stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    shown = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        elif p.poll() is not None:
            break
    out = p.stdout.read()
    p.wait(timeout=10)
    os.close(master)
    return p.returncode, out, shown


SLOW = ("SELECT k % 100 AS g, count(*), sum(v) FROM read_parquet('{d}/*.parquet') "
        "GROUP BY 1 ORDER BY 1 LIMIT 3")


def test_progress_line_on_a_terminal(big_tree):
    rc, out, shown = run_on_pty(["sql", "--format", "csv", "-c", SLOW.format(d=big_tree)],
                                {"FLOE_PROGRESS_DELAY_MS": "0"})
    assert rc == 0, shown
    assert out.decode().splitlines()[0] == "g,_col1,_col2"
    assert len(out.decode().splitlines()) == 4
    text = shown.decode()
    # Drawn in place at least once, with rows, bytes and files, then erased.
    assert "\r\x1b[K[" in text, text
    assert " rows, " in text and " read" in text and "files " in text and "/40" in text
    assert "%" in text
    assert text.endswith("\r\x1b[K"), repr(text[-80:])


def test_progress_line_waits_and_can_be_turned_off(big_tree):
    # A query shorter than the default second shows nothing.
    rc, out, shown = run_on_pty(["sql", "-c", "SELECT 1"])
    assert rc == 0 and shown == b""
    rc, out, shown = run_on_pty(["sql", "--no-progress", "--format", "csv", "-c",
                                 SLOW.format(d=big_tree)], {"FLOE_PROGRESS_DELAY_MS": "0"})
    assert rc == 0 and shown == b"" and out.startswith(b"g,")


def test_no_progress_line_without_a_terminal(big_tree):
    env = dict(os.environ, FLOE_PROGRESS_DELAY_MS="0")
    p = subprocess.run([str(FLOE), "sql", "--format", "csv", "-c", SLOW.format(d=big_tree)],
                       capture_output=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stderr == b""
