"""Terminal rendering of a release, a verification and a release diff (rich)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from stateforge.release.model import Manifest
from stateforge.release.verify import Verification

SHOWN = 20
"""Tasks listed per kind of change (all of them with --json)."""


def render_release(console: Console, manifest: Manifest, folder: Path) -> None:
    """What a release wrote: where, its id, sizes, tasks and baselines."""
    db, t = manifest.database, manifest.tasks
    console.print(
        f"[bold]{manifest.domain} {manifest.version}[/] -> {folder}\n"
        f"release id {manifest.release_id[:16]}  {len(manifest.files)} files, "
        f"{sum(f.bytes for f in manifest.files.values()) / 1e6:,.1f} MB\n"
        f"{db.rows:,} rows in {len(db.tables)} tables; {t.total} tasks ({t.feasible} feasible, "
        f"{t.infeasible} infeasible)",
        highlight=False,
    )
    if manifest.baselines:
        table = Table("baseline", "k", "Avg@k", "Pass@k", "Pass^k", title="baselines")
        for b in manifest.baselines.values():
            table.add_row(b.solver, str(b.k), _f(b.avg_at_k), _f(b.pass_at_k), _f(b.pass_hat_k))
        console.print(table)


def render_verification(console: Console, result: Verification) -> None:
    """The outcome of `verify-release`: what was checked, and every problem."""
    m = result.manifest
    checked = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in result.checked.items())
    if result.ok:
        console.print(
            f"[bold green]ok[/] {m.domain} {m.version} ({result.folder}): {checked}", highlight=False
        )
        return
    console.print(
        f"[bold red]{len(result.problems)} problem(s)[/] in {m.domain} {m.version} ({result.folder}); "
        f"checked {checked}:",
        highlight=False,
    )
    for problem in result.problems:
        console.print(f"  [{problem.kind}] {problem}", highlight=False, markup=False)


def render_diff(console: Console, changes: dict[str, Any]) -> None:
    """A release diff, section by section."""
    a, b = changes["a"], changes["b"]
    console.print(f"[bold]{a['domain']} {a['version']} -> {b['domain']} {b['version']}[/]", highlight=False)
    if changes["identical"]:
        console.print("identical: every file has the same hash")
    if changes["inputs"]:
        table = Table("input", "a", "b", title="inputs")
        for key, (x, y) in changes["inputs"].items():
            table.add_row(key, _short(x), _short(y))
        console.print(table)
    schema = changes["schema"]
    if "unavailable" in schema:
        console.print(f"schema: {schema['unavailable']}")
    elif schema["tables_added"] or schema["tables_removed"] or schema["tables_changed"]:
        for name in schema["tables_added"]:
            console.print(f"  + table {name}", markup=False)
        for name in schema["tables_removed"]:
            console.print(f"  - table {name}", markup=False)
        for name, entry in schema["tables_changed"].items():
            console.print(f"  ~ table {name}: {_short(entry, 200)}", markup=False)
    else:
        console.print("schema: unchanged")
    rows = Table("table", "a", "b", "delta", title="rows")
    for table, r in changes["rows"].items():
        if r["delta"] != 0 or table == "(total)":
            rows.add_row(table, _n(r["a"]), _n(r["b"]), _n(r["delta"], sign=True))
    console.print(rows)
    tasks = changes["tasks"]
    console.print(
        f"tasks: {tasks['a']} -> {tasks['b']}: {tasks['unchanged']} unchanged, {len(tasks['changed'])} "
        f"changed, {len(tasks['added'])} added, {len(tasks['removed'])} removed",
        highlight=False,
    )
    for c in tasks["changed"][:SHOWN]:
        console.print(f"  ~ {c['a']} -> {c['b']} ({', '.join(c['fields'])}): {c['instruction'][:80]}",
                      markup=False)
    for sign, key in (("+", "added"), ("-", "removed")):
        for t in tasks[key][:SHOWN]:
            console.print(f"  {sign} {t['id']}: {t['instruction'][:90]}", markup=False)
    figures = Table("task figure", "a", "b", title="task figures")
    for name, v in changes.get("figures", {}).items():
        figures.add_row(name, _f(v["a"]), _f(v["b"]))
    if figures.row_count:
        console.print(figures)
    if changes["scores"]:
        scores = Table("baseline", "metric", "a", "b", "delta", title="scores")
        for solver, metrics in changes["scores"].items():
            for metric, v in metrics.items():
                scores.add_row(solver, metric, _f(v["a"]), _f(v["b"]), _f(v["delta"], sign=True))
        console.print(scores)


def _short(value: Any, width: int = 40) -> str:
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _n(value: int | None, *, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+,}" if sign else f"{value:,}"


def _f(value: float | None, *, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if sign else f"{value:.3f}"
