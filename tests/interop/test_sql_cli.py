"""`floe sql` as a command: where statements come from, output formats,
and how errors are reported (one line, the source line, a caret, exit 1)."""
import csv
import io
import json
import subprocess

from conftest import FLOE


def sql(wh, *args, stdin=None):
    return subprocess.run([str(FLOE), "--warehouse", str(wh), "sql", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


Q = "SELECT n, s FROM (VALUES (1, 'a,b'), (2, NULL), (3, 'tab\there')) t(n, s) ORDER BY n"


def test_formats(tmp_path):
    p = sql(tmp_path, "--format", "csv", "-c", Q)
    assert p.returncode == 0, p.stderr
    rows = list(csv.reader(io.StringIO(p.stdout)))
    assert rows == [["n", "s"], ["1", "a,b"], ["2", ""], ["3", "tab\there"]]
    p = sql(tmp_path, "--format", "tsv", "-c", Q)
    assert p.stdout.splitlines() == ["n\ts", "1\ta,b", "2\t", "3\ttab\\there"]
    p = sql(tmp_path, "--format", "json", "-c", Q)
    assert json.loads(p.stdout) == [{"n": 1, "s": "a,b"}, {"n": 2, "s": None},
                                    {"n": 3, "s": "tab\there"}]
    p = sql(tmp_path, "--format", "jsonl", "-c", Q)
    assert [json.loads(l) for l in p.stdout.splitlines()][1] == {"n": 2, "s": None}
    p = sql(tmp_path, "-c", Q)
    lines = p.stdout.splitlines()
    assert lines[0].split("|")[0].strip() == "n" and lines[-1] == "(3 rows)"
    p = sql(tmp_path, "--format", "yaml", "-c", Q)
    assert p.returncode == 2 and "unknown --format" in p.stderr


def test_script_file_and_stdin(tmp_path):
    f = tmp_path / "s.sql"
    f.write_text("CREATE SCHEMA s;\nCREATE TABLE s.t (a bigint, b varchar);\n"
                 "INSERT INTO s.t VALUES (1, 'x'), (2, 'y');\n"
                 "-- a comment; with a semicolon\nSELECT sum(a) AS total FROM s.t;\n")
    p = sql(tmp_path, "--format", "csv", "-f", f)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["rows", "2", "total", "3"]
    p = sql(tmp_path, "--format", "csv", stdin="SELECT b FROM s.t WHERE a = 2")
    assert p.stdout.splitlines() == ["b", "y"]


def test_errors_point_at_the_token(tmp_path):
    p = sql(tmp_path, "-c", "SELECT 1;\nSELECT x\n  FROM (VALUES 1) t(y)")
    assert p.returncode == 1
    err = p.stderr.splitlines()
    assert err[0] == "floe sql: line 2, column 8: Column 'x' cannot be resolved"
    assert err[1] == "SELECT x"
    assert err[2] == "       ^"
    # The statement before the bad one ran.
    assert "1" in p.stdout
    p = sql(tmp_path, "-c", "SELECT 1 +")
    assert p.returncode == 1 and p.stderr.startswith("floe sql: line 1, column 11:")
    p = sql(tmp_path, "-c", "SELECT 1 / 0")
    assert p.returncode == 1 and "Division by zero" in p.stderr


def test_help(tmp_path):
    p = subprocess.run([str(FLOE), "help", "sql"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "usage: floe" in p.stdout and "--format" in p.stdout


def test_use_sets_the_namespace(tmp_path):
    p = sql(tmp_path, "--format", "csv", "-c",
            "CREATE SCHEMA a; CREATE TABLE a.t (x bigint); INSERT INTO a.t VALUES (5);"
            "USE a; SELECT x FROM t")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-2:] == ["x", "5"]
    p = sql(tmp_path, "-c", "USE nope")
    assert p.returncode == 1 and "Schema does not exist: nope" in p.stderr
