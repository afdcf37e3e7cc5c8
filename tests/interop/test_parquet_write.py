"""floe's Parquet writer checked by independent readers.

floe generates the same deterministic rows as JSON lines and as Parquet
(same schema and seed); pyarrow and DuckDB read the Parquet file and every
value must equal the JSON-lines value, parsed here in Python per floe's
canonical JSON form (src/format/json/json_text.h). Statistics that pyarrow
reports are compared with the true values of each row group.
"""
import datetime
import decimal
import json
import math
import struct
import uuid

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ALL_TYPES = ("b boolean, i int, l long not null, f float, d double, dc decimal(9,2), "
             "dl decimal(18,3), dx decimal(38,10), dt date, t time, ts timestamp, "
             "tz timestamptz, tn timestamp_ns, tzn timestamptz_ns, s string, u uuid, "
             "fx fixed(5), bn binary")
NESTED = ("id long not null, li list<int>, ls list<string not null>, "
          "mp map<string, double>, mi map<int, list<string>>, "
          "st struct<x: double, y: list<struct<z: string, w: decimal(38,2)>>, u: uuid>, "
          "ll list<list<long>>, rs struct<a: int not null, b: string> not null, "
          "lt list<timestamptz_ns>, md map<date, time>, lb list<binary>, lf list<fixed(3)>")

EPOCH_ORD = datetime.date(1970, 1, 1).toordinal()


# ---- the schema text, parsed just enough to know each column's type ----

def split_top(text, sep=","):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_type(t):
    t = t.strip()
    if t.endswith("not null"):
        t = t[: -len("not null")].strip()
    if t.startswith("list<"):
        return ("list", parse_type(t[5:-1]))
    if t.startswith("map<"):
        k, v = split_top(t[4:-1])
        return ("map", parse_type(k), parse_type(v))
    if t.startswith("struct<"):
        fields = []
        for f in split_top(t[7:-1]):
            name, ft = f.split(":", 1)
            fields.append((name.strip(), parse_type(ft)))
        return ("struct", fields)
    if t.startswith("decimal"):
        p, s = t[8:-1].split(",")
        return ("decimal", int(p), int(s))
    if t.startswith("fixed"):
        return ("fixed", int(t[6:-1]))
    return (t,)


def parse_schema(text):
    cols = []
    for c in split_top(text):
        name, rest = c.split(" ", 1)
        cols.append((name, parse_type(rest)))
    return cols


# ---- canonical JSON -> normalized Python values ----

def parse_frac(s, digits):
    if "." in s:
        whole, frac = s.split(".")
    else:
        whole, frac = s, ""
    return whole, int((frac + "0" * digits)[:digits] or "0")


def parse_ts(s, digits):
    if s.endswith("+00:00"):
        s = s[:-6]
    d, tm = s.split("T")
    y, mo, da = map(int, d.split("-"))
    whole, frac = parse_frac(tm, digits)
    h, mi, se = map(int, whole.split(":"))
    days = datetime.date(y, mo, da).toordinal() - EPOCH_ORD
    return ((days * 86400 + h * 3600 + mi * 60 + se) * 10 ** digits) + frac


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def from_json(t, v):
    if v is None:
        return None
    k = t[0]
    if k in ("float", "double"):
        x = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, v)
        x = float(x)
        return f32(x) if k == "float" else x
    if k == "decimal":
        return decimal.Decimal(v)
    if k == "date":
        y, mo, da = map(int, v.split("-"))
        return datetime.date(y, mo, da).toordinal() - EPOCH_ORD
    if k == "time":
        whole, frac = parse_frac(v, 6)
        h, mi, se = map(int, whole.split(":"))
        return (h * 3600 + mi * 60 + se) * 10 ** 6 + frac
    if k in ("timestamp", "timestamptz"):
        return parse_ts(v, 6)
    if k in ("timestamp_ns", "timestamptz_ns"):
        return parse_ts(v, 9)
    if k == "uuid":
        return uuid.UUID(v)
    if k in ("fixed", "binary"):
        return bytes.fromhex(v)
    if k == "list":
        return [from_json(t[1], e) for e in v]
    if k == "map":
        if isinstance(v, dict):
            items = list(v.items())
        else:
            items = [(e["key"], e["value"]) for e in v]
        return [(from_json(t[1], a), from_json(t[2], b)) for a, b in items]
    if k == "struct":
        return {name: from_json(ft, v.get(name)) for name, ft in t[1]}
    return v


