"""The generation report: what was kept and rejected and why, and how the kept set looks.

`generation_report(run)` -> JSON data (written as generation_report.json); `report_markdown(report)` for
the Prefect artifact; `render_report(console, report)` for the terminal. Figures:

- attempts by outcome; rejections (gate reasons), skips (recipe reasons) and recipe errors, with an example;
- per recipe: attempts, kept, retired; capability mix (tasks and share); difficulty; feasible / infeasible
  (and the infeasible kinds);
- changed rows per feasible task (mean, median, max, share with 50 or more, a histogram); tables touched;
- instruction length (words); diversity: distinct tool sequences, near-duplicate instruction pairs (word
  bigram Jaccard similarity of at least `NEAR`);
- wall time, seconds per kept task and per attempt;
- the generator's own account (`generator`: for the LLM generator the model, the prompt hashes, the
  calls, tokens and cost, per kept task too).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from stateforge.diff.policy import normalize_text
from stateforge.tasks.model import CAPABILITIES, DIFFICULTIES, Task
from stateforge.values import dumps

if TYPE_CHECKING:
    from stateforge.tasks.runner import GenerationRun

NEAR = 0.8
"""Instructions at least this similar (Jaccard of word bigrams) count as near-duplicates."""
BUCKETS = ((1, 1), (2, 4), (5, 9), (10, 49), (50, 199), (200, None))


def _bucket(n: int) -> str:
    for low, high in BUCKETS:
        if n >= low and (high is None or n <= high):
            return f"{low}+" if high is None else (str(low) if low == high else f"{low}-{high}")
    return "0"


def bigrams(text: str) -> set[tuple[str, str]]:
    """The word bigrams of a normalised instruction."""
    words = normalize_text(text).split()
    return set(zip(words, words[1:], strict=False)) or {(w, "") for w in words}


def near_duplicates(tasks: list[Task], threshold: float = NEAR) -> list[tuple[str, str, float]]:
    """(id, id, similarity) of every pair of instructions at least `threshold` alike."""
    grams = [(t.id, bigrams(t.instruction)) for t in tasks]
    out = []
    for (a, ga), (b, gb) in itertools.combinations(grams, 2):
        union = len(ga | gb)
        similarity = len(ga & gb) / union if union else 1.0
        if similarity >= threshold:
            out.append((a, b, round(similarity, 3)))
    return out


def tool_sequence(task: Task) -> tuple[str, ...]:
    """The task's tools in order, repeats of one tool in a row collapsed."""
    names = [c.tool for c in task.reference_calls]
    return tuple(name for i, name in enumerate(names) if i == 0 or names[i - 1] != name)


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"mean": 0, "median": 0, "min": 0, "max": 0}
    return {
        "mean": round(statistics.fmean(values), 2),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def generation_report(run: GenerationRun) -> dict[str, Any]:
    """The report of a finished run (see the module docstring)."""
    kept, attempts = run.kept, run.attempts
    outcomes = Counter(a.outcome for a in attempts)
    rejected = Counter(a.reason for a in attempts if a.outcome == "rejected")
    skipped = Counter(a.reason for a in attempts if a.outcome == "skipped")
    examples: dict[str, str] = {}
    for a in attempts:
        if a.outcome in ("rejected", "skipped", "error") and a.reason and a.reason not in examples:
            examples[a.reason] = f"{a.source}: {a.detail}"
    errors = [{"recipe": a.source, "error": a.detail} for a in attempts if a.outcome == "error"]
    feasible = [t for t in kept if t.feasible]
    rows = [sum(t.diff.summary.values()) for t in feasible]
    caps = Counter(c for t in kept for c in t.capabilities)
    touched = Counter(name for t in feasible for name in t.expected_diff["tables"])
    words = [len(t.instruction.split()) for t in kept]
    near = near_duplicates(kept)
    wall = time.perf_counter() - run.started
    described = run.generator.describe() if run.generator is not None else {}
    per_recipe: dict[str, Any] = described.get("recipes", {})
    for a in attempts:
        entry = per_recipe.setdefault(a.source, {"attempts": 0, "kept": 0})
        entry.setdefault("outcomes", Counter())[a.reason or a.outcome] += 1
    for entry in per_recipe.values():
        entry["outcomes"] = dict(sorted(entry.get("outcomes", Counter()).items()))
    report = {
        "domain": run.name,
        "database": str(run.db_path) if run.db_path else None,
        "db_fingerprint": run.gate.fingerprint if run.gate is not None else None,
        "tasks_file": str(run.path) if run.path else None,
        "backend": run.backend,
        "seed": run.seed,
        "asked": run.n,
        "kept": len(kept),
        "target_met": len(kept) >= run.n and not short_of_infeasible(run),
        "why": (
            _why(run, rejected, skipped)
            if len(kept) < run.n
            else (short_of_infeasible(run) or None)
        ),
        "attempts": {
            "total": len(attempts),
            **{k: outcomes[k] for k in ("kept", "rejected", "skipped", "error")},
        },
        "rejected": dict(rejected.most_common()),
        "skipped": dict(skipped.most_common()),
        "errors": errors[:20],
        "examples": dict(sorted(examples.items())),
        "recipes": dict(sorted(per_recipe.items())),
        "generator": {k: v for k, v in described.items() if k != "recipes"},
        "capabilities": {
            c: {"tasks": caps[c], "share": round(caps[c] / len(kept), 3) if kept else 0} for c in CAPABILITIES
        },
        "difficulty": {d: sum(t.difficulty == d for t in kept) for d in DIFFICULTIES},
        "difficulty_share": {
            d: round(sum(t.difficulty == d for t in kept) / len(kept), 3) if kept else 0 for d in DIFFICULTIES
        },
        "feasible": len(feasible),
        "infeasible": len(kept) - len(feasible),
        "infeasible_share": round((len(kept) - len(feasible)) / len(kept), 3) if kept else 0,
        "infeasible_kinds": dict(
            Counter(
                t.provenance.infeasible.kind for t in kept if t.provenance.infeasible is not None
            ).most_common()
        ),
        "changed_rows": {
            **_stats(rows),
            "share_50_or_more": round(sum(r >= 50 for r in rows) / len(rows), 3) if rows else 0,
            "histogram": {_bucket(low): sum(_bucket(r) == _bucket(low) for r in rows) for low, _ in BUCKETS},
        },
        "tables_touched": dict(touched.most_common()),
        "instruction_words": _stats(words),
        "diversity": {
            "distinct_tool_sequences": len({tool_sequence(t) for t in kept}),
            "near_duplicate_pairs": len(near),
            "near_duplicate_threshold": NEAR,
            "near_duplicate_examples": [list(p) for p in near[:10]],
        },
        "timing": {
            "seconds": round(wall, 2),
            "per_kept_task_seconds": round(wall / len(kept), 3) if kept else None,
            "per_attempt_seconds": round(statistics.median([a.seconds for a in attempts]), 3)
            if attempts
            else None,
            "gate_and_recipe_seconds_kept": _stats(
                [round(a.seconds, 3) for a in attempts if a.outcome == "kept"]
            ),
        },
    }
    return report


def short_of_infeasible(run: GenerationRun) -> str:
    """Why the kept set is below the documented infeasible share (`MIN_INFEASIBLE_SHARE`), or ''."""
    from stateforge.tasks.runner import MIN_INFEASIBLE_SHARE, infeasible_needed

    missing = infeasible_needed(run)
    if not missing or not run.kept:
        return ""
    have = sum(not t.feasible for t in run.kept)
    offering = sorted(
        name for name, slot in (run.generator.describe() if run.generator else {}).get("recipes", {}).items()
        if slot.get("variants")
    )
    return (
        f"only {have} of {len(run.kept)} tasks are infeasible, below the {MIN_INFEASIBLE_SHARE:.0%} the set "
        f"promises ({missing} more needed): "
        + (
            f"the recipes that offer infeasible variants ({', '.join(offering)}) made too few "
            "that passed the gate"
            if offering
            else "no recipe found an infeasible variant on this database"
        )
        + "; the last feasible tasks were held back for them, and attempts ran out"
    )


def _why(run: GenerationRun, rejected: Counter[str], skipped: Counter[str]) -> str:
    if run.generator is not None and run.generator.exhausted:
        cause = "every recipe was retired (each kept nothing many attempts in a row)"
    else:
        cause = f"the attempts ran out ({len(run.attempts)} of at most {run.limit})"
    top = (rejected + skipped).most_common(3)
    listing = "; ".join(f"{reason}: {n}" for reason, n in top)
    return (
        f"{len(run.kept)} of {run.n} tasks passed the gate: {cause}. "
        f"Most common reasons: {listing or 'none'}. "
        "Add recipes, build a larger database (--scale), or ask for fewer tasks."
    )


def write_report(path: Path, report: dict[str, Any]) -> Path:
    """Write the report as indented canonical JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(report, indent=2) + "\n", encoding="utf-8")
    return path


def report_markdown(report: dict[str, Any]) -> str:
    """The report as markdown (the Prefect artifact of the generate-tasks flow)."""
    lines = [
        f"# Tasks of {report['domain']}",
        "",
        f"**{report['kept']} of {report['asked']} kept** "
        f"({'target met' if report['target_met'] else 'target missed'})"
        f" in {report['attempts']['total']} attempts, {report['timing']['seconds']} s "
        f"({report['timing']['per_kept_task_seconds']} s per kept task); "
        f"{report['feasible']} feasible, {report['infeasible']} infeasible.",
        "",
    ]
    if report["why"]:
        lines += [f"> {report['why']}", ""]
    lines += ["| capability | tasks | share |", "|---|---:|---:|"]
    lines += [f"| {c} | {v['tasks']} | {v['share']:.0%} |" for c, v in report["capabilities"].items()]
    rows = report["changed_rows"]
    lines += [
        "",
        f"Changed rows per feasible task: mean {rows['mean']}, median {rows['median']}, max {rows['max']}, "
        f"{rows['share_50_or_more']:.0%} with 50 or more.",
        "",
        "| changed rows | tasks |",
        "|---|---:|",
    ]
    lines += [f"| {k} | {v} |" for k, v in rows["histogram"].items()]
    lines += ["", "| rejected / skipped | attempts |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in {**report["rejected"], **report["skipped"]}.items()]
    div = report["diversity"]
    lines += [
        "",
        f"Diversity: {div['distinct_tool_sequences']} distinct tool sequences, "
        f"{div['near_duplicate_pairs']} near-duplicate instruction pairs.",
        "",
    ]
    if llm_line(report):
        lines += [llm_line(report), ""]
    lines += ["| recipe | attempts | kept | retired |", "|---|---:|---:|---|"]
    lines += [
        f"| {name} | {r.get('attempts', 0)} | {r.get('kept', 0)} | {r.get('retired') or ''} |"
        for name, r in report["recipes"].items()
    ]
    return "\n".join(lines) + "\n"


def llm_line(report: dict[str, Any]) -> str:
    """One line on the LLM's calls, tokens and cost (per kept task too); "" when no LLM was used."""
    llm = report.get("generator", {}).get("llm")
    if not llm:
        return ""
    kept = report["kept"]
    tokens = llm["prompt_tokens"] + llm["completion_tokens"]
    cost = f"${llm['cost_usd']:.4f}" if llm.get("cost_known") else "cost unknown (no price for the model)"
    each = f"; per kept task {llm['calls'] / kept:.1f} calls, {tokens / kept:,.0f} tokens" if kept else ""
    return (
        f"LLM {report['generator'].get('model')}: {llm['calls']} calls ({llm['cache_hits']} from the cache), "
        f"{tokens:,} tokens, {cost}, {llm.get('total_retries', 0)} retries{each}."
    )


def render_report(console: Console, report: dict[str, Any]) -> None:
    """The report in the terminal: the outcome, capability mix, changed rows and rejections."""
    mix = Table(title="capability mix", title_justify="left")
    for name in ("capability", "tasks", "share"):
        mix.add_column(name, justify="left" if name == "capability" else "right")
    for cap, v in report["capabilities"].items():
        mix.add_row(cap, str(v["tasks"]), f"{v['share']:.0%}")
    console.print(mix)
    reasons = {**report["rejected"], **report["skipped"]}
    if reasons:
        why = Table(title="rejected by the gate / skipped by recipes", title_justify="left")
        why.add_column("reason")
        why.add_column("attempts", justify="right")
        why.add_column("example", overflow="fold")
        for reason, n in reasons.items():
            why.add_row(reason, str(n), report["examples"].get(reason, "")[:160])
        console.print(why)
    rows, div, timing = report["changed_rows"], report["diversity"], report["timing"]
    console.print(
        f"changed rows per feasible task: mean {rows['mean']}, max {rows['max']}, "
        f"{rows['share_50_or_more']:.0%} with 50+; {div['distinct_tool_sequences']} distinct tool sequences, "
        f"{div['near_duplicate_pairs']} near-duplicate pairs"
    )
    if llm_line(report):
        console.print(llm_line(report))
    for error in report["errors"][:5]:
        console.print(f"[red]recipe error[/] {error['recipe']}: {error['error']}")
    colour = "green" if report["target_met"] else "yellow"
    console.print(
        f"[{colour}]{report['kept']} of {report['asked']} tasks kept[/] ({report['feasible']} feasible, "
        f"{report['infeasible']} infeasible) in {report['attempts']['total']} attempts, "
        f"{timing['seconds']} s "
        f"({timing['per_kept_task_seconds']} s per task) -> {report['tasks_file']}"
    )
    if report["why"]:
        console.print(f"[yellow]{report['why']}[/]")
