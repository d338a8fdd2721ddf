"""What every pack's recipes do the same way: sized picks, introducing the speaker, names that are unique
or absent, thresholds taken from the data, and the values and id lists a goal inlines.

    row = sized(ctx, "SELECT u.username, count(*) AS n FROM ... GROUP BY ALL", what="listener with likes")
    introduce(ctx, "listener", "users", {"username": row["username"]}, row["display_name"], row["username"])
    title = unused_value(ctx, "playlists", "title", [f"{t} Mix", f"{t} II"], where={"owner_id": uid})
    before, n = cut_for(ctx, cut_points(ctx, [day_of(r["sent_at"]) for r in rows]), count_before, 5, 20)

A recipe module keeps only what is its pack's own (its bands, its phrasing, its SQL fragments) and passes it
in; these helpers are tested once, in tests/tasks/test_picks.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from stateforge.store.sql import quote_ident, table_ref
from stateforge.tasks.context import SPEAKER_PHRASES, RecipeContext, Skip

BANDS: tuple[tuple[int, int], ...] = ((2, 12), (12, 50), (50, 250))
"""Default sizes of a bulk change, in rows it touches: a few, dozens, hundreds."""
BAND_WEIGHTS: tuple[float, ...] = (0.3, 0.35, 0.35)


def band_order(
    ctx: RecipeContext, bands: Sequence[tuple[int, int]] = BANDS, weights: Sequence[float] = BAND_WEIGHTS
) -> list[tuple[int, int]]:
    """Every band once, in an order drawn with the rng by `weights` (the first is the one drawn)."""
    if len(bands) != len(weights):
        raise ValueError(f"{len(bands)} bands but {len(weights)} weights: give one weight a band.")
    order: list[tuple[int, int]] = []
    pool, odds = list(bands), list(weights)
    while pool:
        i = ctx.rng.choices(range(len(pool)), weights=odds)[0]
        order.append(pool.pop(i))
        odds.pop(i)
    return order


def sized(
    ctx: RecipeContext,
    sql: str,
    params: Sequence[Any] | Mapping[str, Any] | None = None,
    *,
    what: str,
    bands: Sequence[tuple[int, int]] = BANDS,
    weights: Sequence[float] = BAND_WEIGHTS,
    spread: str | None = None,
) -> dict[str, Any]:
    """A row of `sql` (which has a column `n`: the rows the change will touch) whose `n` lies in a band drawn
    with the rng; the other bands in turn when the drawn one has no row; `Skip("no <what>")` when none has.
    `spread`: a column whose distinct values are drawn first (see `spread_pick`)."""
    for low, high in band_order(ctx, bands, weights):
        try:
            return spread_pick(
                ctx,
                f"SELECT * FROM ({sql}) AS sized WHERE n BETWEEN {int(low)} AND {int(high)}",
                params,
                spread=spread,
                what=what,
            )
        except Skip:
            continue
    raise Skip(f"no {what}")


def spread_pick(
    ctx: RecipeContext,
    sql: str,
    params: Sequence[Any] | Mapping[str, Any] | None = None,
    *,
    spread: str | None,
    what: str,
) -> dict[str, Any]:
    """A row of `sql`; with `spread` (a column), one of its distinct values is drawn first and then a row
    holding it, so that a value on many rows (a prolific artist) is not drawn more often than the others."""
    if spread is None:
        return ctx.pick(sql, params, what=what)
    if isinstance(params, Mapping):
        raise ValueError("spread_pick: `spread` takes positional parameters (`?`), not named ones.")
    key = ctx.pick(f"SELECT DISTINCT {spread} AS k FROM ({sql}) AS c", params, what=what)["k"]
    return ctx.pick(f"SELECT * FROM ({sql}) AS c WHERE {spread} = ?", [*(params or []), key], what=what)


def introduce(
    ctx: RecipeContext,
    role: str,
    table: str,
    key: Mapping[str, Any],
    name: str,
    handle: str | None = None,
    *,
    variants: Sequence[str] = SPEAKER_PHRASES,
) -> str:
    """Open the instruction as the person speaking ("I'm Maria Lopez (@mlopez)."), after recording that `key`
    (the columns the tools look them up by) names exactly one row of `table`; returns the sentence.

    `role` names them in the reference ("listener @mlopez"); `handle`: a username or an e-mail address shown
    after the name (None: the name alone); `variants`: the pack's phrasings (`{name}`, `({handle})`)."""
    shown = " ".join(str(v) for v in key.values())
    ctx.unique(f"{role} {shown}", table, **key)
    return ctx.speaker(name, handle, variants)


