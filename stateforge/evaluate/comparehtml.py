"""Two runs side by side as one self-contained page (`stateforge compare-runs A B --html FILE`): the paired
comparison of `compare_runs` (B - A with its interval, the sign test, per capability), a plot of each
shared task's score in A against B, and a table of the tasks whose cells open the episodes in each run's
own report.html (linked by relative path, so the three files move together).

    write_comparison(a_folder, b_folder, Path("a-vs-b.html"))
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from stateforge.evaluate.compare import compare_runs, default_runs_dirs
from stateforge.evaluate.htmlreport import REPORT_FILE, write_run_report
from stateforge.evaluate.report import conditions_line
from stateforge.evaluate.rundir import RunFolder, find_run
from stateforge.evaluate.taskrows import TaskRow, task_rows
from stateforge.evaluate.trajectory import episode_anchor
from stateforge.html import (
    Card,
    Cell,
    NavItem,
    Page,
    Section,
    callout,
    cards,
    data_table,
    grid,
    join,
    plots,
    tag,
    tile,
)
from stateforge.html.fmt import count, percent
from stateforge.tasks import CAPABILITIES


def _signed(x: float) -> str:
    return f"{x * 100:+.1f}%"


def _pair(entry: dict[str, Any]) -> str:
    low, high = entry["ci"]["difference"]
    return f"{_signed(entry['difference'])} ({_signed(low)} .. {_signed(high)})"


def _cell(row: TaskRow | None, href: str) -> Any:
    if row is None or not row.graded:
        return Cell("-", -1)
    first = row.graded[0]
    target = f"{href}#{episode_anchor(first.task_id, first.trial)}"
    link = tag("a", f"{row.passed}/{len(row.graded)}", href=target,
               title="open the first graded trial in that run's report")
    return Cell(link, row.score)


def _better(a: TaskRow, b: TaskRow) -> str:
    diff = (b.score or 0.0) - (a.score or 0.0)
    return "B better" if diff > 0 else "A better" if diff < 0 else "tie"


def build_comparison(a: RunFolder, b: RunFolder, result: dict[str, Any], out: Path) -> Page:
    """The comparison page; links to the runs' reports are relative to `out`'s folder."""
    paired = result["paired"]
    href_a = os.path.relpath(a.path / REPORT_FILE, out.parent)
    href_b = os.path.relpath(b.path / REPORT_FILE, out.parent)
    tone = "good" if paired["difference"] > 0 else "bad" if paired["difference"] < 0 else None
    lead = join([
        callout(f"B {b.run_id} against A {a.run_id} on {result['shared_tasks']} shared tasks: B - A "
                f"{_pair(paired)}; B better on {paired['b_better']}, A on {paired['a_better']}, "
                f"{paired['ties']} ties; exact sign test p = {paired['sign_test_p']:.3g}.",
                "info"),
        *([callout(conditions_line(result), "info")] if result.get("conditions") else []),
        cards([
            Card("A: Avg@k", percent(paired["avg_at_k_a"]), f"{result['a']['solver']}, k={result['a']['k']}"),
            Card("B: Avg@k", percent(paired["avg_at_k_b"]), f"{result['b']['solver']}, k={result['b']['k']}"),
            Card("B - A", _signed(paired["difference"]), "95% CI " + _pair(paired).split(" ", 1)[1],
                 tone=tone),
            Card("sign test p", f"{paired['sign_test_p']:.3g}", "two-sided, exact"),
            Card("only in A / B", f"{result['only_in_a']} / {result['only_in_b']}", "tasks left out"),
        ]),
    ])
    page = Page(title=f"{a.run_id} vs {b.run_id}", subtitle="Paired comparison of two evaluation runs",
                brand="Stateforge evaluation", lead=lead)
    rows_a = {r.task_id: r for r in task_rows(a.records())}
    rows_b = {r.task_id: r for r in task_rows(b.records())}
    shared = [t for t in rows_a if t in rows_b and rows_a[t].graded and rows_b[t].graded]
    figures = []
    if shared:
        verdict = [_better(rows_a[t], rows_b[t]) for t in shared]
        plot = plots.scatter("p-paired", [rows_a[t].score or 0.0 for t in shared],
                             [rows_b[t].score or 0.0 for t in shared], xlabel="score in A (Avg@k)",
                             ylabel="score in B (Avg@k)", groups=verdict, title="Each task in A and B")
        figures.append(tile("Each task in A and B", plot.html("one point per shared task"), kind="paired"))
    caps = [(c, e) for c, e in result["by_capability"].items() if e.get("tasks")]
    caps.sort(key=lambda item: CAPABILITIES.index(item[0]) if item[0] in CAPABILITIES else len(CAPABILITIES))
    if any(e["difference"] for _, e in caps):
        plot = plots.bars("p-difference", [c.replace("_", " ") for c, _ in caps],
                          [abs(e["difference"]) for _, e in caps], fmt="percent",
                          warn=[c.replace("_", " ") for c, e in caps if e["difference"] < 0],
                          value_labels=[f"{_signed(e['difference'])} \u00b7 {e['tasks']}" for _, e in caps],
                          title="B - A per capability")
        figures.append(tile("B - A per capability", plot.html("length: the size of the difference; red: B "
                            "did worse"), kind="Avg@k"))
    elif caps:
        figures.append(tile("B - A per capability", tag("p", "No difference in any capability."),
                            kind="Avg@k"))
    page.add(Section("plots", "Paired view", grid(figures)))
    table = [[c.replace("_", " "), e["tasks"], percent(e["avg_at_k_a"]), percent(e["avg_at_k_b"]), _pair(e),
              e["b_better"], e["a_better"], e["ties"], f"{e['sign_test_p']:.3g}"]
             for c, e in [("all shared tasks", paired), *caps]]
    page.add(Section("capabilities", "Per capability", data_table(
        ["", "tasks", "A", "B", "B - A (95% CI)", "B better", "A better", "ties", "p"], table,
        align="lrrrrrrrr")))
    tasks = [[tag("code", t), ", ".join(c.replace("_", " ") for c in rows_a[t].facts.capabilities),
              _cell(rows_a[t], href_a), _cell(rows_b[t], href_b),
              Cell(_signed((rows_b[t].score or 0) - (rows_a[t].score or 0)),
                   (rows_b[t].score or 0) - (rows_a[t].score or 0))] for t in shared]
    page.add(Section("tasks", "Tasks", data_table(["task", "capabilities", "A passed", "B passed", "B - A"],
                                                  tasks, align="nlrrr"),
                     subtitle="a score opens that task's episode in the run's own report"))
    page.nav("Comparison", [NavItem("#plots", "Paired view"), NavItem("#capabilities", "Per capability"),
                            NavItem("#tasks", "Tasks", count(len(shared)))])
    return page


def write_comparison(a: str | Path, b: str | Path, out: Path, *, runs_dirs: list[Path] | None = None) -> Path:
    """Compare run `b` with run `a` (ids or folders) and write the page to `out` (each run's report.html is
    written too when it is missing, so that the links land)."""
    result = compare_runs(a, b, runs_dirs=runs_dirs)
    dirs = default_runs_dirs() if runs_dirs is None else runs_dirs
    folders = [RunFolder.open(find_run(r, dirs)) for r in (a, b)]
    for folder in folders:
        if not (folder.path / REPORT_FILE).is_file():
            write_run_report(folder)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build_comparison(folders[0], folders[1], result, out).render(), encoding="utf-8")
    return out
