"""The plots of Stateforge's reports: a few kinds, each from data already aggregated (by DuckDB).

    histogram("t-songs-bpm", edges, counts)                       # numbers, times or times of day
    bars("t-users-status", ["active", "closed"], [9500, 400])     # categories, horizontal, labelled
    columns("fanout-songs", [0, 1, 2, 3], [12, 40, 33, 9])        # ordered discrete x: counts per k
    scatter("cost-score", costs, scores, labels=models)           # one point per run or model

Each returns a `Plot`: the inline SVG (`stateforge.html.svg`, deterministic bytes) with a title and a one
sentence summary for screen readers; `plot.html()` wraps it in a `<figure class="plot">`. The drawn marks
of a plot are in the group `<plot id>-data`, which the browser tests measure to prove it was drawn.
The audit report draws histograms, bars and columns; the evaluation report (pass rates per capability,
by plan length, cost against score, failure reasons) uses bars, columns and scatter.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from stateforge.html.fmt import number
from stateforge.html.markup import Markup, tag
from stateforge.html.svg import ACCENT, INK, MUTED, SERIES, WARN, Canvas

Scale = Literal["number", "time", "clock"]
"""x of a histogram: plain numbers, epoch seconds (dates and timestamps), seconds since midnight."""

WIDTH = 3.4
"""Inches: a plot card's width (three cards a row on a laptop screen)."""


@dataclass(frozen=True)
class Plot:
    """One rendered plot."""

    id: str
    """Unique in its page; every id inside the SVG starts with it."""
    title: str
    svg: Markup
    summary: str
    """What the plot shows, in one sentence (the figure's accessible label)."""

    def html(self, caption: Markup | str | None = None) -> Markup:
        """`<figure class="plot">` with the SVG and an optional caption under it."""
        parts = [self.svg]
        if caption is not None:
            parts.append(tag("figcaption", caption))
        return tag("figure", *parts, class_="plot", id=self.id, data_plot=self.id, role="img",
                   aria_label=f"{self.title}: {self.summary}")


def compact(x: float, _pos: object = None) -> str:
    """A number in a few characters (tick labels): 1.2k, 35k, 1.5M."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}" if not float(x).is_integer() else f"{int(x)}"


def _clock(x: float, _pos: object = None) -> str:
    seconds = int(round(x)) % 86400
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}"


def _rects(ax, lefts, widths, bottoms, heights, color, gid):  # noqa: ANN001, ANN202 - matplotlib types
    """Bars as one PolyCollection (one artist: much faster to draw than a patch per bar)."""
    from matplotlib.collections import PolyCollection

    verts = [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
             for x, w, y, h in zip(lefts, widths, bottoms, heights, strict=True)]
    polys = PolyCollection(verts, facecolors=color, edgecolors="none", linewidths=0)
    polys.set_gid(gid)
    ax.add_collection(polys)
    ax.autoscale_view()
    return polys


def _corner(ax, text: str) -> None:  # noqa: ANN001 - a matplotlib Axes
    ax.text(1, 1.03, text, transform=ax.transAxes, ha="right", va="bottom", color=MUTED, fontsize=6.5)


def histogram(plot_id: str, edges: Sequence[float], counts: Sequence[int], *, title: str = "",
              scale: Scale = "number", xlabel: str | None = None, note: str | None = None,
              log: bool = False) -> Plot:
    """Counts of values in bins (`len(edges) == len(counts) + 1`), as a filled step outline; `note` is
    written small in the top right corner (`sample`, `1% above 52k not shown`). `log`: the bins are
    equal in log10(1 + x) and the x axis is logarithmic (non-negative numbers with a long tail)."""
    from matplotlib import dates as mdates
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

    if len(edges) != len(counts) + 1:
        raise ValueError(f"histogram {plot_id}: {len(edges)} edges for {len(counts)} counts")
    with Canvas(plot_id, WIDTH, 1.45) as c:
        ax = c.ax
        xs = [e / 86400 for e in edges] if scale == "time" else [e + 1 for e in edges] if log else list(edges)
        if xs[0] == xs[-1]:  # a single value: give the bin a visible width
            xs = [xs[0] - 0.5, xs[0] + 0.5]
        steps = ax.stairs(counts, xs, fill=True, color=ACCENT, alpha=0.9, linewidth=0)
        steps.set_gid("data")
        ax.set_xlim(xs[0], xs[-1])
        ax.set_ylim(0, max(max(counts), 1) * 1.05)
        ax.yaxis.set_major_locator(MaxNLocator(3, integer=True))
        ax.yaxis.set_major_formatter(FuncFormatter(compact))
        ax.grid(axis="y")
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(FixedLocator([k + 1 for k in _log_ticks(edges[0], edges[-1])]))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: compact(round(v - 1))))
            ax.xaxis.set_minor_locator(NullLocator())
        elif scale == "time":
            locator = mdates.AutoDateLocator(minticks=2, maxticks=5)
            ax.xaxis.set_major_locator(locator)
            ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, show_offset=False))
        else:
            ax.xaxis.set_major_locator(MaxNLocator(4))
            ax.xaxis.set_major_formatter(FuncFormatter(_clock if scale == "clock" else compact))
        if xlabel:
            ax.set_xlabel(xlabel, color=MUTED)
        if note:
            _corner(ax, note)
        c.fig.subplots_adjust(left=0.14, right=0.97, top=0.9, bottom=0.24 if xlabel else 0.17)
        svg = c.svg()
    span = f"from {_edge(edges[0], scale)} to {_edge(edges[-1], scale)}"
    return Plot(plot_id, title, svg, f"{sum(counts):,} values in {len(counts)} bins {span}")


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Ticks of a log(1 + x) axis: 0 (when in range) and powers of ten, at most about five."""
    top = max(0, math.floor(math.log10(max(hi, 1))))
    step = max(1, math.ceil((top + 1) / 4))
    first = step if lo <= 0 else 0  # 0 and 1 would sit too close together
    ticks = ([0.0] if lo <= 0 else []) + [10.0**j for j in range(first, top + 1, step) if lo <= 10**j <= hi]
    return ticks or [lo]


