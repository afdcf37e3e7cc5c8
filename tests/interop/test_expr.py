"""floe's Iceberg filters against PyIceberg's: random filters (hypothesis)
over random rows, compared on row evaluation, partition values, inclusive
and strict projection decisions, manifest partition summaries and metrics
evaluation.

floe follows Java where PyIceberg does not: its temporal projections are
widened (inclusive) or narrowed (strict) around negative partition values
for files written by Iceberg 0.10 and older, so for specs with year,
month, day or hour floe may keep more partitions inclusively and fewer
strictly, never the other way round. Rows here hold no nulls: PyIceberg's
row evaluator treats null != x as true, floe (SQL) as unknown.

The filters reach floe through build/tests/expr_tool (tests/unit/iceberg/
expr_tool.c), one JSON request per line."""
import datetime
import decimal
import json
import pathlib
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pyiceberg import conversions
from pyiceberg.expressions import (
    AlwaysTrue,
    And,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    NotEqualTo,
    NotIn,
    NotNull,
    NotStartsWith,
    Or,
    StartsWith,
)
from pyiceberg.expressions.visitors import (
    _InclusiveMetricsEvaluator,
    _StrictMetricsEvaluator,
    expression_evaluator,
    inclusive_projection,
    manifest_evaluator,
    strict_projection,
)
from pyiceberg.manifest import (
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestContent,
    ManifestFile,
    PartitionFieldSummary,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    TruncateTransform,
    YearTransform,
)
from pyiceberg.typedef import Record
from pyiceberg.types import DateType, DecimalType, LongType, NestedField, StringType, TimestampType

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "tests" / "expr_tool"

SCHEMA_TEXT = "v long, s string, d date, t timestamp, m decimal(9,2)"
SCHEMA = Schema(
    NestedField(1, "v", LongType(), required=False),
    NestedField(2, "s", StringType(), required=False),
    NestedField(3, "d", DateType(), required=False),
    NestedField(4, "t", TimestampType(), required=False),
    NestedField(5, "m", DecimalType(9, 2), required=False),
)
COLS = ["v", "s", "d", "t", "m"]
TYPES = {"v": LongType(), "s": StringType(), "d": DateType(), "t": TimestampType(),
         "m": DecimalType(9, 2)}
IDS = {"v": 1, "s": 2, "d": 3, "t": 4, "m": 5}

# floe spec text, PyIceberg transforms per field (source name, transform), temporal?
SPECS = [
    ("v, s, d, t", [("v", IdentityTransform()), ("s", IdentityTransform()),
                    ("d", IdentityTransform()), ("t", IdentityTransform())], False),
    ("bucket(8, v), bucket(4, s), bucket(3, d), bucket(5, t)",
     [("v", BucketTransform(8)), ("s", BucketTransform(4)), ("d", BucketTransform(3)),
      ("t", BucketTransform(5))], False),
    ("truncate(5, v), truncate(2, s), truncate(50, m)",
     [("v", TruncateTransform(5)), ("s", TruncateTransform(2)), ("m", TruncateTransform(50))],
     False),
    ("m, bucket(4, m), truncate(7, m)",
     [("m", IdentityTransform()), ("m", BucketTransform(4)), ("m", TruncateTransform(7))], False),
    ("v, truncate(3, v), truncate(1, s), bucket(2, s)",
     [("v", IdentityTransform()), ("v", TruncateTransform(3)), ("s", TruncateTransform(1)),
      ("s", BucketTransform(2))], False),
    ("year(t), month(d), day(t), hour(t)",
     [("t", YearTransform()), ("d", MonthTransform()), ("t", DayTransform()),
      ("t", HourTransform())], True),
    ("day(d), year(d), month(t)", [("d", DayTransform()), ("d", YearTransform()),
                                   ("t", MonthTransform())], True),
]

EPOCH = datetime.datetime(1970, 1, 1)
HOUR = 3_600_000_000
DAY = 24 * HOUR


