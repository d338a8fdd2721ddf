"""One section of the audit report per table: its columns (a table, then a plot or a note each), the
fan-out of its foreign keys, and its audit violations."""

from __future__ import annotations

import bisect

from stateforge.html import Anchors, Markup, Section, badge, data_table, facts, grid, meter, plots, tag, tile
from stateforge.html.blocks import Cell
from stateforge.html.fmt import count, number, percent, plural, value
from stateforge.report.columns import log_edges
from stateforge.report.model import ColumnProfile, FanOut, TableProfile, Values

FANOUT_BARS = 40
"""Fan-outs with a larger maximum are drawn as a histogram of children per parent, not a bar per count."""


def table_anchor(name: str) -> str:
    """The section id of a table (`t-<name>`)."""
    return "t-" + "".join(ch if ch.isalnum() or ch in "_-" else "-" for ch in name.lower())


def _range(p: ColumnProfile) -> tuple[str, str, str]:
    """min, max, and a third figure: the mean of numbers, text lengths."""
    third = ""
    if p.mean is not None and not p.role:
        third = f"mean {number(p.mean)}"
    elif p.length is not None:
        third = f"length {p.length[0]}\u2013{p.length[1]}"
    lo = "" if p.min is None else _shown(p.min, p.kind)
    hi = "" if p.max is None else _shown(p.max, p.kind)
    return lo, hi, third


def _shown(v: object, kind: str) -> str:
    """A minimum or maximum as people read it: numbers with separators, times to the second."""
    if kind in ("integer", "number") and isinstance(v, int | float):
        return number(v)
    return value(v, 32)


def _short(x: float, kind: str) -> str:
    """A histogram edge (a number, or seconds for times) in a few characters."""
    if kind == "time":
        import datetime as dt

        return (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=x)).date().isoformat()
    return plots.compact(x)


def _distinct(p: ColumnProfile) -> str:
    """The distinct count, `≈` before an estimate."""
    return ("\u2248" if not p.distinct_exact else "") + count(p.distinct)


def _role(p: ColumnProfile) -> Markup | str:
    if p.role and p.role.startswith("foreign key -> "):
        parent = p.role.removeprefix("foreign key -> ").split("(")[0]
        return Markup("FK \u2192 {}").format(tag("a", parent, href=f"#{table_anchor(parent)}"))
    return p.role or ""


def columns_table(t: TableProfile) -> Markup:
    """Every column: type, role, NULLs (a meter), distinct values, range."""
    rows = []
    for p in t.columns:
        share = p.nulls / t.rows if t.rows else 0.0
        tone = "bad" if p.nulls and not p.nullable else None
        distinct = _distinct(p)
        lo, hi, third = _range(p)
        rows.append([
            tag("b", p.name), tag("code", p.type), _role(p),
            meter(share, tone, label=f"{percent(share)} ({count(p.nulls)})" if p.nulls else "0"),
            Cell(distinct, p.distinct), Cell(lo, title=str(p.min) if p.min is not None else None),
            Cell(hi, title=str(p.max) if p.max is not None else None), third,
        ])
    header = ["column", "type", "role", "NULL", "distinct", "min", "max", ""]
    return data_table(header, rows, align="lnlrrnnr")


def _value_plot(pid: str, p: ColumnProfile, v: Values, sampled: bool) -> Markup:
    """The top values (and NULLs) as bars with count and share, or in value order as columns; the rest
    are summed up under the plot rather than drawn (one long bar would flatten the others)."""
    labels = [label for label, _ in v.top]
    counts = [n for _, n in v.top]
    warn = []
    if v.nulls:
        labels.append("NULL")
        counts.append(v.nulls)
        warn.append("NULL")
    total = max(1, v.total)
    texts = [percent(n / total) if sampled else f"{count(n)} \u00b7 {percent(n / total, 0)}" for n in counts]
    note = "sample" if sampled else None
    if v.ordered and len(v.top) > 1:
        plot = plots.columns(pid, labels, counts, title=p.name, warn=warn, note=note)
    else:
        plot = plots.bars(pid, labels, counts, title=p.name, warn=warn, value_labels=texts)
    rest = None
    if v.other:
        rest = tag("p", f"{count(v.other_values)} other values hold {percent(v.other / total)} of the rows"
                        + (" (in the sample)." if sampled else "."), class_="text muted")
    return Markup("").join([plot.html(), rest or ""])


