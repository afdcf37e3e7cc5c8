"""Nexmark: floe's streaming jobs beside Apache Flink's, in one run.

    make bench-nexmark                          # 2M events, q0 q1 q2 q5 q7, P = 1 and 2
    build/venv/bin/python bench/nexmark_bench.py --events 500000 --queries q0,q5 --no-freshness

A real Apache Kafka broker (scripts/kafka-test-broker.sh, loopback) gets
--events Nexmark events from `floe kafka produce-nexmark --bids` (the bids,
about 92% of the events, as flat JSON, keyed by auction, over --partitions
partitions). Each job of bench/nexmark/queries/ then reads the whole topic
(bounded: scan.bounded.mode = latest-offset) and writes its Iceberg table,
once per engine and parallelism, each run in a fresh warehouse whose result
table bench/nexmark/tables.sql makes first:

- Flink 2.0 in a local MiniCluster (scripts/flink-sql.sh, the Iceberg Flink
  runtime on floe's SQLite catalog), checkpointing every 10 s;
- floe: `floe run --once JOB --parallelism P`, when `floe run --help`
  works; otherwise its rows say "floe: not yet available".

Per run: events (the source's records), wall time of the process, the
processing time (Flink: from its sources' first to last record, sampled
every 50 ms by a metric reporter, so JVM start, planning and the last
commit are outside it; floe: the process's wall time until it reports its
own), events/s over the processing time, events per CPU-second (user + sys
of the whole process over its life, so start-up costs count), and peak RSS
(GNU time). Every result table is summed up with `floe sql` (counts, sums,
extremes) and must equal the first run's of the same query; a difference is
reported and makes the exit status 1.

Then the same for datagen-q0 (the datagen connector instead of Kafka and
JSON, as many rows as there were bids) and, floe only, nexmark-q0 (floe's
nexmark connector generating the same events in the job: its table must
equal q0's), and, unless --no-freshness, the
freshness of an unbounded q0 with 10 s commits: a producer sends bids in
real time (`produce-nexmark --realtime`, event time = send time), a poller
reads the catalog every 100 ms, and for every new snapshot the event times
of the rows it added give produced -> visible latencies (p50, p99, max).

The job files set the broker address, topic and bounded mode as WITH
options; this driver writes a copy of each with the values of this run
(--port, the topic, the row count of the datagen job).
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[1]
QUERIES = ROOT / "bench" / "nexmark" / "queries"
TABLES = ROOT / "bench" / "nexmark" / "tables.sql"
BROKER = ROOT / "scripts" / "kafka-test-broker.sh"
FLINK_SQL = ROOT / "scripts" / "flink-sql.sh"
TIME = pathlib.Path("/usr/bin/time")

# What each result table must agree on between runs (floe sql, one row).
FINGERPRINT = {
    "q0": "count(*), sum(auction), sum(bidder), sum(price), min(datetime), max(datetime), "
          "sum(length(channel) + length(url) + length(extra))",
    "q1": "count(*), sum(auction), sum(bidder), sum(price), min(datetime), max(datetime), "
          "sum(length(extra))",
    "q2": "count(*), sum(auction), sum(price)",
    "q5": "count(*), sum(num), sum(auction * num), min(window_start), max(window_end)",
    "q7": "count(*), sum(maxprice), min(window_start), max(window_end)",
    "datagen-q0": "count(*)",
}
FINGERPRINT["nexmark-q0"] = FINGERPRINT["q0"]
# Jobs that write q0's table; nexmark-q0 must give q0's very rows.
Q0_LIKE = ("datagen-q0", "nexmark-q0")


def sh(argv, timeout=None, check=True, **kw):
    p = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                       **kw)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv[:4]))} ... failed ({p.returncode}):\n"
                           f"{p.stderr[-3000:]}")
    return p


def set_options(text, options):
    """The job text with WITH options 'key' = 'value' set to options[key]."""
    for k, v in options.items():
        pat = re.compile(r"('" + re.escape(k) + r"'\s*=\s*)'[^']*'")
        if not pat.search(text):
            raise RuntimeError(f"job has no option '{k}' to set")
        text = pat.sub(lambda m: m.group(1) + "'" + v + "'", text)
    return text


def table_ddl(query):
    name = "q0" if query in Q0_LIKE else query
    for stmt in TABLES.read_text().split(";"):
        if re.search(r"CREATE TABLE nexmark\." + name + r" ", stmt):
            return stmt.strip()
    raise RuntimeError(f"no table for {query} in {TABLES}")


class Engine:
    def __init__(self, name, floe):
        self.name = name
        self.floe = floe

    def argv(self, wh, job, parallelism, report, bounded=True):
        if self.name == "flink":
            return [FLINK_SQL, "--warehouse", wh, "--parallelism", parallelism,
                    "--checkpoint-interval", "10s", "--report", report, job]
        once = ["--once"] if bounded else []
        return [self.floe, "--warehouse", wh, "run", *once, job, "--parallelism", parallelism]


def floe_available(floe):
    return subprocess.run([str(floe), "run", "--help"], capture_output=True).returncode == 0


def run_measured(argv, log):
    """Runs argv to its end under GNU time: (wall s, cpu s, peak RSS bytes)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        wrapped = [str(TIME), "-f", "%M %U %S", "-o", tf.name, *map(str, argv)]
        t0 = time.perf_counter()
        with open(log, "w") as err:
            p = subprocess.run(wrapped, stdout=subprocess.DEVNULL, stderr=err)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"exit {p.returncode}: {tail(log)}")
        rss_kb, user, sys_s = tf.read().split()[-3:]
    return wall, float(user) + float(sys_s), int(rss_kb) * 1024


