"""The command line itself: --version, --help, help COMMAND, usage errors."""
import re

from conftest import run_floe


def test_version():
    out = run_floe("--version").stdout
    assert re.fullmatch(r"floe \d+\.\d+\.\d+\n", out)


def test_help_lists_every_command():
    out = run_floe("--help").stdout
    for cmd in ("convert", "inspect", "cat", "generate", "demo", "help"):
        assert re.search(rf"^  {cmd} ", out, re.M), cmd


def test_help_command_shows_options():
    out = run_floe("help", "convert").stdout
    assert "--schema" in out and "--compression" in out and "--row-group-size" in out
    assert run_floe("convert", "--help").stdout == out


def test_unknown_command_and_option_are_usage_errors():
    p = run_floe("frobnicate", check=False)
    assert p.returncode == 2 and "unknown command 'frobnicate'" in p.stderr
    p = run_floe("convert", "--bogus", "a.csv", "b.parquet", check=False)
    assert p.returncode == 2 and "--bogus" in p.stderr
    p = run_floe("help", "nope", check=False)
    assert p.returncode == 1 and "unknown command 'nope'" in p.stderr


def test_bad_schema_names_position(tmp_path):
    p = run_floe("generate", "--schema", "id lung", str(tmp_path / "x.jsonl"), check=False)
    assert p.returncode == 2
    assert "unknown type at position 4" in p.stderr


def test_unknown_extension_is_named(tmp_path):
    src = tmp_path / "x.jsonl"
    run_floe("generate", "--schema", "a int", "--rows", "3", src)
    p = run_floe("convert", src, tmp_path / "x.xyz", check=False)
    assert p.returncode == 1 and "x.xyz" in p.stderr and "unknown file format" in p.stderr


def test_missing_input_names_file(tmp_path):
    p = run_floe("cat", tmp_path / "missing.parquet", check=False)
    assert p.returncode == 1 and "missing.parquet" in p.stderr


def _sql_table(out, header):
    """The rows of the aligned table printed after the line starting with header."""
    lines = out[out.index(header):].splitlines()
    rows = []
    for line in lines[2:]:
        if line.startswith("("):
            break
        rows.append([c.strip() for c in line.split("|")])
    return lines[0], rows


def test_demo_runs_sql_join_time_travel_and_metadata_tables(tmp_path):
    out = run_floe("demo", "--dir", tmp_path / "demo", "--rows", "3000").stdout
    # 9: the aggregate.
    assert "== 9. an aggregate query with floe sql" in out
    # 10: the join with the pages dimension: every click with a url is on a
    # page (the generator leaves some urls NULL, which join nothing).
    assert "JOIN demo.pages p ON e.url = p.url" in out
    head, rows = _sql_table(out, "section | events")
    assert {r[0] for r in rows} == {"home", "sales", "docs", "blog", "account", "company"}
    assert 2500 < sum(int(r[1]) for r in rows) < 3000
    assert [int(r[1]) for r in rows] == sorted((int(r[1]) for r in rows), reverse=True)
    # 11: time travel shows the first day only, the current table all three.
    i = out.index("FOR VERSION AS OF 'day1'")
    _, then = _sql_table(out[i:], "day        | events")
    _, now = _sql_table(out[out.index("GROUP BY 1 ORDER BY 1", i + 60):], "day        | events")
    assert then == [["2026-11-30", "1000"]]
    assert now == [["2026-11-30", "1000"], ["2026-12-01", "1000"], ["2026-12-02", "1000"]]
    # 12: the metadata tables.
    _, commits = _sql_table(out, "commit | operation")
    assert commits == [["1", "append", "1000", "1000", "1"], ["2", "append", "1000", "2000", "2"],
                       ["3", "append", "1000", "3000", "3"]]
    _, parts = _sql_table(out, "day        | record_count")
    assert [r[:3] for r in parts] == [["2026-11-30", "1000", "1"], ["2026-12-01", "1000", "1"],
                                      ["2026-12-02", "1000", "1"]]
    # The demo can run again over its own folder.
    again = run_floe("demo", "--dir", tmp_path / "demo", "--rows", "3000").stdout
    assert _sql_table(again, "commit | operation")[1] == commits
