"""The domain config: what `domain.yaml` says that the DDL cannot (docs/domain-packs.md is the contract).

Pydantic models with `extra="forbid"`, so that a typo is an error rather than a silently ignored key.
Reading the YAML file and turning validation errors into `DomainError`s lives in `stateforge.domain.loader`;
what only the generator can judge (strategy names, hints on foreign keys) in `stateforge.fill.check_config`.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from pathlib import Path
from typing import Annotated, Any, Literal

import sqlglot
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from stateforge.errors import DomainError
from stateforge.schema.model import Schema, Table, suggest

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")


def parse_duration(value: Any) -> float:
    """Seconds in a duration: a number (seconds) or `"90s"`, `"15m"`, `"2h"`, `"30d"`, `"1w"`."""
    if isinstance(value, bool):
        raise ValueError("expected a number or a duration such as 90s, 15m, 2h, 30d")
    if isinstance(value, int | float):
        return float(value)
    match = _DURATION.match(str(value))
    if not match:
        raise ValueError(f"{value!r} is not a duration: expected a number or 90s, 15m, 2h, 30d")
    return float(match.group(1)) * _UNITS[match.group(2) or "s"]


def _parse_bound(value: Any) -> Any:
    """Numbers stay numbers; ISO strings become dates, timestamps or times."""
    if not isinstance(value, str):
        return value
    for parse in (date.fromisoformat, datetime.fromisoformat, time.fromisoformat):
        try:
            return parse(value)
        except ValueError:
            continue
    raise ValueError(f"{value!r} is neither a number nor an ISO date, timestamp or time")


Duration = Annotated[float, BeforeValidator(parse_duration)]
Bound = Annotated[int | float | datetime | date | time, BeforeValidator(_parse_bound)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ValuesBy(_Model):
    """Text chosen by another column of the row (a mail's subject by its category): `values[v]` are the
    texts for rows whose `column` is `v`; `default` for any other value (NULL when not given). With `via`,
    the value is read through the row's parents (a comment's text by its song's genre)."""

    column: str
    """The row's column the texts are chosen by; with `via`, the name the value is shown under."""
    values: dict[str, list[str]]
    default: list[str] | None = None
    pick_by: list[str]
    """Columns whose values choose among the texts (the row's key, usually). Two columns with lists of the
    same lengths and the same `pick_by` pick the same position: a subject and its body, paired."""
    via: str | None = None
    """A DuckDB SQL expression for the value when it is not the row's own: a scalar subquery over other
    tables that names the row's table by its name, e.g. `(SELECT g.name FROM song_genres AS sg JOIN genres
    AS g USING (genre_id) WHERE sg.song_id = comments.song_id ORDER BY sg.is_primary DESC LIMIT 1)`. The
    fill writes the `default` texts (else any listed text) and the second pass, once every table has its
    rows, sets each row's text by that value in one UPDATE (`stateforge.validation.text_fit`)."""

    tails: list[str] | None = None
    """Second sentences any row may take after its text (chosen apart from it), so that a few texts per
    value still read as many: "That drop at 1:32, absolutely unreal." + " Been on repeat all week."."""
    tail_rate: float = Field(default=0.5, ge=0, le=1)
    """With `tails`: the share of rows (chosen by `pick_by`) whose text takes one."""

    @model_validator(mode="after")
    def _lists(self) -> ValuesBy:
        if not self.values or any(not v for v in self.values.values()) or self.default == []:
            raise ValueError("values_by.values needs a non-empty list of texts for every value")
        if self.tails == []:
            raise ValueError("values_by.tails: give at least one text, or leave it out")
        return self

    def allowed(self, texts: list[str]) -> list[str]:
        """What a row of a group with `texts` may hold: one of them, alone or followed by a tail."""
        return [*texts, *(f"{t} {tail}" for t in texts for tail in self.tails or [])]

    def expr(self, null_rate: float | None = None) -> str:
        """The DuckDB expression that picks the text; with `null_rate`, that share of rows (chosen by
        `pick_by`) get NULL instead (an expression column takes no other null share)."""
        # in key order: a config read back from JSON (keys sorted) makes the same expression
        cases = " ".join(f"WHEN {_lit(k)} THEN {self._pick(v)}" for k, v in sorted(self.values.items()))
        default = self._pick(self.default) if self.default else "NULL"
        made = f"CASE CAST({self.key_sql()} AS VARCHAR) {cases} ELSE {default} END"
        return self._nulled(self._tailed(made), null_rate)

    def fill_expr(self, null_rate: float | None = None) -> str:
        """The expression the fill computes over the row alone: `expr` itself, or with `via` (whose value
        the fill cannot see) a pick from the `default` texts, else from every listed text."""
        if self.via is None:
            return self.expr(null_rate)
        texts = self.default or sorted({t for v in self.values.values() for t in v})
        return self._nulled(self._tailed(self._pick(texts)), null_rate)

    def _nulled(self, made: str, null_rate: float | None) -> str:
        """`made`, or NULL for the `null_rate` share of rows (chosen by `pick_by`)."""
        if not null_rate:
            return made
        share = round(null_rate * 10000)
        return f"CASE WHEN hash({self._by()}, 'null') % 10000 < {share} THEN NULL ELSE {made} END"

    def key_sql(self) -> str:
        """The SQL of the value the texts are chosen by: `via`, or the row's column."""
        return f"({self.via})" if self.via is not None else f'"{self.column}"'

    def _by(self) -> str:
        return ", ".join(c if c == "rowid" else f'"{c}"' for c in self.pick_by)

    def _pick(self, texts: list[str], *, rehash: bool = False) -> str:
        listed = ", ".join(_lit(t) for t in texts)
        h = f"hash({self._by()}, {_lit(self.column)})"
        if rehash:  # hashes of the same columns with two salts share their low bits: mix once more
            h = f"hash({h}, 'tail')"
        return f"([{listed}])[CAST({h} % {len(texts)} AS INTEGER) + 1]"

    def _tailed(self, made: str) -> str:
        if not self.tails:
            return made
        rate = round(self.tail_rate * 10000)
        tail = self._pick(self.tails, rehash=True)
        on = f"hash(hash({self._by()}, 'tail'), 'on') % 10000 < {rate}"
        return f"(({made}) || CASE WHEN {on} THEN ' ' || {tail} ELSE '' END)"


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Follows(_Model):
    """A foreign key that takes its value from the row's parent along another key (a track's artist is its
    album's): `columns.songs.artist_id: {follows: {via: album_id, at_least: 0.9}}`. The fill draws the key
    as usual, then sets it to the parent's value on every row but, per parent, the last
    `floor((1 - at_least) * children)` rows (guests: they keep their own draw), and on every row of a
    parent that `unless` holds for."""

    via: str
    """The row's foreign-key column to the parent (a single-column foreign key drawn in the same pass)."""
    column: str | None = None
    """The parent's column holding the value; default: the hinted column's own name."""
    at_least: float = Field(default=1.0, ge=0, le=1)
    """The least share of each parent's children that take its value."""
    unless: str | None = None
    """SQL over the parent's row: its children keep their own draw (`album_type = 'compilation'`)."""


class AtMost(_Model):
    """A number not above its parent's along a foreign key (a play lasts at most its song):
    `columns.listening_history.ms_played: {at_most: {via: song_id, column: duration_ms}}`. The fill cuts
    each generated value to its parent's, before the row's expressions are computed."""

    via: str
    """The row's single-column foreign key to the parent, drawn in the first pass."""
    column: str
    """The parent's number the value may not exceed."""


class ColumnHint(_Model):
    """How to generate one column; every key is optional (see docs/domain-packs.md, "Column hints")."""

    strategy: str | None = None
    """A strategy name: one of `stateforge.fill.strategies.STRATEGIES` (`stateforge.fill.check_config`)."""
    values: list[Any] | None = None
    """Pick from this list."""
    weights: list[float] | None = None
    """Relative weights of `values` (need not sum to 1)."""
    min: Bound | None = None
    """Lower bound: a number, or an ISO date/timestamp/time."""
    max: Bound | None = None
    """Upper bound: a number, or an ISO date/timestamp/time."""
    distribution: Literal["uniform", "normal", "lognormal", "zipf"] | None = None
    """The shape between `min` and `max`; `zipf` is a long tail near `min`. On a foreign key, `uniform`
    or `zipf`: how often each parent is drawn (every parent alike, or a few popular ones)."""
    skew: float | None = Field(default=None, ge=0, le=5)
    """Foreign keys only: the popularity exponent, parent of rank r drawn with weight 1/(r+1)^skew
    (0 is uniform; the default is 1.1)."""
    decimals: int | None = Field(default=None, ge=0, le=18)
    """Digits after the point (float, decimal, price)."""
    after: str | None = None
    """A column of the same row that this one is later than (or greater than)."""
    min_gap: Duration | None = None
    """With `after`: the least gap (seconds for time, the column's unit for numbers)."""
    max_gap: Duration | None = None
    """With `after`: the largest gap."""
    within: list[str] | None = None
    """With `sequence`: number 1..n inside each group of these columns."""
    values_by: ValuesBy | None = None
    """Text that fits its row: the texts listed for the row's value of another column (`ValuesBy`);
    computed as an `expr` after that column (with `via`, set in the second pass)."""
    shares: list[str] | None = None
    """On a self-referencing foreign key filled in the second pass: the row points only at rows with the
    same values of these columns (a reply answers a comment under the same song: `shares: [song_id]`)."""
    at_most: AtMost | None = None
    """On a generated number: not above the parent's value along a key (`AtMost`), so that a limit rule
    (a play no longer than its song) holds by construction."""
    follows: Follows | None = None
    """On a foreign key: take the value of the row's parent along another key (`Follows`), so that a family
    rule (most of an album's tracks by its artist) holds by construction."""
    expr: str | None = None
    """A DuckDB SQL expression over the row's other columns, computed after keys."""
    faker: str | None = None
    """A Faker provider name; values are sampled from a pool made once."""
    args: dict[str, Any] | None = None
    """Keyword arguments for the Faker provider."""
    null_rate: float | None = Field(default=None, ge=0, le=1)
    """Share of NULLs (nullable columns only); overrides the domain's `null_rate`."""
    unique: bool | None = None
    """`true`: keep values unique even where the DDL does not say so."""
    pool: int | None = Field(default=None, ge=1, le=100_000)
    """Pool size for Faker-made values (default 2,000)."""
    constant: Any = None
    """One value for every row."""
    pattern: str | None = None
    """With `code`: `#` a digit, `?` an upper-case letter, anything else literal."""
    p: float | None = Field(default=None, ge=0, le=1)
    """With `bool`: the share of true."""
    unit: Literal["s", "ms", "min"] | None = None
    """With `duration`: the unit of the integer amount."""
    llm: bool | None = None
    """With an LLM configured: `true` has the LLM write this column, `false` never; unset: inferred
    (`stateforge.llm.columns.meaning_columns`). Keys and foreign keys are never the LLM's."""

    @model_validator(mode="after")
    def _consistent(self) -> ColumnHint:
        if self.values_by is not None:
            made = self.values_by.fill_expr(self.null_rate)
            # a config read back from a build holds the expr values_by made
            if self.expr not in (None, made) or self.values is not None or self.strategy is not None:
                raise ValueError("values_by gives the values: drop expr, values and strategy")
            self.expr = made
        if self.weights is not None:
            if self.values is None or len(self.weights) != len(self.values):
                raise ValueError("weights needs values of the same length")
            if any(w < 0 for w in self.weights) or sum(self.weights) <= 0:
                raise ValueError("weights must be non-negative and not all zero")
        if self.within and self.strategy not in (None, "sequence"):
            raise ValueError("within needs strategy: sequence")
        if self.values is not None and not self.values:
            raise ValueError("values must not be empty")
        if (self.min_gap is not None or self.max_gap is not None) and self.after is None:
            raise ValueError("min_gap/max_gap need after")
        if self.min_gap is not None and self.max_gap is not None and self.min_gap > self.max_gap:
            raise ValueError("min_gap must not exceed max_gap")
        if self.min is not None and self.max is not None and type(self.min) is type(self.max):
            if self.min > self.max:
                raise ValueError("min must not exceed max")
        if self.distribution == "uniform" and self.skew:
            raise ValueError("distribution: uniform contradicts a skew above 0 (drop one of them)")
        if self.expr is not None:
            try:
                sqlglot.parse_one(self.expr, read="duckdb")
            except sqlglot.errors.ParseError as exc:
                raise ValueError(f"expr is not valid DuckDB SQL: {exc}") from None
        return self

    def popularity(self, default: float) -> float | None:
        """The popularity exponent this hint sets for a foreign key: `skew`, 0 for `distribution: uniform`,
        `default` for `zipf`; None when it sets none."""
        if self.skew is not None:
            return self.skew
        return {"uniform": 0.0, "zipf": default}.get(self.distribution or "")

    def sets_value(self) -> bool:
        """True when the hint gives the values themselves (`expr`, `values`, `constant`)."""
        return self.expr is not None or self.values is not None or "constant" in self.model_fields_set


class PerParent(_Model):
    """Rows of a child table per parent row, along the foreign key column `fk`."""

    fk: str
    exactly: int | None = Field(default=None, ge=0)
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)
    quantiles: dict[float, int] | None = None
    """With max: the fan-out's distribution as {quantile: children}, e.g. `{0.5: 1, 0.9: 4, 0.99: 210}`
    (the median parent has 1 child, the one at the 99th percentile 210). Counts are interpolated
    log-linearly between min, these points and max, the most popular parents getting the most, and the
    table's size is what they sum to (`rows` is not used): a heavy tail stated once, measured by the
    report's fan-out tiles (median, p90, p99, max)."""

    @model_validator(mode="after")
    def _one_form(self) -> PerParent:
        if self.exactly is not None and (self.min is not None or self.max is not None):
            raise ValueError("give either exactly or min/max, not both")
        if self.exactly is None and self.max is None:
            raise ValueError("give exactly, or max (and optionally min)")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("min must not exceed max")
        if self.quantiles is not None:
            if self.max is None or not self.quantiles:
                raise ValueError("quantiles need max (and at least one point)")
            if any(not 0 < q < 1 for q in self.quantiles):
                raise ValueError("quantiles are between 0 and 1 (exclusive), e.g. {0.5: 2, 0.99: 200}")
            points = [v for _, v in self.points()]
            if points != sorted(points):
                raise ValueError("children must not decrease with the quantile, from min to max")
        return self

    def points(self) -> list[tuple[float, int]]:
        """The fan-out's declared (quantile, children) points, min and max included; empty without
        `quantiles`."""
        if not self.quantiles or self.max is None:
            return []
        return [(0.0, self.min or 0), *sorted(self.quantiles.items()), (1.0, self.max)]


