"""Recipes about item builds: swapping an item in every build, deleting a hero's builds, copying the most
liked official build (of a named hero, or of the hero played most in a season), and hiding little-liked
builds."""

from __future__ import annotations

from stateforge.tasks import RecipeContext, recipe
from stateforge.tasks.arguments import given
from stateforge.tasks.picks import cut_for, cut_points, difficulty_when, in_list

from .common import band, introduce, named, pages, sized

COPY_NAMES = (
    "Ranked Copy",
    "Meta Build",
    "Pro Build",
    "Tryhard",
    "Main Build",
    "Copied Build",
    "Season Build",
)


@recipe(capabilities=("full_data_acquisition",), difficulty="medium", weight=1.3)
def replace_item_in_builds(ctx: RecipeContext) -> None:
    """A player swaps one item for another of its category in every build of theirs (or of theirs for a
    hero)."""
    per_hero = ctx.rng.random() < 0.3
    group = "b.player_id, p.nickname, bi.item_id, i.name, i.category" + (", h.name" if per_hero else "")
    row = sized(
        ctx,
        f"SELECT {group.replace('h.name', 'h.name AS hero').replace('i.name', 'i.name AS item')}, "
        "count(*) AS n FROM hero_builds AS b JOIN build_items AS bi ON bi.build_id = b.build_id "
        "JOIN items AS i ON i.item_id = bi.item_id JOIN players AS p ON p.player_id = b.player_id "
        f"JOIN heroes AS h ON h.hero_id = b.hero_id GROUP BY {group}",
        what="player whose builds share an item",
    )
    hero = row.get("hero")
    new = ctx.choice(
        ctx.sql(
            "SELECT item_id, name FROM items WHERE is_active AND category = ? AND item_id <> ? ORDER "
            "BY item_id",
            [row["category"], row["item_id"]],
        )
    )
    mine = "b.player_id = ?" + (
        " AND b.hero_id = (SELECT hero_id FROM heroes WHERE name = ?)" if hero else ""
    )
    params = [row["player_id"], *([hero] if hero else [])]
    lacking = (
        "EXISTS (SELECT 1 FROM build_items AS o WHERE o.build_id = b.build_id AND o.item_id = {old}) "
        "AND NOT EXISTS (SELECT 1 FROM build_items AS x WHERE x.build_id = b.build_id AND x.item_id = {new})"
    ).format(old=int(row["item_id"]), new=int(new["item_id"]))
    changed = ctx.scalar(f"SELECT count(*) FROM hero_builds AS b WHERE {mine} AND {lacking}", params)
    if not changed:
        ctx.skip("every build already holds the new item")
    introduce(ctx, row["nickname"])
    named(ctx, "items", row["item"], "item")
    named(ctx, "items", new["name"], "item")
    if hero:
        named(ctx, "heroes", hero, "hero")
    where = " for {hero}" if hero else ""
    ctx.say(
        [
            "In all my builds" + where + ", replace {old} with {new}.",
            "Swap {old} for {new} in every build of mine" + where + " (same slot).",
            "I've stopped buying {old}. Put {new} in its place in each of my builds" + where + ".",
        ],
        old=row["item"],
        new=new["name"],
        **given(hero=hero),
    )
    arguments = {"player": row["nickname"], "old_item": row["item"], "new_item": new["name"]}
    arguments.update(given(hero=hero))
    ctx.call(
        "replace_build_item", arguments, step=f"Replace {row['item']} by {new['name']} in {changed} builds"
    )
    ctx.goal(
        "no build of theirs holds the old item without the new one",
        f"SELECT count(*) AS n FROM hero_builds AS b WHERE {mine} AND {lacking}",
        params,
        expected=[{"n": 0}],
    )
    difficulty_when(ctx, changed >= 50, "hard")
    retired = ctx.one("SELECT name FROM items WHERE NOT is_active ORDER BY item_id LIMIT 1")
    if retired is not None and retired["name"] != row["item"]:
        ctx.infeasible(
            "forbidden",
            policy="builds",
            swap={new["name"]: retired["name"]},
            because=f"{retired['name']} is no longer sold in the shop, so it cannot go into a build",
        )


