"""TPC-H: floe over its Iceberg tables beside DuckDB over the same Parquet
files, in one run.

    make bench-tpch                       # SF1, 3 runs, 1 thread and all cores
    build/venv/bin/python bench/tpch_bench.py --sf 0.1 --runs 1 --queries 1,6

The data comes from tpchgen-cli (tests/tpch/tpch_data.py), generated once
and loaded once into a floe warehouse under build/tpch/sf<SF>/. DuckDB
reads the data files of floe's tables with read_parquet (--duck-reads
floe, the default), so both sides read the same bytes: the same codec
(zstd, Iceberg's default), row groups and encodings; --duck-reads tpchgen
points it at the generator's own files (snappy) instead. Every run
of every query is its own process, floe and DuckDB alternating, so each
side's peak RSS (GNU time's maximum resident set size of the child) is that of one query
and neither side runs on a cache the other warmed in its own process (the
OS page cache is shared and warm for both after the first run).

Times: floe's is the wall time of `floe sql -f qNN.sql` (process start,
catalog and metadata reads, planning, execution, printing the rows as
CSV to /dev/null); DuckDB's is the wall time of execute + fetchall in its
process (its start and Python import are left out, which favours DuckDB
by a few milliseconds). The median of --runs runs is reported.

Threads: DuckDB runs with SET threads = 1 and with all cores. floe takes a
thread count when its `floe sql --help` lists --threads; without it floe
runs every query on one thread in both settings, and the table says so.

Each floe result is compared with DuckDB's (the rules of
tests/interop/test_tpch.py); a query that fails in floe or differs is
reported as such and left out of the geometric mean.

Last, a memory-limit check: a hash join of lineitem with orders under a
budget far smaller than its build side (`--memory`, docs/engine.md) must
spill (EXPLAIN ANALYZE reports spilled partitions) and still give
DuckDB's result.
"""
import argparse
import json
import math
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "tpch"))
import tpch_data  # noqa: E402

DUCK_CHILD = r"""
import json, sys, time, duckdb
sys.path.insert(0, sys.argv[1])
import tpch_data
con = duckdb.connect()
con.execute(f"SET threads = {int(sys.argv[3])}")
tpch_data.duckdb_views(con, sys.argv[2], sys.argv[6] if len(sys.argv) > 6 and sys.argv[6] else None)
sql = open(sys.argv[4]).read()
t0 = time.perf_counter()
rows = con.execute(sql).fetchall()
dt = time.perf_counter() - t0
if len(sys.argv) > 5 and sys.argv[5]:
    with open(sys.argv[5], "w") as f:
        json.dump([[str(v) if v is not None else None for v in r] for r in rows], f)
print(dt)
"""


TIME = pathlib.Path("/usr/bin/time")


def run_child(argv, env=None, stdout=subprocess.DEVNULL):
    """Runs argv to its end; returns (wall seconds, peak RSS bytes, stdout
    text when captured). The peak RSS comes from GNU time, which is small:
    a child forked straight from this Python process would count the
    parent's pages copied at fork in its ru_maxrss."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        wrapped = [str(TIME), "-f", "%M", "-o", rss_file.name, *argv] if TIME.exists() else argv
        t0 = time.perf_counter()
        p = subprocess.Popen(wrapped, stdout=stdout, stderr=subprocess.PIPE, env=env, text=True)
        out, err = p.communicate()
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, argv[:3]))} ... failed: {err.strip()[:500]}")
        if TIME.exists():
            rss = int(rss_file.read().split()[-1]) * 1024
        else:
            rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return dt, rss, out or ""


def floe_threads_option(floe):
    p = subprocess.run([str(floe), "help", "sql"], capture_output=True, text=True)
    return "--threads" in (p.stdout + p.stderr)


def floe_argv(floe, wh, query_file, threads, has_threads, fmt="csv", memory=None):
    argv = [str(floe), "--warehouse", str(wh), "sql", "--namespace", "tpch", "--format", fmt,
            "-f", str(query_file)]
    if has_threads:
        argv += ["--threads", str(threads)]
    if memory:
        argv += ["--memory", memory]
    return argv


def duck_argv(pq_dir, threads, query_file, out_json=None, warehouse=None):
    """DuckDB's run of a query over the generator's files in pq_dir, or with
    warehouse over the data files of floe's tables."""
    return [sys.executable, "-c", DUCK_CHILD, str(ROOT / "tests" / "tpch"), str(pq_dir),
            str(threads), str(query_file), str(out_json or ""), str(warehouse or "")]


def check_result(floe, wh, pq_dir, n, has_threads):
    """None when floe's answer to query n is DuckDB's, else the problem."""
    import duckdb
    qf = tpch_data.QUERIES / f"q{n:02d}.sql"
    p = subprocess.run(floe_argv(floe, wh, qf, 1, has_threads, fmt="json"), capture_output=True,
                       text=True)
    if p.returncode != 0:
        return "floe: " + p.stderr.strip().splitlines()[0][:120]
    frows = [list(o.values()) for o in json.loads(p.stdout or "[]")]
    con = duckdb.connect()
    tpch_data.duckdb_views(con, pq_dir)
    drows = [list(r) for r in con.execute(qf.read_text()).fetchall()]
    return tpch_data.rows_match(frows, drows)


