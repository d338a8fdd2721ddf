"""Recipes about a player's collection: rune pages (a new one, a copy of another), gifting a skin to the
closest friend, and wearing the newest skin on every hero (buying heroes under a price: stories.py, the long
tier's shopping steps on their own)."""

from __future__ import annotations

from typing import Any

from stateforge.tasks import RecipeContext, recipe
from stateforge.tasks.picks import in_list

from .common import friends, introduce, named, not_banned, pages

PAGE_NAMES = (
    "Jungle Burst",
    "Mid Control",
    "Farm Crit",
    "Roam Support",
    "Clash Tank",
    "Split Push",
    "Ranked Main",
    "Poke Mage",
    "Dive",
    "Sustain Fighter",
)


def _free_name(ctx: RecipeContext, player_id: int) -> str:
    taken = {
        r["name"].lower() for r in ctx.sql("SELECT name FROM rune_pages WHERE player_id = ?", [player_id])
    }
    names = [n for n in PAGE_NAMES if n.lower() not in taken]
    return ctx.choice(names)


def _split(ctx: RecipeContext, total: int, parts: int) -> list[int]:
    """`total` as `parts` positive quantities (each at most 10), drawn with the rng."""
    cuts = sorted(ctx.rng.sample(range(1, total), parts - 1)) if parts > 1 else []
    bounds = [0, *cuts, total]
    return [b - a for a, b in zip(bounds, bounds[1:], strict=False)]


def _runes_text(runes: list[dict[str, Any]]) -> str:
    items = [f"{r['quantity']} {r['rune']}" for r in runes]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _page_goal(ctx: RecipeContext, player_id: int, name: str) -> None:
    ctx.goal(
        "the page holds those runes",
        "SELECT r.name, pr.quantity FROM rune_pages AS g JOIN rune_page_runes AS pr ON pr.page_id = "
        "g.page_id "
        "JOIN runes AS r ON r.rune_id = pr.rune_id WHERE g.player_id = ? AND g.name = ? ORDER BY r.name",
        [player_id, name],
    )


