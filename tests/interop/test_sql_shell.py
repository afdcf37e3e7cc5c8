"""The interactive `floe sql` shell (src/cli/sql_shell.c) on a real
pseudo-terminal.

build/tests/shell_tool hosts the shell with an execute callback that echoes
each statement it receives as `EXEC line:column [format] text` (newlines as
\\n) and the describe commands over the real SQLite catalog of a warehouse
made with `floe ns create` and `floe table create`. The terminal is driven
with Python's pty module: keys go in as bytes, and the test waits for what
the shell prints.
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time

import pytest

from conftest import FLOE, ROOT, run_floe

TOOL = ROOT / "build" / "tests" / "shell_tool"
# Prompts at the start of a line; libedit redraws a recalled line after a
# bare "\r", which must not count as a new prompt.
PROMPT = b"\nfloe> "
CONTINUE = b"\n   -> "


class Term:
    """One shell_tool process on its own pseudo-terminal."""

    def __init__(self, wh, env_extra=None, drop=(), cwd=None, argv=None):
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["TERM"] = "dumb"
        env.update(env_extra or {})
        pid, fd = pty.fork()
        if pid == 0:
            if cwd:
                os.chdir(cwd)
            argv = argv or [str(TOOL), "--warehouse", str(wh)]
            os.execve(argv[0], argv, env)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
        self.pid, self.fd, self.buf, self.status = pid, fd, b"", None

    def send(self, data, raw=True):
        """Types data once the shell reads the terminal in raw mode. libedit
        draws the prompt before it leaves canonical mode, and a Ctrl-D typed
        in that gap is eaten by the line discipline; a person never types
        that fast, a test does."""
        deadline = time.time() + 5
        while raw and time.time() < deadline:
            try:
                if not termios.tcgetattr(self.fd)[3] & termios.ICANON:
                    break
            except termios.error:
                break
            time.sleep(0.005)
        os.write(self.fd, data)

    def _fill(self, deadline):
        left = deadline - time.time()
        if left <= 0:
            return False
        r, _, _ = select.select([self.fd], [], [], left)
        if not r:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not chunk:
            return False
        self.buf += chunk
        return True

    def expect(self, pattern, timeout=10):
        """Waits for pattern (bytes regex or literal) and consumes the output
        up to the end of its match; returns the text before the match."""
        rx = re.compile(pattern if isinstance(pattern, re.Pattern) else re.escape(pattern))
        deadline = time.time() + timeout
        while True:
            m = rx.search(self.buf)
            if m:
                before = self.buf[:m.start()]
                self.buf = self.buf[m.end():]
                return before
            if not self._fill(deadline):
                raise AssertionError(f"waiting for {rx.pattern!r}; the shell printed {self.buf!r}")

    def line(self, text):
        """Types text and Enter, then waits for the next prompt of either kind;
        returns everything the shell printed in between."""
        self.send(text.encode() + b"\r")
        return self.expect(re.compile(re.escape(PROMPT) + b"|" + re.escape(CONTINUE)))

    def drain(self, seconds=0.3):
        """Reads whatever arrives for a short while (for checks that nothing does)."""
        deadline = time.time() + seconds
        while self._fill(deadline):
            pass
        out, self.buf = self.buf, b""
        return out

    def wait(self, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            self._fill(min(deadline, time.time() + 0.1))
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                os.close(self.fd)
                return self.status
        raise AssertionError(f"shell did not exit; it printed {self.buf!r}")

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except ProcessLookupError:
                pass
            os.close(self.fd)
            self.status = -9


def execs(output):
    """The statements the echo callback reported, as (line, column, format, text)."""
    return [(int(m[1]), int(m[2]), m[3].decode(), m[4].decode())
            for m in re.finditer(rb"EXEC (\d+):(\d+) \[(\w+)\] ([^\r\n]*)", output)]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is missing: run 'make' first")
    wh = tmp_path_factory.mktemp("shell") / "wh"
    run_floe("--warehouse", wh, "ns", "create", "db")
    run_floe("--warehouse", wh, "table", "create", "db.t",
             "--schema", "id long not null, ts timestamptz, name string, amount decimal(10,2)",
             "--partition", "day(ts), bucket(8, id)")
    run_floe("--warehouse", wh, "ns", "create", "other")
    run_floe("--warehouse", wh, "table", "create", "other.t", "--schema", "x int")
    run_floe("--warehouse", wh, "table", "create", "other.only", "--schema", "y string not null",
             "--sort", "y DESC")
    return wh


@pytest.fixture
def term(warehouse, tmp_path):
    t = Term(warehouse, env_extra={"FLOE_HISTORY": str(tmp_path / "history")})
    t.expect(PROMPT)
    yield t
    t.close()


def test_multi_line_statement_arrives_whole(term):
    out = term.line("SELECT a,")
    assert out.endswith(b"SELECT a,\r")
    assert term.buf == b""  # the continuation prompt was the match
    out = term.line("   b")
    out += term.line("FROM t;")
    assert execs(out) == [(1, 1, "table", "SELECT a,\\n   b\\nFROM t")]


def test_continuation_prompt_then_main_prompt(term):
    term.send(b"SELECT 1\r")
    term.expect(CONTINUE)
    term.send(b";\r")
    before = term.expect(PROMPT)
    assert execs(before) == [(1, 1, "table", "SELECT 1")]


def test_two_statements_on_one_line(term):
    out = term.line("  SELECT 1;SELECT 'x' ;  SELECT")
    assert execs(out) == [(1, 3, "table", "SELECT 1"), (1, 12, "table", "SELECT 'x'")]
    out = term.line("  2 ;")
    # The open third statement keeps its position on the first line.
    assert execs(out) == [(1, 26, "table", "SELECT\\n  2")]


def test_semicolons_in_strings_and_comments_do_not_split(term):
    out = term.line("SELECT 'a;b', \"c;d\" -- e;f")
    assert execs(out) == []
    out = term.line("/* g;")
    assert execs(out) == []
    out = term.line("h; */ 'it''s;';")
    assert execs(out) == [
        (1, 1, "table", "SELECT 'a;b', \"c;d\" -- e;f\\n/* g;\\nh; */ 'it''s;'")]


def test_statement_set_waits_for_end(term):
    out = term.line("BEGIN STATEMENT SET;")
    out += term.line("INSERT INTO a SELECT 1;")
    out += term.line("END")
    assert execs(out) == []
    out = term.line(";")
    assert execs(out) == [
        (1, 1, "table", "BEGIN STATEMENT SET;\\nINSERT INTO a SELECT 1;\\nEND")]


def test_ctrl_c_clears_the_input(term):
    out = term.line("SELECT 'open")
    assert execs(out) == []
    term.send(b"more text")
    term.expect(b"more text")
    term.send(b"\x03")
    term.expect(PROMPT)
    out = term.line("SELECT 5;")
    assert execs(out) == [(1, 1, "table", "SELECT 5")]
    term.send(b"\x04")
    assert term.wait() == 0


def test_ctrl_c_stops_a_running_statement(term):
    term.send(b"SLEEP; SELECT 9;\r")
    term.expect(b"sleeping")
    term.send(b"\x03", raw=False)  # the statement runs with the terminal in cooked mode
    out = term.expect(PROMPT)
    assert b"woken by Ctrl-C" in out and b"were not run" in out
    assert execs(out) == []
    assert execs(term.line("SELECT 10;")) == [(1, 1, "table", "SELECT 10")]


def test_ctrl_d_quit_exit(warehouse, tmp_path):
    for keys in (b"\x04", b"quit\r", b"exit;\r", b"\\q\r"):
        t = Term(warehouse, env_extra={"FLOE_HISTORY": str(tmp_path / "h")})
        try:
            t.expect(PROMPT)
            t.send(keys)
            assert t.wait() == 0, keys
        finally:
            t.close()


def test_errors_do_not_stop_the_shell(term):
    out = term.line("FAIL now; SELECT 2;")
    assert b"failed on purpose" in out
    assert execs(out) == [(1, 11, "table", "SELECT 2")]
    out = term.line("SELECT 1e;")
    assert b"malformed number" in out and b"^" in out
    assert execs(term.line("SELECT 3;")) == [(1, 1, "table", "SELECT 3")]


def test_history_written_and_recalled(warehouse, tmp_path):
    hist = tmp_path / "history"
    t = Term(warehouse, env_extra={"FLOE_HISTORY": str(hist)})
    try:
        t.expect(PROMPT)
        t.line("SELECT 'first';")
        t.line("SELECT 41,")
        t.line("  42;")
        t.send(b"\x04")
        assert t.wait() == 0
    finally:
        t.close()
    text = hist.read_bytes()
    assert b"'first'" in text and b"41" in text and b"42" in text

    t = Term(warehouse, env_extra={"FLOE_HISTORY": str(hist)})
    try:
        t.expect(PROMPT)
        t.send(b"\x1b[A")  # up: the last entry, the two-line statement
        t.send(b"\x1b[A")  # up again: the one before
        t.send(b"\r")
        out = t.expect(PROMPT)
        assert execs(out) == [(1, 1, "table", "SELECT 'first'")]
        t.send(b"\x1b[A\x1b[A\r")  # now 'first' is newest; two up is the 41, 42 entry
        out = t.expect(PROMPT)
        assert execs(out) == [(1, 1, "table", "SELECT 41,\\n  42")]
        t.send(b"\x04")
        assert t.wait() == 0
    finally:
        t.close()


def test_no_history_without_home(warehouse, tmp_path):
    t = Term(warehouse, drop=("HOME", "FLOE_HISTORY"), cwd=tmp_path)
    try:
        t.expect(PROMPT)
        assert execs(t.line("SELECT 1;")) == [(1, 1, "table", "SELECT 1")]
        t.send(b"\x04")
        assert t.wait() == 0
    finally:
        t.close()
    assert list(tmp_path.iterdir()) == []

    home = tmp_path / "home"
    home.mkdir()
    t = Term(warehouse, env_extra={"HOME": str(home)}, drop=("FLOE_HISTORY",))
    try:
        t.expect(PROMPT)
        t.line("SELECT 'home';")
        t.send(b"\x04")
        assert t.wait() == 0
    finally:
        t.close()
    assert b"'home'" in (home / ".floe_history").read_bytes()


def test_describe_commands(term):
    out = term.line("\\d")
    assert out.splitlines()[1:] == [b"db.t", b"other.only", b"other.t"]
    out = term.line("\\dn")
    assert out.splitlines()[1:] == [b"db", b"other"]
    out = term.line("\\d db")
    assert out.splitlines()[1:] == [b"db.t"]
    out = term.line("\\d db.t")
    lines = [l.split() for l in out.splitlines()[1:]]
    assert lines == [
        [b"table", b"db.t"],
        [b"id", b"long", b"not", b"null"],
        [b"ts", b"timestamptz"],
        [b"name", b"string"],
        [b"amount", b"decimal(10,2)"],
        [b"partitioned", b"by:", b"day(ts),", b"bucket[8](id)"],
    ]
    # Without a schema: the one schema that has it, or which ones to choose from.
    out = term.line("\\d only")
    assert [l.split() for l in out.splitlines()[1:]] == [
        [b"table", b"other.only"],
        [b"y", b"string", b"not", b"null"],
        [b"partitioned", b"by:", b"nothing"],
        [b"sorted", b"by:", b"identity(y)", b"desc", b"nulls", b"last"],
    ]
    out = term.line("\\d t")
    assert b"several schemas hold it (db.t, other.t)" in out
    out = term.line("\\d nosuch")
    assert b"no table or schema of that name" in out
    out = term.line("\\d db.missing")
    assert b"db.missing" in out
    assert execs(term.line("SELECT 1;")) == [(1, 1, "table", "SELECT 1")]


def test_format_and_timing(term):
    out = term.line("\\format csv")
    assert b"format is csv" in out
    assert execs(term.line("SELECT 1;")) == [(1, 1, "csv", "SELECT 1")]
    out = term.line("\\format yaml")
    assert b"unknown format 'yaml'" in out
    assert execs(term.line("SELECT 1;"))[0][2] == "csv"
    out = term.line("\\timing on")
    assert b"timing is on" in out
    out = term.line("SELECT 2;")
    assert re.search(rb"EXEC 1:1 \[csv\] SELECT 2\r\nTime: \d+\.\d{3} ms", out)
    out = term.line("\\timing off")
    out = term.line("SELECT 3;")
    assert b"Time:" not in out
    out = term.line("\\nosuch")
    assert b"unknown command \\nosuch" in out
    out = term.line("help")
    assert b"\\dn" in out and b"\\timing" in out


def test_not_interactive_without_a_terminal(warehouse, tmp_path):
    script = "SELECT 1; SELECT\n  'a;b'; -- c;\n\\d\nSELECT 3"
    p = subprocess.run([str(TOOL), "--warehouse", str(warehouse)], input=script,
                       capture_output=True, text=True, timeout=30,
                       env={**os.environ, "FLOE_HISTORY": str(tmp_path / "h")})
    assert p.returncode == 0
    assert "floe>" not in p.stdout and "->" not in p.stdout
    assert p.stdout.splitlines() == [
        "interactive: no",
        "EXEC 1:1 [table] SELECT 1",
        "EXEC 1:11 [table] SELECT\\n  'a;b'",
        "db.t", "other.only", "other.t",
        "EXEC 1:1 [table] SELECT 3",  # the last statement needs no ';'
    ]
    assert not (tmp_path / "h").exists()  # no history without a terminal
    p = subprocess.run([str(TOOL), "--warehouse", str(warehouse)], input="SELECT 'open",
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0
    assert "line 1, column 8: unterminated string literal" in p.stderr
    assert "EXEC" not in p.stdout


def test_resize_keeps_the_line(term):
    term.send(b"SELECT 7")
    term.expect(b"SELECT 7")
    # A new window size sends SIGWINCH to the shell; the half-typed line stays.
    fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    time.sleep(0.2)
    term.send(b";\r")
    out = term.expect(PROMPT)
    assert execs(out) == [(1, 1, "table", "SELECT 7")]


def test_floe_sql_runs_the_shell_on_a_terminal(tmp_path):
    """`floe sql` with a terminal on stdin is the shell over the real engine:
    statements typed over several lines run, a bad one shows its error with
    a caret and the shell goes on, \\d sees the table made through SQL."""
    wh = tmp_path / "wh"
    wh.mkdir()
    t = Term(wh, env_extra={"FLOE_HISTORY": ""},
             argv=[str(FLOE), "--warehouse", str(wh), "sql", "--format", "csv"])
    try:
        t.expect(PROMPT.lstrip(b"\n"))
        t.line("CREATE SCHEMA db;")
        t.line("CREATE TABLE db.t (id bigint, name varchar);")
        t.line("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'),")
        t.line("  (3, NULL);")
        t.send(b"SELECT count(*) AS n, max(id) AS m FROM db.t WHERE id >\r")
        t.expect(CONTINUE)
        out = t.line("1;")
        text = out.decode().replace("\r", "")
        assert "n,m" in text and "2,3" in text, text
        out = t.line("SELECT nosuch FROM db.t;").decode().replace("\r", "")
        assert "nosuch" in out and "^" in out, out
        out = t.line("\\d").decode().replace("\r", "")
        assert "db.t" in out, out
        out = t.line("SELECT name FROM db.t ORDER BY id LIMIT 1;").decode().replace("\r", "")
        assert "name" in out and "\na" in out, out
        t.send(b"\x04")
        assert t.wait() == 0
    finally:
        t.close()
