"""`floe kafka consume --metrics-port` against a real Apache Kafka broker:
the /metrics endpoint is scraped over HTTP and parsed with the Prometheus
project's own Python parser (prometheus_client), and its counters must
equal what was produced, per partition, with the lag back at 0; /healthz,
404 and 405 answer; clients that connect and send nothing do not stall
other scrapes; the --log-file lines are JSON with RFC 3339 times and tell
start, assignment and stop; bad flags are errors that name themselves."""
import http.client
import json
import re
import signal
import socket
import subprocess
import threading
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from kafka_fixture import FLOE


def produce(broker, topic, recs):
    text = "".join(json.dumps(r) + "\n" for r in recs)
    proc = broker.floe("produce", "--topic", topic, "--records", input=text)
    assert f"produced {len(recs)} messages" in proc.stderr


def records(start, n, partitions):
    return [{"key": f"k{i}", "value": "v" * (i % 7) + f"-{i}", "partition": i % partitions}
            for i in range(start, start + n)]


class Consumer:
    """A running `floe kafka consume` with its metrics endpoint."""

    def __init__(self, broker, tmp_path, *args):
        self.log = tmp_path / "consume.log"
        self.out = open(tmp_path / "consume.out", "w")
        cmd = [str(FLOE), "kafka", "consume", "--brokers", broker.brokers, *map(str, args),
               "--metrics-port", "0", "--idle-ms", "300000", "--log-file", str(self.log)]
        self.proc = subprocess.Popen(cmd, stdout=self.out, stderr=subprocess.PIPE, text=True)
        self.err_lines = []
        self.reader = threading.Thread(target=lambda: self.err_lines.extend(self.proc.stderr),
                                       daemon=True)
        self.reader.start()
        deadline = time.time() + 60
        self.port = None
        while time.time() < deadline and self.port is None:
            for line in list(self.err_lines):
                m = re.match(r"metrics: http://127\.0\.0\.1:(\d+)/metrics$", line.strip())
                if m:
                    self.port = int(m.group(1))
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        assert self.port, f"no metrics address on stderr: {self.err_lines}"

    def request(self, method, path, timeout=5):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path)
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read().decode()
        finally:
            conn.close()

    def scrape(self):
        status, headers, body = self.request("GET", "/metrics")
        assert status == 200
        assert headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        samples = {}
        families = {}
        for fam in text_string_to_metric_families(body):
            families[fam.name] = fam
            for s in fam.samples:
                samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
        return samples, families

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.out.close()
        self.reader.join(timeout=10)
        return rc


def per_partition(samples, name, topic):
    out = {}
    for (n, labels), v in samples.items():
        d = dict(labels)
        if n == name and d.get("topic") == topic:
            out[int(d["partition"])] = v
    return out


def wait_for(consumer, topic, want_records, timeout=60):
    """Scrapes until every partition has its records and lag 0."""
    deadline = time.time() + timeout
    while True:
        samples, families = consumer.scrape()
        got = per_partition(samples, "floe_kafka_records_consumed_total", topic)
        lag = per_partition(samples, "floe_kafka_consumer_lag", topic)
        if got == want_records and lag and all(v == 0 for v in lag.values()):
            return samples, families
        if time.time() > deadline:
            raise AssertionError(f"records {got} (want {want_records}), lag {lag}")
        time.sleep(0.2)