@recipe(capabilities=("precise_boundary_judgment",), difficulty="easy")
def create_rune_page(ctx: RecipeContext) -> None:
    """A player creates a rune page with runes up to the limit of 10 of a colour (a variant goes over it)."""
    player = ctx.pick(
        "SELECT p.player_id, p.nickname FROM players AS p WHERE (SELECT count(*) FROM rune_pages AS g "
        "WHERE g.player_id = p.player_id) < 50 AND p.account_level >= 5",
        what="player with room for a page",
    )
    name = _free_name(ctx, player["player_id"])
    colours = ctx.rng.sample(["red", "blue", "green"], ctx.choice([1, 2, 2, 3]))
    runes: list[dict[str, Any]] = []
    for i, colour in enumerate(colours):
        total = 10 if i == 0 else ctx.choice([4, 6, 8, 10])
        options = ctx.sql("SELECT name FROM runes WHERE color = ? ORDER BY rune_id", [colour])
        chosen = ctx.rng.sample([o["name"] for o in options], ctx.choice([1, 1, 2]))
        for rune, quantity in zip(chosen, _split(ctx, total, len(chosen)), strict=True):
            runes.append({"rune": rune, "quantity": quantity, "color": colour})
    default = ctx.rng.random() < 0.5
    text = _runes_text(runes)
    introduce(ctx, player["nickname"])
    for rune in runes:
        named(ctx, "runes", rune["rune"], "rune")
    ctx.say(
        [
            "Create a rune page called {name:q} with {runes}.",
            "Make me a new rune page, {name:q}: {runes}.",
            "I need a rune page named {name:q} holding {runes}.",
        ],
        name=name,
        runes=text,
    )
    if default:
        ctx.say(["Make it my default page.", "Set it as my default, too."])
    ctx.derived(default, "whether the new page is the default (asked for, or the first page)")

    def page(holding: list[dict[str, Any]]) -> dict[str, Any]:
        """create_rune_page's arguments for the page holding these runes."""
        counts = [{"rune": r["rune"], "quantity": r["quantity"]} for r in holding]
        return {"player": player["nickname"], "name": name, "runes": counts, "make_default": default}

    ctx.call("create_rune_page", page(runes), step=f"Create the page {name!r}")
    _page_goal(ctx, player["player_id"], name)
    first = runes[0]
    more = [dict(r) for r in runes]
    if first["quantity"] <= 8:
        more[0]["quantity"] = first["quantity"] + 2
    else:
        spare = ctx.sql(
            "SELECT name FROM runes WHERE color = ? AND NOT list_contains(?, name) ORDER BY rune_id LIMIT 1",
            [first["color"], [r["rune"] for r in runes]],
        )
        if not spare:
            return
        more.insert(1, {"rune": spare[0]["name"], "quantity": 2, "color": first["color"]})
    ctx.infeasible(
        "capacity",
        instruction=ctx.instruction.replace(text, _runes_text(more)),
        calls=[("create_rune_page", page(more))],
        because=f"that would put 12 {first['color']} runes on one page; a page holds at most 10 of each "
        "colour",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def copy_rune_page_without_colour(ctx: RecipeContext) -> None:
    """A player makes a new rune page with the runes of one of their pages, minus one colour."""
    page = ctx.pick(
        "SELECT g.page_id, g.player_id, p.nickname, g.name FROM rune_pages AS g JOIN players AS p "
        "ON p.player_id = g.player_id WHERE (SELECT count(DISTINCT r.color) FROM rune_page_runes AS pr "
        "JOIN runes AS r ON r.rune_id = pr.rune_id WHERE pr.page_id = g.page_id) >= 2 "
        "AND (SELECT count(*) FROM rune_pages AS o WHERE o.player_id = g.player_id) < 50",
        what="rune page with two colours",
    )
    runes = ctx.sql(
        "SELECT r.name AS rune, r.color, pr.quantity FROM rune_page_runes AS pr JOIN runes AS r "
        "ON r.rune_id = pr.rune_id WHERE pr.page_id = ? ORDER BY r.rune_id",
        [page["page_id"]],
    )
    colour = ctx.choice(sorted({r["color"] for r in runes}))
    kept = [r for r in runes if r["color"] != colour]
    name = _free_name(ctx, page["player_id"])
    introduce(ctx, page["nickname"])
    ctx.say(
        [
            "Create a new rune page {name:q} with the same runes as my page {page:q}, but leave out the "
            "{colour} ones.",
            "Copy my rune page {page:q} into a new page called {name:q}, without its {colour} runes.",
        ],
        name=name,
        page=page["name"],
        colour=colour,
    )
    ctx.unique(
        f"rune page {page['name']!r} of {page['nickname']}",
        "rune_pages",
        player_id=page["player_id"],
        name=page["name"],
    )
    ctx.read("list_rune_pages", {"player": page["nickname"]}, step=f"Read the runes of {page['name']!r}")
    ctx.call(
        "create_rune_page",
        {
            "player": page["nickname"],
            "name": name,
            "runes": [{"rune": r["rune"], "quantity": r["quantity"]} for r in kept],
        },
        step=f"Create {name!r} with its runes but the {colour} ones",
    )
    ctx.derived(
        [r["quantity"] for r in kept], f"the quantities on {page['name']!r}, as list_rune_pages shows them"
    )
    _page_goal(ctx, page["player_id"], name)


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def gift_skin_to_closest_friend(ctx: RecipeContext) -> None:
    """A player gifts a skin to the friend they have the most intimacy with."""
    player = ctx.pick(
        f"SELECT p.player_id, p.nickname, p.diamonds FROM players AS p WHERE {not_banned(ctx)} AND "
        "p.diamonds >= 900 "
        "AND (SELECT count(*) FROM friendships AS f WHERE p.player_id IN (f.player_a_id, "
        "f.player_b_id)) >= 2",
        what="player with diamonds and friends",
    )
    mates = friends(ctx, player["player_id"], order="intimacy DESC, nickname")
    if mates[0]["intimacy"] == mates[1]["intimacy"]:
        ctx.skip("two friends share the top intimacy")
    friend = mates[0]
    sellable = """
        SELECT s.skin_id, s.name AS skin, h.name AS hero, s.price_diamonds, s.is_limited FROM skins AS s
        JOIN heroes AS h ON h.hero_id = s.hero_id
        WHERE s.hero_id IN (SELECT hero_id FROM player_heroes WHERE player_id = $fid)
          AND s.skin_id NOT IN (SELECT skin_id FROM player_skins WHERE player_id = $fid)
          AND (SELECT count(*) FROM skins AS t
               WHERE t.hero_id = s.hero_id AND lower(t.name) = lower(s.name)) = 1
    """
    skins = ctx.sql(
        sellable + " AND NOT s.is_limited AND s.price_diamonds <= $cap ORDER BY s.skin_id",
        {"fid": friend["friend_id"], "cap": player["diamonds"]},
    )
    if not skins:
        ctx.skip("nothing to gift the friend")
    skin = ctx.choice(skins)
    note = ctx.choice([None, "Happy birthday!", "For carrying me in ranked", "GG, enjoy!"])
    introduce(ctx, player["nickname"])
    ctx.refer(
        f"skin {skin['skin']!r} of {skin['hero']}",
        "SELECT count(*) FROM skins AS s JOIN heroes AS h ON h.hero_id = s.hero_id "
        "WHERE h.name = ? AND s.name = ?",
        [skin["hero"], skin["skin"]],
    )
    ctx.say(
        [
            "Gift the skin {skin:q} for {hero} to whichever friend I have the most intimacy with.",
            "Send my closest friend (highest intimacy) the {hero} skin {skin:q} as a present.",
        ],
        skin=skin["skin"],
        hero=skin["hero"],
    )
    arguments = {
        "player": player["nickname"],
        "friend": friend["nickname"],
        "skin": skin["skin"],
        "hero": skin["hero"],
    }
    if note is not None:
        ctx.say(["Add the note {note:q}.", "Put {note:q} in the gift message."], note=note)
        arguments["message"] = note
    ctx.read(
        "list_friends",
        {"player": player["nickname"], "sort_by": "intimacy", "descending": True, "limit": 2},
        step="Find the friend with the most intimacy",
    )
    ctx.call("gift_skin", arguments, step=f"Gift {skin['skin']} ({skin['hero']}) to {friend['nickname']}")
    ctx.goal(
        "the friend owns the skin",
        "SELECT source FROM player_skins WHERE player_id = ? AND skin_id = ?",
        [friend["friend_id"], skin["skin_id"]],
        expected=[{"source": "gift"}],
    )
    limited = ctx.sql(sellable + " AND s.is_limited ORDER BY s.skin_id", {"fid": friend["friend_id"]})
    if limited:
        other = ctx.choice(limited)
        ctx.infeasible(
            "forbidden",
            policy="purchases",
            swap={skin["skin"]: other["skin"], skin["hero"]: other["hero"]},
            because=f"{other['skin']} ({other['hero']}) is a limited-edition skin, never sold in the shop",
        )


@recipe(capabilities=("cross_step_dependency", "full_data_acquisition"), difficulty="hard")
def wear_newest_skins(ctx: RecipeContext) -> None:
    """A player puts on each hero they own the skin they got most recently for it."""
    player = ctx.pick(
        "SELECT p.player_id, p.nickname, count(DISTINCT s.hero_id) AS heroes FROM player_skins AS ps "
        "JOIN skins AS s ON s.skin_id = ps.skin_id JOIN players AS p ON p.player_id = ps.player_id "
        "JOIN player_heroes AS ph ON ph.player_id = ps.player_id AND ph.hero_id = s.hero_id "
        "GROUP BY ALL HAVING count(*) > count(DISTINCT s.hero_id) AND count(*) <= 150",
        what="player with several skins for a hero",
    )
    owned = ctx.sql(
        "SELECT s.hero_id, h.name AS hero, s.skin_id, s.name AS skin, ps.acquired_at, ps.is_equipped FROM "
        "player_skins AS ps JOIN skins AS s ON s.skin_id = ps.skin_id JOIN heroes AS h ON h.hero_id = "
        "s.hero_id JOIN player_heroes AS ph ON ph.player_id = ps.player_id AND ph.hero_id = s.hero_id WHERE "
        "ps.player_id = ? ORDER BY s.hero_id, ps.acquired_at DESC, s.skin_id",
        [player["player_id"]],
    )
    newest: dict[int, dict[str, Any]] = {}
    for skin in owned:
        first = newest.setdefault(skin["hero_id"], skin)
        if first is not skin and first["acquired_at"] == skin["acquired_at"]:
            ctx.skip("two skins of a hero were got at the same time")
    todo = [s for s in newest.values() if not s["is_equipped"]]
    if not 2 <= len(todo) <= 15:
        ctx.skip("too few or too many heroes to change")
    introduce(ctx, player["nickname"])
    ctx.say(
        [
            "On every hero I own, equip the skin I got most recently for that hero.",
            "For each of my heroes, switch to the newest skin I have for it (the one I acquired last).",
            "Put my latest skin on each hero of mine; leave heroes that already wear their newest "
            "skin alone.",
        ]
    )
    pages(ctx, "list_player_skins", {"player": player["nickname"]}, step="List my skins, newest first")
    for skin in todo:
        ctx.call(
            "equip_skin",
            {"player": player["nickname"], "skin": skin["skin"], "hero": skin["hero"]},
            step=f"Equip {skin['skin']} on {skin['hero']}",
        )
    ctx.goal(
        "each hero wears its newest skin",
        "SELECT s.hero_id, ps.skin_id FROM player_skins AS ps JOIN skins AS s ON s.skin_id = ps.skin_id "
        f"WHERE ps.player_id = ? AND ps.is_equipped AND s.hero_id IN {in_list([s['hero_id'] for s in todo])} "
        "ORDER BY s.hero_id",
        [player["player_id"]],
        expected=[
            {"hero_id": s["hero_id"], "skin_id": s["skin_id"]}
            for s in sorted(todo, key=lambda s: s["hero_id"])
        ],
    )
