"""floe's Kafka client against a real Apache Kafka broker: exact offsets,
keys, headers and timestamps; start positions by timestamp, group and
Flink's specific offsets; lag; a broker restart in the middle of
consumption with neither loss nor duplicates; and the Nexmark feed's
determinism and distributions."""
import collections
import json
import subprocess
import threading
import time

import pytest

from kafka_fixture import FLOE

BASE_TS = 1_700_000_000_000


def records(n, partitions):
    """n messages spread over partitions, each with key, headers, timestamp."""
    out = []
    for i in range(n):
        out.append({"key": f"key-{i}", "value": f"value-{i}", "partition": i % partitions,
                    "timestamp": BASE_TS + i * 1000,
                    "headers": [["seq", str(i)], ["src", "floe"], ["empty", None]]})
    return out


def produce(broker, topic, recs):
    text = "".join(json.dumps(r) + "\n" for r in recs)
    proc = broker.floe("produce", "--topic", topic, "--records", input=text)
    assert f"produced {len(recs)} messages" in proc.stderr


def test_smoke_produce_consume(kafka_broker):
    kafka_broker.create_topic("smoke")
    kafka_broker.floe("produce", "--topic", "smoke", input="one\ntwo\nthree\n")
    got = kafka_broker.consume("--topic", "smoke", "--until-end")
    assert [m["value"] for m in got] == ["one", "two", "three"]
    assert [m["offset"] for m in got] == [0, 1, 2]
    assert all(m["key"] is None and m["timestamp_type"] == "create" for m in got)


def test_exact_offsets_keys_headers_timestamps(kafka_broker):
    kafka_broker.create_topic("exact", partitions=3)
    recs = records(300, 3)
    produce(kafka_broker, "exact", recs)
    by_part = collections.defaultdict(list)
    for r in recs:
        by_part[r["partition"]].append(r)
    got = kafka_broker.consume("--topic", "exact", "--partitions", "1", "--from", "offset:10",
                               "--count", 50)
    assert len(got) == 50
    for k, m in enumerate(got):
        want = by_part[1][10 + k]
        assert m["partition"] == 1 and m["offset"] == 10 + k
        assert m["key"] == want["key"] and m["value"] == want["value"]
        assert m["timestamp"] == want["timestamp"]
        assert m["headers"] == want["headers"]
    # Every partition to its end: each message exactly once.
    allm = kafka_broker.consume("--topic", "exact", "--until-end")
    assert sorted(m["value"] for m in allm) == sorted(r["value"] for r in recs)
    for p in range(3):
        offs = [m["offset"] for m in allm if m["partition"] == p]
        assert offs == list(range(100))
    # --summary: the same messages counted, none printed.
    out = kafka_broker.floe("consume", "--topic", "exact", "--until-end", "--summary").stdout
    assert json.loads(out) == {"messages": 300,
                               "value_bytes": sum(len(r["value"]) for r in recs)}
    proc = kafka_broker.floe("consume", "--topic", "exact", "--summary", "--schema", "v string",
                             check=False)
    assert proc.returncode == 2 and "--summary" in proc.stderr


def test_seek_by_timestamp(kafka_broker):
    kafka_broker.create_topic("bytime", partitions=2)
    recs = records(100, 2)
    produce(kafka_broker, "bytime", recs)
    t = BASE_TS + 41_500  # between message 41 (partition 1) and 42 (partition 0)
    got = kafka_broker.consume("--topic", "bytime", "--from", f"timestamp:{t}", "--until-end")
    want = [r["value"] for r in recs if r["timestamp"] >= t]
    assert sorted(m["value"] for m in got) == sorted(want)
    firsts = {}
    for m in got:
        firsts.setdefault(m["partition"], m)
    assert firsts[0]["value"] == "value-42" and firsts[0]["offset"] == 21
    assert firsts[1]["value"] == "value-43" and firsts[1]["offset"] == 21
    # After the last message: nothing to read, positioned at the end.
    assert kafka_broker.consume("--topic", "bytime", "--from",
                                f"timestamp:{BASE_TS + 10**9}", "--until-end") == []


