"""A run's summary for people: the terminal (`render_summary`), the Prefect artifact (`summary_markdown`),
and a comparison of two runs (`render_comparison`, `comparison_markdown`).

Every table shows Avg@k, Pass@k and Pass^k with their 95% interval, overall and per group (capability,
difficulty, plan length, feasible / infeasible); the verifiers passed by kind and the refusal accuracy;
then the health of the harness (infrastructure errors against their limit), the commonest kinds of failure,
and where an episode's time goes. A comparison says what B - A measures when the runs' ablations differ.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

GROUPS = (("capability", "capability"), ("difficulty", "difficulty"), ("plan_length", "plan steps"),
          ("feasible", "feasibility"))
METRICS = ("avg_at_k", "pass_at_k", "pass_hat_k")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _ci(entry: dict[str, Any], metric: str) -> str:
    low, high = entry["ci"][metric]
    return f"{low:.0%}-{high:.0%}"


def _rows(summary: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(group kind, group name, metrics) of the overall line and every group."""
    rows = [("overall", "all tasks", summary)]
    for key, label in GROUPS:
        rows += [(label, name, entry) for name, entry in summary["groups"][key].items()]
    return rows


def _headline(summary: dict[str, Any]) -> str:
    model = f" ({summary['model']})" if summary.get("model") else ""
    ablation = (" with plan" if summary.get("with_plan") else "") + (
        f", +{summary['distractors']} distractor tools" if summary.get("distractors") else "")
    return (
        f"{summary['solver']}{model} on {summary['domain']}{ablation}, k={summary['k']}: "
        f"{summary['episodes']} episodes, {summary['passed']} passed, {summary['failed']} failed, "
        f"{summary['infra_errors']} infrastructure errors"
    )


def verifier_line(summary: dict[str, Any]) -> str:
    """`goal 90% (18/20), integrity 100% (20/20), policy 85% (17/20), side effect 95% (19/20)`: the episodes
    that passed every verifier of each kind (kinds no task had left out; empty for summaries without it)."""
    return ", ".join(
        f"{kind.replace('_', ' ')} {_pct(v['pass_rate'])} ({v['episodes_passed']}/{v['episodes']})"
        for kind, v in summary.get("verifier_kinds", {}).items() if v["episodes"]
    )


def refusal_line(summary: dict[str, Any]) -> str:
    """`refusal accuracy 80.0% (8 of 10 infeasible episodes declined with nothing changed); 1 of 40
    feasible declined`; empty when no infeasible or feasible episode was graded."""
    r = summary.get("refusal")
    if not r or not (r["infeasible_episodes"] or r["feasible_episodes"]):
        return ""
    return (
        f"refusal accuracy {_pct(r['accuracy'])} ({r['refused']} of {r['infeasible_episodes']} infeasible "
        f"episodes declined with nothing changed); {r['false_refusals']} of {r['feasible_episodes']} "
        "feasible declined"
    )