class TableConfig(_Model):
    rows: int | None = Field(default=None, ge=1)
    """Rows at scale 1 (with `per_parent` min/max: the target the fan-out is scaled to)."""
    scale: bool = True
    """`false`: the table keeps `rows` whatever `--scale` or `--rows` say (reference tables: genres,
    plans, heroes)."""
    description: str | None = None
    per_parent: PerParent | None = None

    @model_validator(mode="after")
    def _fixed_size(self) -> TableConfig:
        if not self.scale and self.rows is None:
            raise ValueError("scale: false needs rows (the fixed size)")
        if not self.scale and self.per_parent is not None and self.per_parent.exactly is not None:
            raise ValueError(
                "scale: false does not apply with per_parent.exactly: the size follows the parent table "
                "(give the parent table scale: false instead)"
            )
        return self


CheckKind = Literal["rule", "policy", "time", "family", "limit", "text"]
"""What a domain check is about, as the audit and the report group them: a consistency `rule`, a stated
`policy` on stored state, `time` order (inferred along foreign keys, `stateforge.validation.time_order`),
`family` resemblance of children to their parent, a `limit` on a count set by a parent's attribute, or
`text` that fits its row."""


class Rule(_Model):
    """A business rule: `check` returns the rows that break it; `repair` statements fix them, in order."""

    name: str
    description: str | None = None
    kind: CheckKind = "rule"
    """How the audit and the report group it (`CheckKind`)."""
    check: str
    repair: list[str] = Field(default_factory=list)


