"""Rune pages: list, create, rename, make default, add and remove runes, delete.

Policy `rune_pages`: at most 50 pages per player (numbered 1-50), distinct page names per player, exactly
one default page once a player has pages, at most 10 copies of a rune and at most 10 runes of each colour
on a page (the last is also the domain rule rune_page_colour_limit).
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, Expr, ToolError, tool
from stateforge.tools.kinds import change, create, remove
from stateforge.tools.policies import refuse

from .common import (
    MAX_RUNE_PAGES,
    MAX_RUNES_PER_COLOUR,
    Nickname,
    Player,
    RuneColor,
    find_named,
    find_player,
    names,
    quoted,
    require_one_of,
)

PageName = Annotated[
    str, Field(min_length=1, max_length=30, description="The page's name, 1 to 30 characters.")
]
Page = Annotated[str, Field(min_length=1, max_length=30, description="The page, by its name or its number.")]
PageRef = Annotated[
    str,
    Field(
        min_length=1, max_length=30, description='The page, by its name or its number (e.g. "Jungle" or "2").'
    ),
]


class RuneCount(BaseModel):
    """A rune and how many copies of it."""

    model_config = ConfigDict(extra="forbid")

    rune: str = Field(min_length=1, description="The rune's name (list_runes).")
    quantity: int = Field(default=1, ge=1, le=10, description="Copies of the rune, 1 to 10.")


def find_page(env: Env, player_id: int, nickname: str, page: str) -> dict[str, Any]:
    """The player's rune page named or numbered `page`; lists the candidates if missing or ambiguous."""
    text = page.strip()
    if text.isdigit():
        row = env.one(
            "SELECT page_id, page_no, name, is_default FROM rune_pages WHERE player_id = ? AND page_no = ?",
            [player_id, int(text)],
        )
    else:
        rows = env.query(
            "SELECT page_id, page_no, name, is_default FROM rune_pages WHERE player_id = ? AND lower(name) "
            "= lower(?) ORDER BY page_no",
            [player_id, text],
        )
        if len(rows) > 1:
            labels = [{"label": f"page {r['page_no']}"} for r in rows]
            raise ToolError(
                f"{nickname} has {len(rows)} rune pages named {text!r}: {names(labels, 'label')}. "
                "Which one? Give its number."
            )
        row = rows[0] if rows else None
    if row is None:
        pages = env.query(
            "SELECT page_no || ' ' || name AS label FROM rune_pages WHERE player_id = ? ORDER BY page_no",
            [player_id],
        )
        listed = f" Their pages: {names(pages, 'label')}." if pages else " They have no rune pages."
        raise ToolError(f"{nickname} has no rune page {page!r}.{listed}")
    return row


def _runes(env: Env, wanted: list[RuneCount]) -> dict[int, dict[str, Any]]:
    """rune_id -> rune (name, color) and the total quantity asked for (repeats of a rune add up)."""
    out: dict[int, dict[str, Any]] = {}
    for item in wanted:
        rune = find_named(env, "runes", "rune_id", item.rune, "rune", extra=", color")
        entry = out.setdefault(rune["rune_id"], {**rune, "quantity": 0})
        entry["quantity"] += item.quantity
    return out


def _check_counts(page_name: str, counts: dict[int, dict[str, Any]]) -> None:
    """Refuse more than 10 copies of a rune or more than 10 runes of a colour on one page."""
    over = [r for r in counts.values() if r["quantity"] > 10]
    if over:
        raise refuse(
            "rune_pages",
            f"page {page_name!r} would hold {over[0]['quantity']} copies of {over[0]['name']}; a page "
            "holds at most 10 copies of a rune.",
        )
    colours: Counter[str] = Counter()
    for rune in counts.values():
        colours[rune["color"]] += rune["quantity"]
    for colour, total in sorted(colours.items()):
        if total > MAX_RUNES_PER_COLOUR:
            raise refuse(
                "rune_pages",
                f"page {page_name!r} would hold {total} {colour} runes; a page holds at most "
                f"{MAX_RUNES_PER_COLOUR} runes of each colour. Remove some {colour} runes first.",
            )


def _page_runes(env: Env, page_id: int) -> dict[int, dict[str, Any]]:
    rows = env.query(
        "SELECT p.rune_id, r.name, r.color, p.quantity FROM rune_page_runes AS p JOIN runes AS r "
        "ON r.rune_id = p.rune_id WHERE p.page_id = ?",
        [page_id],
    )
    return {r["rune_id"]: r for r in rows}


def _put_runes(env: Env, page_id: int, runes: dict[int, dict[str, Any]]) -> None:
    """Put runes (rune_id -> its `quantity`) on a page that holds none of them yet."""
    rows = [
        {"page_id": page_id, "rune_id": rune_id, "quantity": r["quantity"]} for rune_id, r in runes.items()
    ]
    env.insert_many("rune_page_runes", rows)