def spill_check(floe, wh, pq_dir, memory):
    """A join whose build side (orders) exceeds the memory budget."""
    import duckdb
    sql = ("SELECT o_orderpriority, count(*) AS n, sum(l_quantity) AS q "
           "FROM orders JOIN lineitem ON o_orderkey = l_orderkey "
           "GROUP BY o_orderpriority ORDER BY o_orderpriority")
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write("EXPLAIN ANALYZE " + sql)
        explain_file = f.name
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(sql)
        query_file = f.name
    try:
        p = subprocess.run(floe_argv(floe, wh, explain_file, 1, False, fmt="csv", memory=memory),
                           capture_output=True, text=True)
        if p.returncode != 0:
            return f"EXPLAIN ANALYZE failed: {p.stderr.strip()}"
        joins = [line for line in p.stdout.splitlines() if "join 0:" in line]
        dt, rss, out = run_child(floe_argv(floe, wh, query_file, 1, False, fmt="json",
                                           memory=memory), stdout=subprocess.PIPE)
        frows = [list(o.values()) for o in json.loads(out or "[]")]
        con = duckdb.connect()
        tpch_data.duckdb_views(con, pq_dir)
        drows = [list(r) for r in con.execute(sql).fetchall()]
        problem = tpch_data.rows_match(frows, drows)
        print(f"\nmemory limit {memory}: {sql}")
        print(f"  {joins[0].strip() if joins else 'no join statistics'}")
        print(f"  {dt * 1000:.0f} ms, peak RSS {rss / 2**20:.0f} MiB, "
              f"result {'equals DuckDB' if problem is None else 'DIFFERS: ' + problem}")
        spilled = bool(joins) and "spilled partitions" in joins[0]
        if not spilled:
            return "the join did not spill: lower --spill-memory"
        return problem
    finally:
        os.unlink(explain_file)
        os.unlink(query_file)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sf", default="1", help="scale factor (default 1)")
    ap.add_argument("--runs", type=int, default=3, help="runs per query and side (median)")
    ap.add_argument("--queries", default="1-22", help="e.g. 1,3,5-9")
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}",
                    help="thread counts to run (default: 1 and all cores)")
    ap.add_argument("--floe", default=str(ROOT / "build" / "floe"))
    ap.add_argument("--spill-memory", default="32MB",
                    help="memory budget of the spilling join check ('' skips it)")
    ap.add_argument("--duck-reads", choices=["floe", "tpchgen"], default="floe",
                    help="the Parquet files DuckDB reads: the data files of floe's tables "
                         "(default, the same bytes floe reads) or the generator's")
    args = ap.parse_args()

    queries = []
    for part in args.queries.split(","):
        lo, _, hi = part.partition("-")
        queries += range(int(lo), int(hi or lo) + 1)
    sf = float(args.sf) if "." in args.sf else int(args.sf)
    floe = pathlib.Path(args.floe)
    print(f"TPC-H SF{sf}: generating and loading (cached under build/tpch/sf{sf}) ...",
          flush=True)
    t0 = time.perf_counter()
    wh, pq_dir = tpch_data.load_cached(floe, sf)
    print(f"  ready in {time.perf_counter() - t0:.1f} s", flush=True)
    duck_wh = wh if args.duck_reads == "floe" else None
    reads = "the data files of floe's tables" if duck_wh else "the generator's Parquet files"
    print(f"  DuckDB reads {reads}")
    has_threads = floe_threads_option(floe)
    if not has_threads:
        print("  floe sql has no --threads option: floe runs on one thread in every setting")

    problems = {n: check_result(floe, wh, pq_dir, n, has_threads) for n in queries}
    failed = 0
    for threads in [int(t) for t in args.threads.split(",")]:
        print(f"\nthreads = {threads} (DuckDB SET threads = {threads}; floe "
              f"{threads if has_threads else 1}), median of {args.runs}")
        print(f"{'query':>5} {'floe ms':>9} {'duck ms':>9} {'ratio':>7} {'floe MiB':>9} "
              f"{'duck MiB':>9}  result")
        ratios = []
        for n in queries:
            qf = tpch_data.QUERIES / f"q{n:02d}.sql"
            if problems[n] is not None and problems[n].startswith("floe:"):
                print(f"  q{n:02d} {'-':>9} {'-':>9} {'-':>7} {'-':>9} {'-':>9}  {problems[n]}")
                continue
            ft, fr, dt, dr = [], [], [], []
            for _ in range(args.runs):
                wall, rss, _ = run_child(floe_argv(floe, wh, qf, threads, has_threads))
                ft.append(wall)
                fr.append(rss)
                _, rss, out = run_child(duck_argv(pq_dir, threads, qf, warehouse=duck_wh),
                                        stdout=subprocess.PIPE)
                dt.append(float(out.strip().splitlines()[-1]))
                dr.append(rss)
            f_ms, d_ms = statistics.median(ft) * 1000, statistics.median(dt) * 1000
            ratio = f_ms / d_ms if d_ms > 0 else float("inf")
            ok = problems[n] is None
            if ok:
                ratios.append(ratio)
            else:
                failed += 1
            print(f"  q{n:02d} {f_ms:9.1f} {d_ms:9.1f} {ratio:7.2f} {max(fr) / 2**20:9.0f} "
                  f"{max(dr) / 2**20:9.0f}  {'ok' if ok else 'DIFFERS: ' + problems[n][:60]}",
                  flush=True)
        if ratios:
            gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"  geometric mean of floe/DuckDB over {len(ratios)} queries: {gm:.2f}")
    if args.spill_memory:
        problem = spill_check(floe, wh, pq_dir, args.spill_memory)
        if problem:
            print(f"memory limit check: {problem}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
