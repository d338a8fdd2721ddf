"""The report of a database made with `init-db` (no build, no pack config) holding every kind of column:
times of day, intervals, decimals, UUIDs, blobs, lists, an all-NULL column, a long tail, an empty table."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.graph import plan_fill
from stateforge.report import collect, render
from stateforge.schema import parse_ddl
from stateforge.store import create_database

pytestmark = pytest.mark.xdist_group("report")

DDL = '''
CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, name VARCHAR NOT NULL);
CREATE TABLE things (
  thing_id INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES owners(owner_id),
  price DECIMAL(8,2), opens TIME, lasts INTERVAL, token UUID, raw BLOB, tags VARCHAR[],
  never VARCHAR, hits BIGINT, born TIMESTAMPTZ, kind VARCHAR NOT NULL
);
CREATE TABLE empty_one (id INTEGER PRIMARY KEY, note VARCHAR);
CREATE TABLE "Odd <Name>" ("Item Id" INTEGER PRIMARY KEY, "Unit ""Price""" DOUBLE,
  "Thing" INTEGER REFERENCES things(thing_id));
'''

ROWS = """
INSERT INTO owners SELECT i, 'owner ' || i FROM range(1, 41) t(i);
INSERT INTO things SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 1 + (i * i) % 40 END,
  (i % 97) * 1.25, TIME '08:00:00' + INTERVAL (i % 600) MINUTE, INTERVAL (i % 90) SECOND, uuid(),
  '\\xAA'::BLOB, ['a', 'b' || (i % 3)], NULL, CASE WHEN i % 50 = 0 THEN 100000000 ELSE i % 300 END,
  TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) HOUR, (['x', 'y', 'z'])[1 + i % 3]
FROM range(1, 1001) t(i);
INSERT INTO "Odd <Name>" SELECT i, i * 0.5, 1 + i % 5 FROM range(1, 101) t(i);
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    schema = parse_ddl(DDL, "duckdb", source="types.sql")
    path = create_database(schema, plan_fill(schema), tmp_path_factory.mktemp("types") / "types.duckdb")
    with duckdb.connect(str(path)) as con:
        con.execute(ROWS)
    return path


def test_every_kind_of_column_is_profiled(db: Path):
    profile = collect(db)
    things = next(t for t in profile.tables if t.name == "things")
    by = {c.name: c for c in things.columns}
    assert by["opens"].kind == "clock" and sum(by["opens"].histogram.counts) == 1000
    assert by["lasts"].kind == "interval" and by["lasts"].histogram is not None
    assert by["price"].kind == "number" and by["price"].mean is not None
    assert by["token"].examples and by["raw"].note.startswith(("One value", "Binary"))
    assert by["tags"].values is not None and by["tags"].values.total == 1000
    assert by["never"].nulls == 1000 and by["never"].note == "Every value is NULL."
    assert by["hits"].histogram.log, "a long tail of non-negative counts gets logarithmic bins"
    assert by["born"].kind == "time" and by["born"].histogram is not None
    empty = next(t for t in profile.tables if t.name == "empty_one")
    assert empty.rows == 0 and all(c.note == "Every value is NULL." for c in empty.columns)
    owners = next(f for f in things.fanouts if f.parent == "owners")
    assert owners.null_keys == 142 and sum(k * n for k, n in owners.distribution) == 1000 - 142
    assert profile.inputs is None and profile.rules == [] and "no pack config" in profile.notes[0]


def test_quoted_names_are_queried_and_escaped(db: Path):
    profile = collect(db)
    odd = next(t for t in profile.tables if t.name == "Odd <Name>")
    price = next(c for c in odd.columns if c.name == 'Unit "Price"')
    assert odd.rows == 100 and price.histogram is not None and price.mean == pytest.approx(25.25)
    assert odd.fanouts[0].parents == 1000 and odd.fanouts[0].childless == 995
    html = render(profile)
    assert "Odd <Name>" not in html and "Odd &lt;Name&gt;" in html
    assert 'id="t-odd--name-"' in html and 'href="#t-odd--name-"' in html


def test_the_page_says_what_it_could_not_check(db: Path):
    html = render(collect(db))
    assert "The file records no pack config" in html
    assert html.count('class="plot"') >= 8
    assert "Every value is NULL." in html and "empty_one" in html
