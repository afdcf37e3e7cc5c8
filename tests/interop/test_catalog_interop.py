"""floe's SQL catalog and PyIceberg 0.12's SqlCatalog on one database
(SQLite file and PostgreSQL): each sees the other's namespaces,
properties, tables and commits. floe is driven through catalog_tool."""
import json
import sqlite3
import subprocess

import psycopg2
import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError, ValidationException

from conftest import ROOT

TOOL = ROOT / "build" / "tests" / "catalog_tool"

_db_count = [0]


@pytest.fixture(params=["sqlite", "postgresql"])
def cat(request, tmp_path):
    """(floe URI, PyIceberg URI, warehouse, run-SQL function) of a fresh database."""
    wh = tmp_path / "wh"
    wh.mkdir()
    if request.param == "sqlite":
        floe_uri = ""  # the default: <warehouse>/catalog.db
        py_uri = f"sqlite:///{wh}/catalog.db"

        def sql(q, *args):
            with sqlite3.connect(wh / "catalog.db") as conn:
                return conn.execute(q.replace("%s", "?"), args).fetchall()
    else:
        pg_uri = request.getfixturevalue("pg_uri")
        _db_count[0] += 1
        name = f"interop{_db_count[0]}"
        conn = psycopg2.connect(pg_uri)
        conn.autocommit = True
        with conn.cursor() as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}"')
            c.execute(f'CREATE DATABASE "{name}"')
        conn.close()
        floe_uri = pg_uri.rsplit("/", 1)[0] + "/" + name
        py_uri = floe_uri.replace("postgresql://", "postgresql+psycopg2://")

        def sql(q, *args):
            conn = psycopg2.connect(floe_uri)
            try:
                with conn.cursor() as c:
                    c.execute(q, args)
                    return c.fetchall()
            finally:
                conn.close()
    return floe_uri, py_uri, wh, sql


def floe(c, *args, check=True):
    proc = subprocess.run([str(TOOL), c[0], str(c[2]), *map(str, args)], capture_output=True,
                          text=True, timeout=120)
    if check:
        assert proc.returncode == 0, f"catalog_tool {args}: {proc.stderr}"
        out = proc.stdout.strip()
        return json.loads(out) if out else None
    return proc


def pyice(c):
    return SqlCatalog("floe", uri=c[1], warehouse=f"file://{c[2]}")


ROWS = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", "c"])})


@pytest.mark.parametrize("first", ["floe", "pyiceberg"])
def test_namespaces_both_ways(cat, first):
    # Whoever opens the database first creates the schema; the other uses it.
    if first == "floe":
        floe(cat, "ns-list")
    py = pyice(cat)
    floe(cat, "ns-create", "sales", "owner=ann", "comment=it's \"sales\" ü")
    floe(cat, "ns-create", "bare")
    floe(cat, "ns-create", "a.b.c")
    assert sorted(py.list_namespaces()) == [("a",), ("bare",), ("sales",)]
    assert py.list_namespaces("a") == [("a", "b")]
    assert py.load_namespace_properties("sales") == {"owner": "ann",
                                                      "comment": "it's \"sales\" ü"}
    # The JDBC catalog's marker for a namespace made without properties.
    assert py.load_namespace_properties("bare") == {"exists": "true"}
    assert py.namespace_exists("a.b")

    py.create_namespace("py_ns", {"location": "file:///x", "k": "v"})
    py.create_namespace(("py_ns", "child"))
    py.create_namespace("empty")
    assert floe(cat, "ns-list") == ["a", "bare", "empty", "py_ns", "sales"]
    assert floe(cat, "ns-list", "py_ns") == ["py_ns.child"]
    assert floe(cat, "ns-props", "py_ns") == {"location": "file:///x", "k": "v"}
    assert floe(cat, "ns-props", "empty") == {}
    assert floe(cat, "ns-create", "py_ns", check=False).stderr.startswith("EXISTS:")

    py.update_namespace_properties("sales", removals={"comment"}, updates={"tier": "gold"})
    assert floe(cat, "ns-props", "sales") == {"owner": "ann", "tier": "gold"}
    floe(cat, "ns-update", "py_ns", "-k", "new=1")
    assert py.load_namespace_properties("py_ns") == {"location": "file:///x", "new": "1"}
    floe(cat, "ns-drop", "empty")
    assert not py.namespace_exists("empty")
    py.drop_namespace("bare")
    assert floe(cat, "ns-exists", "bare") is False