def column_tile(pid: str, p: ColumnProfile, rows: int, sampled: bool) -> Markup:
    """One column: heading, a line of figures, then its plot, or the note that says why there is none."""
    share = p.nulls / rows if rows else 0.0
    null_text = tag("b", percent(share)) if p.nulls else tag("b", "no")
    bits = [Markup("{} NULL").format(null_text),
            Markup("{} distinct").format(tag("b", _distinct(p)))]
    if p.role:
        bits.append(Markup(p.role if not p.role.startswith("foreign key") else "foreign key"))
    if p.nulls and not p.nullable:
        bits.append(badge("NULL in a NOT NULL column", "bad"))
    stats = Markup(" \u00b7 ").join(bits)
    body: list[Markup | str | None] = []
    if p.histogram is not None:
        scale = {"time": "time", "clock": "clock"}.get(p.kind, "number")
        xlabel = "seconds" if p.kind == "interval" else None
        notes = ["sample"] if sampled else []
        if p.histogram.log:
            notes.append("log scale")
        if p.histogram.above:
            notes.append(f"{percent(p.histogram.above / max(1, rows - p.nulls))} above "
                         f"{_short(p.histogram.edges[-1], p.kind)} not shown")
        body.append(plots.histogram(pid, p.histogram.edges, p.histogram.counts, title=p.name, scale=scale,
                                    xlabel=xlabel, note=" \u00b7 ".join(notes) or None,
                                    log=p.histogram.log).html())
    elif p.values is not None and p.values.top and p.distinct > 1:
        body.append(_value_plot(pid, p, p.values, sampled))
    if p.note:
        text = p.note
        if p.values is not None and p.distinct == 1 and p.values.top:
            text = f"One value in every non-NULL row: {value(p.values.top[0][0], 60)}."
        body.append(tag("p", text, class_="text muted"))
    if p.examples:
        body.append(tag("p", Markup(", ").join(tag("code", value(e, 40)) for e in p.examples), class_="text"))
    if p.kind in ("integer", "number", "time", "clock", "interval") and p.min is not None:
        body.append(tag("p", f"from {_shown(p.min, p.kind)} to {_shown(p.max, p.kind)}", class_="text muted"))
    return tile(p.name, *body, kind=p.type.lower(), stats=stats, id_=f"{pid}-tile")


def fanout_tile(pid: str, f: FanOut) -> Markup:
    """One foreign key: children per parent over every parent row, with its key figures."""
    share = f.childless / f.parents if f.parents else 0.0
    stats = Markup(" \u00b7 ").join([
        Markup("median {}").format(tag("b", number(f.median))),
        Markup("p90 {}").format(tag("b", count(f.quantile(0.9)))),
        Markup("p99 {}").format(tag("b", count(f.quantile(0.99)))),
        Markup("max {}").format(tag("b", count(f.max))),
        Markup("{} of parents childless").format(tag("b", percent(share))),
    ])
    body: list[Markup] = []
    if f.parents and f.distribution:
        if f.max <= FANOUT_BARS:
            per = dict(f.distribution)
            body.append(plots.columns(pid, list(range(f.max + 1)), [per.get(k, 0) for k in range(f.max + 1)],
                                      title=f.label, xlabel="children per parent", warn=[0]).html())
        else:
            edges, counts = _fanout_bins(f)
            body.append(plots.histogram(pid, edges, counts, title=f.label, xlabel="children per parent",
                                        note="log scale", log=True).html())
    else:
        body.append(tag("p", "The parent table is empty.", class_="text muted"))
    extra = [f"{count(f.parents)} parents, {count(f.children)} children"]
    if f.null_keys:
        extra.append(f"{count(f.null_keys)} with a NULL key")
    extra.append(f"{count(f.orphans)} orphans")
    body.append(tag("p", ", ".join(extra), class_="text bad" if f.orphans else "text muted"))
    target = tag("a", f.parent, href=f"#{table_anchor(f.parent)}")
    title = Markup("({}) \u2192 {}").format(", ".join(f.columns), target)
    return tile(title, *body, stats=stats, id_=f"{pid}-tile")