@pytest.fixture(scope="module")
def tool():
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: build first")
    proc = subprocess.Popen([str(TOOL)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(req):
        proc.stdin.write(json.dumps(req) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, "expr_tool exited"
        return json.loads(line)

    yield ask
    proc.stdin.close()
    proc.wait(timeout=30)


def pyspec(fields):
    return PartitionSpec(*[
        PartitionField(source_id=IDS[src], field_id=1000 + i, transform=tr, name=f"p{i}")
        for i, (src, tr) in enumerate(fields)
    ])


# ---- values and literals ----

strings = st.sampled_from(["", "a", "ab", "abc", "abd", "b", "ba", "bab", "é", "éa", "aé"])
longs = st.integers(-30, 30)
dates = st.integers(-800, 800)
units = st.sampled_from([1, HOUR, DAY, 31 * DAY, 365 * DAY])
timestamps = st.builds(lambda k, u, off: k * u + off, st.integers(-3, 3), units,
                       st.integers(-1, 1))
decimals = st.builds(lambda u: decimal.Decimal(u).scaleb(-2), st.integers(-300, 300))
VALUES = {"v": longs, "s": strings, "d": dates, "t": timestamps, "m": decimals}


def floe_lit(col, x):
    if col in ("v", "m"):
        return str(x)
    if col == "s":
        return "'" + x.replace("'", "''") + "'"
    if col == "d":
        return "DATE '" + (EPOCH + datetime.timedelta(days=x)).date().isoformat() + "'"
    return "TIMESTAMP '" + (EPOCH + datetime.timedelta(microseconds=x)).isoformat(
        timespec="microseconds") + "'"


def py_lit(col, x):
    if col == "d":
        return (EPOCH + datetime.timedelta(days=x)).date().isoformat()
    if col == "t":
        return (EPOCH + datetime.timedelta(microseconds=x)).isoformat(timespec="microseconds")
    return x


CMP = [("<", LessThan, "lt"), ("<=", LessThanOrEqual, "le"), (">", GreaterThan, "gt"),
       (">=", GreaterThanOrEqual, "ge"), ("=", EqualTo, "eq"), ("!=", NotEqualTo, "ne")]


def java_pred(op, col, xs=()):
    """Prefix tokens of a predicate for ExprOracle.java."""
    return [op, str(IDS[col]), str(len(xs)), *[str(x) for x in xs]]


@st.composite
def predicates(draw):
    """A predicate as (floe text, PyIceberg expression, Java oracle tokens)."""
    col = draw(st.sampled_from(COLS))
    kind = draw(st.sampled_from(["cmp", "cmp", "cmp", "in", "notin", "null", "sw", "nsw"]))
    if kind in ("sw", "nsw"):
        p = draw(strings)
        text = f"s {'NOT ' if kind == 'nsw' else ''}STARTS WITH {floe_lit('s', p)}"
        return (text, (NotStartsWith if kind == "nsw" else StartsWith)("s", p),
                java_pred(kind, "s", [p]))
    if kind == "null":
        neg = draw(st.booleans())
        return (f"{col} IS {'NOT ' if neg else ''}NULL", (NotNull if neg else IsNull)(col),
                java_pred("notnull" if neg else "isnull", col))
    if kind in ("in", "notin"):
        xs = draw(st.lists(VALUES[col], min_size=1, max_size=3))
        text = f"{col} {'NOT ' if kind == 'notin' else ''}IN ({', '.join(floe_lit(col, x) for x in xs)})"
        return (text, (NotIn if kind == "notin" else In)(col, {py_lit(col, x) for x in xs}),
                java_pred(kind, col, xs))
    op, cls, jop = draw(st.sampled_from(CMP))
    x = draw(VALUES[col])
    return f"{col} {op} {floe_lit(col, x)}", cls(col, py_lit(col, x)), java_pred(jop, col, [x])


def filters():
    return st.recursive(
        predicates(),
        lambda inner: st.one_of(
            st.builds(lambda l, r: (f"({l[0]} AND {r[0]})", And(l[1], r[1]), ["and", *l[2], *r[2]]),
                      inner, inner),
            st.builds(lambda l, r: (f"({l[0]} OR {r[0]})", Or(l[1], r[1]), ["or", *l[2], *r[2]]),
                      inner, inner),
            st.builds(lambda x: (f"NOT ({x[0]})", Not(x[1]), ["not", *x[2]]), inner),
        ),
        max_leaves=5,
    )


rows_strategy = st.lists(st.tuples(longs, strings, dates, timestamps, decimals), min_size=1,
                         max_size=4)


def metrics_of(rows):
    """Column metrics (floe JSON and PyIceberg DataFile) of non-null rows."""
    floe, lower, upper = [], {}, {}
    for i, col in enumerate(COLS):
        vals = [r[i] for r in rows]
        lo, hi = min(vals), max(vals)
        if col == "s":  # UTF-8 byte order, as the binary bounds compare
            lo = min(vals, key=lambda s: s.encode())
            hi = max(vals, key=lambda s: s.encode())
        lower[IDS[col]] = conversions.to_bytes(TYPES[col], lo)
        upper[IDS[col]] = conversions.to_bytes(TYPES[col], hi)
        floe.append({"id": IDS[col], "vc": len(rows), "nc": 0, "nanc": -1,
                     "lo": lower[IDS[col]].hex(), "hi": upper[IDS[col]].hex()})
    f = DataFile.from_args(
        content=DataFileContent.DATA, file_path="x.parquet", file_format=FileFormat.PARQUET,
        partition=Record(), record_count=len(rows), file_size_in_bytes=1,
        value_counts={IDS[c]: len(rows) for c in COLS}, null_value_counts={IDS[c]: 0 for c in COLS},
        nan_value_counts={}, lower_bounds=lower, upper_bounds=upper)
    return floe, f


def summaries_of(ptype, parts):
    """Partition field summaries (floe JSON, PyIceberg ManifestFile) of partition tuples."""
    floe, py = [], []
    for k, f in enumerate(ptype.fields):
        vals = [p[k] for p in parts if p[k] is not None]
        has_null = any(p[k] is None for p in parts)
        lo = hi = None
        if vals:
            key = (lambda v: v.encode()) if isinstance(vals[0], str) else (lambda v: v)
            lo = conversions.to_bytes(f.field_type, min(vals, key=key))
            hi = conversions.to_bytes(f.field_type, max(vals, key=key))
        floe.append({"contains_null": has_null, "contains_nan": False,
                     "lo": lo.hex() if lo is not None else None,
                     "hi": hi.hex() if hi is not None else None})
        py.append(PartitionFieldSummary.from_args(contains_null=has_null, contains_nan=False,
                                                  lower_bound=lo, upper_bound=hi))
    mf = ManifestFile.from_args(manifest_path="m.avro", manifest_length=1, partition_spec_id=0,
                                content=ManifestContent.DATA, sequence_number=1,
                                min_sequence_number=1, added_snapshot_id=1, partitions=py)
    return floe, mf


@settings(max_examples=400, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec_i=st.integers(0, len(SPECS) - 1), flt=filters(), rows=rows_strategy,
       keep_mask=st.lists(st.booleans(), min_size=4, max_size=4))
def test_filters_agree_with_pyiceberg(tool, spec_i, flt, rows, keep_mask):
    spec_text, fields, temporal = SPECS[spec_i]
    text, expr, _ = flt
    metrics, data_file = metrics_of(rows)
    spec = pyspec(fields)
    ptype = spec.partition_type(SCHEMA)
    parts = [[tr.transform(TYPES[src])(r[COLS.index(src)]) for src, tr in fields] for r in rows]
    # A manifest of these rows' partitions, and one of only some of them.
    chosen = [p for p, keep in zip(parts, keep_mask) if keep] or parts[:1]
    summaries, manifest = summaries_of(ptype, chosen)
    ans = tool({"schema": SCHEMA_TEXT, "spec": spec_text, "filter": text,
                "rows": [[str(c) if isinstance(c, decimal.Decimal) else c for c in r] for r in rows],
                "metrics": metrics, "record_count": len(rows),
                "summaries": summaries})
    assert "error" not in ans, (text, ans)

    # Rows.
    row_eval = expression_evaluator(SCHEMA, expr, case_sensitive=True)
    py_match = [i for i, r in enumerate(rows) if row_eval(Record(*r))]
    assert ans["match"] == py_match, (text, ans["bound_text"])

    # Partition values.
    pschema = Schema(*ptype.fields)
    incl = expression_evaluator(pschema, inclusive_projection(SCHEMA, spec)(expr), True)
    strict = expression_evaluator(pschema, strict_projection(SCHEMA, spec)(expr), True)
    for i, r in enumerate(rows):
        part = parts[i]
        want = [conversions.to_bytes(f.field_type, v).hex() for f, v in zip(ptype.fields, part)]
        assert ans["partitions"][i] == want, (spec_text, r)
        py_in, py_st = incl(Record(*part)), strict(Record(*part))
        fl_in, fl_st = ans["inclusive"][i], ans["strict"][i]
        ctx = (spec_text, text, r, ans["inclusive_text"], ans["strict_text"])
        # Sound against the row itself.
        assert fl_in or i not in py_match, ctx
        assert not fl_st or i in py_match, ctx
        if temporal:
            assert fl_in or not py_in, ctx
            assert py_st or not fl_st, ctx
        else:
            assert fl_in == py_in, ctx
            assert fl_st == py_st, ctx

    # Manifest partition summaries.
    py_manifest = manifest_evaluator(spec, SCHEMA, inclusive_projection(SCHEMA, spec)(expr))(manifest)
    chosen_match = [ans["inclusive"][i] for i, keep in enumerate(keep_mask[:len(rows)]) if keep]
    if not any(keep_mask[:len(rows)]):
        chosen_match = ans["inclusive"][:1]
    ctx = (spec_text, text, chosen, ans["inclusive_text"])
    assert ans["manifest"] or not any(chosen_match), ctx
    if not temporal:
        # At least as decisive: PyIceberg's IN only tests "all below" or
        # "all above" the bounds, floe each value against both.
        assert py_manifest or not ans["manifest"], ctx

    # Metrics.
    py_might = _InclusiveMetricsEvaluator(SCHEMA, expr).eval(data_file)
    py_must = _StrictMetricsEvaluator(SCHEMA, expr).eval(data_file)
    ctx = (text, rows)
    # floe decides at least as much as PyIceberg (it also knows that every
    # string starts with '' and proves STARTS WITH strictly).
    assert py_might or not ans["might"], ctx
    assert ans["must"] or not py_must, ctx
    assert ans["might"] or not py_match, ctx
    assert not ans["must"] or len(py_match) == len(rows), ctx


def test_java_time_adjustments(tool):
    """Pre-1970 projections: floe widens as Java does where PyIceberg does not."""
    ans = tool({"schema": SCHEMA_TEXT, "spec": "day(t)",
                "filter": "t = TIMESTAMP '1969-12-31T10:00:00'"})
    assert ans["inclusive_text"] == "$1000 IN ('1969-12-31', '1970-01-01')"
    assert ans["strict_text"] == "FALSE"
    ans = tool({"schema": SCHEMA_TEXT, "spec": "month(d)", "filter": "d >= DATE '1969-11-01'"})
    assert ans["strict_text"] == "$1000 > -2"
    assert ans["inclusive_text"] == "$1000 >= -2"


def test_tool_reports_errors(tool):
    ans = tool({"schema": SCHEMA_TEXT, "filter": "v = 'abc'"})
    assert "cannot compare column v (long)" in ans["error"]
    ans = tool({"schema": SCHEMA_TEXT, "filter": "v = "})
    assert "column 5" in ans["error"]


# ---- Java's Projections as the oracle ----

ICEBERG_JAVA = "1.10.0"
ORACLE_SRC = ROOT / "tests" / "interop" / "java" / "ExprOracle.java"
M2 = pathlib.Path.home() / ".m2" / "repository" / "org" / "apache" / "iceberg"


@pytest.fixture(scope="module")
def java_oracle(tmp_path_factory):
    """ExprOracle.java compiled against iceberg-api from Maven Central."""
    if not (shutil.which("javac") and shutil.which("java") and shutil.which("mvn")):
        pytest.fail("needs java, javac and mvn for the Iceberg Java oracle")
    jars = [M2 / "iceberg-api" / ICEBERG_JAVA / f"iceberg-api-{ICEBERG_JAVA}.jar",
            M2 / "iceberg-bundled-guava" / ICEBERG_JAVA / f"iceberg-bundled-guava-{ICEBERG_JAVA}.jar"]
    if not all(j.exists() for j in jars):
        got = subprocess.run(["mvn", "-q", "dependency:get",
                              f"-Dartifact=org.apache.iceberg:iceberg-api:{ICEBERG_JAVA}"],
                             capture_output=True, text=True, timeout=600)
        if got.returncode != 0 or not all(j.exists() for j in jars):
            pytest.fail(f"iceberg-api {ICEBERG_JAVA} not available from Maven: {got.stdout[-500:]}")
    cp = ":".join(map(str, jars))
    out = tmp_path_factory.mktemp("oracle")
    subprocess.run(["javac", "-nowarn", "-d", str(out), "-cp", cp, str(ORACLE_SRC)], check=True,
                   capture_output=True, timeout=300)
    proc = subprocess.Popen(["java", "-cp", f"{out}:{cp}", "org.apache.iceberg.ExprOracle"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            encoding="utf-8")

    def ask(*parts):
        """Sends tab-separated parts (token lists joined by U+001F); returns the answer words."""
        line = "\t".join(p if isinstance(p, str) else "\x1f".join(p) for p in parts)
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        answer = proc.stdout.readline().strip()
        assert answer and not answer.startswith("ERR"), (line, answer)
        return [w == "1" for w in answer.split()]

    yield ask
    proc.stdin.close()
    proc.wait(timeout=30)


def java_tuple(ptype, part):
    out = []
    for f, v in zip(ptype.fields, part):
        if v is None:
            out.append("N")
        elif isinstance(f.field_type, (LongType, TimestampType)):
            out.append(f"L:{v}")
        elif isinstance(f.field_type, DecimalType):
            out.append(f"D:{v}")
        elif isinstance(f.field_type, StringType):
            out.append(f"S:{v}")
        else:
            out.append(f"I:{v}")
    return out


@settings(max_examples=600, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec_i=st.integers(0, len(SPECS) - 1), flt=filters(), rows=rows_strategy,
       keep_mask=st.lists(st.booleans(), min_size=4, max_size=4))
def test_agree_with_java(tool, java_oracle, spec_i, flt, rows, keep_mask):
    """Projection decisions equal Java's Projections (time adjustments included);
    metrics and manifest decisions are at least as sharp as Java's evaluators
    and sound."""
    spec_text, fields, _ = SPECS[spec_i]
    text, _, tokens = flt
    metrics, _ = metrics_of(rows)
    spec = pyspec(fields)
    ptype = spec.partition_type(SCHEMA)
    parts = [[tr.transform(TYPES[src])(r[COLS.index(src)]) for src, tr in fields] for r in rows]
    chosen = [p for p, keep in zip(parts, keep_mask) if keep] or parts[:1]
    chosen_i = [i for i, keep in enumerate(keep_mask[:len(rows)]) if keep] or [0]
    summaries, _ = summaries_of(ptype, chosen)
    ans = tool({"schema": SCHEMA_TEXT, "spec": spec_text, "filter": text,
                "rows": [[str(c) if isinstance(c, decimal.Decimal) else c for c in r] for r in rows],
                "metrics": metrics, "record_count": len(rows), "summaries": summaries})
    assert "error" not in ans, (text, ans)
    java_fields = [f"{IDS[src]}:{tr}" for src, tr in fields]
    for i, r in enumerate(rows):
        j_in, j_st = java_oracle(java_fields, tokens, java_tuple(ptype, parts[i]))
        ctx = (spec_text, text, r, ans["inclusive_text"], ans["strict_text"])
        assert ans["inclusive"][i] == j_in, ctx
        assert ans["strict"][i] == j_st, ctx

    cols = [f"{m['id']}:{m['vc']}:{m['nc']}::{m['lo']}:{m['hi']}" for m in metrics]
    j_might, j_must = java_oracle("M", tokens, str(len(rows)), cols)
    ctx = (text, rows, ans["bound_text"])
    assert j_might or not ans["might"], ctx
    assert ans["must"] or not j_must, ctx
    assert ans["might"] or not ans["match"], ctx
    assert not ans["must"] or len(ans["match"]) == len(rows), ctx

    sums = [f"{int(x['contains_null'])}:0:{'-' if x['lo'] is None else x['lo']}:"
            f"{'-' if x['hi'] is None else x['hi']}" for x in summaries]
    (j_manifest,) = java_oracle("S", java_fields, tokens, sums)
    ctx = (spec_text, text, chosen, ans["inclusive_text"])
    assert j_manifest or not ans["manifest"], ctx
    assert ans["manifest"] or not any(ans["inclusive"][i] for i in chosen_i), ctx
