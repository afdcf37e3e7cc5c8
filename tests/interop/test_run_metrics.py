"""`floe run --metrics-port`: a Kafka job on a real broker serves its figures on
/metrics, parsed with prometheus_client's parser: records per partition, rows
written, lag, checkpoints and commits, the watermark; SIGTERM ends the job
after a final commit and closes the port."""
import datetime
import json
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import FLOE
from test_run import BASE_MS, rows_of, sql, write_job

JOB = """
SET 'pipeline.name' = 'mjob';
CREATE TABLE orders (
  id BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = '{topic}',
  'properties.bootstrap.servers' = '{brokers}',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);
INSERT INTO db.m SELECT id, ts FROM orders;
"""


def event_ms(i):
    # Pairs share an event time, so both partitions end at the same one.
    return BASE_MS + (i // 2) * 1000


def produce(broker, topic, n):
    lines = []
    for i in range(n):
        ts = datetime.datetime.fromtimestamp(event_ms(i) / 1000, datetime.timezone.utc)
        value = {"id": i, "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]}
        lines.append(json.dumps({"key": str(i), "value": json.dumps(value), "partition": i % 2}))
    proc = broker.floe("produce", "--topic", topic, "--records", input="".join(l + "\n" for l in lines))
    assert f"produced {n} messages" in proc.stderr


def scrape(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def series(m, name):
    """{labels: value} of one metric name."""
    return {k[1]: v for k, v in m.items() if k[0] == name}


def test_run_serves_job_metrics_and_stops_on_sigterm(kafka_broker, tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    sql(wh, "CREATE SCHEMA db")
    sql(wh, "CREATE TABLE db.m (id bigint, ts timestamp(6))")
    topic, n = "run-metrics", 400
    kafka_broker.create_topic(topic, 2)
    job = write_job(tmp_path, "m.sql", JOB.format(topic=topic, brokers=kafka_broker.brokers))
    log = tmp_path / "job.log"
    proc = subprocess.Popen([str(FLOE), "--warehouse", str(wh), "run", str(job), "--metrics-port",
                             "0", "--checkpoint-interval", "1s", "--log-file", str(log),
                             "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        assert first.startswith("metrics: http://127.0.0.1:"), first + proc.stderr.read()
        url = first.split()[1]
        port = int(url.split(":")[2].split("/")[0])
        with urllib.request.urlopen(url.replace("/metrics", "/healthz"), timeout=5) as r:
            assert r.status == 200 and r.read() == b"ok\n"
        produce(kafka_broker, topic, n)
        want_wm = (event_ms(n - 1) - 5000) / 1000
        deadline = time.time() + 90
        while True:
            assert proc.poll() is None, proc.stderr.read()
            m = scrape(url)
            recs = series(m, "floe_kafka_records_consumed_total")
            lag = series(m, "floe_kafka_consumer_lag")
            rows = series(m, "floe_job_rows_written_total")
            done = (recs == {(("partition", "0"), ("topic", topic)): n / 2,
                             (("partition", "1"), ("topic", topic)): n / 2}
                    and lag and all(v == 0 for v in lag.values())
                    and rows == {(("table", "db.m"),): n}
                    and m.get(("floe_job_watermark_seconds", ())) == want_wm
                    and m.get(("floe_job_last_commit_checkpoint_id", ()), 0) >= 1
                    and m.get(("floe_job_commits_total", ()), 0) >= 1)
            if done:
                break
            assert time.time() < deadline, f"metrics never reached the expected figures: {m}"
            time.sleep(0.5)
        assert m[("floe_job_events_read_total", (("source", "orders"),))] == n
        assert m[("floe_job_checkpoints_total", ())] >= 1
        assert m[("floe_job_last_checkpoint_id", ())] >= m[("floe_job_last_commit_checkpoint_id", ())]
        assert m[("floe_job_last_checkpoint_time_seconds", ())] == pytest.approx(time.time(), abs=120)
        assert m[("floe_job_last_commit_duration_seconds", ())] >= 0
        assert m[("floe_job_bad_records_skipped_total", (("source", "orders"),))] == 0
        assert m[("floe_kafka_consumer_position", (("partition", "1"), ("topic", topic)))] == n / 2
        assert m[("floe_process_threads", ())] >= 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    assert sorted(r["id"] for r in rows_of(wh, "db.m")) == list(range(n))
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert lines[0]["msg"] == "metrics server listening" and lines[0]["port"] == port
    msgs = [l["msg"] for l in lines]
    assert msgs[-2:] == ["checkpoint", "commit"]
    assert all(l["job-id"] == "mjob" for l in lines[1:])


def test_metrics_bind_needs_metrics_port(tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    job = write_job(tmp_path, "x.sql", "INSERT INTO db.x SELECT 1;\n")
    proc = subprocess.run([str(FLOE), "--warehouse", str(wh), "run", str(job), "--metrics-bind",
                           "127.0.0.1"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and "--metrics-bind needs --metrics-port" in proc.stderr
    proc = subprocess.run([str(FLOE), "--warehouse", str(wh), "run", str(job), "--metrics-port",
                           "70000"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and "--metrics-port '70000'" in proc.stderr
