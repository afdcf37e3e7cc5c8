"""A real Apache Kafka broker for the tests (scripts/kafka-test-broker.sh):
one KRaft node on loopback, started once per test session, with helpers to
restart it and to drive `floe kafka`."""
import json
import pathlib
import socket
import subprocess
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "kafka-test-broker.sh"
FLOE = ROOT / "build" / "floe"


def _free_port_pair():
    """A port p with p + 1 free too (the broker's controller listens there)."""
    for _ in range(50):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port >= 65534:
            continue
        t = socket.socket()
        try:
            t.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
        finally:
            t.close()
    raise RuntimeError("no pair of free ports on 127.0.0.1")


class KafkaBroker:
    def __init__(self, port, data_dir):
        self.port = port
        self.dir = data_dir
        self.brokers = f"127.0.0.1:{port}"

    def _script(self, verb, timeout=300):
        return subprocess.run([str(SCRIPT), verb, str(self.port), str(self.dir)],
                              capture_output=True, text=True, timeout=timeout)

    def start(self):
        proc = self._script("start")
        if proc.returncode != 0:
            raise RuntimeError(f"kafka broker did not start:\n{proc.stderr}")

    def stop(self):
        self._script("stop")

    def running(self):
        return self._script("status", timeout=30).returncode == 0

    def restart(self):
        self.stop()
        self.start()

    def floe(self, *args, input=None, check=True, timeout=120):
        """Runs `floe kafka SUB --brokers B ARGS...`; returns the process."""
        sub, rest = args[0], args[1:]
        proc = subprocess.run([str(FLOE), "kafka", sub, "--brokers", self.brokers, *map(str, rest)],
                              input=input, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"floe kafka {' '.join(map(str, args))} failed "
                                 f"({proc.returncode}):\n{proc.stderr}")
        return proc

    def create_topic(self, name, partitions=1):
        self.floe("create-topic", "--topic", name, "--partitions", partitions)

    def consume(self, *args, **kw):
        """Consumed messages as dicts."""
        out = self.floe("consume", *args, **kw).stdout
        return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def kafka_broker():
    if not FLOE.exists():
        pytest.fail(f"{FLOE} is missing: run 'make' first")
    d = pathlib.Path(tempfile.mkdtemp(prefix="floe-kafka.", dir="/tmp"))
    broker = KafkaBroker(_free_port_pair(), d)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
        subprocess.run(["rm", "-rf", str(d)])
