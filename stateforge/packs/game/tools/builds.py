"""Hero item builds: search (official and players' public builds), create, copy, edit, delete, swap an item.

A build is shown by its number (build_id: the code players share). Policy `builds`: only the author edits or
deletes a build, official builds are read-only, a build holds 1 to 6 distinct items still sold in the shop,
and a player's build names are distinct per hero.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse

from .common import (
    Descending,
    Limit,
    Offset,
    Player,
    Where,
    find_hero,
    find_named,
    find_player,
    names,
    page_of,
    require_one_of,
    sorted_by,
)

Author = Annotated[str, Field(min_length=1, max_length=24, description="Your nickname (the author).")]
BuildName = Annotated[
    str, Field(min_length=1, max_length=40, description="The build's name, 1 to 40 characters.")
]
Items = Annotated[
    list[str],
    Field(
        min_length=1,
        max_length=6,
        description="The build's items in slot order (1 to 6 distinct item names).",
    ),
]
ITEMS_OF = (
    "(SELECT list(i.name ORDER BY bi.slot) FROM build_items AS bi JOIN items AS i ON i.item_id = bi.item_id "
    "WHERE bi.build_id = b.build_id)"
)


def _items(env: Env, wanted: list[str]) -> list[dict[str, Any]]:
    """The items, in order; refuses repeats and items no longer sold."""
    items = [find_named(env, "items", "item_id", name, "item", extra=", is_active") for name in wanted]
    seen: set[int] = set()
    for item in items:
        if item["item_id"] in seen:
            raise refuse("builds", f"{item['name']} is listed twice; a build holds each item at most once.")
        seen.add(item["item_id"])
    inactive = [i for i in items if not i["is_active"]]
    if inactive:
        raise refuse(
            "builds",
            f"{names(inactive, 'name')} {'is' if len(inactive) == 1 else 'are'} no longer sold in the "
            "shop and cannot go into a build; pick another item (search_items).",
        )
    return items


def _own_build(env: Env, author: dict[str, Any], build_id: int) -> dict[str, Any]:
    build = env.one(
        "SELECT b.build_id, b.name, b.hero_id, h.name AS hero, b.player_id, b.is_public FROM hero_builds AS "
        "b JOIN heroes AS h ON h.hero_id = b.hero_id WHERE b.build_id = ?",
        [build_id],
    )
    if build is None or (build["player_id"] != author["player_id"] and not build["is_public"]):
        raise ToolError(f"no build {build_id} that {author['nickname']} can see; search_builds lists them.")
    if build["player_id"] is None:
        raise refuse(
            "builds",
            f"build {build_id} is an official build and cannot be changed; copy it (copy_build) "
            "and edit the copy.",
        )
    if build["player_id"] != author["player_id"]:
        raise refuse(
            "builds",
            f"build {build_id} belongs to another player; only its author changes it. Copy it "
            "(copy_build) to make your own.",
        )
    return build


def _refuse_name_taken(env: Env, author_id: int, hero_id: int, name: str, except_build: int = -1) -> None:
    taken = env.one(
        "SELECT build_id FROM hero_builds WHERE player_id = ? AND hero_id = ? AND lower(name) = lower(?) "
        "AND build_id <> ? LIMIT 1",
        [author_id, hero_id, name, except_build],
    )
    if taken is not None:
        raise refuse(
            "builds",
            f"your build {taken['build_id']} for this hero is already named {name!r}; choose another name.",
        )


def _insert_items(env: Env, build_id: int, items: list[dict[str, Any]]) -> None:
    env.insert_many(
        "build_items",
        [
            {"build_id": build_id, "slot": slot, "item_id": item["item_id"]}
            for slot, item in enumerate(items, start=1)
        ],
    )


def _new_build(
    env: Env, hero_id: int, author_id: int, name: str, is_public: bool, items: list[dict[str, Any]]
) -> dict[str, Any]:
    """A new build of the author's for the hero, written now with no likes, holding `items` in slot order."""
    row = {"hero_id": hero_id, "player_id": author_id, "name": name, "is_public": is_public, "likes": 0}
    build = env.insert("hero_builds", {**row, "created_at": env.now})
    _insert_items(env, build["build_id"], items)
    return build