@recipe(capabilities=("full_data_acquisition",), difficulty="easy", weight=1.2)
def delete_hero_builds(ctx: RecipeContext) -> None:
    """A player deletes every build of theirs for one hero (with their items)."""
    row = sized(
        ctx,
        "SELECT p.player_id, p.nickname, h.hero_id, h.name AS hero, count(*) * 7 AS n FROM hero_builds AS b "
        "JOIN players AS p ON p.player_id = b.player_id JOIN heroes AS h ON h.hero_id = b.hero_id "
        "GROUP BY ALL",
        what="player with builds for a hero",
        bands=((7, 14), (15, 49), (50, 300)),
    )
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Delete all my builds for {hero}.",
            "I don't play {hero} any more; remove every item build I made for that hero.",
            "Please wipe my {hero} builds, all of them.",
        ],
        hero=row["hero"],
    )
    ctx.refer(
        f"builds of {row['nickname']} for {row['hero']}",
        "SELECT count(DISTINCT b.hero_id) FROM hero_builds AS b JOIN players AS p ON p.player_id = "
        "b.player_id JOIN heroes AS h ON h.hero_id = b.hero_id WHERE p.nickname = ? AND h.name = ?",
        [row["nickname"], row["hero"]],
    )
    ctx.call(
        "delete_builds",
        {"player": row["nickname"], "hero": row["hero"]},
        step=f"Delete my {row['hero']} builds",
    )
    ctx.goal(
        "no build of theirs for the hero is left",
        "SELECT count(*) AS n FROM hero_builds WHERE player_id = ? AND hero_id = ?",
        [row["player_id"], row["hero_id"]],
        expected=[{"n": 0}],
    )
    difficulty_when(ctx, row["n"] >= 50, "medium")
    others = ctx.sql(
        "SELECT h.name FROM heroes AS h WHERE h.hero_id NOT IN (SELECT hero_id FROM hero_builds WHERE "
        "player_id = ?) ORDER BY h.name",
        [row["player_id"]],
    )
    if others:
        other = ctx.choice(others)
        ctx.infeasible(
            "missing",
            swap={row["hero"]: other["name"]},
            because=f"{row['nickname']} has no builds for {other['name']}",
        )


@recipe(
    capabilities=("full_data_acquisition", "multi_condition_filtering", "precise_boundary_judgment"),
    difficulty="hard",
    weight=1.5,
)
def delete_old_private_builds(ctx: RecipeContext) -> None:
    """A player deletes every private build of theirs made before a date (each with its items): the solver
    reads all their builds, page by page, and picks them out."""
    low, high = band(ctx, ((8, 49), (50, 199), (200, 420)))
    row = ctx.pick(
        "SELECT b.player_id, p.nickname, count(*) AS builds FROM hero_builds AS b JOIN players AS p "
        "ON p.player_id = b.player_id WHERE NOT b.is_public GROUP BY ALL "
        "HAVING count(DISTINCT CAST(b.created_at AS DATE)) >= 2 AND count(*) * 7 > ?",
        [low],
        what="player with private builds",
    )
    builds = ctx.sql(
        "SELECT b.build_id, b.created_at, "
        "1 + (SELECT count(*) FROM build_items AS i WHERE i.build_id = b.build_id) AS rows "
        "FROM hero_builds AS b WHERE b.player_id = ? AND NOT b.is_public ORDER BY b.build_id",
        [row["player_id"]],
    )
    days = sorted({b["created_at"].date() for b in builds})
    chosen = cut_for(
        ctx, days[1:], lambda d: sum(b["rows"] for b in builds if b["created_at"].date() < d), low, high
    )
    if chosen is None:
        ctx.skip("no date that deletes some builds")
    before = chosen[0]
    doomed = [b for b in builds if b["created_at"].date() < before]
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Delete all my private builds that I created before {before}. Public ones stay.",
            "Clear out my old private builds: every one made before {before} can go, but keep my public "
            "builds and anything from {before} on.",
            "I have too many hidden builds. Remove each private build of mine created before {before}.",
        ],
        before=before,
    )
    pages(
        ctx,
        "search_builds",
        {"author": row["nickname"], "player": row["nickname"]},
        step="List all my builds",
    )
    ctx.call(
        "delete_builds",
        {"player": row["nickname"], "build_ids": [b["build_id"] for b in doomed]},
        step=f"Delete the {len(doomed)} private builds created before {before}",
    )
    ctx.goal(
        "no private build of theirs from before the date is left",
        "SELECT count(*) AS n FROM hero_builds WHERE player_id = ? AND NOT is_public "
        "AND CAST(created_at AS DATE) < ?",
        [row["player_id"], before],
        expected=[{"n": 0}],
    )
    difficulty_when(ctx, sum(b["rows"] for b in doomed) < 50, "medium")


def _top_official(ctx: RecipeContext, hero_id: int) -> dict | None:
    """The public official build of the hero with the most likes, when one build alone has them."""
    rows = ctx.sql(
        "SELECT b.build_id, b.likes FROM hero_builds AS b WHERE b.hero_id = ? AND b.player_id IS NULL "
        "AND b.is_public ORDER BY b.likes DESC, b.build_id LIMIT 2",
        [hero_id],
    )
    if not rows or (len(rows) == 2 and rows[0]["likes"] == rows[1]["likes"]):
        return None
    return rows[0]


