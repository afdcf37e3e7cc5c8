"""Readers and writers stream: converting a file many times larger than
floe's memory budget must keep floe's peak RSS far below the data's size.

The file is made by floe itself; pyarrow confirms its row count so that a
reader that silently stops early cannot pass."""
import subprocess

import pyarrow.parquet as pq

from conftest import FLOE, run_floe

ROWS = 3_000_000
SCHEMA = ("id long not null, ts timestamptz, name string, note string, price decimal(12,2), "
          "tags list<string>")


def peak_rss_mib(*args):
    """Runs floe with args under GNU time; returns (exit status, stderr, peak
    RSS in MiB). GNU time forks floe itself, so the figure is floe's alone and
    not inherited from this Python process."""
    proc = subprocess.run(["/usr/bin/time", "-f", "PEAK_RSS_KB=%M", str(FLOE), *map(str, args)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = proc.stderr.splitlines()
    peak = [l for l in lines if l.startswith("PEAK_RSS_KB=")]
    assert peak, proc.stderr
    err = "\n".join(l for l in lines if not l.startswith("PEAK_RSS_KB="))
    return proc.returncode, err, int(peak[-1].split("=")[1]) / 1024


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
    assert rss < 32, rss
    assert rss_convert < 100, (rss_convert, json_mib)
    assert rss_read < 48, rss_read
    out = run_floe("cat", "--limit", "1", big).stdout
    assert out.startswith('{"id":0,')