def tail(path, n=6):
    try:
        lines = [ln for ln in pathlib.Path(path).read_text().splitlines()
                 if ln.strip() and not ln.lstrip().startswith("at ")]
    except OSError:
        return ""
    return " | ".join(lines[-n:])[-800:]


def fingerprint(floe, wh, query):
    name = "q0" if query in Q0_LIKE else query
    p = sh([floe, "--warehouse", wh, "sql", "--format", "csv", "-c",
            f"SELECT {FINGERPRINT[query]} FROM nexmark.{name}"])
    return p.stdout.strip().splitlines()[-1]


def pyiceberg_rows(wh, query):
    """The row count of the result table by PyIceberg's planning (an
    independent reader), to tell a table short of rows from a misread one."""
    name = "q0" if query in Q0_LIKE else query
    loc = current_metadata(wh / "catalog.db", "nexmark", name)
    if not loc:
        return "no"
    from pyiceberg.table import StaticTable
    t = StaticTable.from_metadata(local_path(loc))
    return sum(task.file.record_count for task in t.scan().plan_files())


def new_warehouse(floe, base, query):
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    sh([floe, "--warehouse", base, "sql", "-c", f"CREATE SCHEMA nexmark; {table_ddl(query)}"])
    return base


class Broker:
    def __init__(self, port, d):
        self.port, self.dir = port, d
        self.brokers = f"127.0.0.1:{port}"

    def start(self):
        if self.dir.exists():
            shutil.rmtree(self.dir)
        sh([BROKER, "start", self.port, self.dir], timeout=300)

    def stop(self):
        sh([BROKER, "stop", self.port, self.dir], timeout=120, check=False)


def bids_in(floe, brokers, topic):
    p = sh([floe, "kafka", "offsets", "--brokers", brokers, "--topic", topic])
    return sum(json.loads(ln)["high"] for ln in p.stdout.splitlines() if ln.strip())


def print_row(r):
    if "problem" in r:
        print(f"  {r['query']:<11} {r['engine']:<6} {r['p']:>2}  {r['problem']}", flush=True)
        return
    print(f"  {r['query']:<11} {r['engine']:<6} {r['p']:>2} {r['events']:>9} {r['wall']:8.1f} "
          f"{r['proc']:8.1f} {r['eps']:>10.0f} {r['eps_cpu']:>10.0f} {r['cpu']:7.1f} "
          f"{r['rss'] / 2**20:8.0f}  {r['check']}", flush=True)