def render_summary(console: Console, summary: dict[str, Any]) -> None:
    """The summary in the terminal: one table of the metrics, then health, failures and timing."""
    k = summary["k"]
    table = Table(title=_headline(summary), title_justify="left")
    for name in ("group", "", "tasks", f"Avg@{k}", "95% CI", f"Pass@{k}", f"Pass^{k}"):
        table.add_column(name, justify="left" if name in ("group", "") else "right")
    for kind, name, entry in _rows(summary):
        if kind == "overall" or entry["tasks"]:
            table.add_row(
                kind, name, str(entry["tasks"]), _pct(entry["avg_at_k"]), _ci(entry, "avg_at_k"),
                _pct(entry["pass_at_k"]), _pct(entry["pass_hat_k"]),
                style="bold" if kind == "overall" else None,
            )
    console.print(table)
    console.print(f"intervals: {summary['ci']['method']} (95%)", style="dim")
    kinds = verifier_line(summary)
    if kinds:
        console.print(f"verifiers passed, by kind (episodes): {kinds}")
    refusal = refusal_line(summary)
    if refusal:
        console.print(refusal)
    if summary["failures"]:
        console.print("commonest failures (episodes): " + ", ".join(
            f"{kind} {n}" for kind, n in summary["failures"].items()))
    health = summary["harness"]
    if summary["infra_errors"]:
        colour = "yellow" if health["ok"] else "red"
        console.print(
            f"[{colour}]{summary['infra_errors']} infrastructure errors ({health['infra_share']:.1%}, "
            f"at most {health['max_infra_share']:.0%} allowed), not counted as failures[/]"
        )
        for reason, n in list(health["reasons"].items())[:3]:
            console.print(f"  {n} x {reason[:200]}")
    timing = summary["timing"]
    parts = ", ".join(f"{part} {ms:.0f}" for part, ms in timing["median_ms"].items() if ms is not None)
    rate = timing.get("episodes_per_second")
    console.print(
        f"median ms per episode: {parts}" + (f"; {rate} episodes/s this session" if rate else ""), style="dim"
    )
    usage = summary["usage"]
    if usage["llm_calls"]:
        cost = f"${usage['cost_usd']:.4f}" + ("" if usage["cost_known"] else " (some models unpriced)")
        console.print(
            f"tokens: {usage['prompt_tokens']:,} prompt + {usage['completion_tokens']:,} completion, {cost}; "
            f"{usage['turns_mean']} turns and {usage['tool_calls_mean']} tool calls per episode"
        )
    if not summary["complete"]:
        console.print(
            f"[yellow]{summary['episodes']} of {summary['episodes_expected']} episodes recorded: resume with "
            f"--resume {summary['run_id']}[/]"
        )
    for shard in summary.get("shards", []):
        console.print(
            f"shard {shard['shard']}: {shard['state']}, {shard['episodes_run'] or 0} of {shard['pairs']} "
            f"episodes run by {shard['worker'] or '?'} on {shard['host'] or '?'}",
            style="dim", highlight=False,
        )
    console.print(f"run {summary['run_id']} -> {summary.get('folder', '')}")
    if not health["ok"]:
        console.print(f"[bold red]the harness did not work: {health['why']}[/]")