def _edge(x: float, scale: Scale) -> str:
    if scale == "time":
        import datetime as dt

        return (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=x)).isoformat(sep=" ", timespec="minutes")
    return _clock(x) if scale == "clock" else number(x)


def _label(text: str, limit: int = 26) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def bars(plot_id: str, labels: Sequence[str], values: Sequence[float], *, title: str = "",
         fmt: Literal["count", "percent"] = "count", warn: Sequence[str] = (), log: bool = False,
         value_labels: Sequence[str] | None = None, width: float = WIDTH) -> Plot:
    """Horizontal bars, one per label, top to bottom in the order given, each with its value written.

    `warn`: labels drawn in the warning colour (NULL, failures); `fmt: percent` for values in 0..1;
    `log` for values that span orders of magnitude (rows per table); `value_labels` replaces the text."""
    n = len(labels)
    if n == 0 or n != len(values):
        raise ValueError(f"bars {plot_id}: {n} labels for {len(values)} values (need at least one)")
    texts = list(value_labels) if value_labels is not None else [
        f"{v * 100:.1f}%" if fmt == "percent" else compact(v) if v >= 10_000 else number(v) for v in values
    ]
    height = 0.3 + 0.17 * n
    with Canvas(plot_id, width, height) as c:
        ax = c.ax
        ys = list(range(n))
        warned = set(warn)
        colors = [WARN if lab in warned else ACCENT for lab in labels]
        base = 1.0 if log else 0.0
        lengths = [max(v, 1.0) - 1.0 if log else v for v in values]
        _rects(ax, [base] * n, lengths, [y - 0.36 for y in ys], [0.72] * n, colors, "data")
        # Room for the labels on the left and the longest value text on the right, at about 4.3 points a
        # character (7 to 7.5 point text).
        left = min(0.5, (max(len(_label(lab)) for lab in labels) * 4.3 / 72 + 0.1) / width)
        room = min(0.6, (max(len(t) for t in texts) * 4.0 + 6) / (width * 72 * (0.99 - left)))
        top = max(1.0 if fmt == "percent" else max(values), 1e-9)
        if log:
            ax.set_xscale("log")
            ax.set_xlim(1, max(top, 10.0) ** (1 / (1 - room)))
        else:
            ax.set_xlim(0, top / (1 - room))
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_yticks(ys, [_label(lab) for lab in labels])
        ax.tick_params(axis="y", length=0)
        ax.spines["left"].set_visible(False)
        ax.spines["bottom"].set_visible(False)
        ax.xaxis.set_visible(False)
        for y, v, text in zip(ys, values, texts, strict=True):
            ax.text(max(v, 1.0) if log else v, y, f" {text}", va="center", ha="left", color=INK, fontsize=7)
        c.fig.subplots_adjust(left=left, right=0.99, top=1 - 0.1 / height, bottom=0.1 / height)
        svg = c.svg()
    summary = "; ".join(f"{lab}: {text}" for lab, text in zip(labels[:12], texts[:12], strict=False))
    return Plot(plot_id, title, svg, summary)


