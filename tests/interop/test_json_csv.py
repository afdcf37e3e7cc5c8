"""JSON lines and CSV: floe reads the same files as pyarrow and DuckDB and
must produce the same values (floe's rows come from `floe cat`, in its
canonical JSON form, and are normalized next to the peers' in Python),
with given schemas and with inference; malformed input must give exit
code 1 and a message naming the line, never a crash."""
import csv
import datetime as dt
import json
import math
import random

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pytest

from conftest import run_floe

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


def floe_rows(path, schema=None, extra=()):
    args = ["cat", path, *extra]
    if schema:
        args += ["--schema", schema]
    return [json.loads(line) for line in run_floe(*args).stdout.splitlines()]


def iso_to_micros(s):
    """floe's ISO text of a timestamp to microseconds since the epoch."""
    if s is None:
        return None
    tz = s.endswith("+00:00")
    d = dt.datetime.fromisoformat(s[:-6] if tz else s)
    return (d.replace(tzinfo=UTC) - EPOCH) // dt.timedelta(microseconds=1)


def dt_to_micros(v):
    if v is None:
        return None
    if v.tzinfo is None:
        v = v.replace(tzinfo=UTC)
    return (v - EPOCH) // dt.timedelta(microseconds=1)


def norm(v):
    """Peer values to plain Python: dicts, lists, floats with NaN as a tag."""
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, dt.datetime):
        return dt_to_micros(v)
    if isinstance(v, dt.date):
        return v.isoformat()
    return v


def floe_norm(rows, ts_cols=()):
    out = []
    for r in rows:
        r = dict(r)
        for c in ts_cols:
            r[c] = iso_to_micros(r[c])
        for k, v in r.items():
            if v == "NaN":
                r[k] = "NaN"
        out.append(r)
    return out


def random_events(n, seed):
    rnd = random.Random(seed)
    words = ["alpha", "b\u00e9ta", "\u65e5\u672c", "quote\"d", "back\\slash", "tab\there",
             "nl\nx", "emoji \U0001F600", "", "comma,semi;"]
    rows = []
    for i in range(n):
        ts = EPOCH + dt.timedelta(microseconds=rnd.randrange(0, 2_000_000_000_000_000))
        rows.append({
            "id": i if i % 7 else -(2**62) + i,
            "name": None if i % 11 == 5 else rnd.choice(words) + str(rnd.randrange(1000)),
            "score": None if i % 13 == 4 else rnd.choice([rnd.uniform(-1e6, 1e6), 0.1, 1e-300, 5e300, -0.5]),
            "ok": None if i % 5 == 3 else rnd.random() < 0.5,
            "ts": ts.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "user": None if i % 9 == 2 else {"name": rnd.choice(words),
                                              "age": None if i % 4 == 1 else rnd.randrange(0, 120)},
            "tags": None if i % 6 == 1 else [rnd.choice(words) for _ in range(rnd.randrange(0, 4))],
        })
    return rows


SCHEMA = ("id long not null, name string, score double, ok boolean, ts timestamptz, "
          "user struct<name: string, age: int>, tags list<string>")
PA_SCHEMA = pa.schema([
    ("id", pa.int64()), ("name", pa.string()), ("score", pa.float64()), ("ok", pa.bool_()),
    ("ts", pa.timestamp("us", tz="UTC")),
    ("user", pa.struct([("name", pa.string()), ("age", pa.int32())])),
    ("tags", pa.list_(pa.string())),
])


