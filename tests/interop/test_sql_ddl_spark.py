"""floe sql's table management read back by Apache Spark (the Iceberg
runtime; the session of test_spark.py on floe's SQLite catalog).

Spark applies equality deletes, which PyIceberg cannot, so it checks that
EXECUTE optimize keeps the rows of an upserted table while dropping its
delete files; it also reads the branches, tags, evolved schemas and specs
the ALTER TABLE statements wrote, and runs its own expire_snapshots on a
table floe compacted.
"""
import json

from test_spark import spark, wh  # noqa: F401  (the module's Spark session and warehouse)

from conftest import run_floe


def sql(w, text):
    proc = run_floe("--warehouse", w, "sql", "--format", "jsonl", "-c", text)
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def test_spark_reads_what_floe_sql_managed(spark, wh, tmp_path):  # noqa: F811
    run_floe("--warehouse", wh, "ns", "create", "ddl")
    run_floe("--warehouse", wh, "table", "create", "ddl.u", "--schema",
             "id long not null, v string", "--identifier", "id")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,v\n1,one\n2,two\n3,three\n")
    b.write_text("id,v\n2,TWO\n4,four\n")
    run_floe("--warehouse", wh, "table", "append", "ddl.u", a)
    run_floe("--warehouse", wh, "table", "upsert", "ddl.u", b)
    want = [(1, "one"), (2, "TWO"), (3, "three"), (4, "four")]
    got = sorted(tuple(r) for r in spark.sql("SELECT id, v FROM floe.ddl.u").collect())
    assert got == want
    sql(wh, "ALTER TABLE ddl.u CREATE TAG before_optimize;"
            "ALTER TABLE ddl.u EXECUTE optimize;"
            "ALTER TABLE ddl.u ADD COLUMN note varchar COMMENT 'later' AFTER id;"
            "ALTER TABLE ddl.u SET PROPERTIES partitioning = ARRAY['bucket(id, 4)'];"
            "ALTER TABLE ddl.u CREATE BRANCH dev RETAIN 2 DAYS")
    spark.sql("REFRESH TABLE floe.ddl.u")
    got = sorted(tuple(r) for r in spark.sql("SELECT id, v FROM floe.ddl.u").collect())
    assert got == want
    assert spark.sql("SELECT count(*) FROM floe.ddl.u.delete_files").collect()[0][0] == 0
    assert [f.name for f in spark.table("floe.ddl.u").schema.fields] == ["id", "note", "v"]
    tagged = spark.sql("SELECT id, v FROM floe.ddl.u VERSION AS OF 'before_optimize'").collect()
    assert sorted(tuple(r) for r in tagged) == want
    refs = {r.name: (r.type, r.max_reference_age_in_ms)
            for r in spark.sql("SELECT * FROM floe.ddl.u.refs").collect()}
    assert refs["dev"] == ("BRANCH", 2 * 86400000)
    assert refs["before_optimize"][0] == "TAG"
    ops = [r.operation for r in
           spark.sql("SELECT operation FROM floe.ddl.u.snapshots ORDER BY committed_at").collect()]
    assert ops[-1] == "replace"
    spec = spark.sql("DESCRIBE floe.ddl.u").collect()
    assert any(r.data_type == "bucket(4, id)" for r in spec)
    # Spark writes on top of floe's evolution, and floe reads it back.
    spark.sql("INSERT INTO floe.ddl.u VALUES (5, 'n5', 'five')")
    rows = sql(wh, "SELECT id, note, v FROM ddl.u WHERE id = 5")
    assert rows == [{"id": 5, "note": "n5", "v": "five"}]