# ---- Arrow (pyarrow or DuckDB) -> the same normalized values ----

def intify(at):
    """The Arrow type with temporal types replaced by their integer storage."""
    if pa.types.is_timestamp(at) or pa.types.is_time64(at):
        return pa.int64()
    if pa.types.is_date32(at):
        return pa.int32()
    if pa.types.is_map(at):
        return pa.map_(intify(at.key_type), intify(at.item_type))
    if pa.types.is_list(at) or pa.types.is_large_list(at):
        return pa.list_(pa.field(at.value_field.name, intify(at.value_type), at.value_field.nullable))
    if pa.types.is_struct(at):
        return pa.struct([pa.field(f.name, intify(f.type), f.nullable) for f in at])
    return at


def column_values(col):
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if isinstance(col.type, pa.ExtensionType):
        col = col.storage
    return col.cast(intify(col.type)).to_pylist()


def from_arrow(t, v):
    if v is None:
        return None
    k = t[0]
    if k == "uuid":
        if isinstance(v, uuid.UUID):
            return v
        if isinstance(v, (bytes, bytearray)):
            return uuid.UUID(bytes=bytes(v))
        return uuid.UUID(str(v))
    if k == "float":
        return f32(v)
    if k == "list":
        return [from_arrow(t[1], e) for e in v]
    if k == "map":
        if isinstance(v, dict):
            v = list(zip(v["key"], v["value"]))
        return [(from_arrow(t[1], a), from_arrow(t[2], b)) for a, b in v]
    if k == "struct":
        return {name: from_arrow(ft, v.get(name)) for name, ft in t[1]}
    if k in ("fixed", "binary"):
        return bytes(v)
    return v


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[x], b[x]) for x in a)
    return type(a) == type(b) and a == b


def expected_rows(path, cols):
    rows = []
    with open(path) as fh:
        for line in fh:
            # "-0" is how the JSON form writes a negative zero float.
            obj = json.loads(line, parse_int=lambda x: -0.0 if x == "-0" else int(x))
            rows.append({name: from_json(t, obj.get(name)) for name, t in cols})
    return rows


def check_table(table, cols, want, who):
    assert table.num_rows == len(want), who
    for name, t in cols:
        got = [from_arrow(t, x) for x in column_values(table.column(name))]
        for r, (g, w) in enumerate(zip(got, want)):
            assert same(g, w[name]), f"{who}: column {name} row {r}: {g!r} != {w[name]!r}"


# ---- helpers ----

GEN_OPTS = ("--null-fraction", "--edge-fraction", "--max-string", "--sequence")


def make(floe, tmp_path, schema, rows, seed, *opts, name="t"):
    """Generates the rows as JSON lines and as Parquet written with opts."""
    jl = tmp_path / f"{name}.jsonl"
    pqf = tmp_path / f"{name}.parquet"
    gen = []
    for i, o in enumerate(opts):
        if o in GEN_OPTS:
            gen += [o, opts[i + 1]]
    floe("generate", "--schema", schema, "--rows", rows, "--seed", seed, jl, *gen)
    floe("generate", "--schema", schema, "--rows", rows, "--seed", seed, pqf, *opts)
    return jl, pqf


def read_both(pqf, cols, want):
    t = pq.read_table(pqf, page_checksum_verification=True)
    check_table(t, cols, want, "pyarrow")
    con = duckdb.connect()
    d = con.sql(f"select * from read_parquet('{pqf}')").arrow()
    if isinstance(d, pa.RecordBatchReader):
        d = d.read_all()
    check_table(d, cols, want, "duckdb")
    return t