def _refuse_name_taken(env: Env, player_id: int, name: str, except_page: int | None = None) -> None:
    taken = env.one(
        "SELECT page_no FROM rune_pages WHERE player_id = ? AND lower(name) = lower(?) AND page_id <> ? "
        "LIMIT 1",
        [player_id, name, except_page if except_page is not None else -1],
    )
    if taken is not None:
        raise refuse(
            "rune_pages",
            f"page {taken['page_no']} already has the name {name!r}; page names are distinct per player.",
        )


@tool(reads=("players", "rune_pages", "rune_page_runes", "runes"))
def list_rune_pages(env: Env, player: Nickname) -> dict:
    """A player's rune pages in page order, each with its runes and how many runes of each colour it holds."""
    pid = find_player(env, player)["player_id"]
    pages = env.query(
        "SELECT page_id, page_no, name, is_default, created_at FROM rune_pages WHERE player_id = ? "
        "ORDER BY page_no",
        [pid],
    )
    runes = env.query(
        "SELECT p.page_id, r.name AS rune, r.color, p.quantity FROM rune_page_runes AS p "
        "JOIN rune_pages AS g ON g.page_id = p.page_id JOIN runes AS r ON r.rune_id = p.rune_id "
        "WHERE g.player_id = ? ORDER BY r.color, r.name",
        [pid],
    )
    for page in pages:
        page["runes"] = [
            {k: r[k] for k in ("rune", "color", "quantity")} for r in runes if r["page_id"] == page["page_id"]
        ]
        page["colours"] = {
            c: sum(r["quantity"] for r in page["runes"] if r["color"] == c) for c in ("red", "blue", "green")
        }
        del page["page_id"]
    return {"player": player, "total": len(pages), "pages": pages}


# not destructive: it adds a page; a new default page only moves the default flag off the old one
@create(reads=("players", "rune_pages", "runes"), writes=("rune_pages", "rune_page_runes"))
def create_rune_page(
    env: Env,
    player: Player,
    name: PageName,
    runes: Annotated[list[RuneCount], Field(max_length=30)] | None = None,
    make_default: bool = False,
) -> dict:
    """Create a rune page, numbered with the lowest free number (1-50), optionally with runes, as the default.

    Args:
        name: The page's name (distinct among your pages).
        runes: The runes to put on it (at most 10 of each colour).
        make_default: Make it your default page (your first page always is).
    """
    owner = find_player(env, player)
    pid = owner["player_id"]
    used = [r["page_no"] for r in env.query("SELECT page_no FROM rune_pages WHERE player_id = ?", [pid])]
    if len(used) >= MAX_RUNE_PAGES:
        raise refuse(
            "rune_pages",
            f"{owner['nickname']} already has {MAX_RUNE_PAGES} rune pages, the most a player may "
            "have; delete one first.",
        )
    _refuse_name_taken(env, pid, name)
    counts = _runes(env, runes or [])
    _check_counts(name, counts)
    number = min(set(range(1, MAX_RUNE_PAGES + 1)) - set(used))
    default = make_default or not used
    if default and used:
        env.update_where("rune_pages", "player_id = ? AND is_default", [pid], {"is_default": False})
    page = env.insert(
        "rune_pages",
        {"player_id": pid, "page_no": number, "name": name, "is_default": default, "created_at": env.now},
    )
    _put_runes(env, page["page_id"], counts)
    return {
        "page_no": number,
        "name": name,
        "is_default": default,
        "runes": [{"rune": r["name"], "quantity": r["quantity"]} for r in counts.values()],
    }


@change(reads=("players", "rune_pages"), writes=("rune_pages",))
def rename_rune_page(env: Env, player: Player, page: PageRef, new_name: PageName) -> dict:
    """Give one of your rune pages a new name.

    Args:
        page: The page, by its current name or its number.
        new_name: The new name (distinct among your pages).
    """
    owner = find_player(env, player)
    found = find_page(env, owner["player_id"], owner["nickname"], page)
    _refuse_name_taken(env, owner["player_id"], new_name, found["page_id"])
    env.update("rune_pages", found["page_id"], {"name": new_name})
    return {"page_no": found["page_no"], "old_name": found["name"], "name": new_name}