class DomainPolicy(_Model):
    """A policy told to agents (a solver's instructions): a product rule, or an organisational procedure.

    Rules keep the data consistent (the build repairs them, every tool call is checked against them);
    product policies are what the product allows a user to do ("a playlist holds at most 500 songs", "only
    the organizer reschedules a meeting"): a tool that would break one refuses with a `ToolError`.
    Procedures (`kind: procedure`) are what the organisation asks of the actor ("a member with three
    overdue books is sent to the desk"): the software allows breaking them, the tools do not refuse, and a
    policy verifier checks the end state of every task touching the tables the check reads.
    """

    name: str
    description: str
    """One or two sentences in the product's voice, as an agent would be told."""
    kind: Literal["state", "action", "procedure"] | None = None
    """`state`: the policy constrains stored state and has a `check` that every build satisfies (the build
    repairs it with `repair`, the audit counts it); `action`: it is about how changes are made only, and the
    write tools enforce it (no `check`); `procedure`: an organisational rule the tools do NOT enforce, whose
    `check` (rows of an end state that break it) the built data satisfies like a state policy and every
    task touching its tables gets as a policy verifier. Omitted: `state` when there is a check; a policy
    with neither is a load error."""
    check: str | None = None
    """SQL returning the rows of a state that break the policy (zero rows: respected); the build holds it,
    the audit counts it and tasks use it as a policy verifier."""
    repair: list[str] = Field(default_factory=list)
    """With `check`: statements that make the generated data respect the policy, as a rule's repair."""

    @model_validator(mode="after")
    def _classified(self) -> DomainPolicy:
        if self.kind is None:
            if self.check is None:
                raise ValueError(
                    f"policy {self.name} has no check and is not marked `kind: action`: give it a `check` "
                    "(SQL returning the rows of a state that break it) if it constrains stored state, or "
                    "`kind: action` if the write tools enforce it on changes only"
                )
            self.kind = "state"
        elif self.kind in ("state", "procedure") and self.check is None:
            raise ValueError(
                f"policy {self.name} is `kind: {self.kind}` but has no check: give it a `check` (SQL "
                "returning the rows of an end state that break it)"
            )
        elif self.kind == "action" and (self.check is not None or self.repair):
            raise ValueError(
                f"policy {self.name} is `kind: action` but has a check or repair: a policy on stored state "
                "is `kind: state`"
            )
        if self.repair and self.check is None:
            raise ValueError(f"policy {self.name}: repair needs a check")
        return self

    @property
    def checked(self) -> bool:
        """Whether the built data holds it (a state policy or a procedure: it has a `check`)."""
        return self.kind in ("state", "procedure")

    @property
    def enforced(self) -> bool:
        """Whether the tools refuse what breaks it (state and action policies; not procedures)."""
        return self.kind != "procedure"

    def as_rule(self) -> Rule:
        """A state policy or a procedure as the build and the audit run it: a rule of kind `policy`."""
        assert self.check is not None, f"policy {self.name} is an action policy"
        return Rule(name=self.name, description=self.description, kind="policy", check=self.check,
                    repair=self.repair)


