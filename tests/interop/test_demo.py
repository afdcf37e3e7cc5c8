"""The streaming demo (scripts/demo-stream.sh, the second half of `make demo`):
a real Kafka broker, Nexmark bids produced in real time, `floe run` of
examples/bid-stats.sql into 5-second windows of an Iceberg table. Checks the
committed windows against the topic's bids (the demo copies them to
bids.jsonl before it stops the broker) and that no broker or job outlives
the script, also when it is interrupted."""
import collections
import datetime as dt
import json
import os
import pathlib
import signal
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
FLOE = ROOT / "build" / "floe"
SCRIPT = ROOT / "scripts" / "demo-stream.sh"
CHANNELS = {"Google", "Facebook", "Baidu", "Apple"}


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes only once reaped; check its state.
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def _pids(d):
    return [int((d / f).read_text()) for f in ("broker.pid", "job.pid") if (d / f).exists()]


def _ts(s):
    return dt.datetime.fromisoformat(s.replace(" ", "T"))


def _rows(wh):
    out = subprocess.run([str(FLOE), "--warehouse", str(wh), "sql", "--no-progress", "--format",
                          "jsonl", "-c", "SELECT * FROM nexmark.bid_stats"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_streaming_demo(tmp_path):
    d = tmp_path / "stream"
    proc = subprocess.run([str(SCRIPT), "--floe", str(FLOE), "--dir", str(d), "--seconds", "10"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "equal the table's count: true" in proc.stdout

    bids = [json.loads(line) for line in (d / "bids.jsonl").read_text().splitlines()]
    # 10 s at 200 events/s: 2000 events, 46 in 50 of them bids.
    assert len(bids) == 1840
    rows = _rows(d / "warehouse")
    assert rows, proc.stdout
    upto = max(_ts(r["window_end"]) for r in rows)
    # Every committed window and channel holds exactly the topic's bids of it.
    want = collections.Counter()
    for b in bids:
        t = _ts(b["dateTime"])
        if t >= upto:
            continue
        start = t.replace(second=t.second - t.second % 5, microsecond=0)
        want[(start, b["channel"] if b["channel"] in CHANNELS else "other")] += 1
    got = {(_ts(r["window_start"]), r["channel"]): r["bids"] for r in rows}
    assert got == dict(want)
    assert sum(got.values()) == sum(1 for b in bids if _ts(b["dateTime"]) < upto)
    for r in rows:
        assert _ts(r["window_end"]) - _ts(r["window_start"]) == dt.timedelta(seconds=5)
    # The job's final commit happened, and nothing is left running.
    log = [json.loads(line) for line in (d / "job.log").read_text().splitlines()]
    assert sum(1 for e in log if e["msg"] == "commit") >= 3
    pids = _pids(d)
    assert len(pids) == 2
    assert not [p for p in pids if _alive(p)]


def test_interrupted_demo_stops_broker_and_job(tmp_path):
    d = tmp_path / "stream"
    proc = subprocess.Popen([str(SCRIPT), "--floe", str(FLOE), "--dir", str(d), "--seconds", "30"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None:
            log = d / "job.log"
            if log.exists() and '"msg":"commit"' in log.read_text():
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.stdout.read()
        # Ctrl-C on a terminal: SIGINT to the whole foreground group.
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode != 0
    assert "interrupted" in out
    pids = _pids(d)
    assert len(pids) == 2
    assert not [p for p in pids if _alive(p)], out
