"""floe's Parquet reader against pyarrow on the parquet-testing corpus.

For every file floe covers, `floe cat` (one JSON object per row in floe's
canonical form, see src/format/json/json_text.h) must equal pyarrow's
reading of the same file, normalized here to that form. Files floe does
not cover are listed in SKIP with the reason and must fail cleanly; corrupt
files (and damaged copies made here) must fail with exit code 1 and a
message naming the file, never a signal.
"""
import json
import math
import pathlib
import random
import struct
import subprocess
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE, TESTDATA, run_floe

DATA = TESTDATA / "parquet-testing" / "data"

# Files floe does not read, and why. Each must still fail with a clear error.
SKIP = {
    "large_string_map.brotli.parquet": "codec BROTLI is not supported",
}
ENCRYPTED_GLOB = "*.encrypted"
# Files whose bytes are damaged on purpose: floe must refuse them.
CORRUPT = {
    "datapage_v1-corrupt-checksum.parquet": "CRC",
    "rle-dict-uncompressed-corrupt-checksum.parquet": "CRC",
    "nation.dict-malformed.parquet": "nation.dict-malformed",
}


def all_files():
    return sorted(p for p in DATA.rglob("*.parquet"))


def readable_files():
    return [p for p in all_files()
            if p.name not in SKIP and p.name not in CORRUPT and p.name not in DOCUMENTED]


# ---- normalizing pyarrow values to floe's JSON form ----