@change(reads=("players", "rune_pages"), writes=("rune_pages",))
def set_default_rune_page(env: Env, player: Player, page: Page) -> dict:
    """Make one of your rune pages the default (used when a match starts); the old default stops being it.

    Args:
    """
    owner = find_player(env, player)
    found = find_page(env, owner["player_id"], owner["nickname"], page)
    env.update_where(
        "rune_pages",
        "player_id = ? AND is_default AND page_id <> ?",
        [owner["player_id"], found["page_id"]],
        {"is_default": False},
    )
    if not found["is_default"]:
        env.update("rune_pages", found["page_id"], {"is_default": True})
    return {"default_page": found["page_no"], "name": found["name"]}


@create(reads=("players", "rune_pages", "rune_page_runes", "runes"), writes=("rune_page_runes",))
def add_runes_to_page(
    env: Env,
    player: Player,
    page: Page,
    runes: Annotated[list[RuneCount], Field(min_length=1, max_length=30)],
) -> dict:
    """Add runes to one of your rune pages; copies add to those already there (at most 10 of each colour).

    Args:
        runes: The runes to add and how many of each.
    """
    owner = find_player(env, player)
    found = find_page(env, owner["player_id"], owner["nickname"], page)
    current = _page_runes(env, found["page_id"])
    adding = _runes(env, runes)
    merged = {k: dict(v) for k, v in current.items()}
    for rune_id, rune in adding.items():
        merged.setdefault(rune_id, {**rune, "quantity": 0})["quantity"] += rune["quantity"]
    _check_counts(found["name"], merged)
    for rune_id, rune in adding.items():
        if rune_id in current:
            env.update(
                "rune_page_runes",
                {"page_id": found["page_id"], "rune_id": rune_id},
                {"quantity": Expr("quantity + ?", [rune["quantity"]])},
            )
    _put_runes(env, found["page_id"], {k: r for k, r in adding.items() if k not in current})
    return {
        "page_no": found["page_no"],
        "name": found["name"],
        "runes": sorted(
            ({"rune": r["name"], "color": r["color"], "quantity": r["quantity"]} for r in merged.values()),
            key=lambda r: (r["color"], r["rune"]),
        ),
    }


@change(reads=("players", "rune_pages", "rune_page_runes", "runes"), writes=("rune_page_runes",))
def remove_runes_from_page(
    env: Env,
    player: Player,
    page: Page,
    runes: Annotated[list[str], Field(max_length=30)] | None = None,
    color: RuneColor | None = None,
) -> dict:
    """Take runes off one of your rune pages: the named runes (every copy), or every rune of a colour.

    Args:
        runes: The runes to take off, by name.
        color: Take off every rune of this colour.
    """
    require_one_of(runes=runes, color=color)
    owner = find_player(env, player)
    found = find_page(env, owner["player_id"], owner["nickname"], page)
    current = _page_runes(env, found["page_id"])
    doomed = {rid for rid, r in current.items() if color is not None and r["color"] == color}
    missing = []
    for name in runes or []:
        rune = find_named(env, "runes", "rune_id", name, "rune")
        if rune["rune_id"] not in current:
            missing.append(rune["name"])
        doomed.add(rune["rune_id"])
    if missing:
        raise ToolError(f"page {found['name']!r} holds no {quoted(missing)}; nothing was removed.")
    if not doomed:
        raise ToolError(f"page {found['name']!r} holds no {color} runes; nothing to remove.")
    env.delete_where(
        "rune_page_runes", "page_id = ? AND list_contains(?, rune_id)", [found["page_id"], sorted(doomed)]
    )
    return {
        "page_no": found["page_no"],
        "name": found["name"],
        "removed": sorted(current[r]["name"] for r in doomed if r in current),
    }


@remove(reads=("players", "rune_pages"), writes=("rune_pages",))
def delete_rune_pages(
    env: Env,
    player: Player,
    pages: Annotated[list[PageRef], Field(min_length=1, max_length=50)],
) -> dict:
    """Delete one or several of your rune pages with their runes; if the default goes, your lowest-numbered
    remaining page becomes the default.

    Args:
        pages: The pages to delete, by name or number.
    """
    owner = find_player(env, player)
    pid = owner["player_id"]
    found = {p["page_id"]: p for p in (find_page(env, pid, owner["nickname"], ref) for ref in pages)}
    env.delete_where("rune_pages", "list_contains(?, page_id)", [list(found)])
    new_default = None
    if any(p["is_default"] for p in found.values()):
        rest = env.one(
            "SELECT page_id, page_no, name FROM rune_pages WHERE player_id = ? ORDER BY page_no LIMIT 1",
            [pid],
        )
        if rest is not None:
            env.update("rune_pages", rest["page_id"], {"is_default": True})
            new_default = {"page_no": rest["page_no"], "name": rest["name"]}
    return {
        "deleted": [
            {"page_no": p["page_no"], "name": p["name"]}
            for p in sorted(found.values(), key=lambda p: p["page_no"])
        ],
        "new_default": new_default,
    }
