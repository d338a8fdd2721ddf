"""The build report: per table (rows, batches, repairs by rule, seconds), per rule, and totals.

Written as `build_report.json` beside the database, stored in the database (`stateforge.build_report`),
shown as a table in the terminal and as a Prefect markdown artifact: one dict, three renderings.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:
    from stateforge.build.stages import Build
    from stateforge.llm.fill import LLMFill
    from stateforge.validation.audit import AuditReport


def table_reports(build: Build, con: duckdb.DuckDBPyConnection | None = None) -> list[dict[str, Any]]:
    """Every completed table's report, in fill order (from the partial file, so resumed builds count too);
    read through `con` when given (a connection to the partial file), else through a connection of its own."""
    if con is None:
        with duckdb.connect(str(build.partial_path), read_only=True) as own:
            return table_reports(build, own)
    found = con.execute("SELECT report FROM stateforge.build_progress ORDER BY position").fetchall()
    return [json.loads(r[0]) for r in found]


def build_report(
    build: Build,
    finish: dict[str, Any],
    checked: AuditReport,
    *,
    resumed: list[str] | None = None,
    llm: LLMFill | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
) -> dict[str, Any]:
    """Assemble the report of a build whose audit is clean (with the LLM's accounting when one was used);
    `con`: a connection to the partial file to read the tables' reports through (else one of its own)."""
    tables = table_reports(build, con)
    repairs: Counter[str] = Counter()
    for t in tables:
        repairs.update(t.get("repairs", {}))
    seconds = sum(t.get("seconds", 0.0) for t in tables) + finish.get("seconds", 0.0) + checked.seconds
    return {
        "domain": build.name,
        "database": str(build.db_path),
        "seed": build.seed,
        "scale": build.scale,
        "inputs": build.inputs,
        "fingerprint": build.fingerprint,
        "tables": tables,
        "deferred": finish.get("deferred"),
        "parent_texts": finish.get("parent_texts") or {},
        "rules": finish.get("rules", []),
        "seeds": finish.get("seeds") or {},
        "audit": checked.to_dict(),
        "resumed_tables": resumed or [],
        "short_tables": short_tables(tables, checked.tables),
        "notes": [str(note) for note in build.pack.schema.notes],
        "llm": llm.to_dict() if llm is not None else None,
        "totals": {
            "tables": len(tables),
            # what the database holds: the fill's rows less what the rules and their cascades deleted
            "rows": sum(checked.tables.values()) if checked.tables else sum(t["rows"] for t in tables),
            "batches": sum(t.get("batches", 0) for t in tables),
            "repairs": dict(sorted(repairs.items())),
            "rule_violations_found": sum(r.get("found", 0) for r in finish.get("rules", [])),
            "violations": checked.total,
            "short_tables": len(short_tables(tables, checked.tables)),
            "seconds": round(seconds, 3),
            "wall_seconds": round(time.perf_counter() - build.started, 3),
        },
    }


def short_tables(tables: list[dict[str, Any]], final: dict[str, int]) -> list[dict[str, Any]]:
    """The tables that hold fewer rows than planned once the build is done, each with why: what the fill
    could not write (its `short_reason`), and rows the domain's rules and their cascades deleted after it.
    A figure, not a failure: the build still exits 0 when its audit is clean."""
    rows = {name.lower(): n for name, n in final.items()}
    out = []
    for t in tables:
        planned, filled = t.get("planned", 0), t["rows"]
        now = rows.get(t["table"].lower(), filled)
        if now >= planned:
            continue
        reasons = [t["short_reason"]] if t.get("short_reason") else []
        if now < filled:
            reasons.append(f"the domain's rules and their foreign-key cascades deleted {filled - now:,} rows "
                           "after the fill")
        out.append({"table": t["table"], "planned": planned, "rows": now, "short": planned - now,
                    "reason": "; ".join(reasons) or "fewer rows were written than planned"})
    return out


def seed_lines(report: dict[str, Any]) -> list[str]:
    """One line per table seeded by the DDL's INSERTs whose rows did not all survive the build as given
    (the rules or the second pass changed them)."""
    return [f"{table}: {s['kept']:,} of its {s['rows']:,} seed rows are as the DDL's INSERTs give them; the "
            "second pass or the domain's rules changed the others"
            for table, s in (report.get("seeds") or {}).items() if s["kept"] < s["rows"]]


def short_lines(report: dict[str, Any]) -> list[str]:
    """One line per table short of its planned rows (for the terminal and the artifact)."""
    return [f"{s['table']}: {s['rows']:,} of {s['planned']:,} planned rows ({s['short']:,} short): "
            f"{s['reason']}" for s in report.get("short_tables") or []]


def repairs_text(table: dict[str, Any]) -> str:
    """A table report's repairs as `rule count, ...` (or `-`), for the terminal and the artifact."""
    return ", ".join(f"{k} {v}" for k, v in sorted(table.get("repairs", {}).items()) if v) or "-"


def report_markdown(report: dict[str, Any]) -> str:
    """The report as markdown (the Prefect artifact)."""
    totals = report["totals"]
    lines = [
        f"# Build of `{report['domain']}`",
        "",
        f"{totals['rows']:,} rows in {totals['tables']} tables, {totals['batches']} batches, "
        f"{totals['wall_seconds']:.1f} s; audit: **{totals['violations']} violations**; "
        f"seed {report['seed']}, scale {report['scale']}.",
        "",
        "| table | rows | batches | repairs | seconds |",
        "|---|---:|---:|---|---:|",
    ]
    for t in report["tables"]:
        fixes = repairs_text(t)
        lines.append(
            f"| {t['table']} | {t['rows']:,} | {t.get('batches', 0)} | {fixes} | {t.get('seconds', 0):.2f} |"
        )
    if report.get("short_tables"):
        lines += ["", f"Tables short of their planned rows ({len(report['short_tables'])}):", ""]
        lines += [f"- {line}" for line in short_lines(report)]
    if report.get("llm"):
        lines += ["", llm_summary(report["llm"])]
    if report.get("notes"):
        lines += ["", f"Parser notes ({len(report['notes'])}):", ""]
        lines += [f"- {note}" for note in report["notes"][:50]]
    if report["rules"]:
        lines += ["", "| rule | violations found | repaired | rounds |", "|---|---:|---:|---:|"]
        for r in report["rules"]:
            lines.append(
                f"| {r['name']} | {r.get('found', 0)} | {r.get('repaired', 0)} | {r.get('rounds', 0)} |"
            )
    return "\n".join(lines) + "\n"


def llm_summary(llm: dict[str, Any]) -> str:
    """One line of LLM accounting: calls, tokens, cache hits, retries, rows by path, cost."""
    t, calls, settings = llm["totals"], llm["totals"]["llm"], llm["settings"]
    return (
        f"LLM `{settings.get('model')}`: {t['calls']} calls ({t['cache_hits']} from the cache), "
        f"{calls['prompt_tokens']:,} prompt + {calls['completion_tokens']:,} completion tokens, "
        f"{t['retries']} retries, {t['repair_rounds']} repair rounds; rows: {t['rows_llm']:,} written by the "
        f"LLM, {t['rows_repaired']:,} after a repair prompt, "
        f"{t['rows_fallback'] + t['rows_transport']:,} kept offline; cost ${t['cost_usd']:.4f}"
        + ("" if calls.get("cost_known", True) else " (unpriced model)")
    )