def header():
    print(f"  {'query':<11} {'engine':<6} {'P':>2} {'events':>9} {'wall s':>8} {'proc s':>8} "
          f"{'events/s':>10} {'ev/cpu-s':>10} {'cpu s':>7} {'RSS MiB':>8}  result")


def run_job(engine, query, p, job_text, args, work, bids, reference):
    """One measured run of query by engine at parallelism p."""
    tag = f"{engine.name}-{query}-p{p}"
    wh = new_warehouse(args.floe, work / tag / "wh", query)
    job = work / tag / f"{query}.sql"
    job.write_text(job_text)
    report = work / tag / "report.json"
    log = work / tag / "stderr.log"
    row = {"query": query, "engine": engine.name, "p": p}
    try:
        wall, cpu, rss = run_measured(engine.argv(wh, job, p, report), log)
    except RuntimeError as e:
        row["problem"] = f"FAILED: {e}"
        return row
    if engine.name == "flink":
        rep = json.loads(report.read_text())
        events, proc = rep["events"], rep["elapsed_s"]
    else:
        events, proc = bids, wall
    fp = fingerprint(args.floe, wh, query)
    key = "q0" if query == "nexmark-q0" else query  # the same bids as q0 reads
    if key not in reference:
        reference[key] = (tag, fp)
        check = "reference"
    elif reference[key][1] == fp:
        check = f"same as {reference[key][0]}"
    else:
        check = (f"DIFFERS from {reference[key][0]}: {fp} vs {reference[key][1]} "
                 f"(PyIceberg counts {pyiceberg_rows(wh, query)} rows)")
    row.update(events=events, wall=wall, proc=proc, cpu=cpu, rss=rss,
               eps=events / proc if proc > 0 else 0.0,
               eps_cpu=events / cpu if cpu > 0 else 0.0, check=check, fingerprint=fp)
    if not args.keep:
        shutil.rmtree(wh)
    return row


# ---- freshness ----

def current_metadata(catalog_db, ns, name):
    try:
        con = sqlite3.connect(f"file:{catalog_db}?mode=ro", uri=True, timeout=1)
        try:
            r = con.execute("SELECT metadata_location FROM iceberg_tables WHERE "
                            "table_namespace = ? AND table_name = ?", (ns, name)).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    return r[0] if r else None


def local_path(uri):
    return urllib.parse.urlparse(uri).path if uri.startswith("file:") else uri


def added_event_times(metadata_location, seen):
    """Event times (epoch ms) of the rows added by snapshots not in seen."""
    import pyarrow.parquet as pq
    from pyiceberg.io.pyarrow import PyArrowFileIO
    from pyiceberg.manifest import ManifestEntryStatus
    from pyiceberg.table import StaticTable
    t = StaticTable.from_metadata(metadata_location)
    io = PyArrowFileIO()
    out = []
    for s in t.metadata.snapshots:
        if s.snapshot_id in seen:
            continue
        seen.add(s.snapshot_id)
        for m in s.manifests(io):
            for e in m.fetch_manifest_entry(io, discard_deleted=True):
                if e.status == ManifestEntryStatus.ADDED and e.snapshot_id == s.snapshot_id:
                    col = pq.read_table(local_path(e.data_file.file_path), columns=["datetime"])
                    # timestamp (no zone) in UTC, as microseconds
                    micros = col.column(0).cast("int64").to_pylist()
                    out += [v / 1000 for v in micros if v is not None]
    return out


