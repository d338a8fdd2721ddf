"""The recipe API: the decorator, loading recipes.py by path, the context, infeasible variants, and how a
run reports skips and recipe bugs. Recipes act on the real shop database through its tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateforge.tasks import (
    Gate,
    RecipeContext,
    RecipeDefinitionError,
    Skip,
    Workspace,
    generate_tasks,
    load_recipes,
    read_tasks,
    recipe,
)
from stateforge.tools import Toolkit

RECIPES_PY = '''
from __future__ import annotations

from stateforge.tasks import RecipeContext, recipe


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def order_one(ctx: RecipeContext) -> None:
    """A customer orders two of a product by SKU."""
    who = ctx.pick("SELECT email, name FROM customers", what="customer")
    item = ctx.pick("SELECT sku, title FROM products WHERE in_stock", what="product")
    ctx.unique(f"customer {who['email']}", "customers", email=who["email"])
    ctx.unique(f"product {item['sku']}", "products", sku=item["sku"])
    ctx.speaker(who["name"], who["email"])
    ctx.say(["Please order two of {sku} ({title}) for me.", "I'd like 2 x {sku}, please."],
            sku=item["sku"], title=item["title"])
    ctx.call("place_order", {"email": who["email"], "items": [{"sku": item["sku"], "quantity": 2}]})
    ctx.goal("the order is placed", "SELECT count(*) AS n FROM orders o JOIN customers c USING (customer_id) "
             "WHERE c.email = ?", [who["email"]])
    ctx.infeasible("missing", swap={item["sku"]: item["sku"] + "-X"}, because="there is no such product")


@recipe(capabilities=("aggregation_computation",), difficulty="hard")
def always_skips(ctx: RecipeContext) -> None:
    """Finds nothing to do."""
    ctx.skip("nothing here")


def helper():
    return 1
'''


def test_the_decorator_refuses_what_the_gate_could_not_use():
    def work(ctx: RecipeContext) -> None:
        pass

    def greedy(ctx: RecipeContext, extra: int) -> None:
        pass

    with pytest.raises(
        RecipeDefinitionError, match="unknown capability 'aggregation'.*aggregation_computation"
    ):
        recipe(capabilities=("aggregation",))(work)
    with pytest.raises(RecipeDefinitionError, match="give capabilities"):
        recipe(capabilities=())(work)
    with pytest.raises(RecipeDefinitionError, match="difficulty 'impossible'"):
        recipe(capabilities=("cross_step_dependency",), difficulty="impossible")(work)
    with pytest.raises(RecipeDefinitionError, match="takes one parameter"):
        recipe(capabilities=("cross_step_dependency",))(greedy)
    with pytest.raises(RecipeDefinitionError, match="recipe name 'Bad Name'"):
        recipe(capabilities=("cross_step_dependency",), name="Bad Name")(work)

    @recipe(capabilities=("precise_boundary_judgment", "cross_step_dependency"), difficulty="easy", weight=2)
    def tidy(ctx: RecipeContext) -> None:
        """Tidies up.

        More words."""

    assert tidy.name == "tidy" and tidy.description == "Tidies up." and tidy.weight == 2.0
    assert tidy.capabilities == ("cross_step_dependency", "precise_boundary_judgment")
    assert tidy.source.endswith(f"test_recipes.py:{tidy.fn.__code__.co_firstlineno}")


def test_recipes_load_by_file_path(tmp_path: Path):
    path = tmp_path / "recipes.py"
    path.write_text(RECIPES_PY)
    assert [r.name for r in load_recipes(path)] == ["order_one", "always_skips"]
    path.write_text(RECIPES_PY + "\nRECIPES = [always_skips]\n")
    assert [r.name for r in load_recipes(path)] == ["always_skips"]
    broken = tmp_path / "broken" / "recipes.py"
    broken.parent.mkdir()
    broken.write_text(
        "from stateforge.tasks import recipe\n\n\n@recipe(capabilities=('nope',))\ndef f(ctx):\n    pass\n"
    )
    with pytest.raises(RecipeDefinitionError, match=r"broken/recipes\.py:4.*unknown capability 'nope'"):
        load_recipes(broken)
    broken.write_text("x = 1\ny = undefined_name\n")
    with pytest.raises(
        RecipeDefinitionError, match=r"recipes\.py:2: importing the pack's recipes failed: NameError"
    ):
        load_recipes(broken)
    broken.write_text("x = 1\n")
    with pytest.raises(RecipeDefinitionError, match="defines no recipe"):
        load_recipes(broken)


def test_the_context_reads_the_base_and_acts_on_its_own_episode(
    shop_db: Path, shop_kit: Toolkit, tmp_path: Path
):
    path = tmp_path / "recipes.py"
    path.write_text(RECIPES_PY)
    order_one = load_recipes(path)[0]
    with Workspace(shop_db) as ws:
        first = RecipeContext(ws, shop_kit, order_one, seed=4, attempt=1)
        second = RecipeContext(ws, shop_kit, order_one, seed=4, attempt=1)
        try:
            order_one(first)
            order_one(second)
            draft, variant = first.drafts()
            assert (draft, variant) == second.drafts()  # the same seed and attempt make the same drafts
            assert first.state("SELECT count(*) AS n FROM orders")[0]["n"] == ws.count("orders") + 1
            assert ws.query("SELECT count(*) AS n FROM orders")[0]["n"] == ws.count(
                "orders"
            )  # base untouched
        finally:
            first.close()
            second.close()
        assert draft.instruction.startswith(("I'm ", "This is ", "Hi, ", "Hello, "))
        assert [c.tool for c in draft.calls] == ["place_order"] and len(draft.references) == 2
        assert variant is not None and not variant.feasible
        sku = draft.calls[0].arguments["items"][0]["sku"]
        assert (
            sku + "-X" in variant.instruction and variant.calls[0].arguments["items"][0]["sku"] == sku + "-X"
        )
        assert [r.expected for r in variant.references] == [1, 0]  # the swapped reference proves absence
        other = RecipeContext(ws, shop_kit, order_one, seed=5, attempt=1)
        try:
            order_one(other)
            assert other.drafts()[0] != draft  # another seed, another draft
        finally:
            other.close()
        gate = Gate(ws, shop_kit)
        kept = gate.check(draft)
        refused = gate.check(variant)
        assert kept.task is not None, kept.rejection
        assert refused.task is not None, refused.rejection
        assert refused.task.provenance.infeasible.kind == "missing"
        assert "no product with SKU" in refused.task.provenance.infeasible.error


def test_say_needs_every_field_and_infeasible_needs_something_to_change(shop_db: Path, shop_kit: Toolkit):
    @recipe(capabilities=("cross_step_dependency",))
    def sloppy(ctx: RecipeContext) -> None:
        ctx.say("Rename {old} to {new}.", old="a")

    @recipe(capabilities=("cross_step_dependency",))
    def vague(ctx: RecipeContext) -> None:
        ctx.infeasible("impossible", because="no", swap={1: 2})

    with Workspace(shop_db) as ws:
        for bad, message in ((sloppy, "uses new, which were not given"), (vague, "kind 'impossible'")):
            ctx = RecipeContext(ws, shop_kit, bad, seed=0, attempt=1)
            with pytest.raises(RecipeDefinitionError, match=message):
                bad(ctx)
        empty = RecipeContext(ws, shop_kit, sloppy, seed=0, attempt=1)
        with pytest.raises(RecipeDefinitionError, match="made no tool call"):
            empty.drafts()
        picky = RecipeContext(ws, shop_kit, sloppy, seed=0, attempt=1)
        with pytest.raises(Skip, match="no unicorn"):
            picky.pick("SELECT * FROM customers WHERE false", what="unicorn")


def test_a_run_reports_skips_and_recipe_bugs_and_keeps_going(
    shop_db: Path, shop_kit: Toolkit, tmp_path: Path
):
    path = tmp_path / "recipes.py"
    path.write_text(
        RECIPES_PY
        + '''

@recipe(capabilities=("full_data_acquisition",), difficulty="medium")
def buggy(ctx: RecipeContext) -> None:
    """Divides by zero."""
    return 1 / 0
'''
    )
    recipes = load_recipes(path)
    report = generate_tasks(
        shop_db, n=4, seed=2, out=tmp_path / "out", recipes=recipes, toolkit=shop_kit, max_attempts=60
    )
    assert report["kept"] == 4 and report["target_met"]
    assert report["skipped"].get("nothing here", 0) >= 1
    errors = [e for e in report["errors"] if e["recipe"] == "buggy"]
    assert errors and "ZeroDivisionError" in errors[0]["error"] and "recipes.py:" in errors[0]["error"]
    assert report["recipes"]["buggy"]["kept"] == 0
    tasks = read_tasks(tmp_path / "out" / "tasks.jsonl")
    assert {t.provenance.recipe for t in tasks} == {"order_one"}
    assert any(not t.feasible for t in tasks)  # the run asked for infeasible variants while it had too few
    saved = json.loads((tmp_path / "out" / "generation_report.json").read_text())
    assert saved["kept"] == 4 and saved["tasks_file"].endswith("tasks.jsonl")
