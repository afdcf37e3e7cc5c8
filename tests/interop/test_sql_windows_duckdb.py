"""floe's window aggregations (TUMBLE, HOP, CUMULATE, SESSION table
functions with GROUP BY window_start, window_end, k) against DuckDB's
equivalent SQL over the same Parquet file.

DuckDB has no window table functions, so its side spells the windows
out: window starts from integer arithmetic on epoch microseconds (floor
modulo, as Flink's TimeWindow.getWindowStartWithOffset), HOP and
CUMULATE windows by joining each row with a range of window numbers,
SESSION windows by gaps-and-islands (a new session where the gap to the
previous row of the partition exceeds the gap: rows exactly one gap apart
stay together, as Flink's windows intersect). The random table has
hundreds of rows with microsecond times, NULL times (dropped), NULL keys
and NULL values. Rows compare as multisets, window bounds as epoch
microseconds."""
import datetime
import json
import random

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

N = 700
MIN = 60_000_000  # microseconds

AGGS_FLOE = "count(*), count(v), sum(v), min(v), max(v), count(DISTINCT v)"
AGGS_DUCK = "count(*), count(v), sum(v), min(v), max(v), count(DISTINCT v)"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("windows")
    rnd = random.Random(11)
    base = datetime.datetime(2024, 5, 1, 9, 0, 0)
    ts, k, v = [], [], []
    for _ in range(N):
        t = base + datetime.timedelta(microseconds=rnd.randint(-30 * MIN, 400 * MIN))
        ts.append(None if rnd.random() < 0.05 else t)
        k.append(None if rnd.random() < 0.1 else rnd.choice(["a", "b", "c", "d", "e"]))
        v.append(None if rnd.random() < 0.15 else rnd.randint(-50, 500))
    t = pa.table({"ts": pa.array(ts, pa.timestamp("us")),
                  "k": pa.array(k, pa.string()),
                  "v": pa.array(v, pa.int32())})
    path = d / "events.parquet"
    pq.write_table(t, path)
    return path


def key(row):
    return tuple((x is None, x if x is not None else 0) for x in row)


def floe_rows(floe, tmp_path, sql, *opts):
    out = floe("--warehouse", tmp_path / "wh", "sql", *opts, "--format", "json", "-c", sql)
    return sorted((tuple(o.values()) for o in json.loads(out.stdout)), key=key)


def duck_rows(sql):
    return sorted((tuple(r) for r in duckdb.connect().execute(sql).fetchall()), key=key)


def floe_sql(path, tvf):
    us = "date_diff('microsecond', TIMESTAMP '1970-01-01 00:00:00', {c})"
    return (f"WITH events AS (SELECT * FROM read_parquet('{path}')) "
            f"SELECT {us.format(c='window_start')}, {us.format(c='window_end')}, k, {AGGS_FLOE} "
            f"FROM TABLE({tvf}) GROUP BY window_start, window_end, k")


def fmod(x, m):
    return f"((({x}) % {m}) + {m}) % {m}"


