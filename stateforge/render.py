"""Terminal rendering of reports (rich). Pure presentation: every number comes from a report object."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from stateforge.build.report import llm_summary, repairs_text, seed_lines, short_lines


def render_schema(console: Console, report: dict[str, Any]) -> None:
    """A summary of a parsed DDL file: its tables and keys, the fill order, cycles and skipped statements."""
    grid = Table(title=f"{len(report['tables'])} tables ({report.get('dialect', '?')})", title_justify="left")
    for name in ("table", "columns", "primary key", "unique", "foreign keys", "checks"):
        grid.add_column(name, justify="right" if name in ("columns", "unique", "checks") else "left")
    for t in report["tables"]:
        fks = ", ".join(f"({', '.join(fk['columns'])}) -> {fk['ref_table']}" for fk in t["foreign_keys"])
        grid.add_row(
            t["name"],
            str(len(t["columns"])),
            ", ".join(t["primary_key"]) or "-",
            str(len(t["unique"])),
            fks or "-",
            str(len(t["checks"])),
        )
    console.print(grid)
    console.print(f"fill order: {' -> '.join(report['fill_order'])}")
    for cycle in report.get("cycles", []):
        console.print(f"cycle: {' <-> '.join(cycle)}")
    for d in report.get("deferred_foreign_keys", []):
        console.print(
            f"deferred to the second pass: {d['table']}({', '.join(d['columns'])}) -> {d['ref_table']}"
        )
    skipped = report.get("skipped_statements") or {}
    if skipped:
        console.print("skipped: " + ", ".join(f"{n} {kind}" for kind, n in sorted(skipped.items())))
    render_notes(console, report.get("notes") or [])


def render_notes(console: Console, notes: list[str], limit: int | None = None, more: str = "") -> None:
    """What the parser approximated or left out, one `file:line: ...` line each (the first `limit`)."""
    if not notes:
        return
    console.print(f"notes ({len(notes)}): what the parser approximated or left out", highlight=False)
    for note in notes[:limit]:
        console.print(f"  {note}", highlight=False, markup=False)
    if limit is not None and len(notes) > limit:
        console.print(f"  ... {len(notes) - limit} more{more}", highlight=False)


class BuildProgress:
    """A progress bar per table while a build runs (on stderr, so stdout stays clean for --json)."""

    def __init__(self, console: Console, *, enabled: bool = True) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("{task.description:<28}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> BuildProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._tasks:
            self._progress.stop()

    def start_table(self, table: str, rows: int) -> None:
        if not self._tasks:  # started by the first table, so an early error prints nothing but itself
            self._progress.start()
        self._tasks[table] = self._progress.add_task(table, total=rows)

    def advance(self, table: str, done: int, total: int) -> None:
        if table not in self._tasks:
            self.start_table(table, total)
        self._progress.update(self._tasks[table], completed=done, total=total)


def render_build(console: Console, report: dict[str, Any]) -> None:
    """The build report as a table per table, the rules, and the totals."""
    grid = Table(title=f"build of {report['domain']}", title_justify="left")
    for name, just in (
        ("table", "left"),
        ("rows", "right"),
        ("batches", "right"),
        ("repairs", "left"),
        ("seconds", "right"),
    ):
        grid.add_column(name, justify=just)
    for t in report["tables"]:
        fixes = repairs_text(t)
        grid.add_row(
            t["table"], f"{t['rows']:,}", str(t.get("batches", 0)), fixes, f"{t.get('seconds', 0):.2f}"
        )
    console.print(grid)
    if report.get("rules"):
        rules = Table(title="domain rules", title_justify="left")
        for name in ("rule", "found", "repaired", "rounds"):
            rules.add_column(name, justify="left" if name == "rule" else "right")
        for r in report["rules"]:
            rules.add_row(
                r["name"], str(r.get("found", 0)), str(r.get("repaired", 0)), str(r.get("rounds", 0))
            )
        console.print(rules)
    if report.get("llm"):
        console.print(llm_summary(report["llm"]).replace("`", ""))
    render_notes(console, report.get("notes") or [], limit=10, more=" in build_report.json")
    short = short_lines(report)
    if short:
        tables = "1 table" if len(short) == 1 else f"{len(short)} tables"
        console.print(f"short of plan ({tables}): fewer rows than planned, and why",
                      highlight=False)
        for line in short:
            console.print(f"  {line}", highlight=False, markup=False)
    for line in seed_lines(report):
        console.print(f"seed rows changed: {line}", highlight=False, markup=False)
    totals = report["totals"]
    console.print(
        f"{totals['rows']:,} rows in {totals['tables']} tables, {totals['wall_seconds']:.1f} s; "
        f"audit: {totals['violations']} violations -> {report['database']}"
    )


def render_audit(console: Console, report: Any) -> None:
    """Violations by check with sample offending keys, then the verdict."""
    import json

    if report.violations:
        grid = Table(title="violations", title_justify="left")
        for name, just in (
            ("check", "left"),
            ("table", "left"),
            ("constraint", "left"),
            ("count", "right"),
            ("sample keys", "left"),
        ):
            grid.add_column(name, justify=just)
        for v in report.violations:
            samples = "; ".join(json.dumps(s, default=str) for s in v.samples)
            grid.add_row(v.check, v.table, v.constraint, f"{v.count:,}", samples)
        console.print(grid)
    rows = sum(report.tables.values())
    verdict = "[green]clean[/]" if report.clean else f"[red]{report.total:,} violations[/]"
    console.print(
        f"audit: {len(report.tables)} tables, {rows:,} rows, {report.checks_run} checks, {verdict} "
        f"({report.seconds * 1000:.0f} ms)"
    )
