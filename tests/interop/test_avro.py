"""Avro interoperability with fastavro, in both directions.

floe -> fastavro: floe generates the same rows (same seed) as JSON lines and
as Avro with each codec; fastavro reads the Avro file and every value must
equal the JSON-lines row, converted here in Python from floe's canonical
JSON text (so floe's Avro writer is checked against an independent reader
and an independent text form).

fastavro -> floe: fastavro writes files with unions, enums, fixed, maps,
arrays, logical types and custom attributes; `floe cat` must print the
values fastavro wrote, and `floe inspect --json` must report the counts,
codec and metadata.
"""
import datetime
import decimal
import io
import json
import math
import struct
import uuid

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_floe

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_DATE = datetime.date(1970, 1, 1)


def codec_available(codec):
    """fastavro needs optional libraries for snappy (cramjam) and zstandard."""
    try:
        fastavro.writer(io.BytesIO(), fastavro.parse_schema(
            {"type": "record", "name": "x", "fields": []}), [{}], codec=codec)
        return True
    except ValueError:
        return False


CODECS = [("null", "null"), ("deflate", "deflate"), ("snappy", "snappy"), ("zstd", "zstandard")]


def need_codec(avro_codec):
    if not codec_available(avro_codec):
        pytest.skip(f"fastavro lacks the library for {avro_codec}")


# ---- canonical JSON text (floe) to Python values -------------------------


class JInt(int):
    """An int that remembers its text, so "-0" stays distinguishable."""


def parse_int(s):
    v = JInt(int(s))
    v.text = s
    return v


def loads(line):
    return json.loads(line, parse_int=parse_int)


def units_since_epoch(text, digits):
    """ISO timestamp text (optionally +00:00) to units of 10^-digits s."""
    if text.endswith("+00:00"):
        text = text[:-6]
    day, _, clock = text.partition("T")
    y, m, d = (int(p) for p in day.split("-"))
    hh, mm, rest = clock.split(":")
    sec, _, frac = rest.partition(".")
    days = (datetime.date(y, m, d) - EPOCH_DATE).days
    secs = days * 86400 + int(hh) * 3600 + int(mm) * 60 + int(sec)
    return secs * 10**digits + (int(frac.ljust(digits, "0")) if frac else 0)


def time_micros(text):
    hh, mm, rest = text.split(":")
    sec, _, frac = rest.partition(".")
    return (int(hh) * 3600 + int(mm) * 60 + int(sec)) * 10**6 + (int(frac.ljust(6, "0")) if frac else 0)


def as_float(v):
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    if isinstance(v, JInt) and v == 0 and v.text.startswith("-"):
        return -0.0
    return float(v)


def datetime_units(v, digits):
    if isinstance(v, int):
        return v
    if v.tzinfo is None:
        v = v.replace(tzinfo=UTC)
    delta = v - EPOCH
    return (delta.days * 86400 + delta.seconds) * 10**digits + delta.microseconds * 10**(digits - 6)