class RoleQuery(_Model):
    """Roles kept in other tables (a person's roles through a link table): the SQL that lists them."""

    query: str
    """A SELECT of one text column, the names of the roles of the person whose `actors.key` value is its one
    `?` parameter (`SELECT r.name FROM user_roles JOIN roles ... WHERE u.user_name = ?`)."""


class Actors(_Model):
    """Who an episode can act as (docs/domain-packs.md, "Actors"): the people table, the column a person is
    named by, and their roles."""

    table: str
    """The table of people (members, users, employees)."""
    key: str
    """The column naming a person uniquely (a UNIQUE or primary key column: card_number, username)."""
    roles: str | list[str] | RoleQuery = Field(default_factory=list)
    """A column of `table` holding each person's role (text, or a list of text), the list of roles
    everyone may hold (`[member]`), or `{query: SQL}` listing a person's roles from other tables (roles
    granted through a link table); empty: actors have no roles."""

    @property
    def role_column(self) -> str | None:
        """The column of roles, when `roles` names one."""
        return self.roles if isinstance(self.roles, str) else None

    @property
    def role_query(self) -> str | None:
        """The SQL listing a person's roles, when `roles` is `{query: ...}`."""
        return self.roles.query if isinstance(self.roles, RoleQuery) else None


class TimeOrder(_Model):
    """Corrections to the time order inferred from the DDL (`stateforge.validation.time_order`)."""

    created: dict[str, str | None] = Field(default_factory=dict)
    """`table` -> its creation (or event) time column, overriding the inferred one; null: the table has none
    (its rows are not ordered after their parents, nor its children after it)."""
    ignore: list[str] = Field(default_factory=list)
    """Inferred orderings to drop: `table.fk_column` (the order along that foreign key), `table.column`
    (a pair whose later column it is) or `table` (everything of that table)."""
    windows: bool = True
    """`false`: a parent's start/end pair does not bound its children's event times (only its start does)."""


