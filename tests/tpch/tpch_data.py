"""TPC-H data for the tests and the benchmark.

The data comes from tpchgen-cli (the Rust port of dbgen, pinned in
tests/requirements.txt), which writes one Parquet file per table with the
TPC-H types already: bigint keys, integer line numbers, sizes and
quantities available, decimal(15, 2) money and quantity columns, date
dates and varchar text. So the files are appended to floe's Iceberg
tables as they are, and DuckDB reads the same files.

Generated files are cached under build/tpch/sf<SF>/ with a marker written
last, so a run interrupted half way generates again."""
import datetime
import decimal
import math
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
QUERIES = pathlib.Path(__file__).resolve().parent / "queries"

# The eight tables in their TPC-H column order, as floe schemas. The order
# matters: tpchgen-cli numbers the Parquet field ids 1.. in this order.
SCHEMAS = {
    "region": "r_regionkey long not null, r_name string not null, r_comment string not null",
    "nation": "n_nationkey long not null, n_name string not null, n_regionkey long not null, "
              "n_comment string not null",
    "supplier": "s_suppkey long not null, s_name string not null, s_address string not null, "
                "s_nationkey long not null, s_phone string not null, "
                "s_acctbal decimal(15,2) not null, s_comment string not null",
    "customer": "c_custkey long not null, c_name string not null, c_address string not null, "
                "c_nationkey long not null, c_phone string not null, "
                "c_acctbal decimal(15,2) not null, c_mktsegment string not null, "
                "c_comment string not null",
    "part": "p_partkey long not null, p_name string not null, p_mfgr string not null, "
            "p_brand string not null, p_type string not null, p_size int not null, "
            "p_container string not null, p_retailprice decimal(15,2) not null, "
            "p_comment string not null",
    "partsupp": "ps_partkey long not null, ps_suppkey long not null, ps_availqty int not null, "
                "ps_supplycost decimal(15,2) not null, ps_comment string not null",
    "orders": "o_orderkey long not null, o_custkey long not null, o_orderstatus string not null, "
              "o_totalprice decimal(15,2) not null, o_orderdate date not null, "
              "o_orderpriority string not null, o_clerk string not null, "
              "o_shippriority int not null, o_comment string not null",
    "lineitem": "l_orderkey long not null, l_partkey long not null, l_suppkey long not null, "
                "l_linenumber int not null, l_quantity decimal(15,2) not null, "
                "l_extendedprice decimal(15,2) not null, l_discount decimal(15,2) not null, "
                "l_tax decimal(15,2) not null, l_returnflag string not null, "
                "l_linestatus string not null, l_shipdate date not null, "
                "l_commitdate date not null, l_receiptdate date not null, "
                "l_shipinstruct string not null, l_shipmode string not null, "
                "l_comment string not null",
}

NAMESPACE = "tpch"


def tpchgen():
    """The tpchgen-cli next to the running Python (the project's venv)."""
    exe = pathlib.Path(sys.executable).parent / "tpchgen-cli"
    if not exe.exists():
        found = shutil.which("tpchgen-cli")
        if not found:
            raise RuntimeError("tpchgen-cli is not installed: pip install -r tests/requirements.txt")
        exe = pathlib.Path(found)
    return exe


def generate(sf, root=None):
    """Generates (once) the Parquet files of scale factor sf; returns their
    folder, which holds <table>.parquet for each of the eight tables."""
    out = pathlib.Path(root or ROOT / "build" / "tpch") / f"sf{sf}"
    marker = out / "COMPLETE"
    if marker.exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    subprocess.run([str(tpchgen()), "parquet", "-s", str(sf), "-o", str(out), "--no-progress",
                    "--quiet"], check=True)
    for t in SCHEMAS:
        if not (out / f"{t}.parquet").exists():
            raise RuntimeError(f"tpchgen-cli did not write {t}.parquet in {out}")
    marker.write_text(f"tpchgen-cli parquet -s {sf}\n")
    return out