@pytest.fixture(scope="module")
def events_jsonl(tmp_path_factory):
    rows = random_events(3000, 7)
    p = tmp_path_factory.mktemp("js") / "events.jsonl"
    with open(p, "w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            f.write(json.dumps(r, ensure_ascii=bool(i % 2)) + "\n")
    return p, rows


def test_json_with_schema_matches_pyarrow_and_duckdb(events_jsonl):
    path, rows = events_jsonl
    got = floe_norm(floe_rows(path, SCHEMA), ts_cols=["ts"])
    table = pajson.read_json(path, parse_options=pajson.ParseOptions(explicit_schema=PA_SCHEMA))
    want = [norm(r) for r in table.to_pylist()]
    assert len(got) == len(want) == len(rows)
    assert got == want
    con = duckdb.connect()
    rel = con.sql(
        f"SELECT * FROM read_json('{path}', format='newline_delimited', columns={{"
        "'id': 'BIGINT', 'name': 'VARCHAR', 'score': 'DOUBLE', 'ok': 'BOOLEAN', "
        "'ts': 'TIMESTAMPTZ', 'user': 'STRUCT(name VARCHAR, age INTEGER)', 'tags': 'VARCHAR[]'})")
    names = rel.columns
    ddb = [norm(dict(zip(names, r))) for r in rel.fetchall()]
    assert ddb == want


def test_json_inference_matches_pyarrow(events_jsonl):
    path, _ = events_jsonl
    got = floe_rows(path)
    table = pajson.read_json(path)
    want = [norm(r) for r in table.to_pylist()]
    assert len(got) == len(want)
    # floe infers the ISO strings with Z as timestamptz; pyarrow keeps
    # fractional-second ones as strings: compare them as instants.
    for g, w in zip(got, want):
        g, w = dict(g), dict(w)
        assert g["ts"].endswith("+00:00")
        g["ts"] = iso_to_micros(g["ts"])
        if isinstance(w["ts"], str):
            w["ts"] = iso_to_micros(w["ts"].replace("Z", "+00:00"))
        assert g == w


def test_json_writer_output_read_by_peers(events_jsonl, tmp_path):
    path, _ = events_jsonl
    out = tmp_path / "copy.jsonl"
    run_floe("convert", "--schema", SCHEMA, path, out)
    table = pajson.read_json(out, parse_options=pajson.ParseOptions(explicit_schema=PA_SCHEMA))
    orig = pajson.read_json(path, parse_options=pajson.ParseOptions(explicit_schema=PA_SCHEMA))
    assert table.to_pylist() == orig.to_pylist()


CSV_SCHEMA = "id long, name string, score double, ok boolean, day date, ts timestamp"


@pytest.fixture(scope="module")
def events_csv(tmp_path_factory):
    rnd = random.Random(3)
    d = tmp_path_factory.mktemp("csv")
    p = d / "events.csv"
    rows = []
    with open(p, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(["id", "name", "score", "ok", "day", "ts"])
        for i in range(2500):
            name = rnd.choice(["plain", "with,comma", "with \"quotes\"", "multi\nline", "caf\u00e9",
                               "x" * 50])
            score = rnd.choice(["", repr(rnd.uniform(-1e9, 1e9)), "0.1", "1e-5", "-0.0"])
            day = (dt.date(1970, 1, 1) + dt.timedelta(days=rnd.randrange(-3000, 30000))).isoformat()
            ts = (dt.datetime(2000, 1, 1) + dt.timedelta(seconds=rnd.randrange(0, 10**9),
                                                         microseconds=rnd.randrange(10**6)))
            row = [str(i * 1000003 - 5), name, score, rnd.choice(["true", "false", ""]),
                   "" if i % 17 == 0 else day, ts.strftime("%Y-%m-%d %H:%M:%S.%f")]
            w.writerow(row)
            rows.append(row)
    return p, rows


def pa_csv(path):
    co = pacsv.ConvertOptions(
        column_types={"id": pa.int64(), "name": pa.string(), "score": pa.float64(), "ok": pa.bool_(),
                      "day": pa.date32(), "ts": pa.timestamp("us")},
        strings_can_be_null=True, quoted_strings_can_be_null=False)
    return [norm(r) for r in pacsv.read_csv(path, convert_options=co).to_pylist()]


def test_csv_with_schema_matches_pyarrow_and_duckdb(events_csv):
    path, rows = events_csv
    got = floe_norm(floe_rows(path, CSV_SCHEMA), ts_cols=["ts"])
    want = pa_csv(path)
    assert len(got) == len(want) == len(rows)
    assert got == want
    con = duckdb.connect()
    rel = con.sql(
        f"SELECT * FROM read_csv('{path}', header=true, columns={{'id': 'BIGINT', 'name': 'VARCHAR', "
        "'score': 'DOUBLE', 'ok': 'BOOLEAN', 'day': 'DATE', 'ts': 'TIMESTAMP'})")
    ddb = [norm(dict(zip(rel.columns, r))) for r in rel.fetchall()]
    assert ddb == want


def test_csv_inference_matches_pyarrow(events_csv):
    path, _ = events_csv
    out = run_floe("cat", path).stdout.splitlines()
    got = floe_norm([json.loads(x) for x in out], ts_cols=["ts"])
    assert got == pa_csv(path)
    table = pacsv.read_csv(path)
    assert [str(t) for t in table.schema.types] == ["int64", "string", "double", "bool", "date32[day]",
                                                     "timestamp[ns]"]


def test_csv_writer_output_read_by_peers(events_jsonl, tmp_path):
    path, _ = events_jsonl
    flat = "id long not null, name string, score double, ok boolean, ts timestamptz"
    out = tmp_path / "events.csv"
    run_floe("convert", "--schema", flat, path, out)
    co = pacsv.ConvertOptions(column_types={"id": pa.int64(), "name": pa.string(), "score": pa.float64(),
                                            "ok": pa.bool_(), "ts": pa.timestamp("us", tz="UTC")},
                              strings_can_be_null=True, quoted_strings_can_be_null=False)
    got = [norm(r) for r in pacsv.read_csv(out, convert_options=co).to_pylist()]
    src = pajson.read_json(path, parse_options=pajson.ParseOptions(explicit_schema=PA_SCHEMA))
    want = [norm({k: r[k] for k in ("id", "name", "score", "ok", "ts")}) for r in src.to_pylist()]
    assert got == want
    con = duckdb.connect()
    n = con.sql(f"SELECT count(*), count(name) FROM read_csv('{out}', header=true)").fetchall()[0]
    assert n[0] == len(want)
    assert n[1] == sum(1 for r in want if r["name"] is not None and r["name"] != "")


@pytest.mark.parametrize("name,text,schema,line", [
    ("trunc.jsonl", '{"a": 1}\n{"a": 2}\n{"a": 3, "b": \n', "a long, b string", 3),
    ("esc.jsonl", '{"a": 1}\n{"a": 2, "b": "bad \\q escape"}\n', "a long, b string", 2),
    ("type.jsonl", '{"a": 1}\n{"a": 2}\n{"a": 3}\n{"a": "four"}\n', "a long", 4),
    ("utf8.jsonl", b'{"a": 1, "b": "\xff"}\n', "a long, b string", 1),
    ("quote.csv", 'a,b\n1,x\n2,"open\n3,y\n', "a long, b string", 3),
    ("type.csv", "a,b\n1,x\n2,y\nthree,z\n", "a long, b string", 4),
    ("fields.csv", "a,b\n1,x\n2,y,z\n", "a long, b string", 3),
])
@pytest.mark.parametrize("infer", [False, True])
def test_malformed_input_names_the_line(tmp_path, name, text, schema, line, infer):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    args = ["cat", p] + ([] if infer else ["--schema", schema])
    proc = run_floe(*args, check=False)
    if infer and name.startswith("type"):
        # Inference widens the column to string: no error to report.
        assert proc.returncode == 0
        return
    assert proc.returncode == 1, proc.stderr
    assert f"line {line}" in proc.stderr, proc.stderr
    assert name in proc.stderr


def test_chunk_spanning_rows(tmp_path):
    # Rows longer than the reader's 4 MiB chunk and rows that straddle it.
    p = tmp_path / "big.jsonl"
    rows = [{"id": i, "s": ("x" * (i * 997 % 700_000)) + "\u00e9"} for i in range(40)]
    with open(p, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
        f.write(json.dumps({"id": 99, "s": "y" * (6 << 20)}) + "\n")
    got = floe_rows(p, "id long, s string")
    assert [r["id"] for r in got] == [r["id"] for r in rows] + [99]
    assert all(g["s"] == r["s"] for g, r in zip(got, rows))
    assert len(got[-1]["s"]) == 6 << 20


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from test_roundtrip import schemas  # noqa: E402


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schema_names=schemas, rows=st.sampled_from([1, 7, 2049]), seed=st.integers(1, 10**6))
def test_random_schemas_round_trip_json_and_csv(tmp_path_factory, schema_names, rows, seed):
    """floe generate writes random rows of every type as JSON lines; the
    JSON reader must give back exactly that text, and so must a trip
    through CSV (nested values as JSON text inside CSV fields)."""
    schema, _ = schema_names
    d = tmp_path_factory.mktemp("rtjc")
    src = d / "data.jsonl"
    run_floe("generate", "--schema", schema, "--rows", rows, "--seed", seed, src)
    expected = src.read_text().splitlines()
    assert run_floe("cat", "--schema", schema, src).stdout.splitlines() == expected
    out = d / "data.csv"
    run_floe("convert", "--schema", schema, src, out)
    assert run_floe("cat", "--schema", schema, out).stdout.splitlines() == expected
