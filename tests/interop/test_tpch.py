"""The 22 TPC-H queries: floe over Iceberg tables against DuckDB over the
same Parquet files.

The data is scale factor 0.1 from tpchgen-cli (tests/tpch/tpch_data.py),
generated once under build/tpch/ and appended to a fresh warehouse per run
with `floe table append`. Each query text (tests/tpch/queries/qNN.sql,
the standard text with the validation parameters, in Trino's dialect) runs
unchanged on both sides. Results must be equal: exact for integers,
strings, dates and decimals; doubles to a relative 1e-9; in order when the
query orders its rows (every TPC-H query with more than one row does).

One normalisation, for a real difference between the dialects: Trino (and
floe) give avg() of a decimal and the quotient of two decimals as a
decimal of the operands' scale, rounded half away from zero, where DuckDB
gives a double. Such a value must be DuckDB's double rounded to floe's
scale (within half a unit of its last digit)."""
import json
import re
import subprocess
import sys

import duckdb
import pytest

from conftest import FLOE, ROOT

sys.path.insert(0, str(ROOT / "tests" / "tpch"))
import tpch_data  # noqa: E402

SF = 0.1

@pytest.fixture(scope="module")
def tpch(tmp_path_factory, floe):
    pq_dir = tpch_data.generate(SF)
    wh = tmp_path_factory.mktemp("tpch") / "wh"
    tpch_data.load(FLOE, wh, pq_dir)
    con = duckdb.connect()
    tpch_data.duckdb_views(con, pq_dir)
    return wh, con


def floe_rows(wh, sql, memory=None):
    argv = [str(FLOE), "--warehouse", str(wh), "sql", "--namespace", "tpch", "--format", "json",
            "-c", sql]
    if memory:
        argv += ["--memory", memory]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise AssertionError(f"floe failed ({p.returncode}):\n{p.stderr}")
    objs = json.loads(p.stdout) if p.stdout.strip() else []
    return [list(o.values()) for o in objs]


def params():
    for n in range(1, 23):
        yield pytest.param(n, id=f"q{n:02d}")


@pytest.mark.parametrize("n", list(params()))
def test_tpch_query(tpch, n):
    wh, con = tpch
    sql = tpch_data.query_text(n)
    drows = [list(r) for r in con.execute(sql).fetchall()]
    frows = floe_rows(wh, sql)
    assert drows, f"q{n:02d} gives no rows at scale factor {SF}: the comparison would be empty"
    # Every query orders its rows or returns a single row, so compare in order.
    problem = tpch_data.rows_match(frows, drows)
    assert problem is None, f"q{n:02d}: {problem}"


# A budget far below what the joins' build sides and the aggregations
# hold at SF 0.1 (orders alone is 150,000 rows), so they spill.
SPILL_MEMORY = "2MB"


@pytest.mark.parametrize("n", list(params()))
def test_tpch_query_spilling(tpch, n):
    """Every query again under a 2 MB memory budget: the same answers."""
    wh, con = tpch
    sql = tpch_data.query_text(n)
    drows = [list(r) for r in con.execute(sql).fetchall()]
    problem = tpch_data.rows_match(floe_rows(wh, sql, SPILL_MEMORY), drows)
    assert problem is None, f"q{n:02d} under --memory {SPILL_MEMORY}: {problem}"


def test_tpch_spills_under_the_budget(tpch):
    """The budget above does make a join spill: Q9's, which holds the
    150,000 orders its line items probe (Q18's holds 57 of them since its
    IN subquery filters orders first)."""
    wh, _ = tpch[0], None
    sql = "EXPLAIN ANALYZE " + tpch_data.query_text(9)
    p = subprocess.run([str(FLOE), "--warehouse", str(wh), "sql", "--namespace", "tpch",
                        "--memory", SPILL_MEMORY, "-c", sql], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    spilled = [int(m) for m in re.findall(r"spilled partitions (\d+)", p.stdout)]
    assert spilled and max(spilled) > 0, p.stdout