class Checker:
    """Compares a fastavro value with floe's JSON value under an Avro schema."""

    def __init__(self):
        self.named = {}

    def resolve(self, s):
        if isinstance(s, str) and s in self.named:
            return self.named[s]
        if isinstance(s, dict) and "name" in s and s.get("type") in ("record", "enum", "fixed"):
            self.named[s["name"]] = s
        return s

    def check(self, s, want, got, path):
        s = self.resolve(s)
        if isinstance(s, list):
            if want is None:
                assert got is None, path
                return
            branches = [b for b in s if b != "null"]
            assert len(branches) == 1, path
            return self.check(branches[0], want, got, path)
        if isinstance(s, str):
            s = {"type": s}
        t, lt = s["type"], s.get("logicalType")
        if isinstance(t, (dict, list)):
            return self.check(t, want, got, path)
        if t == "record":
            assert set(got) == {f["name"] for f in s["fields"]}, path
            for f in s["fields"]:
                self.check(f["type"], want[f["name"]], got[f["name"]], f"{path}.{f['name']}")
        elif t == "array" and lt == "map":
            assert len(want) == len(got), path
            rec = self.resolve(s["items"])
            for i, (w, g) in enumerate(zip(want, got)):
                self.check(rec, w, g, f"{path}[{i}]")
        elif t == "array":
            assert len(want) == len(got), path
            for i, (w, g) in enumerate(zip(want, got)):
                self.check(s["items"], w, g, f"{path}[{i}]")
        elif t == "map":
            assert set(want) == set(got), path
            for k in want:
                self.check(s["values"], want[k], got[k], f"{path}[{k}]")
        elif lt == "decimal":
            exp = decimal.Decimal(want)
            assert got == exp and got.as_tuple().exponent == -s["scale"], (path, want, got)
        elif lt == "uuid":
            g = got.bytes if isinstance(got, uuid.UUID) else got
            assert g == uuid.UUID(want).bytes, path
        elif lt == "date":
            g = got if isinstance(got, int) else (got - EPOCH_DATE).days
            assert g == (datetime.date.fromisoformat(want) - EPOCH_DATE).days, path
        elif lt == "time-micros":
            g = got if isinstance(got, int) else (
                (got.hour * 3600 + got.minute * 60 + got.second) * 10**6 + got.microsecond)
            assert g == time_micros(want), path
        elif lt in ("timestamp-micros", "local-timestamp-micros"):
            assert datetime_units(got, 6) == units_since_epoch(want, 6), (path, want, got)
            assert want.endswith("+00:00") == (s.get("adjust-to-utc") is True), path
        elif lt in ("timestamp-nanos", "local-timestamp-nanos"):
            assert datetime_units(got, 9) == units_since_epoch(want, 9), (path, want, got)
        elif t in ("bytes", "fixed"):
            assert got == bytes.fromhex(want), path
            if t == "fixed":
                assert len(got) == s["size"], path
        elif t == "float":
            w = as_float(want)
            assert (math.isnan(w) and math.isnan(got)) or struct.pack("<f", w) == struct.pack("<f", got), (path, want, got)
        elif t == "double":
            w = as_float(want)
            assert (math.isnan(w) and math.isnan(got)) or struct.pack("<d", w) == struct.pack("<d", got), (path, want, got)
        elif t in ("int", "long", "boolean", "string"):
            assert type(got) is (bool if t == "boolean" else str if t == "string" else int), path
            assert got == want, (path, want, got)
        else:
            raise AssertionError(f"{path}: unexpected type {t}")


def fastavro_matches_jsonl(avro_path, jsonl_path):
    want = [loads(line) for line in jsonl_path.read_text().splitlines()]
    with open(avro_path, "rb") as f:
        r = fastavro.reader(f)
        got = list(r)
        schema = r.writer_schema
        codec = r.codec
    assert len(got) == len(want)
    c = Checker()
    for i, (w, g) in enumerate(zip(want, got)):
        c.check(schema, w, g, f"row {i}")
    return schema, codec


ALL_TYPES = ("b boolean, i int not null, l long, f float, d double, dec decimal(9,2), "
             "dec2 decimal(18,6), big decimal(38,10), dt date, tm time, ts timestamp, "
             "tstz timestamptz, tsn timestamp_ns, tsnz timestamptz_ns, s string not null, u uuid, "
             "fx fixed(5), bin binary, tags list<string>, ints list<long not null>, "
             "m map<string, double>, im map<int, string>, dm map<date, list<int>>, "
             "st struct<x: double, y: list<struct<a: int, b: string not null>> not null, "
             "z map<string, boolean>>")


@pytest.mark.parametrize("floe_codec,avro_codec", CODECS)
def test_fastavro_reads_floe_files(tmp_path, floe_codec, avro_codec):
    need_codec(avro_codec)
    jl, av = tmp_path / "rows.jsonl", tmp_path / "rows.avro"
    run_floe("generate", "--schema", ALL_TYPES, "--rows", 3000, "--seed", 11, "--edge-fraction",
             "0.1", jl)
    run_floe("generate", "--schema", ALL_TYPES, "--rows", 3000, "--seed", 11, "--edge-fraction",
             "0.1", "--compression", floe_codec, av)
    schema, codec = fastavro_matches_jsonl(av, jl)
    assert codec == avro_codec
    # Iceberg's Avro conventions.
    fields = {f["name"]: f for f in schema["fields"]}
    assert [f["field-id"] for f in schema["fields"]] == list(range(1, len(fields) + 1))
    assert fields["l"]["type"][0] == "null" and fields["l"]["default"] is None
    assert fields["i"]["type"] == "int"
    assert fields["ts"]["type"][1]["adjust-to-utc"] is False
    assert fields["tstz"]["type"][1]["adjust-to-utc"] is True
    assert fields["tags"]["type"][1]["type"] == "array" and "element-id" in fields["tags"]["type"][1]
    assert {"key-id", "value-id"} <= set(fields["m"]["type"][1])
    assert fields["im"]["type"][1]["logicalType"] == "map"
    assert fields["st"]["type"][1]["name"] == "r24"
    # And floe reads its own file back to the same rows.
    assert run_floe("cat", av).stdout.splitlines() == jl.read_text().splitlines()