# ---- tests ----

@pytest.mark.parametrize("codec", ["zstd", "snappy", "gzip", "lz4_raw", "uncompressed"])
def test_all_types_each_codec(floe, tmp_path, codec):
    cols = parse_schema(ALL_TYPES)
    jl, pqf = make(floe, tmp_path, ALL_TYPES, 3000, 7, "--compression", codec,
                   "--edge-fraction", "0.1")
    want = expected_rows(jl, cols)
    read_both(pqf, cols, want)
    md = pq.ParquetFile(pqf).metadata
    assert md.created_by.startswith("floe version ")
    got = duckdb.sql(f"select distinct compression from parquet_metadata('{pqf}')").fetchall()
    assert got == [(codec.upper(),)]


@pytest.mark.parametrize("opts", [
    [],
    ["--no-dictionary"],
    ["--page-v2"],
    ["--page-v2", "--no-dictionary", "--compression", "snappy"],
    ["--row-group-size", "700", "--page-size", "2048"],
    ["--row-group-size", "1000", "--page-size", "1024", "--page-v2", "--compression", "gzip"],
], ids=["default", "plain", "v2", "v2-plain", "groups-pages", "groups-pages-v2"])
def test_nested(floe, tmp_path, opts):
    cols = parse_schema(NESTED)
    jl, pqf = make(floe, tmp_path, NESTED, 4000, 11, *opts, "--null-fraction", "0.2")
    want = expected_rows(jl, cols)
    read_both(pqf, cols, want)


@pytest.mark.parametrize("opts", [
    ["--row-group-size", "1000", "--page-size", "4096"],
    ["--row-group-size", "1500", "--page-size", "4096", "--no-dictionary", "--page-v2"],
], ids=["dict", "plain-v2"])
def test_row_groups_pages_and_statistics(floe, tmp_path, opts):
    cols = parse_schema(ALL_TYPES)
    jl, pqf = make(floe, tmp_path, ALL_TYPES, 5000, 5, *opts, "--null-fraction", "0.3")
    want = expected_rows(jl, cols)
    read_both(pqf, cols, want)
    group = int(opts[1])
    f = pq.ParquetFile(pqf)
    md = f.metadata
    assert md.num_row_groups == (5000 + group - 1) // group
    names = [c[0] for c in cols]
    types = dict(cols)
    for g in range(md.num_row_groups):
        rows = want[g * group:(g + 1) * group]
        rg = md.row_group(g)
        assert rg.num_rows == len(rows)
        for ci in range(rg.num_columns):
            c = rg.column(ci)
            name = c.path_in_schema
            assert name in names
            assert c.has_offset_index
            k = types[name][0]
            st = c.statistics
            vals = [r[name] for r in rows if r[name] is not None]
            assert st.null_count == len(rows) - len(vals), name
            if k in ("float", "double"):
                vals = [v for v in vals if not math.isnan(v)]
            if k in ("time", "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns",
                     "date", "uuid", "fixed", "binary"):
                # compared through the raw statistics bytes below for ints only
                if k == "date":
                    lo = st.min
                    assert (lo.toordinal() - EPOCH_ORD) == min(vals)
                    assert (st.max.toordinal() - EPOCH_ORD) == max(vals)
                elif k in ("time", "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns"):
                    assert st.min_raw == min(vals), name
                    assert st.max_raw == max(vals), name
                elif k == "uuid":
                    assert uuid.UUID(bytes=bytes(st.min_raw)) == min(vals, key=lambda u: u.bytes)
                    assert uuid.UUID(bytes=bytes(st.max_raw)) == max(vals, key=lambda u: u.bytes)
                else:
                    assert bytes(st.min_raw) == min(vals) and bytes(st.max_raw) == max(vals), name
                continue
            if not vals:
                continue
            assert st.has_min_max, name
            if k == "string":
                lo, hi = min(vals, key=lambda s: s.encode()), max(vals, key=lambda s: s.encode())
                # Bounds over 64 bytes are truncated: min a prefix, max above every value.
                assert lo.encode().startswith(st.min.encode()), name
                assert st.max.encode() >= hi.encode(), name
                if len(lo.encode()) <= 64:
                    assert st.min == lo
                if len(hi.encode()) <= 64:
                    assert st.max == hi
            elif k in ("float", "double"):
                lo, hi = min(vals), max(vals)
                assert st.min == lo and st.max == hi, name
                if lo == 0:
                    assert math.copysign(1, st.min) < 0
                if hi == 0:
                    assert math.copysign(1, st.max) > 0
            else:
                assert st.min == min(vals), name
                assert st.max == max(vals), name
    # Several pages per chunk show up as offset index entries; DuckDB reads them.
    con = duckdb.connect()
    n = con.sql(f"select count(*) from read_parquet('{pqf}') where l > 0").fetchall()[0][0]
    assert n == sum(1 for r in want if r["l"] > 0)


