"""Foreign-key sampling: skew, composite keys, link tables, 1:1 keys, per_parent, NULLs, self-references."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from stateforge.domain.config import DomainConfig
from stateforge.errors import BuildError
from stateforge.fill.deferred import fill_deferred
from stateforge.fill.keys import TableKeys
from stateforge.graph import plan_fill
from stateforge.schema.model import Column, ForeignKey, Schema, Table
from stateforge.store import create_tables


def _t(name: str, cols: list[Column], pk: tuple[str, ...] = (), fks: list[ForeignKey] | None = None,
       unique: list[tuple[str, ...]] | None = None) -> Table:
    return Table(name, cols, primary_key=pk, foreign_keys=fks or [], unique=unique or [])


def blog_schema() -> Schema:
    int_ = lambda name, nullable=False: Column(name, "INTEGER", nullable=nullable)  # noqa: E731
    return Schema([
        _t("authors", [int_("id")], ("id",)),
        _t("tags", [int_("id")], ("id",)),
        _t("posts", [int_("id"), int_("author_id")], ("id",),
           [ForeignKey(("author_id",), "authors", ("id",))]),
        _t("post_tags", [int_("post_id"), int_("tag_id")], ("post_id", "tag_id"),
           [ForeignKey(("post_id",), "posts", ("id",)), ForeignKey(("tag_id",), "tags", ("id",))]),
        _t("profiles", [int_("author_id")], ("author_id",), [ForeignKey(("author_id",), "authors", ("id",))]),
        _t("votes", [int_("id"), int_("post_id"), int_("tag_id")], ("id",),
           [ForeignKey(("post_id", "tag_id"), "post_tags", ("post_id", "tag_id"))]),
        _t("slots", [int_("post_id"), int_("n")], (), [ForeignKey(("post_id",), "posts", ("id",))]),
        _t("comments", [int_("id"), int_("post_id"), int_("parent_id", True), int_("editor_id", True)],
           ("id",),
           [ForeignKey(("post_id",), "posts", ("id",)), ForeignKey(("parent_id",), "comments", ("id",)),
            ForeignKey(("editor_id",), "authors", ("id",))]),
    ])


SIZES = {"authors": 1000, "tags": 30, "posts": 400, "post_tags": 600}


@pytest.fixture
def blog() -> tuple[duckdb.DuckDBPyConnection, Schema]:
    """An in-memory blog database whose parent tables already have rows (ids 1..n)."""
    schema = blog_schema()
    con = duckdb.connect()
    create_tables(con, schema, plan_fill(schema))
    for name in ("authors", "tags"):
        con.execute(f"INSERT INTO {name} SELECT i FROM range(1, {SIZES[name] + 1}) r(i)")
    con.execute("INSERT INTO posts SELECT i, 1 + i % 1000 FROM range(1, 401) r(i)")
    con.execute("INSERT INTO post_tags SELECT p.id, t.id FROM posts p, tags t WHERE (p.id + t.id) % 20 = 0")
    return con, schema


def config(**tables: object) -> DomainConfig:
    return DomainConfig.model_validate({"name": "blog", "tables": tables})


def keys_of(con, schema, table: str, rows: int, cfg: DomainConfig | None = None, seed: int = 1) -> pa.Table:
    keys = TableKeys.build(con, schema, plan_fill(schema), cfg or config(), table, seed=seed, rows=rows)
    empty = pa.table({"_": pa.nulls(keys.rows)})
    return keys.attach(empty, 0, keys.rows).drop_columns(["_"])


def test_popularity_is_skewed_and_every_key_exists(blog):
    con, schema = blog
    drawn = keys_of(con, schema, "posts", 20_000).column("author_id").to_numpy()
    assert set(drawn) <= set(range(1, 1001))
    counts = np.sort(np.bincount(drawn, minlength=1001)[1:])[::-1]
    assert counts[:100].sum() / counts.sum() > 0.3  # the top 10% of parents get well over 10%


def test_draws_are_deterministic_by_seed(blog):
    con, schema = blog
    first = keys_of(con, schema, "posts", 500, seed=4)
    assert first.equals(keys_of(con, schema, "posts", 500, seed=4))
    assert not first.equals(keys_of(con, schema, "posts", 500, seed=5))


def test_composite_foreign_keys_take_whole_parent_rows(blog):
    con, schema = blog
    con.register("drawn", keys_of(con, schema, "votes", 2_000))
    missing = con.execute("SELECT count(*) FROM drawn ANTI JOIN post_tags USING (post_id, tag_id)").fetchall()
    assert missing == [(0,)]


def test_link_tables_get_unique_pairs_capped_at_capacity(blog):
    con, schema = blog
    pairs = keys_of(con, schema, "post_tags", 5_000)
    codes = pairs.column("post_id").to_numpy() * 100 + pairs.column("tag_id").to_numpy()
    assert pairs.num_rows == 5_000 and len(np.unique(codes)) == 5_000
    full = keys_of(con, schema, "post_tags", 50_000)  # more than 400 x 30 pairs exist
    assert full.num_rows == 400 * 30
    codes = full.column("post_id").to_numpy() * 100 + full.column("tag_id").to_numpy()
    assert len(np.unique(codes)) == 12_000


def test_unique_foreign_key_is_drawn_without_replacement(blog):
    con, schema = blog
    drawn = keys_of(con, schema, "profiles", 5_000).column("author_id").to_numpy()
    assert len(drawn) == 1_000 and len(np.unique(drawn)) == 1_000


def test_per_parent_exactly_repeats_every_parent(blog):
    con, schema = blog
    drawn = keys_of(con, schema, "slots", 1, config(slots={"per_parent": {"fk": "post_id", "exactly": 3}}))
    counts = np.bincount(drawn.column("post_id").to_numpy())[1:]
    assert drawn.num_rows == 1_200 and set(counts) == {3}


def test_per_parent_min_max_hits_the_target(blog):
    con, schema = blog
    cfg = config(slots={"per_parent": {"fk": "post_id", "min": 1, "max": 4}, "rows": 900})
    counts = np.bincount(keys_of(con, schema, "slots", 900, cfg).column("post_id").to_numpy())[1:]
    assert counts.sum() == 900 and counts.min() >= 1 and counts.max() <= 4


def test_nullable_foreign_keys_are_null_at_the_null_rate(blog):
    con, schema = blog
    drawn = keys_of(con, schema, "comments", 10_000)
    share = drawn.column("editor_id").null_count / drawn.num_rows
    assert 0.08 < share < 0.12  # domain null_rate 0.1
    assert drawn.column("post_id").null_count == 0
    assert drawn.column("parent_id").null_count == drawn.num_rows  # deferred: the second pass fills it


def test_self_reference_is_a_forest_with_null_roots(blog):
    con, schema = blog
    con.execute("INSERT INTO comments SELECT i, 1 + i % 400, NULL, NULL FROM range(1, 3001) r(i)")
    filled = fill_deferred(con, schema, plan_fill(schema), config(), seed=3)
    assert filled["comments(parent_id) -> comments(id)"] > 2_000
    assert con.execute("SELECT parent_id FROM comments ORDER BY id LIMIT 1").fetchall()[0] == (None,)
    # every parent is an earlier row, so following parents always ends at a root: no cycles
    assert con.execute("SELECT count(*) FROM comments WHERE parent_id >= id").fetchall()[0] == (0,)
    depth = con.execute("""
        WITH RECURSIVE walk(id, parent_id, depth) AS (
            SELECT id, parent_id, 0 FROM comments
            UNION ALL SELECT w.id, c.parent_id, w.depth + 1 FROM walk w JOIN comments c ON c.id = w.parent_id
            WHERE w.depth < 3000)
        SELECT max(depth) FROM walk""").fetchall()[0][0]
    assert depth < 100
    again = fill_deferred(con, schema, plan_fill(schema), config(), seed=3)
    assert again == filled  # idempotent: a resumed build may run the second pass again


def test_a_not_null_key_into_an_empty_table_is_a_build_error(blog):
    con, schema = blog
    con.execute("DELETE FROM post_tags")
    with pytest.raises(BuildError, match="votes.*post_tags, which has no rows"):
        keys_of(con, schema, "votes", 10)


# --- popularity hints -------------------------------------------------------------------------------


def hinted(columns: dict[str, dict], **tables: object) -> DomainConfig:
    return DomainConfig.model_validate({"name": "blog", "tables": tables, "columns": columns})


def top_share(values: np.ndarray, top: float = 0.1) -> float:
    """Share of the rows that went to the most frequent `top` fraction of the distinct values drawn."""
    counts = np.sort(np.unique(values, return_counts=True)[1])[::-1]
    return counts[: max(1, int(len(counts) * top))].sum() / counts.sum()


def test_a_uniform_hint_turns_popularity_off(blog):
    con, schema = blog
    cfg = hinted({"posts.author_id": {"distribution": "uniform"}})
    drawn = keys_of(con, schema, "posts", 20_000, cfg).column("author_id").to_numpy()
    assert top_share(drawn) < 0.15
    mild = keys_of(con, schema, "posts", 20_000, hinted({"posts.author_id": {"skew": 0.5}}))
    assert 0.15 < top_share(mild.column("author_id").to_numpy()) < top_share(
        keys_of(con, schema, "posts", 20_000).column("author_id").to_numpy())


def test_a_hint_on_one_column_shapes_a_composite_key(blog):
    con, schema = blog
    pairs = lambda t: t.column("post_id").to_numpy() * 100 + t.column("tag_id").to_numpy()  # noqa: E731
    default = pairs(keys_of(con, schema, "votes", 20_000))
    cfg = hinted({"votes.tag_id": {"distribution": "uniform"}})
    uniform = pairs(keys_of(con, schema, "votes", 20_000, cfg))
    assert top_share(uniform) < 0.15 < 0.3 < top_share(default)


def test_link_pairs_follow_the_hint(blog):
    con, schema = blog
    cfg = hinted({"post_tags.post_id": {"distribution": "uniform"}})
    uniform = keys_of(con, schema, "post_tags", 2_000, cfg)
    default = keys_of(con, schema, "post_tags", 2_000)
    assert uniform.num_rows == default.num_rows == 2_000
    flat, skewed = (top_share(t.column("post_id").to_numpy()) for t in (uniform, default))
    assert flat < 0.2 and skewed > flat + 0.1


def test_per_parent_fan_out_follows_a_skew_hint(blog):
    con, schema = blog
    pp = {"per_parent": {"fk": "post_id", "min": 0, "max": 10}, "rows": 2_000}
    skewed = keys_of(con, schema, "slots", 2_000, hinted({"slots.post_id": {"skew": 1.5}}, slots=pp))
    counts = np.bincount(skewed.column("post_id").to_numpy(), minlength=401)[1:]
    assert counts.sum() == 2_000 and counts.max() <= 10
    flat = np.bincount(keys_of(con, schema, "slots", 2_000, config(slots=pp)).column("post_id").to_numpy())
    assert (counts == 10).sum() > 2 * (flat[1:] == 10).sum()  # popular posts fill up to max first


def test_repairs_redraw_with_the_hinted_popularity(blog):
    con, schema = blog
    cfg = hinted({"posts.author_id": {"distribution": "uniform"}})
    keys = TableKeys.build(con, schema, plan_fill(schema), cfg, "posts", seed=1, rows=10)
    redrawn = keys.redraw(keys.position(("author_id",)), 20_000, np.random.default_rng(0))
    assert top_share(redrawn["author_id"].to_numpy()) < 0.15


def test_load_keys_reads_a_not_null_key_plainly_and_anything_else_distinct() -> None:
    """Parents read without DISTINCT only where the table's constraints make them distinct and set: a
    nullable UNIQUE column's NULLs and a non-key column's repeats must never become parents."""
    from stateforge.fill.keys import is_not_null_key, load_keys

    table = _t("codes", [Column("id", "INTEGER", nullable=False), Column("code", "VARCHAR"),
                         Column("tag", "VARCHAR", nullable=False), Column("slot", "INTEGER", nullable=False)],
               ("id",), unique=[("code",), ("tag", "slot")])
    assert is_not_null_key(table, ("ID",)) and is_not_null_key(table, ("slot", "tag"))
    assert not is_not_null_key(table, ("code",)) and not is_not_null_key(table, ("tag",))
    with duckdb.connect() as con:
        create_tables(con, Schema([table]), plan_fill(Schema([table])))
        con.execute("INSERT INTO codes VALUES (3, NULL, 'a', 1), (1, 'x', 'a', 2), (2, NULL, 'b', 1)")
        assert load_keys(con, table, ("id",)).column("id").to_pylist() == [1, 2, 3]
        assert load_keys(con, table, ("code",)).column("code").to_pylist() == ["x"]
        assert load_keys(con, table, ("tag",)).column("tag").to_pylist() == ["a", "b"]
        both = load_keys(con, table, ("tag", "slot"))
        assert both.to_pylist() == [{"tag": "a", "slot": 1}, {"tag": "a", "slot": 2}, {"tag": "b", "slot": 1}]
        assert load_keys(con, "codes", ("id",)).equals(load_keys(con, table, ("id",)))


def _follows(**follows: object) -> DomainConfig:
    return DomainConfig.model_validate({
        "name": "blog", "tables": {"comments": {"per_parent": {"fk": "post_id", "min": 1, "max": 12}}},
        "columns": {"comments.editor_id": {"null_rate": 0, "follows": follows}},
    })


def test_a_key_follows_its_parents_but_for_the_last_guests_and_the_exempt(blog):
    con, schema = blog
    cfg = _follows(via="post_id", column="author_id", at_least=0.75, unless="id % 5 = 0")
    drawn = keys_of(con, schema, "comments", 3000, cfg)
    con.register("drawn", drawn.append_column("k", pa.array(np.arange(drawn.num_rows))))
    per_post = con.sql(
        "SELECT d.post_id, p.id % 5 = 0 AS exempt, count(*) AS n, "
        "count(*) FILTER (WHERE d.editor_id = p.author_id) AS same, "
        "bool_and(d.editor_id = p.author_id OR rn > n - floor(0.25 * n)) AS guests_last "
        "FROM (SELECT *, row_number() OVER (PARTITION BY post_id ORDER BY k) AS rn, "
        "count(*) OVER (PARTITION BY post_id) AS n FROM drawn) AS d JOIN posts AS p ON p.id = d.post_id "
        "GROUP BY d.post_id, exempt").fetchall()
    kept = [(n, same, last) for _, exempt, n, same, last in per_post if not exempt]
    assert kept and all(same >= 0.75 * n and last for n, same, last in kept)
    assert sum(n - same for n, same, _ in kept) > 0  # guests remain, as the share allows
    exempt = [(n, same) for _, ex, n, same, _ in per_post if ex]
    assert sum(same for _, same in exempt) < 0.1 * sum(n for n, _ in exempt)  # drawn freely


def test_follows_names_a_key_of_the_table(blog):
    con, schema = blog
    from stateforge.errors import DomainError
    from stateforge.fill.key_kinds import check_key_hints

    with pytest.raises(DomainError, match=r"comments.editor_id.follows.via.*not a single-column foreign key"):
        check_key_hints(_follows(via="id"), schema)