def _copy_name(ctx: RecipeContext, player_id: int, hero_id: int) -> str:
    taken = {
        r["name"].lower()
        for r in ctx.sql(
            "SELECT name FROM hero_builds WHERE player_id = ? AND hero_id = ?", [player_id, hero_id]
        )
    }
    return ctx.choice([n for n in COPY_NAMES if n.lower() not in taken])


def _copy_top(
    ctx: RecipeContext, player: dict, hero: str, top: dict, name: str, *, public: bool | None = None
) -> None:
    """Find the hero's most-liked official build (`top`) as a player would, and copy it as `name` (public or
    not when `public` is given, else the tool's default)."""
    ctx.read(
        "search_builds",
        {"hero": hero, "official": True, "sort_by": "likes", "descending": True, "limit": 2},
        step=f"Find the most-liked official build for {hero}",
    )
    arguments = {"player": player["nickname"], "build_id": top["build_id"], "name": name}
    arguments.update(given(is_public=public))
    ctx.call("copy_build", arguments, step=f"Copy build {top['build_id']} as {name!r}")


def _copied_goal(ctx: RecipeContext, player_id: int, hero: str, name: str, source: int) -> None:
    ctx.goal(
        "the copy has the official build's items",
        "SELECT (SELECT list(item_id ORDER BY slot) FROM build_items WHERE build_id = b.build_id) = "
        f"(SELECT list(item_id ORDER BY slot) FROM build_items WHERE build_id = {int(source)}) AS same_items "
        "FROM hero_builds AS b JOIN heroes AS h ON h.hero_id = b.hero_id "
        "WHERE b.player_id = ? AND h.name = ? AND b.name = ?",
        [player_id, hero, name],
        expected=[{"same_items": True}],
    )


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def copy_top_official_build(ctx: RecipeContext) -> None:
    """A player copies the most liked official build of a hero into their own builds, under a name."""
    hero = ctx.pick(
        "SELECT h.hero_id, h.name FROM heroes AS h WHERE (SELECT count(*) FROM hero_builds AS b "
        "WHERE b.hero_id = h.hero_id AND b.player_id IS NULL AND b.is_public) >= 2",
        what="hero with official builds",
    )
    top = _top_official(ctx, hero["hero_id"])
    if top is None:
        ctx.skip("two official builds share the most likes")
    player = ctx.pick("SELECT player_id, nickname FROM players WHERE account_level >= 5", what="player")
    name = _copy_name(ctx, player["player_id"], hero["hero_id"])
    public = ctx.rng.random() < 0.4
    introduce(ctx, player["nickname"])
    named(ctx, "heroes", hero["name"], "hero")
    ctx.say(
        [
            "Copy the most-liked official build for {hero} into my builds and call it {name:q}.",
            "Find the official {hero} build with the most likes and save a copy of it as {name:q}.",
            "I want my own copy of the top official {hero} build (by likes), named {name:q}.",
        ],
        hero=hero["name"],
        name=name,
    )
    ctx.say("Make the copy public." if public else "Keep the copy private.")
    _copy_top(ctx, player, hero["name"], top, name, public=public)
    ctx.derived(public, "whether the copy is public (as asked)")
    _copied_goal(ctx, player["player_id"], hero["name"], name, top["build_id"])