def unused_value(
    ctx: RecipeContext,
    table: str,
    column: str,
    candidates: Iterable[str],
    *,
    where: Mapping[str, Any] | None = None,
) -> str | None:
    """The first of `candidates` that no row of `table` (among those whose columns equal `where`) has in
    `column`, in any letter case: a name for a "missing" variant. None when every candidate is taken."""
    model = ctx.schema.table(table)
    conditions = [f"lower(CAST({quote_ident(model.column(column).name)} AS VARCHAR)) = lower(?)"]
    scope: list[Any] = []
    for name, value in (where or {}).items():
        conditions.append(f"{quote_ident(model.column(name).name)} = ?")
        scope.append(value)
    sql = f"SELECT count(*) FROM {table_ref(model.name)} WHERE {' AND '.join(conditions)}"
    for candidate in candidates:
        if not ctx.scalar(sql, [candidate, *scope]):
            return candidate
    return None


def absent(entity: str, table: str, column: str, value: Any) -> tuple[str, str, list[Any], int]:
    """The proof that no row of `table` has `value` in `column` (any letter case): a reference expecting 0
    rows, for `ctx.infeasible(proof=...)`."""
    matches = f"lower(CAST({quote_ident(column)} AS VARCHAR)) = lower(?)"
    sql = f"SELECT count(*) FROM {table_ref(table)} WHERE {matches}"
    return entity, sql, [value], 0


def unique_within(
    alias: str, table: str, scope: Sequence[str], names: Sequence[str], *, case: bool = False
) -> str:
    """SQL over row `alias` of `table`: no other row with the same `scope` columns shares its `names` columns
    (compared in any letter case unless `case`), i.e. the names pick it out within its scope — "a playlist
    title unique among its owner's playlists", "a meeting unique by title and start for its organizer"."""

    def same(column: str) -> str:
        if case:
            return f"o.{column} = {alias}.{column}"
        return f"lower(CAST(o.{column} AS VARCHAR)) = lower(CAST({alias}.{column} AS VARCHAR))"

    matches = [f"o.{c} = {alias}.{c}" for c in scope] + [same(c) for c in names]
    return f"(SELECT count(*) FROM {table} AS o WHERE {' AND '.join(matches)}) = 1"


def read_pages(
    ctx: RecipeContext, tool: str, arguments: Mapping[str, Any], *, step: str, per_page: int = 50
) -> list[dict[str, Any]]:
    """Every row of a paged read tool (one returning `rows` and `total`, taking `limit` and `offset`), read
    page by page as a solver must; each read is a reference call. `step` names the first read, or every
    read when it holds `{start}` (the first row's number on the page: "List the plays (from {start})")."""
    rows: list[dict[str, Any]] = []
    offset = 0
    while True:
        label = step.format(start=offset + 1) if "{start}" in step else (step if offset == 0 else None)
        page = ctx.read(tool, {**arguments, "limit": per_page, "offset": offset}, step=label)
        rows.extend(page["rows"])
        offset += per_page
        if offset >= page["total"]:
            return rows


def cut_points(
    ctx: RecipeContext, values: Sequence[Any], *, low: float = 0.2, high: float = 0.9
) -> list[Any]:
    """Distinct candidate thresholds taken from the data (so a row sits exactly on the boundary), between the
    `low` and `high` quantiles of `values`, in an order shuffled with the rng."""
    ordered = sorted(v for v in values if v is not None)
    if not ordered:
        return []
    a, b = int(low * (len(ordered) - 1)), int(high * (len(ordered) - 1))
    points = list(dict.fromkeys(ordered[a : b + 1]))
    ctx.rng.shuffle(points)
    return points


def cut_for(
    ctx: RecipeContext, points: Sequence[Any], count: Callable[[Any], int], low: int, high: int
) -> tuple[Any, int] | None:
    """A threshold of `points` whose `count(point)` lies in [`low`, `high`], chosen with the rng; when none
    does, the one whose count is nearest to the band (but at least 1); None when every count is 0."""
    counted = [(p, count(p)) for p in points]
    inside = [(p, n) for p, n in counted if low <= n <= high]
    if inside:
        return ctx.choice(inside)
    some = [(p, n) for p, n in counted if n >= 1]
    if not some:
        return None
    return min(some, key=lambda pn: (min(abs(pn[1] - low), abs(pn[1] - high)), str(pn[0])))


def difficulty_when(ctx: RecipeContext, when: bool, difficulty: str, *capabilities: str) -> None:
    """When `when` (a measure of the draft: "50 rows or more"), rate the draft `difficulty` and record the
    `capabilities` it then exercises too (`full_data_acquisition` for a change that spans pages)."""
    if when:
        ctx.difficulty = difficulty
        ctx.also(*capabilities)


def day_of(value: dt.datetime | dt.date | str | None) -> dt.date | None:
    """The calendar day of a timestamp, a date or an ISO text a tool returned (what a user reads)."""
    if isinstance(value, dt.datetime):
        return value.date()
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def in_list(values: Sequence[Any]) -> str:
    """A SQL list of integer ids, inlined (`IN (...)`) for goals that must hold self-contained; `Skip` when
    there are none (nothing to act on)."""
    ids = [int(v) for v in values]
    if not ids:
        raise Skip("nothing to act on")
    return "(" + ", ".join(str(v) for v in ids) + ")"
