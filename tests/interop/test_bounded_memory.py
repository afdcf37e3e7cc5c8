"""Readers and writers stream: converting a file many times larger than
floe's memory budget must keep floe's peak RSS far below the data's size.

The file is made by floe itself; pyarrow confirms its row count so that a
reader that silently stops early cannot pass."""
import os
import subprocess

import pyarrow.parquet as pq

from conftest import FLOE, run_floe

ROWS = 3_000_000
SCHEMA = ("id long not null, ts timestamptz, name string, note string, price decimal(12,2), "
          "tags list<string>")


def peak_rss_mib(*args):
    """Runs floe with args; returns (exit status, stderr, peak RSS in MiB)."""
    proc = subprocess.Popen([str(FLOE), *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err, usage.ru_maxrss / 1024


def test_parquet_and_json_stream_with_bounded_memory(tmp_path):
    src = tmp_path / "big.jsonl"
    rc, err, rss = peak_rss_mib("generate", "--schema", SCHEMA, "--rows", ROWS, "--max-string", 60,
                                "--sequence", "id", src)
    assert rc == 0, err
    json_mib = src.stat().st_size / 2**20
    assert json_mib > 300  # the data is far larger than the bounds below

    big = tmp_path / "big.parquet"
    rc, err, rss_convert = peak_rss_mib("convert", "--schema", SCHEMA, src, big,
                                        "--row-group-size", "200000")
    assert rc == 0, err
    assert pq.ParquetFile(big).metadata.num_rows == ROWS

    rc, err, rss_read = peak_rss_mib("cat", big)
    assert rc == 0, err
    # Generating, converting and reading hold one batch and one row group's
    # pages at a time, never the file.
    assert rss < 64, rss
    assert rss_convert < 200, (rss_convert, json_mib)
    assert rss_read < 64, rss_read
    out = run_floe("cat", "--limit", "1", big).stdout
    assert out.startswith('{"id":0,')