def test_fastavro_reads_floe_empty_and_converted_files(tmp_path):
    schema = "id long not null, name string, tags list<string>"
    jl, av = tmp_path / "e.jsonl", tmp_path / "e.avro"
    run_floe("generate", "--schema", schema, "--rows", 0, jl)
    run_floe("generate", "--schema", schema, "--rows", 0, av)
    with open(av, "rb") as f:
        r = fastavro.reader(f)
        assert list(r) == []
        assert [x["name"] for x in r.writer_schema["fields"]] == ["id", "name", "tags"]
    info = json.loads(run_floe("inspect", av, "--json").stdout)
    assert info["records"] == 0 and info["blocks"] == 0
    # convert between codecs keeps the values.
    run_floe("generate", "--schema", schema, "--rows", 5000, "--seed", 3, jl)
    run_floe("generate", "--schema", schema, "--rows", 5000, "--seed", 3, "--compression", "null", av)
    av2 = tmp_path / "e2.avro"
    run_floe("convert", av, av2, "--compression", "deflate")
    fastavro_matches_jsonl(av2, jl)
    info = json.loads(run_floe("inspect", av2, "--json").stdout)
    assert info["records"] == 5000 and info["codec"] == "deflate" and info["blocks"] > 1


# ---- fastavro writes, floe reads -----------------------------------------

FASTAVRO_SCHEMA = {
    "type": "record", "name": "event", "namespace": "com.example", "doc": "test events",
    "x-custom": {"owner": "team", "tags": [1, 2]},
    "fields": [
        {"name": "id", "type": "long", "field-id": 10},
        {"name": "n", "type": ["null", "int"], "default": None, "field-id": 11},
        {"name": "label", "type": ["string", "null"], "field-id": 12},
        {"name": "choice", "type": ["null", "int", "string"], "field-id": 13},
        {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
        {"name": "hash2", "type": ["null", "Hash"]},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 3}},
        {"name": "fprice", "type": {"type": "fixed", "name": "dec", "size": 8, "logicalType": "decimal",
                                    "precision": 18, "scale": 2}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tmillis", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tmicros", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsus", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "f32", "type": "float"},
        {"name": "f64", "type": "double"},
        {"name": "flag", "type": "boolean"},
        {"name": "blob", "type": "bytes"},
        {"name": "tags", "type": {"type": "array", "items": "string", "element-id": 20}},
        {"name": "scores", "type": {"type": "map", "values": ["null", "long"], "key-id": 21, "value-id": 22}},
        {"name": "pairs", "type": {"type": "array", "logicalType": "map", "items": {
            "type": "record", "name": "k30_v31", "fields": [
                {"name": "key", "type": "int", "field-id": 30},
                {"name": "value", "type": ["null", "string"], "field-id": 31}]}}},
        {"name": "point", "type": {"type": "record", "name": "Point", "fields": [
            {"name": "x", "type": "double"}, {"name": "y", "type": ["null", "double"]}]}},
        {"name": "points", "type": {"type": "array", "items": "Point"}},
    ],
}


