"""Writes the small Parquet files tests/sql/files/*.test read, with pyarrow.

Run from this folder: ../../../../build/venv/bin/python make_data.py
The output is checked in; the script documents how it was made.
"""
import datetime as dt
import os

import pyarrow as pa
import pyarrow.parquet as pq


def table(ids, id_type=pa.int64()):
    n = len(ids)
    names = [None if i % 4 == 3 else f"n{i}" for i in ids]
    price = [None if i % 5 == 4 else i * 1.5 for i in ids]
    day = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in ids]
    ts = [dt.datetime(2024, 1, 1, 12, 0, 0) + dt.timedelta(hours=i) for i in ids]
    flag = [i % 2 == 0 for i in ids]
    return pa.table({
        "id": pa.array(ids, id_type),
        "name": pa.array(names, pa.string()),
        "price": pa.array(price, pa.float64()),
        "day": pa.array(day, pa.date32()),
        "ts": pa.array(ts, pa.timestamp("us")),
        "flag": pa.array(flag, pa.bool_()),
    })


def write(path, t, **kw):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(t, path, **kw)


write("parquet/part1/a.parquet", table(list(range(0, 6))), row_group_size=2)
write("parquet/part1/b.parquet", table(list(range(6, 10))), row_group_size=2)
write("parquet/part2/sub/c.parquet", table([10, 11, 12], pa.int32()))
write("extra/d.parquet", pa.table({"id": pa.array([100, 101], pa.int64()),
                                   "extra": pa.array(["x", None])}))
write("conflict/e.parquet", pa.table({"id": pa.array(["one"]), "name": pa.array(["s"])}))
with open("corrupt.parquet", "wb") as f:
    f.write(b"PAR1 this is not a parquet file PAR1")