def test_lag_and_group_offsets(kafka_broker):
    kafka_broker.create_topic("lag")
    produce(kafka_broker, "lag", records(80, 1))
    first = kafka_broker.consume("--topic", "lag", "--group", "mon", "--commit", "--count", 30)
    assert [m["offset"] for m in first] == list(range(30))
    offs = [json.loads(l) for l in
            kafka_broker.floe("offsets", "--topic", "lag", "--group", "mon").stdout.splitlines()]
    assert offs == [{"partition": 0, "low": 0, "high": 80, "committed": 30, "lag": 50}]
    rest = kafka_broker.consume("--topic", "lag", "--group", "mon", "--from", "group",
                                "--until-end")
    assert [m["offset"] for m in rest] == list(range(30, 80))
    # Flink's start-up options: specific offsets, the rest from the group.
    spec = kafka_broker.consume("--topic", "lag", "--group", "mon", "--startup-mode",
                                "specific-offsets", "--specific-offsets",
                                "partition:0,offset:77", "--until-end")
    assert [m["offset"] for m in spec] == [77, 78, 79]


def test_errors_name_the_problem(kafka_broker):
    proc = kafka_broker.floe("consume", "--topic", "no-such-topic", "--until-end",
                             "--timeout-ms", 5000, check=False)
    assert proc.returncode != 0 and "no-such-topic" in proc.stderr
    kafka_broker.create_topic("small")
    proc = kafka_broker.floe("consume", "--topic", "small", "--partitions", "3", check=False)
    assert proc.returncode != 0 and "partition" in proc.stderr
    proc = kafka_broker.floe("produce", "--topic", "small", "--records",
                             input='{"value": 5}\n', check=False)
    assert proc.returncode != 0 and "line 1" in proc.stderr
    proc = kafka_broker.floe("consume", "--topic", "small", "--set",
                             "ssl.truststore.location=/x.jks", check=False)
    assert proc.returncode != 0 and "ssl.ca.location" in proc.stderr
    # Past the end of the log: an error, not a silent jump.
    kafka_broker.floe("produce", "--topic", "small", input="a\nb\n")
    proc = kafka_broker.floe("consume", "--topic", "small", "--from", "offset:100", "--count", 1,
                             "--idle-ms", 5000, check=False)
    assert proc.returncode != 0 and "out of range" in proc.stderr.lower()
    proc = kafka_broker.floe("create-topic", "--topic", "small", check=False)
    assert proc.returncode != 0 and "already exists" in proc.stderr


def test_broker_restart_mid_consumption(kafka_broker):
    kafka_broker.create_topic("restart", partitions=2)
    n = 2000
    half = records(n, 2)
    produce(kafka_broker, "restart", half)
    cmd = [str(FLOE), "kafka", "consume", "--brokers", kafka_broker.brokers, "--topic", "restart",
           "--count", str(2 * n), "--max-batch", "20", "--idle-ms", "90000",
           "--set", "max.partition.fetch.bytes=4096", "--set", "reconnect.backoff.max.ms=500"]
    consumer = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(consumer.stdout), daemon=True)
    reader.start()
    deadline = time.time() + 60
    while len(lines) < 200 and time.time() < deadline:
        time.sleep(0.05)
    assert len(lines) >= 200, "the consumer did not start reading"
    kafka_broker.restart()
    more = [dict(r, value=f"late-{i}", key=f"late-key-{i}") for i, r in enumerate(records(n, 2))]
    produce(kafka_broker, "restart", more)
    try:
        consumer.wait(timeout=180)
    finally:
        if consumer.poll() is None:
            consumer.kill()
    reader.join(timeout=10)
    assert consumer.returncode == 0, consumer.stderr.read()
    got = [json.loads(l) for l in lines]
    assert len(got) == 2 * n
    for p in range(2):
        offs = [m["offset"] for m in got if m["partition"] == p]
        assert offs == list(range(n)), f"partition {p}: offsets not exactly 0..{n - 1}"
    want = sorted(r["value"] for r in half + more)
    assert sorted(m["value"] for m in got) == want


def nexmark(broker, topic, *args):
    broker.create_topic(topic, partitions=2)
    proc = broker.floe("produce-nexmark", "--topic", topic, *args)
    assert "nexmark events" in proc.stderr
    msgs = broker.consume("--topic", topic, "--until-end")
    msgs.sort(key=lambda m: (m["partition"], m["offset"]))
    return msgs