def make_record(i):
    base_ts = datetime.datetime(2024, 2, 29, 12, 30, 15, 123456, tzinfo=UTC)
    return {
        "id": i * 7919 - 10**12,
        "n": None if i % 3 == 0 else i - 50,
        "label": None if i % 4 == 1 else f"label {i} \u00e9\u65e5 \"q\"",
        "choice": [None, i, f"s{i}"][i % 3],
        "color": ["RED", "GREEN", "BLUE"][i % 3],
        "hash": bytes([i % 256, 1, 2, 255]),
        "hash2": None if i % 2 else bytes([9, 8, 7, i % 256]),
        "price": decimal.Decimal(i * 1234567 - 5000000).scaleb(-3),
        "fprice": decimal.Decimal(-i * 98765431).scaleb(-2),
        "day": datetime.date(1969, 12, 31) + datetime.timedelta(days=i * 37),
        "tmillis": datetime.time(23, 59, 59, 999000) if i % 5 == 0 else datetime.time(i % 24, 1, 2, 3000),
        "tmicros": datetime.time(1, 2, 3, i % 1000000),
        "tsms": base_ts.replace(microsecond=(i % 1000) * 1000) - datetime.timedelta(days=i * 400),
        "tsus": base_ts + datetime.timedelta(microseconds=i * 1000003),
        "local": datetime.datetime(1900, 1, 1, 0, 0, 0, i),
        "uid": str(uuid.UUID(int=(i * 0x9E3779B97F4A7C15) % 2**128)),
        "f32": [1.5, -0.0, float("inf"), 3.4028234663852886e38, 1e-45][i % 5],
        "f64": [math.pi * i, float("nan"), -1e300, 5e-324, 0.1][i % 5],
        "flag": i % 2 == 0,
        "blob": bytes(range(i % 20)),
        "tags": [f"t{k}" for k in range(i % 4)],
        "scores": {f"k{k}": (None if k == 1 else k * i) for k in range(i % 3)},
        "pairs": [{"key": k, "value": None if k % 2 else f"v{k}"} for k in range(i % 3)],
        "point": {"x": i / 8, "y": None if i % 2 else -i / 4},
        "points": [{"x": float(k), "y": None} for k in range(i % 2)],
    }


def fmt_time_micros(us):
    return "%02d:%02d:%02d.%06d" % (us // 3600000000, us // 60000000 % 60, us // 1000000 % 60, us % 1000000)


def fmt_ts(us, tz):
    dt = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=us)
    return ("%04d-%02d-%02dT%02d:%02d:%02d.%06d" % (dt.year, dt.month, dt.day, dt.hour, dt.minute,
                                                    dt.second, dt.microsecond) + ("+00:00" if tz else ""))


def expect_json(rec):
    """The canonical JSON floe must print for one fastavro record."""
    def micros(dt):
        return datetime_units(dt, 6)

    def t_us(t):
        return (t.hour * 3600 + t.minute * 60 + t.second) * 10**6 + t.microsecond

    return {
        "id": rec["id"], "n": rec["n"], "label": rec["label"],
        "choice": None if rec["choice"] is None else {
            "tag": 0 if isinstance(rec["choice"], int) else 1,
            "field0": rec["choice"] if isinstance(rec["choice"], int) else None,
            "field1": rec["choice"] if isinstance(rec["choice"], str) else None},
        "color": rec["color"],
        "hash": rec["hash"].hex(),
        "hash2": None if rec["hash2"] is None else rec["hash2"].hex(),
        "price": str(rec["price"]), "fprice": str(rec["fprice"]),
        "day": rec["day"].isoformat(),
        "tmillis": fmt_time_micros(t_us(rec["tmillis"])),
        "tmicros": fmt_time_micros(t_us(rec["tmicros"])),
        "tsms": fmt_ts(micros(rec["tsms"]), True),
        "tsus": fmt_ts(micros(rec["tsus"]), True),
        "local": fmt_ts(micros(rec["local"]), False),
        "uid": rec["uid"],
        "f32": rec["f32"], "f64": rec["f64"], "flag": rec["flag"],
        "blob": rec["blob"].hex(),
        "tags": rec["tags"], "scores": rec["scores"], "pairs": rec["pairs"],
        "point": rec["point"], "points": rec["points"],
    }


