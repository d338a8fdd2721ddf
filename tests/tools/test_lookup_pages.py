"""`find_named` (a catalogue row by its name, with a did-you-mean), `Env.page(hide=...)`, `sorted_by` and
`quoted`, run as tools on the shop fixture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from stateforge.episode import Episode
from stateforge.tools import Env, ToolError, Toolkit, tool
from stateforge.tools.lookup import find_named
from stateforge.tools.wording import quoted, sorted_by


@tool(reads=("categories",))
def category(env: Env, name: str) -> dict:
    """A category by name.

    Args:
        name: Its name, in any letter case.
    """
    return find_named(env, "categories", "code", name, "category")


@tool(reads=("products",))
def products(env: Env, sort_by: str = "title", descending: bool = False) -> dict:
    """Three products at a time, without their ids.

    Args:
        sort_by: A column.
        descending: Largest first.
    """
    order = sorted_by(sort_by, descending, "product_id", {"name": "title"})
    sql = "SELECT product_id, sku, title FROM products"
    return env.page(sql, order_by=order, limit=3, hide=["product_id"])


@pytest.fixture
def lep(shop_db: Path, tmp_path: Path) -> Iterator[Episode]:
    with Episode.open(shop_db, toolkit=Toolkit([category, products]), workdir=tmp_path) as episode:
        yield episode


def test_a_name_in_any_case_and_a_did_you_mean(lep: Episode) -> None:
    first = lep.query("SELECT code, name FROM categories ORDER BY code LIMIT 1")[0]
    assert lep.call("category", {"name": first["name"].upper()}).value == first
    missing = lep.call("category", {"name": first["name"][1:4] + "zz"})
    assert not missing.ok and missing.error == f"no category named {first['name'][1:4] + 'zz'!r}."
    near = lep.call("category", {"name": first["name"][:3]})
    assert not near.ok and "Did you mean" in near.error and first["name"] in near.error


def test_pages_hide_columns_they_sort_by(lep: Episode) -> None:
    page = lep.call("products", {"sort_by": "name", "descending": True}).value
    titles = [r["title"] for r in lep.query("SELECT title FROM products ORDER BY title DESC, product_id")]
    assert [r["title"] for r in page["rows"]] == titles[:3] and page["total"] == len(titles)
    assert all(set(r) == {"sku", "title"} for r in page["rows"])
    assert not lep.call("products", {"sort_by": "title; DROP TABLE products"}).ok
    with pytest.raises(ToolError, match="cannot sort by"):
        sorted_by("price DESC", False, "product_id")
    assert quoted(["a", 3]) == "'a' and 3"