def freshness(engine, args, broker, work):
    """Latency from a bid's production to its visibility in nexmark.q0."""
    topic = f"nexmark-live-{engine.name}"
    sh([args.floe, "kafka", "create-topic", "--brokers", broker.brokers, "--topic", topic,
        "--partitions", args.partitions])
    tag = f"{engine.name}-freshness"
    wh = new_warehouse(args.floe, work / tag / "wh", "q0")
    job = work / tag / "q0.sql"
    job.write_text(set_options((QUERIES / "q0.sql").read_text(), {
        "properties.bootstrap.servers": broker.brokers, "topic": topic,
        "scan.bounded.mode": "unbounded"}))
    log = work / tag / "stderr.log"
    with open(log, "w") as err:
        proc = subprocess.Popen([str(a) for a in engine.argv(wh, job, 1, work / tag / "r.json",
                                                             bounded=False)],
                                stdout=subprocess.DEVNULL, stderr=err)
    lat = []
    try:
        deadline = time.monotonic() + 120
        # Started: Flink says so; floe is given a few seconds.
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the job ended: {tail(log)}")
            if engine.name != "flink" or "running" in log.read_text():
                break
            time.sleep(0.2)
        time.sleep(3)
        events = int(args.freshness_rate * args.freshness_seconds)
        producer = subprocess.Popen(
            [str(args.floe), "kafka", "produce-nexmark", "--brokers", broker.brokers,
             "--bids", topic, "--events", str(events), "--rate", str(args.freshness_rate),
             "--realtime"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        catalog = wh / "catalog.db"
        seen, last_loc = set(), None
        produced = None
        end_by = None
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the job ended: {tail(log)}")
            loc = current_metadata(catalog, "nexmark", "q0")
            if loc and loc != last_loc:
                now_ms = time.time() * 1000
                last_loc = loc
                lat += [now_ms - t for t in added_event_times(local_path(loc), seen)]
            if produced is None and producer.poll() is not None:
                if producer.returncode != 0:
                    raise RuntimeError(f"producer failed: {producer.stderr.read()}")
                produced = bids_in(args.floe, broker.brokers, topic)
                end_by = time.monotonic() + 60
            if produced is not None and (len(lat) >= produced or time.monotonic() > end_by):
                break
            time.sleep(0.1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if not args.keep:
        shutil.rmtree(wh)
    lat.sort()
    if not lat:
        return {"engine": engine.name, "problem": "no rows became visible"}
    q = statistics.quantiles(lat, n=100)
    return {"engine": engine.name, "rows": len(lat), "produced": produced,
            "p50": q[49] / 1000, "p99": q[98] / 1000, "max": lat[-1] / 1000,
            "snapshots": len(seen)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=2_000_000,
                    help="Nexmark events to produce (bids are about 92%%; default 2000000)")
    ap.add_argument("--queries", default="q0,q1,q2,q5,q7")
    ap.add_argument("--parallelism", default="1,2")
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--port", type=int, default=19092, help="the broker's port (and port + 1)")
    ap.add_argument("--no-datagen", action="store_true")
    ap.add_argument("--no-freshness", action="store_true")
    ap.add_argument("--freshness-seconds", type=float, default=60)
    ap.add_argument("--freshness-rate", type=int, default=5000, help="events per second")
    ap.add_argument("--floe", type=pathlib.Path, default=ROOT / "build" / "floe")
    ap.add_argument("--work", type=pathlib.Path, default=ROOT / "build" / "nexmark")
    ap.add_argument("--keep", action="store_true", help="keep the result warehouses")
    ap.add_argument("--engines", default="flink,floe",
                    help="which engines run (default flink,floe; a side-by-side figure needs both)")
    args = ap.parse_args()
    names = args.engines.split(",")
    if not names or any(n not in ("flink", "floe") for n in names):
        sys.exit("--engines takes flink, floe or both")
    if not TIME.exists():
        sys.exit("GNU time (/usr/bin/time) is needed for peak RSS: apt-get install time")
    queries = args.queries.split(",")
    pars = [int(p) for p in args.parallelism.split(",")]
    for q in queries:
        if not (QUERIES / f"{q}.sql").exists():
            sys.exit(f"no job file {QUERIES / q}.sql")

    if "flink" in names:
        print("building the Flink runner (bench/flink, mvn; quick when built) ...", flush=True)
        sh([FLINK_SQL, "--build"], timeout=1800)
    engines = [Engine("flink", args.floe)] if "flink" in names else []
    has_floe = floe_available(args.floe)
    if has_floe and "floe" in names:
        engines.append(Engine("floe", args.floe))
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    broker = Broker(args.port, work / "broker")
    print(f"starting Kafka on {broker.brokers} ...", flush=True)
    broker.start()
    failed = 0
    try:
        topic = "nexmark-bid"
        sh([args.floe, "kafka", "create-topic", "--brokers", broker.brokers, "--topic", topic,
            "--partitions", args.partitions])
        t0 = time.perf_counter()
        sh([args.floe, "kafka", "produce-nexmark", "--brokers", broker.brokers, "--bids", topic,
            "--events", args.events], timeout=3600)
        bids = bids_in(args.floe, broker.brokers, topic)
        print(f"produced {args.events} Nexmark events ({bids} bids, {args.partitions} "
              f"partitions) in {time.perf_counter() - t0:.1f} s", flush=True)
        print(f"\ncores: {os.cpu_count()}; Flink checkpoints every 10 s; 'proc s' is the "
              f"processing time (see the top of this file)")
        header()
        reference = {}
        rows = []
        jobs = [(q, set_options((QUERIES / f"{q}.sql").read_text(), {
            "properties.bootstrap.servers": broker.brokers, "topic": topic}))
            for q in queries]
        if not args.no_datagen:
            jobs.append(("datagen-q0", set_options((QUERIES / "datagen-q0.sql").read_text(),
                                                   {"number-of-rows": str(bids)})))
            jobs.append(("nexmark-q0", set_options((QUERIES / "nexmark-q0.sql").read_text(),
                                                   {"nexmark.events.num": str(args.events)})))
        for q, text in jobs:
            for engine in [Engine(n, args.floe) for n in names]:
                if q == "nexmark-q0" and engine.name == "flink":
                    continue  # Flink's Nexmark connector is not in bench/flink
                for p in pars:
                    if engine.name == "floe" and not has_floe:
                        r = {"query": q, "engine": "floe", "p": p,
                             "problem": "floe: not yet available (no `floe run`)"}
                    else:
                        r = run_job(engine, q, p, text, args, work, bids, reference)
                    if q == "datagen-q0" and "fingerprint" in r and r["fingerprint"] != str(bids):
                        r["check"] = f"WRONG ROW COUNT {r['fingerprint']}, want {bids}"
                    if "problem" in r and "not yet available" not in r["problem"]:
                        failed += 1
                    if "check" in r and ("DIFFERS" in r["check"] or "WRONG" in r["check"]):
                        failed += 1
                    rows.append(r)
                    print_row(r)
        (work / "results.json").write_text(json.dumps(rows, indent=1))
        if not args.no_freshness:
            print(f"\nfreshness: unbounded q0, 10 s commits, {args.freshness_rate} events/s "
                  f"for {args.freshness_seconds:.0f} s, produced -> visible")
            for engine in engines:
                try:
                    f = freshness(engine, args, broker, work)
                except RuntimeError as e:
                    f = {"engine": engine.name, "problem": f"FAILED: {e}"}
                    failed += 1
                if "problem" in f:
                    print(f"  {f['engine']:<6} {f['problem']}")
                else:
                    print(f"  {f['engine']:<6} rows {f['rows']}/{f['produced']} in "
                          f"{f['snapshots']} snapshots: p50 {f['p50']:.2f} s, p99 "
                          f"{f['p99']:.2f} s, max {f['max']:.2f} s", flush=True)
            if not has_floe and "floe" in names:
                print("  floe   not yet available (no `floe run`)")
    finally:
        broker.stop()
        if not args.keep:
            shutil.rmtree(broker.dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