class TimeWindow(_Model):
    """The dates the generated data spans, and the environment's frozen clock."""

    start: date = date(2023, 1, 1)
    end: date = date(2026, 6, 30)
    now: datetime | None = None
    """The frozen "now" of episodes and of time-relative CHECKs (`clock`); default: the last second of
    `end`, so every generated row lies in the past. A pack whose product has a future (meetings booked
    ahead) sets it inside the window."""

    @model_validator(mode="after")
    def _ordered(self) -> TimeWindow:
        if self.start > self.end:
            raise ValueError("time_window.start must not be after time_window.end")
        if self.now is not None and not self.start <= self.now.date() <= self.end:
            raise ValueError("time_window.now must lie between start and end")
        return self

    @property
    def clock(self) -> datetime:
        """The frozen "now": `now` if given, else 23:59:59 on the last day of the window."""
        return self.now if self.now is not None else datetime.combine(self.end, time(23, 59, 59))


class Member(_Model):
    """One pack of a composed domain (`members:`), in the DuckDB schema its key names (docs/domain-packs.md,
    "Composing packs")."""

    pack: str
    """The member pack: a shipped pack's name, or a folder relative to the composed pack's."""
    shift_days: int = 0
    """Days added to every date and time the member's config states (hint bounds, SQL literals), so that
    its "now" meets the composed domain's one clock; a multiple of 7 keeps weekdays."""
    person: str | None = None
    """For a member whose tools act for `env.actor`: a SELECT of the member's `actors.key` for the composed
    domain's actor, with one `?` (the composed `actors.key` value)."""