def test_field_ids(floe, tmp_path):
    schema = "a int, b list<struct<c: string, d: map<string, long>>>, e struct<f: date>"
    _, pqf = make(floe, tmp_path, schema, 10, 1)
    s = pq.read_schema(pqf)

    def fid(f):
        return int(f.metadata[b"PARQUET:field_id"])

    ids = []

    def walk(f):
        ids.append(fid(f))
        t = f.type
        if pa.types.is_map(t):
            walk(t.key_field)
            walk(t.item_field)
        elif pa.types.is_list(t):
            walk(t.value_field)
        elif pa.types.is_struct(t):
            for c in t:
                walk(c)

    for f in s:
        walk(f)
    # Every column, element, key and value has its id: the top level 1..3
    # (Iceberg's fresh ids), nine distinct ids in all. The exact ids are
    # checked against the Iceberg schema in the C unit tests.
    assert [fid(s.field(n)) for n in ("a", "b", "e")] == [1, 2, 3]
    assert sorted(ids) == list(range(1, 10))
    text = str(pq.ParquetFile(pqf).schema)
    assert "repeated group field_id=-1 list" in text
    assert "repeated group field_id=-1 key_value" in text


def test_empty_file(floe, tmp_path):
    cols = parse_schema(NESTED)
    jl, pqf = make(floe, tmp_path, NESTED, 0, 1)
    t = read_both(pqf, cols, [])
    assert t.num_rows == 0
    assert pq.ParquetFile(pqf).metadata.num_rows == 0


def test_dictionary_and_fallback(floe, tmp_path):
    # Few distinct values stay dictionary encoded; unique long strings fall back to PLAIN.
    schema = "flag boolean, small int, s string"
    jl, pqf = make(floe, tmp_path, schema, 20000, 3, "--dictionary-page-size", "4096",
                   "--max-string", "200")
    cols = parse_schema(schema)
    read_both(pqf, cols, expected_rows(jl, cols))
    md = pq.ParquetFile(pqf).metadata
    s = md.row_group(0).column(2)
    assert "PLAIN" in s.encodings
    # A low-cardinality column keeps its dictionary.
    schema = "k decimal(2,0) not null, name string"
    jl = tmp_path / "d.jsonl"
    pqf = tmp_path / "d.parquet"
    floe("generate", "--schema", schema, "--rows", 5000, "--seed", 2, "--max-string", "1", jl)
    floe("generate", "--schema", schema, "--rows", 5000, "--seed", 2, "--max-string", "1", pqf)
    cols = parse_schema(schema)
    read_both(pqf, cols, expected_rows(jl, cols))
    c = pq.ParquetFile(pqf).metadata.row_group(0).column(0)
    assert c.has_dictionary_page
    assert "RLE_DICTIONARY" in c.encodings


