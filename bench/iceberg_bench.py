#!/usr/bin/env python3
"""floe beside PyIceberg on Iceberg tables, from one run.

Both sides work on tables in one SQLite catalog (Iceberg's JDBC schema),
each operation in its own process so its wall time and peak RSS (wait4)
are its own:

  1. one append of N rows (default 10,000,000) read from a Parquet file;
  2. 200 successive small appends: commit latency p50 / p99, and the p50
     of the first and the last 20 commits (does latency grow with history?);
  3. a table of 2,000 data files (floe writes it, both read it): scan
     planning, and a full scan beside floe's bare Parquet reader over the
     same files;
  4. a scan of a day-partitioned table pruned to one day.

The read phases (3 and 4) run --repeat times (default 3), the floe, bare
and PyIceberg measurements interleaved, and report medians, so that one
slow run on a shared machine does not decide a ratio; the full scan and
the bare reads are also timed in alternating pairs inside one process
(ice_bench scanpair), the steadiest form of that comparison.

Every result is checked (row counts agree across both sides) before any
number is shown.

    build/venv/bin/python bench/iceberg_bench.py --build build [--quick] [--repeat K]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measured(cmd):
    """Runs cmd; returns (its JSON output, child peak RSS in KiB)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, ru = os.wait4(proc.pid, 0)
    out = proc.stdout.read()
    err = proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("iceberg_bench: %s failed: %s" % (" ".join(cmd[:3]), err[-2000:]))
    res = json.loads(out.strip().splitlines()[-1])
    # The child's own VmHWM: wait4's maxrss would include this process's
    # memory at fork time.
    res["peak_rss_kb"] = res.pop("self_peak_rss_kb")
    res["wall"] = time.monotonic() - t0
    return res


# ---- the PyIceberg side (run as `iceberg_bench.py _py OP ...`) ----

def py_catalog(wh):
    from pyiceberg.catalog.sql import SqlCatalog
    return SqlCatalog("floe", uri="sqlite:///%s/catalog.db" % wh, warehouse="file://%s" % wh)


def self_peak_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def emit(d):
    d["self_peak_rss_kb"] = self_peak_kb()
    print(json.dumps(d))


def py_main(argv):
    import pyarrow as pa
    import pyarrow.parquet as pq
    op, wh, table = argv[0], argv[1], argv[2]
    cat = py_catalog(wh)
    tbl = cat.load_table(table)
    if op == "append":
        t0 = time.monotonic()
        data = pq.read_table(argv[3])
        tbl.append(data.cast(tbl.schema().as_arrow()))
        emit({"seconds": time.monotonic() - t0, "rows": data.num_rows})
    elif op == "commits":
        n, rows = int(argv[3]), int(argv[4])
        lat, cpu = [], []
        t0 = time.monotonic()
        for k in range(n):
            s, c = time.monotonic(), time.process_time()
            batch = small_batch(k * rows, rows, k % 28, tbl.schema().as_arrow())
            tbl.append(batch)
            lat.append(time.monotonic() - s)
            cpu.append(time.process_time() - c)
        emit({"seconds": time.monotonic() - t0, "commits": n, "latencies": lat, "cpu": cpu})
    elif op == "plan":
        flt = argv[3] if len(argv) > 3 else None
        times = []
        ntasks = 0
        for _ in range(3):
            tbl = cat.load_table(table)
            s = time.monotonic()
            tasks = list(tbl.scan(row_filter=flt).plan_files() if flt else tbl.scan().plan_files())
            times.append(time.monotonic() - s)
            ntasks = len(tasks)
        emit({"seconds": statistics.median(times), "tasks": ntasks})
    elif op == "scan":
        flt = argv[3] if len(argv) > 3 else None
        t0 = time.monotonic()
        tbl = cat.load_table(table)
        out = tbl.scan(row_filter=flt).to_arrow() if flt else tbl.scan().to_arrow()
        emit({"seconds": time.monotonic() - t0, "rows": out.num_rows})
    else:
        sys.exit("unknown op " + op)


def small_batch(start, rows, day, schema):
    import datetime as dt
    import pyarrow as pa
    base = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc) + dt.timedelta(days=day)
    ids = list(range(start, start + rows))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "ts": pa.array([base + dt.timedelta(seconds=i % 86400) for i in ids],
                       pa.timestamp("us", tz="UTC")),
        "name": pa.array(["user-%d" % (i % 1000) for i in ids]),
        "value": pa.array([(i % 997) / 7.0 for i in ids]),
    }).cast(schema)


# ---- the driver ----

SCHEMA = "id long not null, ts timestamptz, name string, value double"


def floe(build, *args):
    subprocess.run([os.path.join(build, "floe"), *map(str, args)], check=True,
                   stdout=subprocess.DEVNULL)


