"""Shared fixtures for the interop tests: the floe binary, the shared test
data, and a helper that runs floe and reports its output on failure."""
import os
import pathlib
import subprocess

import pytest

# The Kafka broker fixture (kafka_broker) lives in its own module.
pytest_plugins = ["kafka_fixture"]

ROOT = pathlib.Path(__file__).resolve().parents[2]
FLOE = ROOT / "build" / "floe"
TESTDATA = (ROOT / ".." / "shared" / "testdata").resolve()


def run_floe(*args, check=True, timeout=300):
    """Runs build/floe with args; returns the CompletedProcess (text mode)."""
    proc = subprocess.run([str(FLOE), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed ({proc.returncode}):\n"
                             f"{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def floe():
    if not FLOE.exists():
        pytest.fail(f"{FLOE} is missing: run 'make' first")
    return run_floe


@pytest.fixture(scope="session")
def testdata():
    if not TESTDATA.exists():
        pytest.fail(f"shared test data not found at {TESTDATA}")
    return TESTDATA


PG_SERVER = ROOT / "scripts" / "pg-test-server.sh"


@pytest.fixture(scope="session")
def pg_uri(tmp_path_factory):
    """A throw-away PostgreSQL server (scripts/pg-test-server.sh) for the
    session; yields its URI, postgresql://floe@127.0.0.1:PORT/floe_test."""
    import tempfile
    d = pathlib.Path(tempfile.mkdtemp(prefix="floe-pg.", dir="/tmp"))
    proc = subprocess.run([str(PG_SERVER), "start", str(d)], capture_output=True, text=True,
                          timeout=180)
    if proc.returncode != 0:
        pytest.fail(f"could not start PostgreSQL:\n{proc.stderr}")
    try:
        yield proc.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([str(PG_SERVER), "stop", str(d)], timeout=180)