def fmt_clock(units, digits):
    unit = 10 ** digits
    secs, frac = divmod(units, unit)
    return "%02d:%02d:%02d.%0*d" % (secs // 3600, secs // 60 % 60, secs % 60, digits, frac)


def civil_from_days(z):
    """Proleptic Gregorian (year, month, day) of days since 1970-01-01, any year."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + (m <= 2), m, d)


def fmt_date(days):
    y, m, d = civil_from_days(days)
    if 0 <= y <= 9999:
        return "%04d-%02d-%02d" % (y, m, d)
    return "%+05d-%02d-%02d" % (y, m, d)


def fmt_timestamp(v, digits, tz):
    per_day = 86400 * 10 ** digits
    days, tod = divmod(v, per_day)
    return "%sT%s%s" % (fmt_date(days), fmt_clock(tod, digits), "+00:00" if tz else "")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class F32(float):
    """A float32 value: equal to any number that rounds to the same float32
    (floe prints float columns in their shortest float32 form)."""

    def __eq__(self, other):
        return isinstance(other, (int, float)) and f32(float(other)) == f32(float(self))

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = float.__hash__


def fmt_float32(x):
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return F32(x)


def fmt_float64(x):
    if x is None:
        return None
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def ints(arr):
    return arr.view(pa.int32() if arr.type.bit_width == 32 else pa.int64()).to_pylist()


def norm(arr, pq_int96=False):
    """Returns the values of a pyarrow array in floe's JSON form."""
    t = arr.type
    if isinstance(arr, pa.ChunkedArray):
        out = []
        for c in arr.chunks:
            out.extend(norm(c, pq_int96))
        return out
    valid = arr.is_valid().to_pylist()
    if pa.types.is_struct(t):
        kids = [norm(arr.field(i), pq_int96) for i in range(t.num_fields)]
        return [({t.field(i).name: kids[i][r] for i in range(t.num_fields)} if valid[r] else None)
                for r in range(len(arr))]
    if pa.types.is_map(t):
        offs = arr.offsets.to_pylist()
        keys = norm(arr.keys, pq_int96)
        items = norm(arr.items, pq_int96)
        string_keys = pa.types.is_string(t.key_type) or pa.types.is_large_string(t.key_type)
        out = []
        for r in range(len(arr)):
            if not valid[r]:
                out.append(None)
                continue
            rng = range(offs[r], offs[r + 1])
            if string_keys:
                out.append({keys[k]: items[k] for k in rng})
            else:
                out.append([{"key": keys[k], "value": items[k]} for k in rng])
        return out
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offs = arr.offsets.to_pylist()
        vals = norm(arr.values, pq_int96)
        return [(vals[offs[r]:offs[r + 1]] if valid[r] else None) for r in range(len(arr))]
    if isinstance(t, pa.ExtensionType) or str(t).startswith("extension<"):
        storage = arr.storage
        if "uuid" in str(t):
            return [str(uuid.UUID(bytes=b)) if b is not None else None
                    for b in storage.to_pylist()]
        return norm(storage, pq_int96)
    if pa.types.is_timestamp(t):
        digits = {"s": 0, "ms": 3, "us": 6, "ns": 9}[t.unit]
        vals = ints(arr)
        tz = t.tz is not None or pq_int96
        if pq_int96 and digits == 9:
            vals = [None if v is None else v // 1000 for v in vals]
            digits = 6
        out_digits = 9 if digits == 9 else 6
        scale = 10 ** (out_digits - digits)
        return [None if v is None else fmt_timestamp(v * scale, out_digits, tz) for v in vals]
    if pa.types.is_date32(t):
        return [None if v is None else fmt_date(v) for v in ints(arr)]
    if pa.types.is_time(t):
        unit = t.unit
        vals = ints(arr)
        conv = {"s": lambda v: v * 10**6, "ms": lambda v: v * 1000, "us": lambda v: v,
                "ns": lambda v: v // 1000}[unit]
        return [None if v is None else fmt_clock(conv(v), 6) for v in vals]
    if pa.types.is_decimal(t):
        return [None if v is None else format(v, "f") for v in arr.to_pylist()]
    if pa.types.is_float16(t) or pa.types.is_float32(t):
        return [fmt_float32(v) for v in arr.to_pylist()]
    if pa.types.is_float64(t):
        return [fmt_float64(v) for v in arr.to_pylist()]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return [None if v is None else v.hex() for v in arr.to_pylist()]
    if pa.types.is_dictionary(t):
        return norm(arr.dictionary_decode(), pq_int96)
    return arr.to_pylist()


# Files pyarrow refuses, with the values their documentation gives.
DOCUMENTED = {
    # README "Incorrect Map Schema": Presto's map with optional keys.
    "incorrect_map_schema.parquet": [{"my_map": {"name": "report", "parent": "another"}}],
    # int96_from_spark.md lists the microseconds; pyarrow overflows on the last one.
    "int96_from_spark.parquet": [
        {"a": None if v is None else fmt_timestamp(v, 6, True)}
        for v in [1704141296123456, 1704070800000000, 253402225200000000, 1735599600000000, None,
                  9089380393200000000]],
}


def int96_columns(path):
    md = pq.ParquetFile(path).schema
    return {md.column(i).path.split(".")[0] for i in range(len(md))
            if md.column(i).physical_type == "INT96"}


def pyarrow_rows(path):
    table = pq.read_table(path, coerce_int96_timestamp_unit="us")
    i96 = int96_columns(path)
    cols = {name: norm(table.column(name), name in i96) for name in table.column_names}
    return [{name: cols[name][r] for name in table.column_names} for r in range(table.num_rows)]


def floe_rows(path):
    proc = run_floe("cat", path)
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.parametrize("path", readable_files(), ids=lambda p: str(p.relative_to(DATA)))
def test_values_match_pyarrow(path):
    expected = pyarrow_rows(path)
    got = floe_rows(path)
    assert len(got) == len(expected)
    for r, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"row {r} differs"


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_values_match_documentation(name):
    assert floe_rows(DATA / name) == DOCUMENTED[name]


def assert_clean_failure(path, needle=None):
    proc = run_floe("cat", path, check=False)
    assert proc.returncode == 1, f"exit {proc.returncode} (negative: killed by a signal)\n{proc.stderr}"
    assert str(pathlib.Path(path).name) in proc.stderr, proc.stderr
    if needle:
        assert needle.lower() in proc.stderr.lower(), proc.stderr


@pytest.mark.parametrize("name,needle", sorted(CORRUPT.items()))
def test_corrupt_files_fail_cleanly(name, needle):
    assert_clean_failure(DATA / name, needle)


@pytest.mark.parametrize("name,reason", sorted(SKIP.items()))
def test_unsupported_files_fail_cleanly(name, reason):
    assert_clean_failure(DATA / name, reason)


@pytest.mark.parametrize("path", sorted(DATA.rglob(ENCRYPTED_GLOB)), ids=lambda p: p.name)
def test_encrypted_files_are_refused(path):
    assert_clean_failure(path, "encrypt")


DAMAGE_SOURCES = ["alltypes_plain.parquet", "nested_lists.snappy.parquet",
                  "delta_byte_array.parquet", "nullable.impala.parquet",
                  "byte_stream_split.zstd.parquet", "datapage_v2.snappy.parquet",
                  "rle_boolean_encoding.parquet", "dict-page-offset-zero.parquet"]


@pytest.mark.parametrize("name", DAMAGE_SOURCES)
def test_damaged_copies_never_crash(tmp_path, name):
    data = (DATA / name).read_bytes()
    rnd = random.Random(name)
    copies = []
    for cut in (len(data) // 2, len(data) - 1, len(data) - 9, 11):
        copies.append(data[:cut])
    for k in range(24):
        b = bytearray(data)
        for _ in range(rnd.randint(1, 8)):
            b[rnd.randrange(4, len(b) - 8)] = rnd.randrange(256)
        copies.append(bytes(b))
    for i, blob in enumerate(copies):
        p = tmp_path / f"damaged_{i}_{name}"
        p.write_bytes(blob)
        proc = subprocess.run([str(FLOE), "cat", str(p)], capture_output=True, timeout=60)
        stderr = proc.stderr.decode(errors="replace")
        assert proc.returncode in (0, 1), f"{p.name}: exit {proc.returncode}\n{stderr}"
        if proc.returncode == 1:
            assert p.name in stderr, stderr


@pytest.mark.parametrize("path", readable_files(), ids=lambda p: str(p.relative_to(DATA)))
def test_inspect_matches_pyarrow_metadata(path):
    doc = json.loads(run_floe("inspect", "--json", path).stdout)
    md = pq.ParquetFile(path).metadata
    assert doc["num_rows"] == md.num_rows
    assert (doc["created_by"] or "") == (md.created_by or "")
    assert len(doc["row_groups"]) == md.num_row_groups
    for g, rg in enumerate(doc["row_groups"]):
        prg = md.row_group(g)
        assert rg["num_rows"] == prg.num_rows
        assert len(rg["columns"]) == prg.num_columns
        for c, col in enumerate(rg["columns"]):
            pc = prg.column(c)
            assert col["path"] == pc.path_in_schema
            assert col["physical_type"] == pc.physical_type
            assert col["codec"] == pc.compression.upper().replace("LZ4", "LZ4_RAW") \
                or col["codec"] in ("LZ4", pc.compression.upper())
            assert col["total_compressed_size"] == pc.total_compressed_size
            assert col["num_values"] == pc.num_values
            assert col["column_index"] == pc.has_column_index
            assert col["offset_index"] == pc.has_offset_index
            if pc.is_stats_set and pc.statistics.has_null_count and "statistics" in col:
                assert col["statistics"]["null_count"] == pc.statistics.null_count
    text = run_floe("inspect", path).stdout
    assert "iceberg fields:" in text and f"num_rows: {md.num_rows}" in text


# ---- pyarrow-written files with random data and every writer option ----

def random_table(seed, rows):
    import decimal
    rnd = random.Random(seed)

    def maybe(v, p=0.15):
        return None if rnd.random() < p else v

    def col(gen):
        return [maybe(gen()) for _ in range(rows)]

    words = ["", "a", "bb", "lorem", "ipsum dolor", "ünïcødé", "x" * 40]
    data = {
        "i8": pa.array(col(lambda: rnd.randint(-128, 127)), pa.int8()),
        "i16": pa.array(col(lambda: rnd.randint(-2**15, 2**15 - 1)), pa.int16()),
        "i32": pa.array(col(lambda: rnd.randint(-2**31, 2**31 - 1)), pa.int32()),
        "i64": pa.array(col(lambda: rnd.randint(-2**63, 2**63 - 1)), pa.int64()),
        "u8": pa.array(col(lambda: rnd.randint(0, 255)), pa.uint8()),
        "u32": pa.array(col(lambda: rnd.randint(0, 2**32 - 1)), pa.uint32()),
        "u64": pa.array(col(lambda: rnd.randint(0, 2**63 - 1)), pa.uint64()),
        "f32": pa.array(col(lambda: rnd.uniform(-1e6, 1e6)), pa.float32()),
        "f64": pa.array(col(lambda: rnd.choice([rnd.gauss(0, 1e3), float("nan"), float("inf"), -0.0])),
                        pa.float64()),
        "b": pa.array(col(lambda: rnd.random() < 0.5), pa.bool_()),
        "s": pa.array(col(lambda: rnd.choice(words) + str(rnd.randint(0, 30))), pa.string()),
        "bin": pa.array(col(lambda: bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 9)))),
                        pa.binary()),
        "fx": pa.array(col(lambda: bytes(rnd.randrange(256) for _ in range(5))), pa.binary(5)),
        "d": pa.array(col(lambda: rnd.randint(-200000, 200000)), pa.int32()).cast(pa.date32()),
        "t_ms": pa.array(col(lambda: rnd.randint(0, 86399999)), pa.int32()).cast(pa.time32("ms")),
        "t_us": pa.array(col(lambda: rnd.randint(0, 86399999999)), pa.int64()).cast(pa.time64("us")),
        "ts_ms": pa.array(col(lambda: rnd.randint(-2**40, 2**40)), pa.int64()).cast(pa.timestamp("ms")),
        "ts_us_tz": pa.array(col(lambda: rnd.randint(-2**50, 2**50)), pa.int64()).cast(
            pa.timestamp("us", tz="UTC")),
        "ts_ns": pa.array(col(lambda: rnd.randint(-2**62, 2**62)), pa.int64()).cast(pa.timestamp("ns")),
        "dec9": pa.array(col(lambda: decimal.Decimal(rnd.randint(-10**9 + 1, 10**9 - 1)).scaleb(-2)),
                         pa.decimal128(9, 2)),
        "dec38": pa.array(col(lambda: decimal.Decimal(rnd.randint(-10**37, 10**37)).scaleb(-10)),
                          pa.decimal128(38, 10)),
        "li": pa.array(col(lambda: [maybe(rnd.randint(0, 9)) for _ in range(rnd.randint(0, 4))]),
                       pa.list_(pa.int32())),
        "lls": pa.array(col(lambda: [maybe([maybe(rnd.choice(words)) for _ in range(rnd.randint(0, 3))])
                                     for _ in range(rnd.randint(0, 3))]),
                        pa.list_(pa.list_(pa.string()))),
        "st": pa.array(col(lambda: {"x": maybe(rnd.randint(0, 100)), "y": maybe(rnd.choice(words)),
                                    "z": maybe([rnd.random() for _ in range(rnd.randint(0, 2))])}),
                       pa.struct([("x", pa.int64()), ("y", pa.string()),
                                  ("z", pa.list_(pa.float64()))])),
        "m": pa.array(col(lambda: [(rnd.choice(words) + str(k), maybe(rnd.randint(0, 5)))
                                   for k in range(rnd.randint(0, 3))]),
                      pa.map_(pa.string(), pa.int32())),
        "ls": pa.array(col(lambda: [maybe({"a": maybe(rnd.randint(0, 3)), "b": rnd.choice(words)})
                                    for _ in range(rnd.randint(0, 3))]),
                       pa.list_(pa.struct([("a", pa.int16()), ("b", pa.string())]))),
    }
    return pa.table(data)


WRITER_CASES = [
    dict(compression="none", use_dictionary=False, data_page_version="1.0"),
    dict(compression="snappy", use_dictionary=True, data_page_version="1.0"),
    dict(compression="zstd", use_dictionary=True, data_page_version="2.0"),
    dict(compression="gzip", use_dictionary=False, data_page_version="2.0"),
    dict(compression="lz4", use_dictionary=True, data_page_version="1.0"),
    dict(compression="zstd", use_dictionary=False, data_page_version="2.0",
         column_encoding={"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED",
                          "s": "DELTA_BYTE_ARRAY", "bin": "DELTA_LENGTH_BYTE_ARRAY",
                          "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT",
                          "fx": "BYTE_STREAM_SPLIT", "b": "RLE"}),
    dict(compression="snappy", use_dictionary=True, data_page_version="1.0", version="1.0",
         write_page_checksum=True, coerce_timestamps="us", allow_truncated_timestamps=True),
    dict(compression="none", use_dictionary=True, data_page_version="2.0",
         write_page_index=True, write_page_checksum=True),
]


@pytest.mark.parametrize("case", range(len(WRITER_CASES)))
@pytest.mark.parametrize("rows", [1, 3000, 7000])
def test_pyarrow_written_random_files(tmp_path, case, rows):
    table = random_table(case * 7 + rows, rows)
    path = tmp_path / "rand.parquet"
    opts = dict(WRITER_CASES[case])
    # Small pages put rows across page boundaries; 7000 rows in row groups of
    # 6000 cut batches (2048 rows) inside a row group.
    pq.write_table(table, path, data_page_size=2048, row_group_size=1200 if rows < 7000 else 6000,
                   **opts)
    expected = pyarrow_rows(path)
    got = floe_rows(path)
    assert len(got) == len(expected)
    for r, (g, e) in enumerate(zip(got, expected)):
        if g != e:
            diff = {k: (g.get(k), e.get(k)) for k in e if g.get(k) != e.get(k)}
            pytest.fail(f"row {r} differs: {diff}")
