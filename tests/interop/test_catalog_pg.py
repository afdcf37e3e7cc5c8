"""The catalog on a real PostgreSQL server: the C unit suite of
tests/unit/catalog/test_catalog.c with FLOE_TEST_PG_URI set, and several
processes committing to one table through catalog_tool at once."""
import concurrent.futures
import os
import subprocess

import psycopg2
import pytest

from conftest import ROOT

TESTS = ROOT / "build" / "tests"
TOOL = TESTS / "catalog_tool"


def test_unit_suite_on_postgresql(pg_uri, tmp_path):
    exe = TESTS / "test_catalog"
    if not exe.exists():
        pytest.fail(f"{exe} is missing: build first")
    env = dict(os.environ, FLOE_TEST_PG_URI=pg_uri, FLOE_TMP=str(tmp_path))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=600)
    out = proc.stdout
    assert proc.returncode == 0, f"test_catalog failed:\n{out}\n{proc.stderr}"
    pg_ran = [l for l in out.splitlines() if l.startswith("ok   pg_")]
    sqlite_ran = [l for l in out.splitlines() if l.startswith("ok   sqlite_")]
    # Every behaviour test runs on both back ends.
    assert len(pg_ran) >= 14, out
    assert {l[len("ok   pg_"):] for l in pg_ran} <= {l[len("ok   sqlite_"):] for l in sqlite_ran}
    assert out.rstrip().splitlines()[-1].endswith("passed, 0 failed")


def tool(uri, *args, check=True):
    proc = subprocess.run([str(TOOL), uri, "/tmp", *map(str, args)], capture_output=True,
                          text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"catalog_tool {args} failed: {proc.stderr}")
    return proc


def fresh_db(pg_uri, name):
    conn = psycopg2.connect(pg_uri)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cur.execute(f'CREATE DATABASE "{name}"')
    conn.close()
    return pg_uri.rsplit("/", 1)[0] + "/" + name


def writer(uri, wid, commits):
    """Commits `commits` times, each from the location it just loaded;
    returns the (old, new) pairs that succeeded and the conflict count."""
    done, conflicts, links = 0, 0, []
    while done < commits:
        cur = tool(uri, "load", "race.t").stdout.strip().strip('"')
        new = f"mem://w{wid}-{done}"
        p = tool(uri, "swap", "race.t", cur, new, check=False)
        if p.returncode == 0:
            links.append((cur, new))
            done += 1
        elif p.stderr.startswith("CONFLICT:"):
            conflicts += 1
            assert conflicts < 100 * commits
        else:
            raise AssertionError(f"writer {wid}: {p.stderr}")
    return links, conflicts


def test_concurrent_processes_on_postgresql(pg_uri):
    uri = fresh_db(pg_uri, "race")
    tool(uri, "ns-create", "race")
    tool(uri, "register", "race.t", "mem://start")
    writers, commits = 4, 15
    with concurrent.futures.ThreadPoolExecutor(writers) as pool:
        results = list(pool.map(lambda w: writer(uri, w, commits), range(writers)))
    links = [l for r, _ in results for l in r]
    assert len(links) == writers * commits
    olds = [o for o, _ in links]
    assert len(set(olds)) == len(olds), "one location was committed from twice"
    nxt = dict(links)
    cur, last = "mem://start", None
    for _ in links:
        last, cur = cur, nxt[cur]
    assert tool(uri, "load", "race.t").stdout.strip() == f'"{cur}"'
    conn = psycopg2.connect(uri)
    with conn.cursor() as c:
        c.execute("SELECT metadata_location, previous_metadata_location, iceberg_type "
                  "FROM iceberg_tables WHERE catalog_name = 'floe'")
        assert c.fetchall() == [(cur, last, "TABLE")]
    conn.close()