def make_big_file(path, rows):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    ids = pa.array(range(rows), pa.int64())
    start = 1793491200 * 1_000_000
    secs = pc.subtract(ids, pc.multiply(pc.divide(ids, 28 * 86400), 28 * 86400))
    ts = pc.add(pc.multiply(secs, 1_000_000), start).cast(pa.timestamp("us", tz="UTC"))
    mod = pc.subtract(ids, pc.multiply(pc.divide(ids, 1000), 1000))
    names = pc.binary_join_element_wise(pa.scalar("user-"), mod.cast(pa.string()), "")
    vmod = pc.subtract(ids, pc.multiply(pc.divide(ids, 997), 997))
    t = pa.table({"id": ids, "ts": ts, "name": names,
                  "value": pc.divide(vmod.cast(pa.float64()), 7.0)})
    pq.write_table(t, path, row_group_size=1 << 20)


def median_run(runs):
    """The run whose seconds are the median of runs (the lower middle one
    for an even count), with the spread of all runs attached."""
    runs = sorted(runs, key=lambda r: r["seconds"])
    mid = dict(runs[(len(runs) - 1) // 2])
    mid["all_seconds"] = [r["seconds"] for r in runs]
    return mid


def median_of(runs, key):
    return statistics.median(r[key] for r in runs)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_py":
        return py_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true", help="1M rows, 50 commits, 300 files")
    ap.add_argument("--rows", type=int)
    ap.add_argument("--commits", type=int)
    ap.add_argument("--files", type=int)
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each read measurement, interleaved; medians are shown")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    rows = args.rows or (1_000_000 if args.quick else 10_000_000)
    ncommits = args.commits or (50 if args.quick else 200)
    nfiles = args.files or (300 if args.quick else 2000)
    build = os.path.abspath(args.build)
    ice = os.path.join(build, "bench", "ice_bench")
    work = os.path.abspath(args.workdir or os.path.join(build, "bench", "ice-work"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    wh = os.path.join(work, "wh")
    me = [sys.executable, os.path.abspath(__file__), "_py"]

    floe(build, "--warehouse", wh, "ns", "create", "b")
    for t in ("big_floe", "big_py", "small_floe", "small_py"):
        floe(build, "--warehouse", wh, "table", "create", "b." + t, "--schema", SCHEMA)
    floe(build, "--warehouse", wh, "table", "create", "b.files", "--schema", SCHEMA,
         "--partition", "day(ts)")
    results = {}

    print("== 1. one append of %d rows" % rows, flush=True)
    big = os.path.join(work, "big.parquet")
    make_big_file(big, rows)
    f = measured([ice, "append", "--warehouse", wh, "--table", "b.big_floe", "--file", big])
    p = measured(me + ["append", wh, "b.big_py", big])
    assert f["rows"] == p["rows"] == rows, (f, p)
    results["append"] = {"floe": f, "pyiceberg": p}

    print("== 2. %d successive small appends of 100 rows" % ncommits, flush=True)
    f = measured([ice, "commits", "--warehouse", wh, "--table", "b.small_floe",
                  "--n", str(ncommits), "--rows", "100"])
    p = measured(me + ["commits", wh, "b.small_py", str(ncommits), "100"])
    results["commits"] = {"floe": f, "pyiceberg": p}

    print("== 3. a table of %d data files" % nfiles, flush=True)
    mk = measured([ice, "files", "--warehouse", wh, "--table", "b.files", "--n", str(nfiles),
                   "--rows", "2000"])
    reps = max(1, args.repeat)
    runs = {k: [] for k in ("floe_plan", "py_plan", "floe_scan", "bare_parquet", "py_scan")}
    for _ in range(reps):
        runs["floe_plan"].append(measured([ice, "plan", "--warehouse", wh, "--table", "b.files"]))
        runs["py_plan"].append(measured(me + ["plan", wh, "b.files"]))
        runs["floe_scan"].append(measured([ice, "scan", "--warehouse", wh, "--table", "b.files"]))
        runs["bare_parquet"].append(measured([ice, "parquet", "--warehouse", wh,
                                              "--table", "b.files"]))
        runs["py_scan"].append(measured(me + ["scan", wh, "b.files"]))
    for k, rs in runs.items():
        for r in rs:
            want = "tasks" if k.endswith("plan") else "rows"
            assert r[want] == (nfiles if want == "tasks" else nfiles * 2000), (k, r)
    fplan, pplan = median_run(runs["floe_plan"]), median_run(runs["py_plan"])
    fscan, pscan = median_run(runs["floe_scan"]), median_run(runs["py_scan"])
    bare = median_run(runs["bare_parquet"])
    # The bare reader is handed the file list; the floe side it is set
    # beside is planning plus reading (read_seconds), the table load not
    # included. Each repetition's own pair gives one ratio; the median
    # ratio is shown.
    scan_vs_bare = statistics.median(
        b["seconds"] / f["read_seconds"] for f, b in zip(runs["floe_scan"], runs["bare_parquet"]))
    # The same comparison in pairs inside one process, alternating, which
    # a loaded machine disturbs far less than separate runs.
    npairs = max(5, 2 * reps + 1)
    pair = measured([ice, "scanpair", "--warehouse", wh, "--table", "b.files",
                     "--repeat", str(npairs)])
    assert pair["rows"] == pair["bare_rows"] == nfiles * 2000, pair
    results["files"] = {"make": mk, "floe_plan": fplan, "py_plan": pplan, "floe_scan": fscan,
                        "py_scan": pscan, "bare_parquet": bare, "runs": runs,
                        "scan_vs_bare": scan_vs_bare, "scan_pairs": pair}

    print("== 4. a scan pruned to one day", flush=True)
    flt_floe = "ts >= TIMESTAMP '2026-11-05T00:00:00+00:00' AND ts < TIMESTAMP '2026-11-06T00:00:00+00:00'"
    flt_py = "ts >= '2026-11-05T00:00:00+00:00' and ts < '2026-11-06T00:00:00+00:00'"
    fdays, pdays = [], []
    for _ in range(reps):
        fdays.append(measured([ice, "scan", "--warehouse", wh, "--table", "b.files",
                               "--filter", flt_floe]))
        pdays.append(measured(me + ["scan", wh, "b.files", flt_py]))
    for f, p in zip(fdays, pdays):
        assert f["rows"] == p["rows"] > 0, (f, p)
    fday, pday = median_run(fdays), median_run(pdays)
    results["pruned"] = {"floe": fday, "pyiceberg": pday}

    def mb(kb):
        return "%.0f MiB" % (kb / 1024)

    fc, pc = results["commits"]["floe"]["latencies"], results["commits"]["pyiceberg"]["latencies"]
    lines = [
        ("append %d rows" % rows, results["append"]["floe"], results["append"]["pyiceberg"]),
        ("%d commits (total)" % ncommits, results["commits"]["floe"],
         results["commits"]["pyiceberg"]),
        ("plan %d files" % nfiles, fplan, pplan),
        ("full scan %d files" % nfiles, fscan, pscan),
        ("scan pruned to one day", fday, pday),
    ]
    print()
    print("%-28s %12s %12s %8s %10s %10s" % ("operation", "floe s", "pyiceberg s", "ratio",
                                              "floe RSS", "py RSS"))
    for name, a, b in lines:
        print("%-28s %12.4f %12.4f %7.1fx %10s %10s" % (name, a["seconds"], b["seconds"],
                                                        b["seconds"] / a["seconds"],
                                                        mb(a["peak_rss_kb"]),
                                                        mb(b["peak_rss_kb"])))
    k = min(20, len(fc) // 2)
    print("commit latency p50 / p99: floe %.2f / %.2f ms, pyiceberg %.2f / %.2f ms (%.1fx at p50)"
          % (1e3 * pct(fc, 50), 1e3 * pct(fc, 99), 1e3 * pct(pc, 50), 1e3 * pct(pc, 99),
             pct(pc, 50) / pct(fc, 50)))
    print("commit latency p50, first %d vs last %d: floe %.2f -> %.2f ms, pyiceberg %.2f -> %.2f ms"
          % (k, k, 1e3 * pct(fc[:k], 50), 1e3 * pct(fc[-k:], 50), 1e3 * pct(pc[:k], 50),
             1e3 * pct(pc[-k:], 50)))
    fu, pu = results["commits"]["floe"]["cpu"], results["commits"]["pyiceberg"]["cpu"]
    print("commit CPU time p50, first %d vs last %d: floe %.2f -> %.2f ms, pyiceberg %.2f -> %.2f ms"
          % (k, k, 1e3 * pct(fu[:k], 50), 1e3 * pct(fu[-k:], 50), 1e3 * pct(pu[:k], 50),
             1e3 * pct(pu[-k:], 50)))
    print("full scan (plan + read) vs bare Parquet reader over the same files, median of %d: "
          "%.4f s vs %.4f s (%.0f%% of the bare reader's throughput; per run %s)"
          % (reps, median_of(runs["floe_scan"], "read_seconds"), bare["seconds"],
             100.0 * scan_vs_bare,
             ", ".join("%.0f%%" % (100.0 * b["seconds"] / f["read_seconds"])
                       for f, b in zip(runs["floe_scan"], runs["bare_parquet"]))))
    print("full scan vs bare Parquet reader, %d pairs in one process: median %.0f%% of the bare "
          "reader's throughput in wall time, %.0f%% in CPU time (floe %s s, bare %s s)"
          % (npairs, 100.0 * pair["median_ratio"], 100.0 * pair["median_cpu_ratio"],
             "/".join("%.3f" % x for x in pair["floe_seconds"]),
             "/".join("%.3f" % x for x in pair["bare_seconds"])))
    if reps > 1:
        print("read phases: medians of %d interleaved runs" % reps)
    with open(os.path.join(work, "results.json"), "w") as fp:
        json.dump(results, fp, indent=1)


if __name__ == "__main__":
    main()