TUMBLES = [(10 * MIN, 0), (7 * MIN, 0), (15 * MIN, 4 * MIN), (60 * MIN, -13 * MIN),
           (MIN // 2, 0)]
HOPS = [(5 * MIN, 10 * MIN, 0), (2 * MIN, 10 * MIN, 0), (10 * MIN, 30 * MIN, 3 * MIN),
        (MIN, MIN, 0)]
CUMULATES = [(2 * MIN, 10 * MIN, 0), (5 * MIN, 60 * MIN, 0), (3 * MIN, 15 * MIN, MIN)]
SESSIONS = [(MIN, True), (4 * MIN, True), (2 * MIN, False), (30 * MIN // 7, True)]


def iv(us):
    sign = '-' if us < 0 else ''
    return f"INTERVAL {sign}'{abs(us) // 1_000_000}.{abs(us) % 1_000_000:06d}' SECOND"


@pytest.mark.parametrize("size,offset", TUMBLES)
def test_tumble(data, floe, tmp_path, size, offset):
    tvf = f"TUMBLE(TABLE events, DESCRIPTOR(ts), {iv(size)}, {iv(offset)})"
    got = floe_rows(floe, tmp_path, floe_sql(data, tvf))
    ws = f"us - {fmod(f'us - ({offset})', size)}"
    want = duck_rows(f"WITH t AS (SELECT *, epoch_us(ts) AS us FROM read_parquet('{data}') "
                     f"WHERE ts IS NOT NULL) SELECT {ws} AS ws, {ws} + {size}, k, {AGGS_DUCK} "
                     "FROM t GROUP BY ALL")
    assert got == want


@pytest.mark.parametrize("slide,size,offset", HOPS)
def test_hop(data, floe, tmp_path, slide, size, offset):
    tvf = f"HOP(TABLE events, DESCRIPTOR(ts), {iv(slide)}, {iv(size)}, {iv(offset)})"
    got = floe_rows(floe, tmp_path, floe_sql(data, tvf))
    last = f"us - {fmod(f'us - ({offset})', slide)}"
    want = duck_rows(f"WITH t AS (SELECT *, epoch_us(ts) AS us FROM read_parquet('{data}') "
                     "WHERE ts IS NOT NULL), "
                     f"w AS (SELECT t.*, {last} - j * {slide} AS ws FROM t, "
                     f"range(0, {size // slide}) r(j)) "
                     f"SELECT ws, ws + {size}, k, {AGGS_DUCK} FROM w WHERE ws + {size} > us "
                     "GROUP BY ALL")
    assert got == want


@pytest.mark.parametrize("step,size,offset", CUMULATES)
def test_cumulate(data, floe, tmp_path, step, size, offset):
    tvf = f"CUMULATE(TABLE events, DESCRIPTOR(ts), {iv(step)}, {iv(size)}, {iv(offset)})"
    got = floe_rows(floe, tmp_path, floe_sql(data, tvf))
    ps = f"us - {fmod(f'us - ({offset})', size)}"
    want = duck_rows(f"WITH t AS (SELECT *, epoch_us(ts) AS us, {ps} AS ps FROM "
                     f"read_parquet('{data}') WHERE ts IS NOT NULL), "
                     f"w AS (SELECT t.*, ps + j * {step} AS we FROM t, "
                     f"range(1, {size // step + 1}) r(j)) "
                     f"SELECT ps, we, k, {AGGS_DUCK} FROM w WHERE we > us GROUP BY ALL")
    assert got == want


@pytest.mark.parametrize("gap,partition", SESSIONS)
def test_session(data, floe, tmp_path, gap, partition):
    part = " PARTITION BY k" if partition else ""
    tvf = f"SESSION(TABLE events{part}, DESCRIPTOR(ts), {iv(gap)})"
    got = floe_rows(floe, tmp_path, floe_sql(data, tvf))
    over = "PARTITION BY k ORDER BY us" if partition else "ORDER BY us"
    pk = "k" if partition else "0"
    want = duck_rows(
        f"WITH t AS (SELECT *, epoch_us(ts) AS us FROM read_parquet('{data}') "
        "WHERE ts IS NOT NULL), "
        f"n AS (SELECT *, CASE WHEN us - lag(us) OVER ({over}) <= {gap} THEN 0 ELSE 1 END "
        "AS brk FROM t), "
        f"s AS (SELECT *, sum(brk) OVER ({over} ROWS UNBOUNDED PRECEDING) AS sid FROM n), "
        f"b AS (SELECT *, min(us) OVER (PARTITION BY {pk}, sid) AS ws, "
        f"max(us) OVER (PARTITION BY {pk}, sid) + {gap} AS we FROM s) "
        f"SELECT ws, we, k, {AGGS_DUCK} FROM b GROUP BY ALL")
    assert got == want


def test_spill_gives_same_rows(data, floe, tmp_path):
    """A 64 KiB budget makes the window aggregation spill; rows stay."""
    tvf = f"HOP(TABLE events, DESCRIPTOR(ts), {iv(MIN)}, {iv(30 * MIN)})"
    sql = floe_sql(data, tvf)
    full = floe_rows(floe, tmp_path, sql)
    small = floe_rows(floe, tmp_path, sql, "--memory", "64KB")
    assert small == full and len(full) > 1000
