#!/usr/bin/env python3
"""floe beside pyarrow: Parquet write and read, and JSON lines -> Parquet.

One run generates the dataset once (floe_bench writes it as JSON lines;
pyarrow reads that file, so both sides hold the same values), then for each
codec times floe's and pyarrow's Parquet writer and reader, and finally
converts a JSON-lines file to Parquet with both. Every measured phase runs
in its own child process, and the peak RSS reported is that child's
(ru_maxrss from wait4). Every file floe writes is read back by pyarrow and
compared with the reference data before any of floe's numbers are shown, so
the benchmark never compares against a broken file. docs/benchmarks.md
describes the phases.

    build/venv/bin/python bench/parquet_bench.py --floe build/floe [--quick]

The same script also runs the pyarrow side of each phase when started as
`parquet_bench.py _pa PHASE ...` (an internal entry point).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROW_GROUP_ROWS = 1024 * 1024
MIB = 1024 * 1024
CODECS = ("zstd", "snappy")
EXIT_UNSUPPORTED = 3  # floe_bench: the format is not built into this floe


# ---------------------------------------------------------------------------
# pyarrow side: runs inside a child process, prints one JSON object.
# ---------------------------------------------------------------------------

def _pa_setup():
    import pyarrow as pa
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    return pa


def _bench_schema(pa):
    return pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        pa.field("value", pa.float64()),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("category", pa.string()),
        pa.field("description", pa.string()),
        pa.field("price", pa.decimal128(12, 2)),
        pa.field("flag", pa.bool_()),
    ])


def _peak_rss_kb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _current_rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def _read_json(path, schema):
    import pyarrow.json as pj
    parse = pj.ParseOptions(explicit_schema=schema) if schema is not None else pj.ParseOptions()
    t = pj.read_json(path, read_options=pj.ReadOptions(use_threads=False), parse_options=parse)
    if schema is not None:
        t = t.cast(schema)  # read_json leaves every field nullable; id is not null
    return t


def _checksum(pa, table):
    """Touches every value of every column with pyarrow.compute kernels and
    returns the same per-column summary floe_bench prints."""
    import pyarrow.compute as pc
    out = {}
    for name, col in zip(table.column_names, table.columns):
        t = col.type
        c = {"type": str(t), "nonnull": len(col) - col.null_count}
        if pa.types.is_floating(t):
            c["fsum"] = pc.sum(col).as_py() or 0.0
        elif pa.types.is_decimal(t):
            s = pc.sum(col).as_py()
            c["dsum"] = int(s.scaleb(t.scale)) if s is not None else 0
        elif pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_large_string(t):
            c["bytes"] = pc.sum(pc.binary_length(col)).as_py() or 0
        elif pa.types.is_boolean(t):
            c["isum"] = pc.sum(col).as_py() or 0
        elif pa.types.is_integer(t) or pa.types.is_temporal(t):
            c["isum"] = pc.sum(col.cast(pa.int64())).as_py() or 0
        out[name] = c
    return out


def _result(phase, rows, seconds, bytes_in, bytes_out, loaded_rss_kb, **extra):
    r = {"phase": phase, "rows": rows, "seconds": seconds, "bytes_in": bytes_in,
         "bytes_out": bytes_out, "peak_rss_kb": _peak_rss_kb(), "loaded_rss_kb": loaded_rss_kb}
    r.update(extra)
    return r


def _size(path):
    return os.path.getsize(path) if path and os.path.exists(path) else 0


def pa_main(argv):
    ap = argparse.ArgumentParser(prog="parquet_bench.py _pa")
    ap.add_argument("phase", choices=["idle", "prepare", "write", "read", "convert", "decode",
                                      "verify"])
    ap.add_argument("--in", dest="inp")
    ap.add_argument("--out")
    ap.add_argument("--ref")
    ap.add_argument("--compression", default="zstd")
    ap.add_argument("--compression-level", type=int, default=0)
    ap.add_argument("--row-group-rows", type=int, default=ROW_GROUP_ROWS)
    ap.add_argument("--infer", action="store_true")
    a = ap.parse_args(argv)
    pa = _pa_setup()
    import pyarrow.parquet as pq
    schema = None if a.infer else _bench_schema(pa)
    p = a.phase
    if p == "idle":
        r = {"phase": "idle", "peak_rss_kb": _peak_rss_kb()}
    elif p == "prepare":
        # Untimed: the JSON lines floe generated become an Arrow IPC file that
        # the write phase loads quickly and exactly.
        t = _read_json(a.inp, _bench_schema(pa))
        with pa.OSFile(a.out, "wb") as f, pa.ipc.new_file(f, t.schema) as w:
            w.write_table(t, max_chunksize=64 * 1024)
        r = _result("prepare", t.num_rows, 0.0, _size(a.inp), _size(a.out), -1)
    elif p == "write":
        with pa.OSFile(a.inp, "rb") as f:  # into process memory, not memory-mapped
            t = pa.ipc.open_file(f).read_all()
        loaded = _current_rss_kb()
        t0, c0 = time.perf_counter(), time.process_time()
        pq.write_table(t, a.out, compression=a.compression, row_group_size=a.row_group_rows,
                       compression_level=a.compression_level or None)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        r = _result("write", t.num_rows, secs, 0, _size(a.out), loaded, compression=a.compression,
                    cpu_seconds=cpu)
    elif p == "read":
        loaded = _current_rss_kb()
        t0, c0 = time.perf_counter(), time.process_time()
        t = pq.read_table(a.inp, use_threads=False)
        t1 = time.perf_counter()
        cs = _checksum(pa, t)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        r = _result("read", t.num_rows, secs, _size(a.inp), 0, loaded,
                    read_only_seconds=t1 - t0, checksum=cs, cpu_seconds=cpu)
    elif p == "convert":
        loaded = _current_rss_kb()
        t0, c0 = time.perf_counter(), time.process_time()
        t = _read_json(a.inp, schema)
        pq.write_table(t, a.out, compression=a.compression, row_group_size=a.row_group_rows,
                       compression_level=a.compression_level or None)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        r = _result("convert_infer" if a.infer else "convert", t.num_rows, secs, _size(a.inp),
                    _size(a.out), loaded, compression=a.compression, cpu_seconds=cpu)
    elif p == "decode":
        loaded = _current_rss_kb()
        t0, c0 = time.perf_counter(), time.process_time()
        t = _read_json(a.inp, schema)
        cs = _checksum(pa, t)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        r = _result("decode_infer" if a.infer else "decode", t.num_rows, secs, _size(a.inp), 0,
                    loaded, checksum=cs, cpu_seconds=cpu)
    elif p == "verify":
        r = _verify(pa, pq, a.inp, a.ref)
    print(json.dumps(r))
    return 0


def _verify(pa, pq, path, ref):
    """Reads a Parquet file with pyarrow and compares it with the reference
    (an Arrow IPC file or JSON lines of the bench schema; none: rows only)."""
    problems = []
    info = {"phase": "verify", "file": path, "bytes": _size(path)}
    try:
        pf = pq.ParquetFile(path)
        md = pf.metadata
        info["rows"] = md.num_rows
        info["row_groups"] = md.num_row_groups
        info["codecs"] = sorted({md.row_group(g).column(c).compression
                                 for g in range(md.num_row_groups)
                                 for c in range(md.num_columns)})
        info["created_by"] = md.created_by
        t = pf.read(use_threads=False)
        info["schema"] = ", ".join("%s %s%s" % (f.name, f.type, "" if f.nullable else " not null")
                                   for f in t.schema)
    except Exception as e:  # a file pyarrow cannot read is the finding
        info["ok"] = False
        info["problems"] = ["pyarrow cannot read it: %s" % e]
        return info
    if ref:
        if ref.endswith(".arrow"):
            with pa.OSFile(ref, "rb") as f:
                r = pa.ipc.open_file(f).read_all()
        else:
            r = _read_json(ref, _bench_schema(pa))
        info["expected_rows"] = r.num_rows
        if t.num_rows != r.num_rows:
            problems.append("%d rows, expected %d" % (t.num_rows, r.num_rows))
        else:
            for name in r.column_names:
                if name not in t.column_names:
                    problems.append("column %s missing" % name)
                    continue
                col, want = t.column(name), r.column(name)
                if col.type != want.type:
                    try:
                        note = "column %s is %s, expected %s" % (name, col.type, want.type)
                        col = col.cast(want.type)
                        info.setdefault("type_notes", []).append(note)
                    except Exception as e:
                        problems.append("column %s: %s, not castable to %s (%s)"
                                        % (name, col.type, want.type, e))
                        continue
                if not col.equals(want):
                    problems.append("column %s: values differ from the reference" % name)
    info["ok"] = not problems
    info["problems"] = problems
    return info


# ---------------------------------------------------------------------------
# The driver.
# ---------------------------------------------------------------------------

class Runner:
    def __init__(self, args):
        self.args = args
        self.log = []

    def run(self, cmd):
        """Runs one phase in a child; returns (exit code, parsed JSON or None,
        stderr text, the child's peak RSS in KiB as wait4 reports it)."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            p = subprocess.Popen(cmd, stdout=out, stderr=err)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            text, etext = out.read().decode(), err.read().decode(errors="replace")
        self.log.append({"cmd": cmd, "rc": p.returncode, "stderr": etext[-2000:]})
        res = None
        if p.returncode == 0:
            lines = [ln for ln in text.splitlines() if ln.startswith("{")]
            if lines:
                res = json.loads(lines[-1])
                res["child_maxrss_kb"] = ru.ru_maxrss
        return p.returncode, res, etext.strip(), ru.ru_maxrss

    def measured(self, fcmd, pcmd):
        """Runs floe's and pyarrow's command of one phase --repeat times each,
        taking turns (floe, pyarrow, floe, ...) so that a busy spell of the
        machine falls on both sides alike; keeps each side's run with the
        median time. Returns ((rc, result or None, stderr) for floe, the
        same for pyarrow)."""
        runs, failed = ([], []), [None, None]
        for _ in range(self.args.repeat):
            for side, cmd in enumerate((fcmd, pcmd)):
                if failed[side]:
                    continue
                # Untimed: flush what earlier steps wrote (the set-up's JSON
                # lines and Arrow file, several GB at full size, or the other
                # side's Parquet file), so that the kernel's write-back of it
                # does not run inside this phase and slow whichever side
                # comes first.
                os.sync()
                rc, res, err, _ = self.run(cmd)
                if rc != 0 or res is None:
                    failed[side] = (rc, None, err)
                else:
                    runs[side].append(res)
        return tuple(failed[side] or (0, self._median(runs[side]), "") for side in (0, 1))

    @staticmethod
    def _median(runs):
        runs.sort(key=lambda r: r["seconds"])
        best = runs[len(runs) // 2]
        if len(runs) > 1:
            best["all_seconds"] = [r["seconds"] for r in runs]
        best["self_peak_rss_kb"] = best["peak_rss_kb"]  # as the child itself saw it
        best["peak_rss_kb"] = max(r["child_maxrss_kb"] for r in runs)
        return best

    def both(self, floe_args, pa_args):
        """One phase on both sides: floe_bench with floe_args, this script's
        _pa entry point with pa_args."""
        return self.measured([self.args.floe_bench] + [str(x) for x in floe_args],
                             [sys.executable, os.path.abspath(__file__), "_pa"]
                             + [str(x) for x in pa_args])

    def helper(self, cmd, what):
        rc, res, err, _ = self.run(cmd)
        if rc != 0 or res is None:
            sys.exit("parquet_bench: %s failed (exit %d): %s" % (what, rc, err))
        return res

    def verify(self, path, ref):
        rc, res, err, _ = self.run([sys.executable, os.path.abspath(__file__), "_pa", "verify",
                                    "--in", path] + (["--ref", ref] if ref else []))
        if res is None:
            return {"ok": False, "problems": ["verification crashed: %s" % err[-500:]]}
        return res


def floe_status(rc, err):
    last = err.splitlines()[-1] if err else ""
    if rc == EXIT_UNSUPPORTED:
        # floe_bench: PATH: not available in this build of floe (UNSUPPORTED): MESSAGE
        return "not available in this build (%s)" % last.rsplit("): ", 1)[-1]
    return "failed (exit %d): %s" % (rc, last[-400:])


def compare_checksums(floe_cs, pa_cs):
    """Names the columns whose exact parts (counts, integer and decimal sums,
    string bytes) differ; floating sums depend on order and are skipped."""
    bad = []
    for name, want in pa_cs.items():
        got = floe_cs.get(name)
        if got is None:
            bad.append(name + " (missing)")
            continue
        for k in ("nonnull", "isum", "dsum", "bytes"):
            if k in want and k in got and int(want[k]) != int(got[k]):
                bad.append("%s.%s floe %s pyarrow %s" % (name, k, got[k], want[k]))
    return bad


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_pa":
        return pa_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--floe", default="build/floe", help="the floe binary (default build/floe)")
    ap.add_argument("--floe-bench", help="floe_bench (default: bench/floe_bench beside --floe)")
    ap.add_argument("--rows", type=int, default=10_000_000, help="rows of the Parquet dataset")
    ap.add_argument("--json-mb", type=float, default=1024, help="MiB of JSON lines to convert")
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    ap.add_argument("--repeat", type=int, default=1, help="runs per phase; the median is kept")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--codecs", default=",".join(CODECS))
    ap.add_argument("--json-codec", default="zstd")
    ap.add_argument("--zstd-level", type=int, default=3,
                    help="zstd level both sides use (default 3, parquet-java's default; floe's and pyarrow's is 1)")
    ap.add_argument("--row-group-rows", type=int, default=ROW_GROUP_ROWS)
    ap.add_argument("--workdir", help="scratch files (default: bench/work beside --floe)")
    ap.add_argument("--results", help="JSON results (default: bench/results.json beside --floe)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch files")
    args = ap.parse_args()
    if args.quick:
        if args.rows == 10_000_000:
            args.rows = 100_000
        if args.json_mb == 1024:
            args.json_mb = 16
    build = os.path.dirname(os.path.abspath(args.floe))
    args.floe_bench = args.floe_bench or os.path.join(build, "bench", "floe_bench")
    args.workdir = args.workdir or os.path.join(build, "bench", "work")
    args.results = args.results or os.path.join(build, "bench", "results.json")
    if not os.access(args.floe_bench, os.X_OK):
        sys.exit("parquet_bench: %s not found; build it with `ninja -C %s floe_bench`"
                 % (args.floe_bench, build))
    os.makedirs(args.workdir, exist_ok=True)
    w = lambda name: os.path.join(args.workdir, name)
    for name in os.listdir(args.workdir):  # outputs of an earlier --keep run
        if name.startswith(("floe.", "pyarrow.", "data.", "json.")):
            os.remove(w(name))
    R = Runner(args)
    rg = ["--row-group-rows", args.row_group_rows]
    rows_out = []
    files = []

    def add(phase, basis, f, fst, p, pst, **notes):
        rows_out.append({"phase": phase, "mb_basis": basis, "floe": f, "floe_status": fst,
                         "pyarrow": p, "pyarrow_status": pst, **notes})

    # -- the dataset, generated once --------------------------------------
    t0 = time.time()
    print("generating %d rows ..." % args.rows, file=sys.stderr)
    gen = R.helper([args.floe_bench, "generate", "--rows", str(args.rows), "--seed",
                    str(args.seed), "--out", w("data.jsonl")], "floe_bench generate")
    prep = R.helper([sys.executable, os.path.abspath(__file__), "_pa", "prepare",
                     "--in", w("data.jsonl"), "--out", w("data.arrow")], "pyarrow prepare")
    if prep["rows"] != args.rows:
        sys.exit("parquet_bench: pyarrow read %d rows of %d from data.jsonl"
                 % (prep["rows"], args.rows))
    idle = R.helper([sys.executable, os.path.abspath(__file__), "_pa", "idle"], "pyarrow idle")

    # -- Parquet write and read, per codec --------------------------------
    for codec in [c for c in args.codecs.split(",") if c]:
        print("parquet %s ..." % codec, file=sys.stderr)
        ff, pf = w("floe.%s.parquet" % codec), w("pyarrow.%s.parquet" % codec)
        lvl = ["--compression-level", str(args.zstd_level)] if codec == "zstd" else []
        (rc, f, err), (_, p, perr) = R.both(
            ["write", "--generate", args.rows, "--seed", args.seed, "--out", ff,
             "--compression", codec, *lvl, *rg],
            ["write", "--in", w("data.arrow"), "--out", pf, "--compression", codec, *lvl, *rg])
        fst = "ok" if f else floe_status(rc, err)
        if f:
            v = R.verify(ff, w("data.arrow"))
            files.append({"writer": "floe", "codec": codec, **v})
            if not v.get("ok"):
                fst = "invalid: " + "; ".join(v.get("problems", []))
                f = None
        pst = "ok" if p else "failed: " + perr[-300:]
        if p:
            files.append({"writer": "pyarrow", "codec": codec, **R.verify(pf, None)})
        add("write %s" % codec, "Parquet bytes written", f, fst, p, pst)

        for label, path, exists in (("pyarrow", pf, p is not None), ("floe", ff, f is not None)):
            if not exists:
                continue
            (rc, fr, err), (_, prr, perr) = R.both(["read", "--in", path],
                                                   ["read", "--in", path])
            frs = "ok" if fr else floe_status(rc, err)
            prs = "ok" if prr else "failed: " + perr[-300:]
            if fr and prr:
                bad = compare_checksums(fr.get("checksum", {}), prr.get("checksum", {}))
                if bad:
                    frs = "invalid: checksum differs: " + "; ".join(bad)
                    fr = None
                elif fr["rows"] != args.rows:
                    frs = "invalid: %d rows, expected %d" % (fr["rows"], args.rows)
                    fr = None
            add("read %s (file by %s)" % (codec, label), "Parquet bytes read", fr, frs, prr, prs)

    # -- JSON lines -> Parquet ---------------------------------------------
    per_row = gen["bytes_out"] / max(1, args.rows)
    json_rows = max(1, int(args.json_mb * MIB / per_row))
    print("JSON lines: %d rows (~%.0f MiB) ..." % (json_rows, json_rows * per_row / MIB),
          file=sys.stderr)
    jin = w("json.jsonl")
    R.helper([args.floe_bench, "generate", "--rows", str(json_rows), "--seed",
              str(args.seed + 1), "--out", jin], "floe_bench generate (JSON test)")
    jc = ["--compression", args.json_codec]
    if args.json_codec == "zstd":
        jc += ["--compression-level", str(args.zstd_level)]
    for infer in (False, True):
        suffix = " (inferred schema)" if infer else " (given schema)"
        flag = ["--infer"] if infer else []
        fo, po = w("floe.json%s.parquet" % ("-infer" if infer else "")), w("pyarrow.json.parquet")
        (rc, f, err), (_, p, perr) = R.both(["convert", "--in", jin, "--out", fo, *jc, *rg, *flag],
                                            ["convert", "--in", jin, "--out", po, *jc, *rg, *flag])
        fst = "ok" if f else floe_status(rc, err)
        if f:
            v = R.verify(fo, None if infer else jin)
            if infer and v.get("ok") and v.get("rows") != json_rows:
                v["ok"], v["problems"] = False, ["%s rows, expected %d" % (v.get("rows"), json_rows)]
            files.append({"writer": "floe", "codec": args.json_codec, "what": "json" + suffix, **v})
            if not v.get("ok"):
                fst, f = "invalid: " + "; ".join(v.get("problems", [])), None
        pst = "ok" if p else "failed: " + perr[-300:]
        if p:
            files.append({"writer": "pyarrow", "codec": args.json_codec, "what": "json" + suffix,
                          **R.verify(po, None)})
        add("json -> parquet %s%s" % (args.json_codec, suffix), "JSON bytes consumed", f, fst, p,
            pst)
    (rc, f, err), (_, p, perr) = R.both(["decode", "--in", jin], ["decode", "--in", jin])
    fst = "ok" if f else floe_status(rc, err)
    pst = "ok" if p else "failed: " + perr[-300:]
    if f and p:
        bad = compare_checksums(f.get("checksum", {}), p.get("checksum", {}))
        if bad:
            fst, f = "invalid: checksum differs: " + "; ".join(bad), None
    add("json decode (given schema)", "JSON bytes consumed", f, fst, p, pst)

    # -- report --------------------------------------------------------------
    for r in rows_out:
        for side in ("floe", "pyarrow"):
            m = r[side]
            if not m:
                continue
            secs = max(m["seconds"], 1e-9)
            nbytes = m["bytes_out"] if r["mb_basis"].startswith("Parquet bytes written") \
                else m["bytes_in"]
            m["rows_per_s"] = m["rows"] / secs
            m["mib_per_s"] = nbytes / MIB / secs
        if r["floe"] and r["pyarrow"]:
            r["speed_ratio"] = r["pyarrow"]["seconds"] / max(r["floe"]["seconds"], 1e-9)
            r["rss_ratio"] = r["floe"]["peak_rss_kb"] / max(r["pyarrow"]["peak_rss_kb"], 1)
    results = {
        "config": {"rows": args.rows, "json_rows": json_rows, "json_mib": json_rows * per_row / MIB,
                   "seed": args.seed, "row_group_rows": args.row_group_rows,
                   "codecs": args.codecs, "json_codec": args.json_codec, "repeat": args.repeat,
                   "quick": args.quick, "floe_bench": args.floe_bench,
                   "python": sys.version.split()[0], "pyarrow": _pyarrow_version(),
                   "cpu": _cpu_name(), "dataset_jsonl_bytes": gen["bytes_out"],
                   "pyarrow_idle_rss_kb": idle["peak_rss_kb"],
                   "wall_seconds": time.time() - t0},
        "phases": rows_out,
        "files": files,
    }
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    with open(args.results, "w") as fh:
        json.dump(results, fh, indent=2)
    print(render_markdown(results))
    print("\nresults: %s" % args.results)
    if not args.keep:
        for name in os.listdir(args.workdir):
            if name.startswith(("floe.", "pyarrow.", "data.", "json.")):
                os.remove(w(name))
        try:
            os.rmdir(args.workdir)
        except OSError:
            pass
    return 0


def _pyarrow_version():
    try:
        import pyarrow
        return pyarrow.__version__
    except ImportError:
        return None


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def render_markdown(res):
    def num(x, fmt="{:,.0f}"):
        return fmt.format(x) if x is not None else "-"

    def mib(kb):
        return "%.0f MiB" % (kb / 1024) if kb is not None else "-"

    c = res["config"]
    lines = [
        "floe vs pyarrow %s, single thread, %s rows, JSON test %s rows (%.0f MiB), "
        "row groups of %s rows" % (c["pyarrow"], "{:,}".format(c["rows"]),
                                   "{:,}".format(c["json_rows"]), c["json_mib"],
                                   "{:,}".format(c["row_group_rows"])),
        "",
        "| phase | floe rows/s | pyarrow rows/s | floe MB/s | pyarrow MB/s | floe peak RSS "
        "| pyarrow peak RSS | floe/pyarrow speed | RSS floe/pyarrow |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for r in res["phases"]:
        f, p = r["floe"] or {}, r["pyarrow"] or {}
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["phase"], num(f.get("rows_per_s")), num(p.get("rows_per_s")),
            num(f.get("mib_per_s"), "{:,.1f}"), num(p.get("mib_per_s"), "{:,.1f}"),
            mib(f.get("peak_rss_kb")), mib(p.get("peak_rss_kb")),
            num(r.get("speed_ratio"), "{:.2f}x"), num(r.get("rss_ratio"), "{:.2f}")))
        if r["floe_status"] != "ok":
            notes.append("- %s: floe %s" % (r["phase"], r["floe_status"]))
        if r["pyarrow_status"] != "ok":
            notes.append("- %s: pyarrow %s" % (r["phase"], r["pyarrow_status"]))
    lines += ["", "MB = MiB (2^20 bytes) of the Parquet file written or read, or of JSON consumed. "
              "Speed ratio = pyarrow seconds / floe seconds (above 1: floe faster). "
              "RSS ratio = floe peak / pyarrow peak; pyarrow's includes the Python interpreter "
              "(%s idle)." % mib(c["pyarrow_idle_rss_kb"])]
    cpu = [(r["phase"], (r["floe"] or {}).get("cpu_seconds"), (r["pyarrow"] or {}).get("cpu_seconds"))
           for r in res["phases"]]
    if any(f is not None and p is not None for _, f, p in cpu):
        # On a shared machine wall-clock time also counts the time another
        # process held the core; CPU time of the same section counts less of it.
        lines += ["", "| phase | floe CPU s | pyarrow CPU s | CPU time pyarrow/floe |",
                  "|---|---:|---:|---:|"]
        for phase, f, p in cpu:
            ratio = p / f if f and p is not None else None
            lines.append("| %s | %s | %s | %s |" % (phase, num(f, "{:.3f}"), num(p, "{:.3f}"),
                                                   num(ratio, "{:.2f}x")))
    if res["files"]:
        lines += ["", "| file | codec | MiB | row groups | codecs in file | checked by pyarrow |",
                  "|---|---|---:|---:|---|---|"]
        for fi in res["files"]:
            what = fi.get("what", "parquet")
            lines.append("| %s (%s) | %s | %.1f | %s | %s | %s |" % (
                fi["writer"], what, fi["codec"], fi.get("bytes", 0) / MIB,
                fi.get("row_groups", "-"), ",".join(fi.get("codecs", [])),
                "ok" if fi.get("ok") else "; ".join(fi.get("problems", [])) or "?"))
    inferred = [fi for fi in res["files"] if "inferred" in fi.get("what", "") and "schema" in fi]
    if inferred:
        lines += ["", "Column types of the inferred-schema conversions (they may differ, and so "
                  "may the work):"]
        lines += ["- %s: %s" % (fi["writer"], fi["schema"]) for fi in inferred]
    if notes:
        lines += ["", "Not measured or not valid:"] + notes
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