def test_long_strings_truncated_statistics(floe, tmp_path):
    schema = "s string not null, b binary not null"
    jl, pqf = make(floe, tmp_path, schema, 500, 9, "--max-string", "300", "--edge-fraction", "0")
    cols = parse_schema(schema)
    want = expected_rows(jl, cols)
    read_both(pqf, cols, want)
    st = pq.ParquetFile(pqf).metadata.row_group(0).column(0).statistics
    vals = [r["s"].encode() for r in want]
    lo, hi = min(vals), max(vals)
    assert len(st.min_raw) <= 64 and lo.startswith(bytes(st.min_raw))
    assert len(st.max_raw) <= 68 and bytes(st.max_raw) >= hi
    stb = pq.ParquetFile(pqf).metadata.row_group(0).column(1).statistics
    bvals = [r["b"] for r in want]
    assert min(bvals).startswith(bytes(stb.min_raw)) and bytes(stb.max_raw) >= max(bvals)


def test_selection_and_big_file(floe, tmp_path):
    # Enough rows for several batches per row group and several pages per chunk.
    schema = "id long not null, v double, s string"
    jl, pqf = make(floe, tmp_path, schema, 200000, 4, "--row-group-size", "65536")
    cols = parse_schema(schema)
    want = expected_rows(jl, cols)
    read_both(pqf, cols, want)
    assert pq.ParquetFile(pqf).metadata.num_row_groups == 4


# ---- the page index, read with an independent Thrift compact decoder ----

class Compact:
    """Just enough of the Thrift compact protocol to read Parquet structures."""

    def __init__(self, data, pos=0):
        self.b, self.p = data, pos

    def byte(self):
        v = self.b[self.p]
        self.p += 1
        return v

    def varint(self):
        shift = result = 0
        while True:
            x = self.byte()
            result |= (x & 0x7F) << shift
            shift += 7
            if not x & 0x80:
                return result

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (1, 2):
            return t == 1
        if t == 3:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if t in (4, 5, 6):
            return self.zigzag()
        if t == 7:
            self.p += 8
            return struct.unpack("<d", self.b[self.p - 8:self.p])[0]
        if t == 8:
            n = self.varint()
            self.p += n
            return bytes(self.b[self.p - n:self.p])
        if t in (9, 10):
            h = self.byte()
            n, et = h >> 4, h & 15
            if n == 15:
                n = self.varint()
            if et in (1, 2):
                return [self.byte() == 1 for _ in range(n)]
            return [self.value(et) for _ in range(n)]
        if t == 12:
            return self.struct()
        raise ValueError(f"compact type {t} at {self.p}")

    def struct(self):
        d, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return d
            t, delta = h & 15, h >> 4
            fid = last + delta if delta else self.zigzag()
            d[fid] = self.value(t)
            last = fid


def footer(data):
    n = struct.unpack("<I", data[-8:-4])[0]
    assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    return Compact(data, len(data) - 8 - n).struct()


@pytest.mark.parametrize("v2,small_dict", [(False, False), (True, False), (True, True)],
                         ids=["v1", "v2", "v2-dict-overflow"])