def _fanout_bins(f: FanOut) -> tuple[list[float], list[int]]:
    """Children per parent in bins equal in log10(1 + k), whole numbers (`log_edges`): fan-outs with a
    long tail (a few very popular parents)."""
    edges = log_edges(0, f.max, integer=True)
    counts = [0] * (len(edges) - 1)
    for k, n in f.distribution:
        counts[bisect.bisect_right(edges, k) - 1] += n
    return edges, counts


def violations_table(violations: list[dict], *, with_table: bool = True) -> Markup:
    """Audit violations: kind, (table,) constraint, offending rows, a few of them."""
    rows = []
    for v in violations:
        sample = "; ".join(", ".join(f"{k}={value(x, 24)}" for k, x in s.items()) for s in v["samples"][:3])
        rows.append(([v["table"]] if with_table else []) + [v["check"], tag("code", v["constraint"]),
                                                            Cell(count(v["count"]), v["count"]), sample])
    header = (["table"] if with_table else []) + ["check", "constraint", "rows", "e.g."]
    return data_table(header, rows, align=("l" if with_table else "") + "llrl", empty="No violation.")


def table_section(t: TableProfile, ids: Anchors) -> Section:
    """The section of one table."""
    sid = table_anchor(t.name)
    badges = [badge(f"{count(t.rows)} rows", "info")]
    if t.sampled is not None:
        badges.append(badge(f"distributions from a sample of {count(t.sampled)}", "warn",
                            title="Histograms and top values read a deterministic sample; NULL counts, "
                                  "ranges and fan-outs read every row."))
    bad = sum(v["count"] for v in t.violations)
    badges.append(badge(plural(bad, "violation"), "bad") if bad else badge("clean", "good"))
    parents = [tag("a", f"{f.parent}", href=f"#{table_anchor(f.parent)}") for f in t.fanouts]
    build = t.build or {}
    repairs = ", ".join(f"{k} {v}" for k, v in sorted(build.get("repairs", {}).items()) if v) or None
    body = [facts([
        ("primary key", ", ".join(t.primary_key) or "none"),
        ("references", Markup(", ").join(parents) if parents else None),
        ("referenced by", ", ".join(t.referenced_by) or None),
        ("built in", (f"{build['batches']} batch" + ("es" if build["batches"] != 1 else ""))
         if build.get("batches") else None),
        ("repairs", repairs),
        ("seed rows", f"{build['seeded']:,} from the DDL's INSERTs" if build.get("seeded") else None),
        ("short of plan", f"{build['shortfall']:,} of {build.get('planned', 0):,} planned rows: "
                          f"{build.get('short_reason') or 'fewer rows were written'}"
         if build.get("shortfall") else None),
    ])]
    if t.violations:
        body += [tag("h3", "Violations"), violations_table(t.violations, with_table=False)]
    body += [tag("h3", "Columns"), columns_table(t)]
    sampled = t.sampled is not None
    body.append(grid(column_tile(ids("p", t.name, p.name), p, t.rows, sampled) for p in t.columns))
    if t.fanouts:
        body.append(tag("h3", "Foreign keys: children per parent"))
        body.append(grid(fanout_tile(ids("fo", t.name, *f.columns), f) for f in t.fanouts))
    return Section(sid, t.name, Markup("").join(body), subtitle=t.description, badges=badges)