def summary_markdown(summary: dict[str, Any]) -> str:
    """The summary as markdown (the Prefect artifact of the evaluate flow)."""
    k = summary["k"]
    health = summary["harness"]
    lines = [
        f"# Evaluation {summary['run_id']}",
        "",
        f"**{_headline(summary)}.**",
        "",
        f"| group | | tasks | Avg@{k} | 95% CI | Pass@{k} | Pass^{k} |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for kind, name, entry in _rows(summary):
        if kind == "overall" or entry["tasks"]:
            lines.append(
                f"| {kind} | {name} | {entry['tasks']} | {_pct(entry['avg_at_k'])} | "
                f"{_ci(entry, 'avg_at_k')} | {_pct(entry['pass_at_k'])} | {_pct(entry['pass_hat_k'])} |"
            )
    lines += ["", f"Intervals: {summary['ci']['method']} (95%).", ""]
    status = "worked" if health["ok"] else f"**did not work**: {health['why']}"
    lines += [
        f"Harness: {status}; {summary['infra_errors']} infrastructure errors ({health['infra_share']:.1%}, "
        f"at most {health['max_infra_share']:.0%} allowed).",
        "",
    ]
    kinds = {k: v for k, v in summary.get("verifier_kinds", {}).items() if v["episodes"]}
    if kinds:
        lines += ["| verifier kind | episodes | passed | checks passed |", "|---|---:|---:|---:|"]
        lines += [f"| {kind.replace('_', ' ')} | {v['episodes']} | {_pct(v['pass_rate'])} | "
                  f"{v['passed']} of {v['checks']} |" for kind, v in kinds.items()]
        lines.append("")
    refusal = refusal_line(summary)
    if refusal:
        lines += [refusal[0].upper() + refusal[1:] + ".", ""]
    if summary["failures"]:
        lines += ["| failure | episodes |", "|---|---:|"]
        lines += [f"| {kind} | {n} |" for kind, n in summary["failures"].items()]
        lines.append("")
    if health["reasons"]:
        lines += ["| infrastructure error | episodes |", "|---|---:|"]
        lines += [f"| {reason[:200]} | {n} |" for reason, n in health["reasons"].items()]
        lines.append("")
    for shard in summary.get("shards", []):
        lines.append(f"- shard {shard['shard']}: {shard['state']}, {shard['episodes_run'] or 0} of "
                     f"{shard['pairs']} episodes run by {shard['worker'] or '?'} on {shard['host'] or '?'}")
    if summary.get("shards"):
        lines.append("")
    if summary.get("report"):
        lines += [f"Report: `{summary['report']}` (self-contained HTML: plots, tasks, trajectories).", ""]
    timing = summary["timing"]
    lines.append(
        "Median ms per episode: "
        + ", ".join(f"{part} {ms:.0f}" for part, ms in timing["median_ms"].items() if ms is not None)
        + (f"; {timing['episodes_per_second']} episodes/s." if timing.get("episodes_per_second") else ".")
    )
    return "\n".join(lines) + "\n"


def render_comparison(console: Console, result: dict[str, Any]) -> None:
    """A paired comparison of two runs in the terminal."""
    a, b, p = result["a"], result["b"], result["paired"]
    table = Table(
        title=f"B {b['run_id']} vs A {a['run_id']} on {result['shared_tasks']} shared tasks",
        title_justify="left",
    )
    for name in ("", "tasks", "Avg@k A", "Avg@k B", "B - A", "95% CI", "B better", "A better", "ties", "p"):
        table.add_column(name, justify="left" if not name else "right")
    rows = [("all shared tasks", p), *result["by_capability"].items()]
    for name, entry in rows:
        low, high = entry["ci"]["difference"]
        table.add_row(
            name, str(entry["tasks"]), _pct(entry["avg_at_k_a"]), _pct(entry["avg_at_k_b"]),
            f"{entry['difference']:+.1%}", f"{low:+.1%} .. {high:+.1%}", str(entry["b_better"]),
            str(entry["a_better"]), str(entry["ties"]), f"{entry['sign_test_p']:.3g}",
            style="bold" if name == "all shared tasks" else None,
        )
    console.print(table)
    console.print(
        f"A: {a['solver']}{' (' + a['model'] + ')' if a.get('model') else ''}, k={a['k']}; "
        f"B: {b['solver']}{' (' + b['model'] + ')' if b.get('model') else ''}, k={b['k']}. "
        f"Per task: the share of its trials that passed; interval: paired bootstrap; p: exact sign test. "
        f"Only in A: {result['only_in_a']}, only in B: {result['only_in_b']}.",
        style="dim",
    )
    gain = conditions_line(result)
    if gain:
        console.print(gain)


def condition(side: dict[str, Any]) -> str:
    """`with plan, 10 distractors`: a run's ablation in words."""
    plan = "with plan" if side.get("with_plan") else "no plan"
    return f"{plan}, {side.get('distractors', 0)} distractors"


def conditions_line(result: dict[str, Any]) -> str:
    """What B - A measures when the runs differ in their ablation (`--with-plan`, `--distractors`): e.g.
    `B - A = +14.0% (95% CI ...): the gain of the plan (A no plan, 0 distractors; B with plan, ...)`; empty
    when both ran under the same conditions."""
    differ = result.get("conditions") or {}
    if not differ:
        return ""
    p = result["paired"]
    low, high = p["ci"]["difference"]
    what = []
    if "with_plan" in differ:
        what.append("the gain of the plan" if differ["with_plan"][1] else "the loss without the plan")
    if "distractors" in differ:
        before, after = differ["distractors"]
        what.append(f"the effect of {after} distractors instead of {before}")
    return (
        f"B - A = {p['difference']:+.1%} ({low:+.1%} .. {high:+.1%}): {' and '.join(what)} "
        f"(A {condition(result['a'])}; B {condition(result['b'])})."
    )
