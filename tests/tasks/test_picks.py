"""The recipe helpers every pack shares (`stateforge.tasks.picks`), once, on the real shop database."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from stateforge.tasks import RecipeContext, Skip, Workspace, picks, recipe
from stateforge.tools import Toolkit


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def noop(ctx: RecipeContext) -> None:
    """Only a context for the helpers."""


@pytest.fixture(scope="module")
def ws(shop_db: Path):
    with Workspace(shop_db) as workspace:
        yield workspace


def context(ws: Workspace, kit: Toolkit, seed: int = 3) -> RecipeContext:
    return RecipeContext(ws, kit, noop, seed=seed, attempt=1)


PER_CUSTOMER = (
    "SELECT customer_id, tier, count(*) AS n FROM orders JOIN customers USING (customer_id) GROUP BY ALL"
)


def test_sized_picks_a_row_of_a_band_with_rows_and_skips_when_none_has(ws: Workspace, shop_kit: Toolkit):
    counts = sorted(r["n"] for r in ws.query(PER_CUSTOMER))
    low, high = counts[0], counts[-1]
    for seed in range(6):
        row = picks.sized(
            context(ws, shop_kit, seed), PER_CUSTOMER, what="customer", bands=((low, high),), weights=(1.0,)
        )
        assert low <= row["n"] <= high
    empty_band = ((high + 1, high + 10), (low, high))
    row = picks.sized(
        context(ws, shop_kit), PER_CUSTOMER, what="customer", bands=empty_band, weights=(0.99, 0.01)
    )
    assert low <= row["n"] <= high  # the drawn band had no row: the other one was tried
    with pytest.raises(Skip, match="no customer"):
        picks.sized(
            context(ws, shop_kit),
            PER_CUSTOMER,
            what="customer",
            bands=((high + 1, high + 9),),
            weights=(1.0,),
        )
    with pytest.raises(ValueError, match="one weight a band"):
        picks.sized(
            context(ws, shop_kit), PER_CUSTOMER, what="customer", bands=((1, 2), (3, 4)), weights=(1,)
        )


def test_sized_is_the_same_for_the_same_seed_and_spread_draws_values_first(ws: Workspace, shop_kit: Toolkit):
    first = [
        picks.sized(context(ws, shop_kit, s), PER_CUSTOMER, what="c", bands=((1, 10**6),), weights=(1,))
        for s in range(5)
    ]
    again = [
        picks.sized(context(ws, shop_kit, s), PER_CUSTOMER, what="c", bands=((1, 10**6),), weights=(1,))
        for s in range(5)
    ]
    assert first == again
    tiers = {r["tier"] for r in ws.query(PER_CUSTOMER)}
    drawn = {
        picks.sized(
            context(ws, shop_kit, s), PER_CUSTOMER, what="c", bands=((1, 10**6),), weights=(1,), spread="tier"
        )["tier"]
        for s in range(40)
    }
    assert drawn == tiers  # every tier is drawn, however many customers each has


def test_introduce_records_the_uniqueness_and_opens_the_instruction(ws: Workspace, shop_kit: Toolkit):
    who = ws.query("SELECT email, name FROM customers ORDER BY customer_id LIMIT 1")[0]
    ctx = context(ws, shop_kit)
    sentence = picks.introduce(
        ctx, "customer", "customers", {"email": who["email"]}, who["name"], who["email"]
    )
    assert who["name"] in sentence and who["email"] in sentence and ctx.instruction == sentence
    [reference] = ctx._references
    assert reference.entity == f"customer {who['email']}" and reference.expected == 1
    tier = ws.query("SELECT tier, count(*) AS n FROM customers GROUP BY ALL HAVING n > 1 LIMIT 1")[0]["tier"]
    with pytest.raises(Skip, match="ambiguous reference"):
        picks.introduce(context(ws, shop_kit), "customer", "customers", {"tier": tier}, "Someone")


def test_unused_values_and_proofs_of_absence(ws: Workspace, shop_kit: Toolkit):
    product = ws.query("SELECT title, category_code FROM products ORDER BY product_id LIMIT 1")[0]
    ctx = context(ws, shop_kit)
    taken = product["title"].upper()  # any letter case counts as taken
    assert picks.unused_value(ctx, "products", "title", [taken, "Nope 9000"]) == "Nope 9000"
    assert picks.unused_value(ctx, "products", "title", [taken]) is None
    elsewhere = picks.unused_value(ctx, "products", "title", [taken], where={"category_code": "no-such-code"})
    assert elsewhere == taken  # not taken within that scope
    entity, sql, params, expected = picks.absent("product Nope", "products", "title", "nope 9000")
    assert ws.query(sql, params)[0] == {"count_star()": 0} and expected == 0 and entity == "product Nope"


def test_unique_within_keeps_the_rows_their_names_pick_out(ws: Workspace):
    unique = picks.unique_within("p", "products", ["category_code"], ["title"])
    kept = ws.query(f"SELECT count(*) AS n FROM products AS p WHERE {unique}")[0]["n"]
    shared = ws.query(
        "SELECT count(*) AS n FROM products AS p WHERE (SELECT count(*) FROM products AS o WHERE "
        "o.category_code = p.category_code AND lower(o.title) = lower(p.title)) > 1"
    )[0]["n"]
    total = ws.query("SELECT count(*) AS n FROM products")[0]["n"]
    assert kept + shared == total and kept > 0


def test_thresholds_come_from_the_data_and_a_band_of_counts(ws: Workspace, shop_kit: Toolkit):
    ctx = context(ws, shop_kit)
    points = picks.cut_points(ctx, [5, 1, None, 3, 3, 9, 7, 2, 8, 4, 6], low=0.2, high=0.8)
    assert sorted(points) == [2, 3, 4, 5, 6, 7] and picks.cut_points(ctx, [None]) == []
    below = [1, 2, 2, 3, 5, 8]

    def count(p: int) -> int:
        return sum(v < p for v in below)

    assert picks.cut_for(ctx, [3, 4, 9], count, 3, 4) in [(3, 3), (4, 4)]  # drawn among those in the band
    assert picks.cut_for(ctx, [9, 2], count, 20, 30) == (9, 6)  # none inside: the nearest count
    assert picks.cut_for(ctx, [1], count, 1, 5) is None


def test_days_and_id_lists_for_goals() -> None:
    day = dt.date(2026, 6, 30)
    seen = (dt.datetime(2026, 6, 30, 23, 59), day, "2026-06-30T08:00:00")
    assert [picks.day_of(v) for v in seen] == [day] * 3
    assert picks.day_of(None) is None and picks.in_list([3, "7"]) == "(3, 7)"
    with pytest.raises(Skip, match="nothing to act on"):
        picks.in_list([])


def test_difficulty_follows_a_measure_of_the_draft(ws: Workspace, shop_kit: Toolkit):
    ctx = context(ws, shop_kit)
    picks.difficulty_when(ctx, False, "hard", "full_data_acquisition")
    assert (ctx.difficulty, "full_data_acquisition" in ctx.capabilities) == ("easy", False)
    picks.difficulty_when(ctx, True, "hard", "full_data_acquisition")
    assert (ctx.difficulty, "full_data_acquisition" in ctx.capabilities) == ("hard", True)