def columns(plot_id: str, xs: Sequence[float | str], values: Sequence[float], *, title: str = "",
            xlabel: str | None = None, ylabel: str | None = None, warn: Sequence[float | str] = (),
            fmt: Literal["count", "percent"] = "count", note: str | None = None) -> Plot:
    """Vertical bars over an ordered, discrete x (children per parent, plan length, a small integer)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    n = len(xs)
    if n == 0 or n != len(values):
        raise ValueError(f"columns {plot_id}: {n} positions for {len(values)} values (need at least one)")
    with Canvas(plot_id, WIDTH, 1.45) as c:
        ax = c.ax
        warned = set(warn)
        colors = [WARN if x in warned else ACCENT for x in xs]
        _rects(ax, [i - 0.4 for i in range(n)], [0.8] * n, [0.0] * n, list(values), colors, "data")
        ax.set_xlim(-0.6, n - 0.4)
        ax.set_ylim(0, (1.0 if fmt == "percent" else max(max(values), 1e-9)) * 1.08)
        step = max(1, math.ceil(n / 12))
        ax.set_xticks(range(0, n, step), [_label(str(x), 8) for x in xs][::step])
        ax.yaxis.set_major_locator(MaxNLocator(3))
        percent = FuncFormatter(lambda v, _p: f"{v * 100:.0f}%")
        ax.yaxis.set_major_formatter(percent if fmt == "percent" else FuncFormatter(compact))
        ax.grid(axis="y")
        if xlabel:
            ax.set_xlabel(xlabel, color=MUTED)
        if ylabel:
            ax.set_ylabel(ylabel, color=MUTED)
        if note:
            _corner(ax, note)
        c.fig.subplots_adjust(left=0.16 if ylabel else 0.14, right=0.97, top=0.9,
                              bottom=0.26 if xlabel else 0.17)
        svg = c.svg()
    summary = ", ".join(f"{x}: {number(v)}" for x, v in zip(xs[:20], values[:20], strict=False))
    return Plot(plot_id, title, svg, summary + (" ..." if n > 20 else ""))


def scatter(plot_id: str, xs: Sequence[float], ys: Sequence[float], *, title: str = "",
            labels: Sequence[str] | None = None, xlabel: str | None = None, ylabel: str | None = None,
            groups: Sequence[str] | None = None) -> Plot:
    """One point per (x, y); `labels` are written beside the points, `groups` colour them (with a legend)."""
    n = len(xs)
    if n == 0 or n != len(ys):
        raise ValueError(f"scatter {plot_id}: {n} x values for {len(ys)} y values (need at least one)")
    with Canvas(plot_id, WIDTH * 1.3, 2.2) as c:
        ax = c.ax
        keys = list(dict.fromkeys(groups)) if groups else [""]
        for i, key in enumerate(keys):
            pick = [j for j in range(n) if not groups or groups[j] == key]
            dots = ax.scatter([xs[j] for j in pick], [ys[j] for j in pick], s=18, linewidths=0,
                              color=SERIES[i % len(SERIES)], label=key or None, zorder=3)
            dots.set_gid("data" if i == 0 else f"data-{i}")
        for j, text in enumerate(labels or []):
            ax.annotate(_label(text, 20), (xs[j], ys[j]), xytext=(3, 3), textcoords="offset points",
                        fontsize=6.5, color=INK)
        ax.grid(True)
        if xlabel:
            ax.set_xlabel(xlabel, color=MUTED)
        if ylabel:
            ax.set_ylabel(ylabel, color=MUTED)
        if groups:
            ax.legend(frameon=False, fontsize=7)
        c.fig.subplots_adjust(left=0.13, right=0.97, top=0.95, bottom=0.2)
        svg = c.svg()
    summary = (f"{n} points; x from {number(min(xs))} to {number(max(xs))}, "
               f"y from {number(min(ys))} to {number(max(ys))}")
    return Plot(plot_id, title, svg, summary)