def same(want, got, path="row"):
    if isinstance(want, float):
        g = as_float(got)
        if math.isnan(want):
            assert math.isnan(g), path
        else:
            if struct.pack("<d", want) != struct.pack("<d", g):
                assert abs(want) < 3.5e38 and struct.pack("<f", want) == struct.pack("<f", g), (path, want, got)
            assert math.copysign(1, want) == math.copysign(1, g), path
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(want) == set(got), (path, want, got)
        for k in want:
            same(want[k], got[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(want) == len(got), (path, want, got)
        for i, (w, g) in enumerate(zip(want, got)):
            same(w, g, f"{path}[{i}]")
    else:
        assert want == got and type(want) is type(got) or (isinstance(want, int) and isinstance(got, int) and want == got), (path, want, got)


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy", "zstandard"])
def test_floe_reads_fastavro_files(tmp_path, codec):
    need_codec(codec)
    recs = [make_record(i) for i in range(1200)]
    path = tmp_path / f"fa-{codec}.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(FASTAVRO_SCHEMA), recs, codec=codec,
                        sync_interval=4000, metadata={"iceberg.schema": "{}", "format-version": "2"})
    lines = run_floe("cat", path).stdout.splitlines()
    assert len(lines) == len(recs)
    for i, (line, rec) in enumerate(zip(lines, recs)):
        same(expect_json(rec), loads(line), f"row {i}")
    info = json.loads(run_floe("inspect", path, "--json").stdout)
    assert info["records"] == 1200 and info["codec"] == codec and info["blocks"] > 1
    assert info["metadata"]["format-version"] == "2"
    # Custom attributes and ids survive in the schema floe reports.
    assert info["schema"]["x-custom"] == {"owner": "team", "tags": [1, 2]}
    fields = {f["name"]: f for f in info["schema"]["fields"]}
    assert fields["id"]["field-id"] == 10 and fields["tags"]["type"]["element-id"] == 20
    assert "id long not null" in info["iceberg_schema"]
    # Converting with floe keeps what fastavro sees (logical types aside).
    out = tmp_path / "copy.avro"
    run_floe("convert", path, out, "--compression", "deflate")
    with open(out, "rb") as f:
        copy = list(fastavro.reader(f))
    assert [r["id"] for r in copy] == [r["id"] for r in recs]
    assert [r["tsus"] for r in copy] == [r["tsus"] for r in recs]
    assert [r["price"] for r in copy] == [r["price"] for r in recs]
    assert [r["color"] for r in copy] == [r["color"] for r in recs]


def test_floe_reads_fastavro_empty_file(tmp_path):
    path = tmp_path / "empty.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(FASTAVRO_SCHEMA), [])
    assert run_floe("cat", path).stdout == ""
    assert json.loads(run_floe("inspect", path, "--json").stdout)["records"] == 0


def test_floe_rejects_truncated_file(tmp_path):
    path = tmp_path / "t.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(FASTAVRO_SCHEMA), [make_record(i) for i in range(50)])
    data = path.read_bytes()
    bad = tmp_path / "bad.avro"
    bad.write_bytes(data[:-7])
    proc = run_floe("cat", bad, check=False)
    assert proc.returncode != 0 and "bad.avro" in proc.stderr and "byte" in proc.stderr


# ---- randomized ------------------------------------------------------------

PRIMS = ["boolean", "int", "long", "float", "double", "decimal(9,2)", "decimal(38,4)", "date", "time",
         "timestamp", "timestamptz", "timestamp_ns", "string", "uuid", "fixed(3)", "binary"]


def types(depth):
    prim = st.sampled_from(PRIMS)
    if depth == 0:
        return prim
    sub = types(depth - 1)
    return st.one_of(
        prim,
        st.tuples(sub, st.booleans()).map(lambda t: f"list<{t[0]}{' not null' if t[1] else ''}>"),
        st.tuples(st.sampled_from(["string", "int", "uuid"]), sub).map(lambda kv: f"map<{kv[0]}, {kv[1]}>"),
        st.lists(st.tuples(sub, st.booleans()), min_size=1, max_size=3).map(
            lambda fs: "struct<" + ", ".join(f"f{i}: {t}{' not null' if r else ''}"
                                             for i, (t, r) in enumerate(fs)) + ">"),
    )


SCHEMAS = st.lists(st.tuples(types(2), st.booleans()), min_size=1, max_size=5).map(
    lambda cols: ", ".join(f"c{i} {t}{' not null' if r else ''}" for i, (t, r) in enumerate(cols)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schema=SCHEMAS, rows=st.sampled_from([0, 1, 5, 2049]), seed=st.integers(1, 10**6),
       codec=st.sampled_from(["null", "deflate", "snappy", "zstd"]))
def test_random_schemas_fastavro_agrees(tmp_path_factory, schema, rows, seed, codec):
    if not codec_available({"zstd": "zstandard"}.get(codec, codec)):
        codec = "deflate"
    d = tmp_path_factory.mktemp("rnd")
    jl, av = d / "r.jsonl", d / "r.avro"
    run_floe("generate", "--schema", schema, "--rows", rows, "--seed", seed, jl)
    run_floe("generate", "--schema", schema, "--rows", rows, "--seed", seed, "--compression", codec, av)
    fastavro_matches_jsonl(av, jl)
    assert run_floe("cat", av).stdout.splitlines() == jl.read_text().splitlines()
