"""`change`, `create` and `remove` (stateforge/tools/kinds.py): named kinds of write tool, the same tools as
the `@tool(kind="write", idempotent=..., destructive=...)` they stand for, run on the built shop database."""

from __future__ import annotations

from pathlib import Path

from stateforge.episode import Episode
from stateforge.tools import Env, Toolkit, tool
from stateforge.tools.kinds import change, create, remove


@create(reads=("categories",), writes=("categories",))
def add_category(env: Env, code: str, name: str) -> dict:
    """Add a product category.

    Args:
        code: The new category's code.
        name: Its name.
    """
    return env.insert("categories", {"code": code, "name": name})


@change(reads=("categories",), writes=("categories",))
def rename_category(env: Env, code: str, name: str) -> dict:
    """Rename a product category.

    Args:
        code: The category's code.
        name: The new name.
    """
    return {"changed": env.update_where("categories", "code = ?", [code], {"name": name})}


@remove(reads=("categories",), writes=("categories",))
def drop_category(env: Env, code: str) -> dict:
    """Delete a product category.

    Args:
        code: The category's code.
    """
    return {"deleted": env.delete_where("categories", "code = ?", [code])}


def test_each_kind_is_the_write_it_names() -> None:
    spelled = {
        add_category: tool(add_category.fn, kind="write", reads=("categories",), writes=("categories",),
                           idempotent=False, destructive=False),
        rename_category: tool(rename_category.fn, kind="write", reads=("categories",), writes=("categories",),
                              idempotent=True, destructive=True),
        drop_category: tool(drop_category.fn, kind="write", reads=("categories",), writes=("categories",),
                            idempotent=False, destructive=True),
    }
    for named, written in spelled.items():
        assert (named.kind, named.reads, named.writes) == ("write", ("categories",), ("categories",))
        assert named.annotations == written.annotations
        assert Toolkit([named]).openai_tools() == Toolkit([written]).openai_tools()
    assert add_category.annotations["idempotentHint"] is False
    assert rename_category.annotations["destructiveHint"] is True
    assert (drop_category.annotations["destructiveHint"], drop_category.annotations["idempotentHint"]) == (
        True,
        False,
    )


def test_the_tools_write_through_an_episode(shop_db: Path, tmp_path: Path) -> None:
    kit = Toolkit([add_category, rename_category], name="kinds-test")
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
        assert ep.call("add_category", {"code": "zz-1", "name": "Zed"}).ok
        renamed = ep.call("rename_category", {"code": "zz-1", "name": "Zeta"})
        again = ep.call("rename_category", {"code": "zz-1", "name": "Zeta"})
        assert renamed.ok and again.ok
        assert ep.query("SELECT name FROM categories WHERE code = 'zz-1'") == [{"name": "Zeta"}]
