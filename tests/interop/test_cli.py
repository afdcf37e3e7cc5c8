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