def test_tables_both_ways(cat):
    py = pyice(cat)
    py.create_namespace("db")
    t = py.create_table("db.events", schema=ROWS.schema)
    v1 = t.metadata_location
    t.append(ROWS)
    v2 = t.metadata_location
    assert v1 != v2
    # floe sees PyIceberg's table and its commit.
    assert floe(cat, "list", "db") == ["events"]
    assert floe(cat, "load", "db.events") == v2
    assert cat[3]("SELECT previous_metadata_location FROM iceberg_tables "
                  "WHERE table_name = %s", "events") == [(v1,)]

    # A floe commit (here: back to the first metadata file) is what
    # PyIceberg loads next; a writer still holding the old state conflicts.
    stale = py.load_table("db.events")
    floe(cat, "swap", "db.events", v2, v1)
    assert py.load_table("db.events").metadata_location == v1
    assert py.load_table("db.events").current_snapshot() is None
    # (PyIceberg's retry then finds its base snapshot gone.)
    with pytest.raises((CommitFailedException, ValidationException)):
        stale.append(ROWS)
    assert floe(cat, "load", "db.events") == v1
    # PyIceberg commits on top of floe's: the chain goes on.
    t = py.load_table("db.events")
    t.append(ROWS)
    v3 = t.metadata_location
    assert floe(cat, "load", "db.events") == v3
    assert cat[3]("SELECT previous_metadata_location FROM iceberg_tables "
                  "WHERE table_name = %s", "events") == [(v1,)]
    p = floe(cat, "swap", "db.events", v2, "file:///nowhere.json", check=False)
    assert p.returncode == 1 and p.stderr.startswith("CONFLICT:") and v3 in p.stderr

    # floe registers a table from metadata PyIceberg wrote; PyIceberg reads it.
    floe(cat, "ns-create", "reg", "owner=floe")
    floe(cat, "register", "reg.copy", v3)
    r = py.load_table("reg.copy")
    assert r.metadata_location == v3
    assert r.scan().to_arrow().num_rows == 3
    assert sorted(py.list_tables("reg")) == [("reg", "copy")]
    assert cat[3]("SELECT iceberg_type FROM iceberg_tables WHERE table_name = %s",
                  "copy") == [("TABLE",)]

    # PyIceberg registers; floe renames and drops; PyIceberg follows.
    py.drop_table("db.events")  # the catalog entry only: files stay
    assert floe(cat, "list", "db") == []
    py.register_table("db.again", v3)
    assert floe(cat, "load", "db.again") == v3
    floe(cat, "rename", "db.again", "reg.renamed")
    assert py.load_table("reg.renamed").metadata_location == v3
    with pytest.raises(NoSuchTableError):
        py.load_table("db.again")
    floe(cat, "drop", "reg.renamed")
    with pytest.raises(NoSuchTableError):
        py.load_table("reg.renamed")
    # PyIceberg renames; floe sees it and commits on it.
    py.rename_table("reg.copy", "db.moved")
    assert floe(cat, "load", "db.moved") == v3
    floe(cat, "swap", "db.moved", v3, v2)
    assert py.load_table("db.moved").scan().to_arrow().num_rows == 3
    assert floe(cat, "ns-drop", "db", check=False).stderr.startswith("INVALID:")


def test_odd_identifiers(cat):
    py = pyice(cat)
    ns = "naïve 'q' \"dq\" 100%_x"
    py.create_namespace(ns, {"k": "日本語"})
    t = py.create_table((ns, "tbl ü"), schema=ROWS.schema)
    assert floe(cat, "ns-list") == [ns]
    assert floe(cat, "ns-props", ns) == {"k": "日本語"}
    assert floe(cat, "list", ns) == ["tbl ü"]
    assert floe(cat, "load", f"{ns}.tbl ü") == t.metadata_location
    floe(cat, "ns-create", "x_y")
    floe(cat, "register", "x_y.'; DROP TABLE iceberg_tables; --", t.metadata_location)
    assert py.list_tables("x_y") == [("x_y", "'; DROP TABLE iceberg_tables; --")]
    # LIKE wildcards in a name do not reach other namespaces.
    assert py.list_namespaces("x_y") == []
    assert floe(cat, "ns-exists", "xzy") is False