def test_page_index_and_checksums(floe, tmp_path, v2, small_dict):
    import zlib
    schema = "l long not null, i decimal(2,0), s string"
    opts = ["--row-group-size", "1500", "--page-size", "1024", "--null-fraction", "0.3",
            "--compression", "snappy", "--max-string", "3"]
    if v2:
        opts.append("--page-v2")
    if small_dict:
        # The dictionary of s outgrows its page partway through each chunk.
        opts += ["--dictionary-page-size", "600", "--page-size", "200"]
    jl, pqf = make(floe, tmp_path, schema, 4000, 21, *opts)
    cols = parse_schema(schema)
    want = expected_rows(jl, cols)
    read_both(pqf, cols, want)
    data = open(pqf, "rb").read()
    fm = footer(data)
    assert fm[1] == 2 and fm[3] == 4000
    assert len(fm[7]) == 3 and all(o == {1: {}} for o in fm[7])  # TYPE_ORDER for each column
    start = 0
    for rg in fm[4]:
        nrows = rg[3]
        rows = want[start:start + nrows]
        for ci, cc in enumerate(rg[1]):
            name = cols[ci][0]
            meta = cc[3]
            oi = Compact(data, cc[4]).struct()
            assert Compact(data, cc[4]).p + cc[5] <= len(data)
            locs = oi[1]
            assert len(locs) > 1 or name == "i", "expected several pages"
            if small_dict and name == "i":
                # encoding_stats: dictionary-indexed data pages, then PLAIN ones
                kinds = {(e[1], e[2]) for e in meta[13]}
                assert (3, 8) in kinds and (3, 0) in kinds and (2, 0) in kinds, kinds
            assert locs[0][1] == meta[9] and locs[0][3] == 0
            firsts = [loc[3] for loc in locs] + [nrows]
            assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts)
            for p, loc in enumerate(locs):
                r = Compact(data, loc[1])
                h = r.struct()
                if v2:
                    assert h[1] == 3  # DATA_PAGE_V2: num_values, num_nulls, num_rows
                    assert h[8][3] == firsts[p + 1] - firsts[p] == h[8][1]
                    page = rows[firsts[p]:firsts[p + 1]]
                    assert h[8][2] == sum(1 for x in page if x[name] is None)
                else:
                    assert h[1] == 0  # DATA_PAGE (v1)
                    assert h[5][1] == firsts[p + 1] - firsts[p]
                assert r.p - loc[1] + h[3] == loc[2]
                body = data[r.p:r.p + h[3]]
                assert h[4] == struct.unpack("<i", struct.pack("<I", zlib.crc32(body)))[0]
            ci_ = Compact(data, cc[6]).struct()
            null_pages, mins, maxs, order, null_counts = ci_[1], ci_[2], ci_[3], ci_[4], ci_[5]
            assert len(null_pages) == len(locs)
            pmin, pmax = [], []
            for p in range(len(locs)):
                vals = [r[name] for r in rows[firsts[p]:firsts[p + 1]]]
                present = [v for v in vals if v is not None]
                assert null_counts[p] == len(vals) - len(present)
                assert null_pages[p] == (not present)
                if not present:
                    continue
                if name == "l":
                    lo, hi = struct.unpack("<q", mins[p])[0], struct.unpack("<q", maxs[p])[0]
                    assert (lo, hi) == (min(present), max(present))
                elif name == "i":
                    lo, hi = struct.unpack("<i", mins[p])[0], struct.unpack("<i", maxs[p])[0]
                    assert (lo, hi) == (min(present) * 1, max(present) * 1)
                else:
                    enc = [v.encode() for v in present]
                    lo, hi = mins[p], maxs[p]
                    assert min(enc).startswith(lo) and len(lo) <= 64
                    assert hi >= max(enc) and len(hi) <= 68
                    if len(min(enc)) <= 64:
                        assert lo == min(enc)
                    if len(max(enc)) <= 64:
                        assert hi == max(enc)
                pmin.append(lo)
                pmax.append(hi)
            asc = all(a <= b for a, b in zip(pmin, pmin[1:])) and \
                all(a <= b for a, b in zip(pmax, pmax[1:]))
            desc = all(a >= b for a, b in zip(pmin, pmin[1:])) and \
                all(a >= b for a, b in zip(pmax, pmax[1:]))
            assert order == (1 if asc else 2 if desc else 0)
        start += nrows


def test_sorted_column_boundary_order(floe, tmp_path):
    schema = "seq long not null, v double"
    jl, pqf = make(floe, tmp_path, schema, 20000, 1, "--sequence", "seq", "--page-size", "4096",
                   "--no-dictionary")
    cols = parse_schema(schema)
    read_both(pqf, cols, expected_rows(jl, cols))
    data = open(pqf, "rb").read()
    cc = footer(data)[4][0][1][0]
    ci = Compact(data, cc[6]).struct()
    assert ci[4] == 1 and len(ci[1]) > 2  # ASCENDING over several pages


