"""Matplotlib figures as inline SVG that is the same, byte for byte, for the same data.

    with Canvas("t-users-created-at", 3.4, 1.5) as c:    # inches
        c.ax.stairs(counts, edges, fill=True)
        svg = c.svg()                                   # Markup: <svg class="plot-svg" ...>...</svg>

Matplotlib is the plotting library (not hand-written SVG): its tick placement, date axes and text layout
are what people expect from a plot. What makes its SVG deterministic and embeddable:

- `svg.hashsalt` is fixed, so the ids matplotlib derives from hashes do not change between runs;
- no `Date` and no `Creator` in the metadata (the metadata block is dropped altogether);
- `svg.fonttype: none`: text stays text (searchable, small), drawn by the browser in the page's fonts;
- every id is prefixed with the plot's id, so that many SVGs inline in one page never share an id (a
  shared id would make one plot's clip path or marker apply to another);
- no width and height on the root: the page's CSS sizes the plot, the `viewBox` keeps its shape.

Figures are made with `matplotlib.figure.Figure`, never pyplot: no global state, no GUI backend, safe in
threads. The import of matplotlib (about a second) happens on first use only.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from stateforge.html.markup import Markup

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INK = "#1f2933"
"""Text and axes."""
MUTED = "#7b8794"
"""Tick labels, grid, secondary marks."""
GRID = "#e4e7eb"
ACCENT = "#3b6fd8"
"""The data colour."""
WARN = "#d64545"
"""Marks that stand for a problem (NULL, a violation, a failure)."""
SERIES = ("#3b6fd8", "#e8833a", "#2f9e77", "#9c5bd4", "#d64545", "#8d6e63", "#c2185b", "#607d8b")
"""Colours of several series, in order."""

STYLE: dict[str, object] = {
    "svg.hashsalt": "stateforge",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
    "font.size": 8.0,
    "axes.edgecolor": MUTED,
    "axes.labelcolor": INK,
    "axes.labelsize": 8.0,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 8.5,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "xtick.labelcolor": INK,
    "ytick.labelcolor": INK,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "xtick.major.size": 2.5,
    "ytick.major.size": 2.5,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "grid.color": GRID,
    "grid.linewidth": 0.6,
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
}
"""The look of every plot (rcParams), applied while a figure is drawn and saved."""

_TAG = re.compile(r"<[^<>]+>")
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|xlink:href="#|href="#)([^")]+)')
_SIZE = re.compile(r'^<svg([^>]*?) width="[^"]*" height="[^"]*"')


def _mpl():  # noqa: ANN202 - the matplotlib module, imported on first use
    import matplotlib

    return matplotlib


class Canvas:
    """A figure with one axes in the house style, drawn inside `with`, then turned into SVG.

        with Canvas("t-users-status", 3.4, 1.5) as c:
            c.ax.stairs(counts, edges, fill=True)
            svg = c.svg()
    """

    def __init__(self, plot_id: str, width: float, height: float) -> None:
        self.plot_id, self.width, self.height = plot_id, width, height

    def __enter__(self) -> Canvas:
        from matplotlib.figure import Figure

        self._style = _mpl().rc_context(STYLE)
        self._style.__enter__()
        self.fig = Figure(figsize=(self.width, self.height))
        self.ax = self.fig.add_subplot()
        self.ax.set_axisbelow(True)
        return self

    def __exit__(self, *exc: object) -> None:
        self._style.__exit__(*exc)

    def svg(self) -> Markup:
        """The figure as inline SVG (see the module docstring); call it inside the `with`."""
        return to_svg(self.fig, self.plot_id)


def _prefix(tag: str, plot_id: str) -> str:
    """One tag with its ids and references to ids prefixed (text between tags is never touched: it may
    hold anything a database holds)."""
    tag = _ID.sub(lambda m: f'id="{plot_id}-{m.group(1)}"', tag)
    return _REF.sub(lambda m: f"{m.group(1)}{plot_id}-{m.group(2)}", tag)


def to_svg(fig: Figure, plot_id: str) -> Markup:
    """The figure as an inline `<svg>` element whose every id starts with `plot_id` (see the module doc).

    Save it while the house style is in force (`Canvas` does), so that text and ids come out the same."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    # matplotlib's `*{stroke-linejoin...}` would style the whole page: the page's CSS scopes it instead.
    text = re.sub(r"\s*<style[^>]*>.*?</style>", "", text, flags=re.S)
    text = re.sub(r"\s*<defs>\s*</defs>", "", text)
    text = _TAG.sub(lambda tag: _prefix(tag.group(0), plot_id), text)
    text = _SIZE.sub(r'<svg\1 class="plot-svg" role="presentation"', text, count=1)
    # One line per element is plenty; matplotlib's multi-line path data only adds bytes.
    text = re.sub(r" \n(?=[A-Za-z\"])", " ", text)
    return Markup(text.strip())