@recipe(capabilities=("cross_step_dependency", "aggregation_computation"), difficulty="hard")
def build_for_most_played_hero(ctx: RecipeContext) -> None:
    """A player copies the most liked official build of the hero they played most (in a season, or ever)."""
    in_season = ctx.rng.random() < 0.5
    scope = "m.season_id" if in_season else "NULL"
    row = ctx.pick(
        f"""
        WITH played AS (
            SELECT mp.player_id, {scope} AS season_id, mp.hero_id, count(*) AS games
            FROM match_participants AS mp JOIN matches AS m ON m.match_id = mp.match_id
            GROUP BY ALL),
        ranked AS (
            SELECT *, rank() OVER (PARTITION BY player_id, season_id ORDER BY games DESC) AS place,
                   count(*) OVER (PARTITION BY player_id, season_id, games) AS tied
            FROM played)
        SELECT r.player_id, p.nickname, r.season_id, s.name AS season, r.hero_id, h.name AS hero, r.games
        FROM ranked AS r JOIN players AS p ON p.player_id = r.player_id
        JOIN heroes AS h ON h.hero_id = r.hero_id
        LEFT JOIN seasons AS s ON s.season_id = r.season_id
        WHERE r.place = 1 AND r.tied = 1 AND r.games >= 2
          AND (SELECT count(*) FROM hero_builds AS b WHERE b.hero_id = r.hero_id AND b.player_id IS NULL
               AND b.is_public) >= 1
        """,
        what="player with a most-played hero",
    )
    top = _top_official(ctx, row["hero_id"])
    if top is None:
        ctx.skip("no single most-liked official build for the hero")
    name = _copy_name(ctx, row["player_id"], row["hero_id"])
    introduce(ctx, row["nickname"])
    if in_season:
        short = row["season"].split(" ", 1)[0]
        ctx.say(
            [
                "Take the hero I played the most in {season}, and copy that hero's most-liked official build "
                "into my builds as {name:q}.",
                "Which hero did I play most during {season}? Save a copy of its top official build (most "
                "likes) under the name {name:q}.",
            ],
            season=short,
            name=name,
        )
        ctx.read(
            "get_player_stats",
            {"player": row["nickname"], "season": short},
            step=f"Find my top hero in {short}",
        )
    else:
        ctx.say(
            [
                "Look up the hero I've played in the most matches, and copy its most-liked official build "
                "into my builds as {name:q}.",
                "I want a copy of the top official build (by likes) for my most played hero; call it "
                "{name:q}.",
            ],
            name=name,
        )
        ctx.read("get_player_stats", {"player": row["nickname"]}, step="Find the hero I played most")
    _copy_top(ctx, row, row["hero"], top, name)
    ctx.derived(False, "whether the copy is public (a copy is private unless asked)")
    _copied_goal(ctx, row["player_id"], row["hero"], name, top["build_id"])


@recipe(capabilities=("multi_condition_filtering", "precise_boundary_judgment"), difficulty="medium")
def hide_unpopular_builds(ctx: RecipeContext) -> None:
    """A player makes private every public build of theirs (for a hero) with fewer likes than a number."""
    per_hero = ctx.rng.random() < 0.5
    group = "b.player_id, p.nickname" + (", h.name" if per_hero else "")
    row = ctx.pick(
        f"SELECT {group.replace('h.name', 'h.name AS hero')}, count(*) AS n FROM hero_builds AS b "
        "JOIN players AS p ON p.player_id = b.player_id JOIN heroes AS h ON h.hero_id = b.hero_id "
        f"WHERE b.is_public GROUP BY {group} HAVING count(DISTINCT b.likes) >= 2 AND count(*) <= 60",
        what="player with public builds",
    )
    hero = row.get("hero")
    builds = ctx.sql(
        "SELECT b.build_id, b.likes FROM hero_builds AS b JOIN heroes AS h ON h.hero_id = b.hero_id "
        "WHERE b.player_id = ? AND b.is_public"
        + (" AND h.name = ?" if hero else "")
        + " ORDER BY b.build_id",
        [row["player_id"], *([hero] if hero else [])],
    )
    found = None
    for under in cut_points(ctx, [b["likes"] for b in builds], low=0.1, high=1.0):
        hidden = [b for b in builds if b["likes"] < under]
        if 1 <= len(hidden) <= 20:
            found = (under, hidden)
            break
    if found is None:
        ctx.skip("no like count that hides 1-20 builds")
    under, hidden = found
    introduce(ctx, row["nickname"])
    if hero:
        named(ctx, "heroes", hero, "hero")
    of = " for {hero}" if hero else ""
    ctx.say(
        [
            "Make every public build of mine" + of + " with fewer than {under} likes private.",
            "Hide my unpopular builds" + of + ": any public one with less than {under} likes should become "
            "private.",
            "My public builds" + of + " that have under {under} likes: switch them all to private.",
        ],
        under=under,
        **given(hero=hero),
    )
    search = {"author": row["nickname"], "player": row["nickname"], "limit": 50, **given(hero=hero)}
    ctx.read("search_builds", search, step="List my builds with their likes")
    for b in hidden:
        ctx.call(
            "update_build",
            {"player": row["nickname"], "build_id": b["build_id"], "is_public": False},
            step=f"Make build {b['build_id']} ({b['likes']} likes) private",
        )
    ctx.derived(False, "whether those builds stay public ('private': no)")
    ctx.goal(
        "those builds are private",
        f"SELECT count(*) FILTER (WHERE is_public) AS public FROM hero_builds WHERE build_id IN "
        f"{in_list([b['build_id'] for b in hidden])}",
        expected=[{"public": 0}],
    )
    difficulty_when(ctx, len(hidden) > 5, "hard", "full_data_acquisition")