@tool(reads=("hero_builds", "build_items", "items", "heroes", "players"))
def search_builds(
    env: Env,
    hero: str | None = None,
    author: str | None = None,
    official: bool | None = None,
    name_contains: str | None = None,
    with_item: str | None = None,
    min_likes: Annotated[int, Field(ge=0)] | None = None,
    created_after: dt.date | None = None,
    build_id: int | None = None,
    player: str | None = None,
    sort_by: Literal["likes", "created_at", "name", "hero"] = "likes",
    descending: Descending = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search item builds (official ones and players' public ones), with their items in slot order and likes.

    Args:
        hero: Only builds for this hero.
        author: Only builds written by this player (nickname).
        official: true for official builds only, false for players' builds only.
        name_contains: Part of the build's name.
        with_item: Only builds that contain this item.
        min_likes: Only builds with at least this many likes.
        created_after: Only builds created on or after this date.
        build_id: The build with this number (the code players share).
        player: Your nickname: your own private builds are listed too.
        sort_by: The order of the results.
        descending: Sort from the largest / latest value down (the default: most liked first).
    """
    where = Where()
    if player is not None:
        where.add("(b.is_public OR b.player_id = ?)", find_player(env, player)["player_id"])
    else:
        where.add("b.is_public")
    where.when(hero, "b.hero_id = ?", by=lambda name: find_hero(env, name)["hero_id"])
    where.when(author, "b.player_id = ?", by=lambda name: find_player(env, name)["player_id"])
    where.when(official, "(b.player_id IS NULL) = ?").text(name_contains, "b.name")
    if with_item is not None:
        item = find_named(env, "items", "item_id", with_item, "item")
        where.add(
            "EXISTS (SELECT 1 FROM build_items AS w WHERE w.build_id = b.build_id AND w.item_id = ?)",
            item["item_id"],
        )
    where.when(min_likes, "b.likes >= ?").when(created_after, "CAST(b.created_at AS DATE) >= ?")
    where.when(build_id, "b.build_id = ?")
    sql = (
        "SELECT b.build_id, b.name, h.name AS hero, coalesce(p.nickname, 'official') AS author, b.is_public, "
        f"b.likes, b.created_at, {ITEMS_OF} AS items FROM hero_builds AS b JOIN heroes AS h ON h.hero_id = "
        f"b.hero_id LEFT JOIN players AS p ON p.player_id = b.player_id WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "build_id")
    return page_of(env, sql, where.params, order_by, limit, offset)


@create(reads=("players", "heroes", "items", "hero_builds"), writes=("hero_builds", "build_items"))
def create_build(
    env: Env, player: Author, hero: str, name: BuildName, items: Items, is_public: bool = True
) -> dict:
    """Write an item build for a hero.

    Args:
        hero: The hero the build is for.
        name: The build's name (distinct among your builds for this hero).
        items: The items in slot order, 1 to 6 distinct items still sold in the shop.
        is_public: Whether other players can find and copy it.
    """
    author = find_player(env, player)
    found = find_hero(env, hero)
    _refuse_name_taken(env, author["player_id"], found["hero_id"], name)
    chosen = _items(env, items)
    build = _new_build(env, found["hero_id"], author["player_id"], name, is_public, chosen)
    return {
        "build_id": build["build_id"],
        "hero": found["name"],
        "name": name,
        "is_public": is_public,
        "items": [i["name"] for i in chosen],
    }


@create(
    reads=("players", "heroes", "items", "hero_builds", "build_items"), writes=("hero_builds", "build_items")
)
def copy_build(
    env: Env, player: Player, build_id: int, name: BuildName | None = None, is_public: bool = False
) -> dict:
    """Copy a build you can see (official, someone's public one, or your own) into a new build of yours.

    Args:
        player: Your nickname (the author of the copy).
        build_id: The build to copy.
        name: The copy's name (default: the original's name).
        is_public: Whether other players can find the copy (default: private).
    """
    author = find_player(env, player)
    build = env.one(
        "SELECT build_id, name, hero_id, player_id, is_public FROM hero_builds WHERE build_id = ?", [build_id]
    )
    if build is None or (not build["is_public"] and build["player_id"] != author["player_id"]):
        raise ToolError(f"no build {build_id} that {author['nickname']} can see; search_builds lists them.")
    new_name = name or build["name"]
    _refuse_name_taken(env, author["player_id"], build["hero_id"], new_name)
    items = env.query("SELECT item_id FROM build_items WHERE build_id = ? ORDER BY slot", [build_id])
    copy = _new_build(env, build["hero_id"], author["player_id"], new_name, is_public, items)
    return {"build_id": copy["build_id"], "copied_from": build_id, "name": new_name, "is_public": is_public}


@change(reads=("players", "heroes", "items", "hero_builds"), writes=("hero_builds", "build_items"))
def update_build(
    env: Env,
    player: Author,
    build_id: int,
    name: BuildName | None = None,
    is_public: bool | None = None,
    items: Items | None = None,
) -> dict:
    """Edit one of your builds: rename it, make it public or private, or replace its items (in slot order).

    Args:
        build_id: The build to edit.
        name: A new name.
        is_public: Whether other players can find it.
        items: The new items in slot order (replace all of them; 1 to 6 distinct items).
    """
    require_one_of(name=name, is_public=is_public, items=items)
    author = find_player(env, player)
    build = _own_build(env, author, build_id)
    if name is not None:
        _refuse_name_taken(env, author["player_id"], build["hero_id"], name, build_id)
    changes = {k: v for k, v in (("name", name), ("is_public", is_public)) if v is not None}
    if changes:
        env.update("hero_builds", build_id, changes)
    if items is not None:
        chosen = _items(env, items)
        env.delete_where("build_items", "build_id = ?", [build_id])
        _insert_items(env, build_id, chosen)
    return {"build_id": build_id, "changed": sorted([*changes, *(["items"] if items is not None else [])])}


@change(reads=("players", "heroes", "hero_builds"), writes=("hero_builds",))
def delete_builds(
    env: Env,
    player: Author,
    build_ids: Annotated[list[int], Field(max_length=500)] | None = None,
    hero: str | None = None,
) -> dict:
    """Delete builds of yours: the ones listed, or every one of yours for a hero (with their items).

    Args:
        build_ids: The builds to delete.
        hero: Delete every build of yours for this hero (together with build_ids: only those of this hero).
    """
    require_one_of(build_ids=build_ids, hero=hero)
    author = find_player(env, player)
    for build_id in build_ids or []:
        _own_build(env, author, build_id)
    where = Where().add("player_id = ?", author["player_id"])
    if build_ids:
        where.add("list_contains(?, build_id)", list(build_ids))
    if hero is not None:
        found = find_hero(env, hero)
        where.add("hero_id = ?", found["hero_id"])
    doomed = env.query(
        f"SELECT build_id, name FROM hero_builds WHERE {where.sql} ORDER BY build_id", where.params
    )
    if not doomed:
        raise ToolError(f"{author['nickname']} has no builds for {hero}; nothing was deleted.")
    env.delete_where("hero_builds", where.sql, where.params)
    return {"deleted": doomed}


@change(reads=("players", "heroes", "items", "hero_builds", "build_items"), writes=("build_items",))
def replace_build_item(
    env: Env, player: Author, old_item: str, new_item: str, hero: str | None = None
) -> dict:
    """In every build of yours (or of yours for one hero) that has an item, put another item in its slot.

    Builds that already hold the new item are left as they are and listed as skipped.

    Args:
        old_item: The item to take out.
        new_item: The item to put in its place (still sold in the shop).
        hero: Only your builds for this hero.
    """
    author = find_player(env, player)
    old = find_named(env, "items", "item_id", old_item, "item")
    new = _items(env, [new_item])[0]
    if old["item_id"] == new["item_id"]:
        raise ToolError("the old and the new item are the same; nothing to replace.")
    where = Where().add("b.player_id = ?", author["player_id"])
    where.when(hero, "b.hero_id = ?", by=lambda name: find_hero(env, name)["hero_id"])
    builds = env.query(
        "SELECT b.build_id, b.name, EXISTS (SELECT 1 FROM build_items AS n WHERE n.build_id = b.build_id AND "
        "n.item_id = ?) AS has_new FROM hero_builds AS b JOIN build_items AS o ON o.build_id = b.build_id "
        f"AND o.item_id = ? WHERE {where.sql} ORDER BY b.build_id",
        [new["item_id"], old["item_id"], *where.params],
    )
    if not builds:
        of = f" for {hero}" if hero else ""
        raise ToolError(f"none of {author['nickname']}'s builds{of} has {old['name']}; nothing to replace.")
    changed = [b["build_id"] for b in builds if not b["has_new"]]
    if changed:
        env.update_where(
            "build_items",
            "item_id = ? AND list_contains(?, build_id)",
            [old["item_id"], changed],
            {"item_id": new["item_id"]},
        )
    return {
        "replaced_in": changed,
        "skipped": [
            {"build_id": b["build_id"], "reason": f"already has {new['name']}"}
            for b in builds
            if b["has_new"]
        ],
    }