@pytest.mark.parametrize("codec", ["zstd", "snappy", "gzip", "lz4_raw", "uncompressed"])
@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_all_null_columns(floe, tmp_path, codec, v2):
    # Pages without a single value: empty value sections, compressed or not.
    schema = "a int, s string, l list<int>, m map<string, int>, st struct<x: double>"
    jl, pqf = make(floe, tmp_path, schema, 300, 1, "--null-fraction", "1", "--compression", codec,
                   *(["--page-v2"] if v2 else []))
    cols = parse_schema(schema)
    want = expected_rows(jl, cols)
    assert all(r[c] is None for r in want for c, _ in cols)
    read_both(pqf, cols, want)
    md = pq.ParquetFile(pqf).metadata
    st = md.row_group(0).column(0).statistics
    assert st.null_count == 300 and not st.has_min_max


def test_duckdb_filters_over_statistics(floe, tmp_path):
    # DuckDB skips row groups by their statistics: wrong bounds (a truncated
    # max below a value, a misordered decimal) would drop matching rows.
    schema = "l long not null, s string, dx decimal(38,4), dc decimal(9,2), dt date, f double"
    jl, pqf = make(floe, tmp_path, schema, 20000, 8, "--row-group-size", "1000",
                   "--max-string", "120")
    cols = parse_schema(schema)
    want = expected_rows(jl, cols)
    con = duckdb.connect()
    src = f"read_parquet('{pqf}')"
    probes = want[::997]
    for r in probes:
        for name in ("l", "s", "dx", "dc"):
            v = r[name]
            if v is None:
                continue
            n = con.execute(f"select count(*) from {src} where {name} = ?", [v]).fetchall()[0][0]
            assert n == sum(1 for x in want if x[name] == v), (name, v)
            # pyarrow's dataset reader prunes row groups by statistics too.
            t = pq.read_table(pqf, columns=[name], filters=[(name, "==", v)])
            assert t.num_rows == n, (name, v)
        if r["s"] is not None:
            n = con.execute(f"select count(*) from {src} where s >= ?", [r["s"]]).fetchall()[0][0]
            assert n == sum(1 for x in want if x["s"] is not None and
                            x["s"].encode() >= r["s"].encode())
        if r["dt"] is not None:
            d = datetime.date.fromordinal(r["dt"] + EPOCH_ORD)
            n = con.execute(f"select count(*) from {src} where dt <= ?", [d]).fetchall()[0][0]
            assert n == sum(1 for x in want if x["dt"] is not None and x["dt"] <= r["dt"])
    # DuckDB orders NaN above every number, so NaN > 0 holds there; bounds
    # ignore NaN, and a group with NaN must still not be skipped.
    n = con.execute(f"select count(*) from {src} where f > 0").fetchall()[0][0]
    assert n == sum(1 for x in want if x["f"] is not None and (math.isnan(x["f"]) or x["f"] > 0))


@pytest.mark.parametrize("case", range(8))
def test_random_option_mixes(floe, tmp_path, case):
    # Reproducible mixes of every writer option over the nested schema and the flat one.
    import random
    rnd = random.Random(1000 + case)
    schema = NESTED if case % 2 else ALL_TYPES
    opts = ["--compression", rnd.choice(["zstd", "snappy", "gzip", "lz4_raw", "uncompressed"]),
            "--row-group-size", str(rnd.choice([1, 7, 100, 1000, 5000])),
            "--page-size", str(rnd.choice([1, 100, 1000, 10000, 1 << 20])),
            "--dictionary-page-size", str(rnd.choice([1, 500, 1 << 20])),
            "--null-fraction", str(rnd.choice([0, 0.05, 0.5, 0.95])),
            "--max-string", str(rnd.choice([1, 10, 100]))]
    if rnd.random() < 0.5:
        opts.append("--page-v2")
    if rnd.random() < 0.3:
        opts.append("--no-dictionary")
    rows = rnd.choice([1, 2, 999, 3000])
    cols = parse_schema(schema)
    jl, pqf = make(floe, tmp_path, schema, rows, case, *opts)
    read_both(pqf, cols, expected_rows(jl, cols))