def load(floe_bin, warehouse, parquet_dir):
    """Creates namespace tpch and the eight tables in a floe warehouse and
    appends the Parquet files (one snapshot per table)."""
    def run(*args):
        p = subprocess.run([str(floe_bin), "--warehouse", str(warehouse), *map(str, args)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"floe {' '.join(map(str, args))}: {p.stderr}")

    run("ns", "create", NAMESPACE)
    for t, schema in SCHEMAS.items():
        run("table", "create", f"{NAMESPACE}.{t}", "--schema", schema)
        run("table", "append", f"{NAMESPACE}.{t}", pathlib.Path(parquet_dir) / f"{t}.parquet")


def load_cached(floe_bin, sf, root=None):
    """A floe warehouse loaded with scale factor sf, built once under
    build/tpch/sf<SF>/warehouse; returns (warehouse, parquet folder)."""
    pq_dir = generate(sf, root)
    wh = pq_dir / "warehouse"
    marker = pq_dir / "WAREHOUSE_COMPLETE"
    if not marker.exists():
        if wh.exists():
            shutil.rmtree(wh)
        load(floe_bin, wh, pq_dir)
        marker.write_text("loaded\n")
    return wh, pq_dir


def query_text(n):
    """The text of TPC-H query n (1..22)."""
    return (QUERIES / f"q{n:02d}.sql").read_text()


def duckdb_views(con, parquet_dir, warehouse=None):
    """Views named like the tables over the Parquet files, for DuckDB: the
    generator's files, or with warehouse the data files of floe's tables
    there (each table loaded by one append, so its data folder holds
    exactly its rows)."""
    for t in SCHEMAS:
        if warehouse:
            src = pathlib.Path(warehouse) / "tpch" / t / "data" / "**" / "*.parquet"
        else:
            src = pathlib.Path(parquet_dir) / (t + ".parquet")
        con.execute(f"CREATE OR REPLACE VIEW {t} AS SELECT * FROM read_parquet('{src}')")


def value_matches(f, d):
    """Whether floe's JSON value f equals DuckDB's Python value d: exact
    for integers, strings, dates and decimals, doubles to a relative 1e-9.
    Where floe has a decimal and DuckDB a double (Trino gives avg() of a
    decimal and the quotient of decimals as a decimal of the operands'
    scale, DuckDB a double), DuckDB's value rounded to floe's scale."""
    if d is None or f is None:
        return d is None and f is None
    if isinstance(d, bool) or isinstance(f, bool):
        return f == d
    if isinstance(d, (datetime.date, datetime.datetime)):
        return str(f) == d.isoformat().replace("T", " ")
    if isinstance(d, int):
        return isinstance(f, int) and f == d
    if isinstance(d, decimal.Decimal):
        return decimal.Decimal(str(f)) == d
    if isinstance(d, float):
        if isinstance(f, str):
            # A decimal in floe (Trino's avg and division of decimals) where
            # DuckDB has a double: DuckDB's value rounded to floe's scale.
            fd = decimal.Decimal(f)
            half = decimal.Decimal(1).scaleb(fd.as_tuple().exponent) / 2
            return abs(decimal.Decimal(d) - fd) <= half * (1 + decimal.Decimal("1e-9"))
        return math.isclose(float(f), d, rel_tol=1e-9, abs_tol=1e-12)
    return str(f) == str(d)


def rows_match(frows, drows):
    """None when floe's rows equal DuckDB's in order, else what differs."""
    if len(frows) != len(drows):
        return f"{len(frows)} rows from floe, {len(drows)} from DuckDB"
    for i, (fr, dr) in enumerate(zip(frows, drows)):
        if len(fr) != len(dr):
            return f"row {i}: {len(fr)} columns from floe, {len(dr)} from DuckDB"
        for j, (f, d) in enumerate(zip(fr, dr)):
            if not value_matches(f, d):
                return f"row {i}, column {j}: floe {f!r}, DuckDB {d!r}\n floe {fr}\n duck {dr}"
    return None