class Sync(_Model):
    """In a composed domain, columns one member's table keeps in step with another's on every call
    (`sync:`): the system of record's value reaches the other system's row in the same call
    (`stateforge.tools.compose`)."""

    source: str
    """The system of record's table (`hr.employees`), whose primary key is one column."""
    target: str
    """The table that follows it (`itsm.users`)."""
    key: str
    """The target's column that holds the source row's primary key."""
    columns: dict[str, str] = Field(default_factory=dict)
    """Target column -> the source column whose value it takes."""
    derived: dict[str, str] = Field(default_factory=dict)
    """Target column -> an SQL expression over the source row `s` whose value it takes (what the system of
    record derives, such as a worker's job title through their position); brought in step after every write
    of the source table."""
    where: str | None = None
    """Only source rows matching this SQL condition over `s` (`s.status <> 'terminated'`) are followed."""


class DomainConfig(_Model):
    """A whole `domain.yaml`."""

    name: str
    description: str | None = None
    dialect: str | None = None
    """Dialect of schema.sql; detected when omitted."""
    seed: int = 0
    time_window: TimeWindow = Field(default_factory=TimeWindow)
    null_rate: float = Field(default=0.1, ge=0, le=1)
    batch_size: int = Field(default=50_000, ge=1)
    min_scale: float | None = Field(default=None, gt=0)
    """The smallest `--scale` at which the pack's data can keep its rules (below it there are, say, too few
    people to staff every unit): a build asked for less is refused before anything is written."""
    tables: dict[str, TableConfig] = Field(default_factory=dict)
    columns: dict[str, ColumnHint] = Field(default_factory=dict)
    """`"table.column"` -> hint."""
    rules: list[Rule] = Field(default_factory=list)
    policies: list[DomainPolicy] = Field(default_factory=list)
    """What agents are told: each a check the built data holds (`kind: state`), a rule of actions the
    pack's write tools enforce (`kind: action`), or a procedure the actor must follow, unenforced and
    checked on the end state (`kind: procedure`)."""
    actors: Actors | None = None
    """Who episodes act as (the tools read `env.actor`); None: the tools take whom they act for as an
    argument, if at all."""
    time_order: TimeOrder = Field(default_factory=TimeOrder)
    """Corrections to the inferred time order (creation columns, orderings to drop)."""
    grading: dict[str, Any] = Field(default_factory=dict)
    """How graders compare values: `"table.column"` or `"*.column"` -> a comparison rule (`exact`,
    `normalized`, `ignore`, `any_non_null`, `{rule: numeric, abs: 0.01}`, `{rule: time, seconds: 120}`),
    the default policy of every task of the domain. Kept as plain data here: it is validated against
    `stateforge.diff.ColumnRule` by `stateforge.tasks.grading` (the diff sits above the domain layer)."""
    members: dict[str, Member] = Field(default_factory=dict)
    """A composed domain: DuckDB schema -> the pack whose tables it holds (`stateforge.domain.compose`);
    empty for a pack of its own."""
    sync: list[Sync] = Field(default_factory=list)
    """A composed domain's columns kept in step across its members by every tool call (`Sync`)."""

    @model_serializer(mode="wrap")
    def _without_empty_members(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # a pack of its own records the config it always did (build fingerprints and release hashes)
        data = handler(self)
        if isinstance(data, dict):
            for key in ("members", "sync"):
                if not data.get(key):
                    data.pop(key, None)
        return data

    _source: Path | None = PrivateAttr(default=None)
    _hint_index: tuple[tuple[str, ...], dict[str, str]] | None = PrivateAttr(default=None)

    @property
    def source(self) -> Path | None:
        """The `domain.yaml` this config was read from, if any (for messages)."""
        return self._source

    @classmethod
    def default(cls, name: str) -> DomainConfig:
        """The config of a bare DDL file: every default, no hints."""
        return cls(name=name)

    def procedure(self, name: str | None) -> DomainPolicy | None:
        """The policy `name` when it is a procedure (`kind: procedure`), else None."""
        return next((p for p in self.policies if p.name == name and p.kind == "procedure"), None)

    def hint(self, table: str, column: str) -> ColumnHint | None:
        """The hint for `table.column` (case-insensitive), or None."""
        key = self._hint_keys().get(f"{table}.{column}".lower())
        return self.columns[key] if key is not None else None

    def table_config(self, table: str) -> TableConfig | None:
        """The `tables:` entry for `table` (case-insensitive), or None."""
        return {k.lower(): v for k, v in self.tables.items()}.get(table.lower())

    def _hint_keys(self) -> dict[str, str]:
        """Lower-cased `columns` keys -> the keys as written (the last one wins, as a dict would have it).

        The fill asks for hints per column and batch (thousands of times a build): the index is rebuilt
        only when the keys change (values are looked up live, so replacing a hint needs no rebuild)."""
        keys = tuple(self.columns)
        if self._hint_index is None or self._hint_index[0] != keys:
            self._hint_index = (keys, {k.lower(): k for k in keys})
        return self._hint_index[1]

    def validate_against(self, schema: Schema) -> None:
        """Raise `DomainError` for any table, column or foreign key the schema does not have.

        `stateforge.fill.check_config` runs this and then what only the generator can judge (strategies,
        hints on foreign keys)."""
        for name, table_cfg in self.tables.items():
            table = self._table(schema, name, f"tables.{name}")
            if table_cfg.per_parent is not None:
                fk = table_cfg.per_parent.fk
                where = f"tables.{name}.per_parent.fk"
                fk_columns = [c for key in table.foreign_keys for c in key.columns]
                if not any(c.lower() == fk.lower() for c in fk_columns):
                    hint = (
                        suggest(fk, fk_columns) or f" Foreign key columns: {', '.join(fk_columns) or 'none'}."
                    )
                    self.fail(where, f'table {table.name} has no foreign key column "{fk}".{hint}')
        for key, hint in self.columns.items():
            if "." not in key:
                self.fail(f"columns.{key}", f'"{key}" is not "table.column".')
            table_name, column_name = key.rsplit(".", 1)
            table = self._table(schema, table_name, f"columns.{key}")
            self._column(table, column_name, f"columns.{key}")
            if hint.after is not None:
                self._column(table, hint.after, f"columns.{key}.after")
                self._generated(table, hint.after, f"columns.{key}.after")
            for group in hint.within or []:
                self._column(table, group, f"columns.{key}.within")
        if self.actors is not None:
            table = self._table(schema, self.actors.table, "actors.table")
            self._column(table, self.actors.key, "actors.key")
            if not any([c.lower() for c in u] == [self.actors.key.lower()] for u in table.unique_keys):
                self.fail("actors.key", f'column "{self.actors.key}" of {table.name} is not a key (PRIMARY '
                          "KEY or UNIQUE on that column alone): it must name one person.")
            if self.actors.role_column is not None:
                self._column(table, self.actors.role_column, "actors.roles")
            query = self.actors.role_query
            if query is not None and (
                not query.lstrip().lower().startswith(("select", "with")) or query.count("?") != 1
            ):
                self.fail("actors.roles.query", "must be one SELECT of the role names with exactly one `?`, "
                          "the person's key (actors.key).")

    def _table(self, schema: Schema, name: str, where: str) -> Table:
        if not schema.has_table(name):
            self.fail(where, f'the DDL has no table "{name}".{suggest(name, schema.table_names)}')
        return schema.table(name)

    def _column(self, table: Table, name: str, where: str) -> None:
        if not table.has_column(name):
            self.fail(
                where, f'table {table.name} has no column "{name}".{suggest(name, table.column_names)}'
            )

    def _generated(self, table: Table, name: str, where: str) -> None:
        """`after` needs a column made with the row (not a foreign key, expression or grouped sequence)."""
        fk_columns = {c.lower() for key in table.foreign_keys for c in key.columns}
        hint = self.hint(table.name, name)
        later = hint is not None and (hint.expr is not None or bool(hint.within))
        if name.lower() in fk_columns or later:
            what = "a foreign key column" if name.lower() in fk_columns else "computed after the row"
            self.fail(where, f'"{name}" is {what}; `after` needs a column generated with the row.')

    def fail(self, where: str, message: str) -> None:
        """Raise `DomainError` naming this config's file and the key path `where`."""
        raise DomainError(f"{self._source or 'domain.yaml'}: {where}: {message}")