def test_nexmark_feed_deterministic_and_distributed(kafka_broker):
    a = nexmark(kafka_broker, "nx-a", "--events", 10000, "--seed", 5)
    b = nexmark(kafka_broker, "nx-b", "--events", 10000, "--seed", 5)
    c = nexmark(kafka_broker, "nx-c", "--events", 10000, "--seed", 6)
    assert [m["value"] for m in a] == [m["value"] for m in b]
    assert [m["value"] for m in a] != [m["value"] for m in c]
    events = [json.loads(m["value"]) for m in a]
    kinds = collections.Counter(e["event_type"] for e in events)
    assert kinds == {0: 200, 1: 600, 2: 9200}
    persons = sorted(e["person"]["id"] for e in events if e["event_type"] == 0)
    assert persons == list(range(1000, 1200))
    auctions = [e["auction"] for e in events if e["event_type"] == 1]
    assert sorted(x["id"] for x in auctions) == list(range(1000, 1600))
    assert all(10 <= x["category"] < 15 and x["reserve"] >= x["initialBid"] for x in auctions)
    bids = [e["bid"] for e in events if e["event_type"] == 2]
    hot = sum(1 for x in bids if (x["auction"] - 1000) % 100 == 0) / len(bids)
    assert 0.45 < hot < 0.56
    assert all(x["bidder"] >= 1000 and x["price"] >= 100 for x in bids)
    # Event time advances 1/10000 s per event from the base time; the
    # message timestamp is the event time.
    t = sorted(m["timestamp"] for m in a)
    assert t[0] == 1704067200000 and t[-1] == 1704067200000 + 9999 // 10
    first = next(e for e in events if e["event_type"] == 0 and e["person"]["id"] == 1000)
    assert first["person"]["dateTime"] == "2024-01-01 00:00:00.000"


def log_bytes(broker, topic):
    return sum(f.stat().st_size for f in (broker.dir / "log").glob(f"{topic}-*/*.log"))


def test_nexmark_feed_compression_is_lz4_unless_set(kafka_broker):
    lz4 = nexmark(kafka_broker, "nx-lz4", "--events", 5000, "--seed", 3)
    plain = nexmark(kafka_broker, "nx-plain", "--events", 5000, "--seed", 3,
                    "--set", "compression.type=none")
    assert [m["value"] for m in lz4] == [m["value"] for m in plain]
    # The same records take more room in the log uncompressed.
    assert log_bytes(kafka_broker, "nx-plain") > 1.3 * log_bytes(kafka_broker, "nx-lz4")


def test_consume_decodes_json_values_into_rows(kafka_broker):
    kafka_broker.create_topic("nx-rows", partitions=2)
    kafka_broker.floe("produce-nexmark", "--bids", "nx-rows", "--events", 2000, "--seed", 9)
    raw = kafka_broker.consume("--topic", "nx-rows", "--until-end")
    rows = kafka_broker.consume("--topic", "nx-rows", "--until-end", "--schema",
                                "auction long, bidder long, price long, dateTime timestamp, "
                                "off long, part int, ts timestamptz",
                                "--metadata", "off:offset,part:partition,ts:timestamp")
    assert len(rows) == len(raw) == 1840
    want = {(m["partition"], m["offset"]): (json.loads(m["value"]), m["timestamp"]) for m in raw}
    for r in rows:
        bid, ts = want[(r["part"], r["off"])]
        assert (r["auction"], r["bidder"], r["price"]) == (bid["auction"], bid["bidder"],
                                                           bid["price"])
        assert r["dateTime"].replace("T", " ")[:23] == bid["dateTime"]
        assert r["ts"].startswith(r["dateTime"][:23])
    # A value that is not JSON of the schema: an error naming the message,
    # or skipped with --ignore-parse-errors.
    kafka_broker.create_topic("mixed")
    kafka_broker.floe("produce", "--topic", "mixed",
                      input='{"a": 1}\nnot json\n{"a": 3}\n{"a": "x"}\n')
    proc = kafka_broker.floe("consume", "--topic", "mixed", "--until-end", "--schema", "a long",
                             check=False)
    assert proc.returncode != 0 and "mixed[0] offset 1" in proc.stderr
    got = kafka_broker.consume("--topic", "mixed", "--until-end", "--schema", "a long",
                               "--ignore-parse-errors")
    assert got == [{"a": 1}, {"a": 3}]


def test_nexmark_realtime_feed(kafka_broker):
    kafka_broker.create_topic("nx-live")
    t0 = time.time()
    kafka_broker.floe("produce-nexmark", "--topic", "nx-live", "--events", 400, "--rate", 1000,
                      "--realtime")
    took = time.time() - t0
    assert took >= 0.35  # 400 events at 1000 per second of event time
    msgs = kafka_broker.consume("--topic", "nx-live", "--until-end")
    ts = [m["timestamp"] for m in msgs]
    assert len(ts) == 400 and ts == sorted(ts)
    assert ts[-1] - ts[0] == 399
    assert t0 * 1000 - 1000 <= ts[0] <= t0 * 1000 + 5000