def test_metrics_endpoint_counts_what_was_produced(kafka_broker, tmp_path):
    topic, parts = "metrics-count", 3
    kafka_broker.create_topic(topic, partitions=parts)
    first = records(0, 150, parts)
    produce(kafka_broker, topic, first)
    c = Consumer(kafka_broker, tmp_path, "--topic", topic)
    try:
        want = {p: sum(1 for r in first if r["partition"] == p) for p in range(parts)}
        wait_for(c, topic, want)
        # More while it runs: the counters follow and the lag returns to 0.
        second = records(150, 240, parts)
        produce(kafka_broker, topic, second)
        allr = first + second
        want = {p: sum(1 for r in allr if r["partition"] == p) for p in range(parts)}
        samples, families = wait_for(c, topic, want)

        want_bytes = {p: sum(len(r["key"]) + len(r["value"]) for r in allr if r["partition"] == p)
                      for p in range(parts)}
        assert per_partition(samples, "floe_kafka_bytes_consumed_total", topic) == want_bytes
        assert per_partition(samples, "floe_kafka_consumer_position", topic) == want
        assert families["floe_kafka_consumer_lag"].type == "gauge"
        assert families["floe_kafka_records_consumed"].type == "counter"

        # The poll latency histogram: cumulative buckets, +Inf equal to the count.
        hist = families["floe_kafka_poll_duration_seconds"]
        assert hist.type == "histogram"
        buckets = [(float(s.labels["le"]), s.value) for s in hist.samples
                   if s.name.endswith("_bucket")]
        count = next(s.value for s in hist.samples if s.name.endswith("_count"))
        assert buckets[-1] == (float("inf"), count) and count > 0
        assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:]))
        assert [b[0] for b in buckets] == sorted(b[0] for b in buckets)

        # The process itself, read from /proc/self.
        rss = samples[("floe_process_resident_memory_bytes", ())]
        assert 1 << 20 < rss < 8 << 30
        assert 0 <= samples[("floe_process_cpu_seconds_total", ())] < 600
        assert samples[("floe_process_open_fds", ())] >= 3

        # The other endpoints and errors.
        assert c.request("GET", "/healthz")[0::2] == (200, "ok\n")
        assert c.request("GET", "/nope")[0] == 404
        status, headers, _ = c.request("POST", "/metrics")
        assert status == 405 and headers["Allow"] == "GET, HEAD"
        assert c.request("PUT", "/healthz")[0] == 405

        # Clients that connect and send nothing (or half a request) do not
        # block scrapes.
        silent = []
        for i in range(5):
            s = socket.create_connection(("127.0.0.1", c.port))
            if i == 0:
                s.sendall(b"GET /metr")
            silent.append(s)
        t0 = time.time()
        for _ in range(5):
            status, _, body = c.request("GET", "/metrics", timeout=3)
            assert status == 200 and "floe_kafka_records_consumed_total" in body
        assert time.time() - t0 < 5
        for s in silent:
            s.close()
    finally:
        rc = c.stop()
    assert rc == 0, "".join(c.err_lines)
    # The port is closed once the command ends.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", c.port), timeout=2).close()

    # The structured log: JSON lines with RFC 3339 UTC millisecond times.
    lines = [json.loads(l) for l in c.log.read_text().splitlines()]
    ts_re = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
    assert all(ts_re.match(l["ts"]) and l["level"] in ("debug", "info", "warn", "error")
               for l in lines)
    msgs = [l["msg"] for l in lines]
    assert msgs[0] == "metrics server listening" and lines[0]["port"] == c.port
    assert msgs[1] == "consumer starting" and lines[1]["topic"] == topic
    assigned = [l for l in lines if l["msg"] == "partition assigned"]
    assert sorted((l["partition"], l["offset"]) for l in assigned) == [(p, 0) for p in range(parts)]
    stop = lines[-1]
    assert stop["msg"] == "consumer stopped" and stop["reason"] == "signal"
    assert stop["records"] == len(allr) and stop["bytes"] == sum(want_bytes.values())


def test_metrics_flags_are_checked(kafka_broker, tmp_path):
    kafka_broker.create_topic("metrics-flags")

    def consume(*args):
        return kafka_broker.floe("consume", "--topic", "metrics-flags", "--until-end", *args,
                                 check=False)

    proc = consume("--metrics-port", "70000")
    assert proc.returncode != 0 and "--metrics-port '70000'" in proc.stderr
    proc = consume("--metrics-bind", "0.0.0.0")
    assert proc.returncode != 0 and "--metrics-bind needs --metrics-port" in proc.stderr
    proc = consume("--metrics-port", "0", "--metrics-bind", "no-such-host.invalid")
    assert proc.returncode != 0 and "no-such-host.invalid" in proc.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = consume("--metrics-port", port)
        assert proc.returncode != 0 and f"port {port}" in proc.stderr
        assert "in use" in proc.stderr
    proc = consume("--log-file", str(tmp_path / "no" / "such" / "dir.log"))
    assert proc.returncode != 0 and "dir.log" in proc.stderr
    proc = consume("--log-file", "-", "--log-level", "loud")
    assert proc.returncode != 0 and "--log-level 'loud'" in proc.stderr
    # A log on stderr, with the level threshold: warn hides the info lines.
    proc = consume("--log-file", "-", "--log-level", "warn")
    assert proc.returncode == 0 and proc.stderr == ""
    proc = consume("--log-file", "-")
    assert proc.returncode == 0
    stop = json.loads(proc.stderr.splitlines()[-1])
    assert stop["msg"] == "consumer stopped" and stop["reason"] == "end" and stop["records"] == 0
