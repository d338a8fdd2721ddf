"""`report.html` of an evaluation run: one self-contained page (no network, no CDN) made with
`stateforge.html`, written into the run folder at the end of every run and by `stateforge eval-report`.

    write_run_report("artifacts/music/runs/20261130T184301-oracle-3fa2")   # -> .../report.html

What it shows, top to bottom: the headline figures (Avg@k, Pass@k, Pass^k with their 95% intervals) and
whether the harness worked; plots of the pass rate per capability, per difficulty, by length of the
reference plan, feasible vs infeasible, cost (or tokens, or tool calls) against score per task, and the
commonest failures; the failures grouped by kind with the grader's words; infrastructure errors apart
(never counted as failures); one row per task whose trial badges open that episode's trajectory
(messages, tool calls with arguments and results, the verdict) further down the same page. The same run
folder gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stateforge.evaluate.metrics import plan_bins
from stateforge.evaluate.records import EpisodeRecord
from stateforge.evaluate.rundir import RunFolder, write_json
from stateforge.evaluate.summary import PARTS, summarize
from stateforge.evaluate.taskrows import FailureGroup, TaskRow, failure_groups, task_rows
from stateforge.evaluate.trajectory import (
    OPEN_TARGET_JS,
    STYLE,
    episode_anchor,
    episode_details,
    outcome_badge,
)
from stateforge.html import (
    Card,
    Cell,
    Markup,
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
from stateforge.html.fmt import count, number, percent, plural
from stateforge.tasks import CAPABILITIES, DIFFICULTIES

REPORT_FILE = "report.html"


def _ci(entry: dict[str, Any], metric: str) -> str:
    low, high = entry["ci"][metric]
    return f"{low * 100:.0f}\u2013{high * 100:.0f}%"


def _metric_cards(summary: dict[str, Any]) -> Markup:
    k = summary["k"]
    usage = summary["usage"]
    cost = (f"${usage['cost_usd']:.4f}" if usage["llm_calls"] else "-")
    tokens = usage["prompt_tokens"] + usage["completion_tokens"]
    return cards([
        Card(f"Avg@{k}", percent(summary["avg_at_k"]), f"95% CI {_ci(summary, 'avg_at_k')}"),
        Card(f"Pass@{k}", percent(summary["pass_at_k"]), f"95% CI {_ci(summary, 'pass_at_k')}"),
        Card(f"Pass^{k}", percent(summary["pass_hat_k"]), f"95% CI {_ci(summary, 'pass_hat_k')}"),
        Card("tasks", count(summary["tasks"]), f"{count(summary['episodes'])} episodes"),
        Card("passed", count(summary["passed"]), tone="good" if summary["passed"] else None),
        Card("failed", count(summary["failed"]), tone="bad" if summary["failed"] else None),
        Card("infrastructure errors", count(summary["infra_errors"]), "not counted as failures",
             tone="warn" if summary["infra_errors"] else None),
        Card("cost", cost, f"{count(tokens)} tokens" if tokens else "no model calls"),
        *_refusal_card(summary),
    ])


def _refusal_card(summary: dict[str, Any]) -> list[Card]:
    """Refusal accuracy on infeasible tasks, as its own figure (none when no infeasible task was graded)."""
    r = summary.get("refusal")
    if not r or not r["infeasible_episodes"]:
        return []
    return [Card("refusal accuracy", percent(r["accuracy"]),
                 f"{r['refused']} of {r['infeasible_episodes']} infeasible declined, nothing changed; "
                 f"{r['false_refusals']} feasible declined")]


def _verdict(summary: dict[str, Any]) -> Markup:
    health = summary["harness"]
    ci = summary["ci"]["method"]
    if not health["ok"]:
        return callout(f"The harness did not work: {health['why']}. The scores below cover only the "
                       "episodes that could be graded.", "bad")
    text = (f"{summary['solver']}{' (' + summary['model'] + ')' if summary.get('model') else ''} on "
            f"{summary['domain']}, k={summary['k']}: {summary['passed']} of "
            f"{summary['passed'] + summary['failed']} graded episodes passed. Intervals: {ci} (95%).")
    if not summary["complete"]:
        return callout(text + f" Only {summary['episodes']} of {summary['episodes_expected']} episodes are "
                       f"recorded: resume with --resume {summary['run_id']}.", "warn")
    return callout(text, "good" if summary["infra_errors"] == 0 else "warn")


def _ordered(groups: dict[str, Any], order: tuple[str, ...] | list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The groups that have graded tasks, in `order` (others after, by name)."""
    rank = {name: i for i, name in enumerate(order)}
    items = [(n, e) for n, e in groups.items() if e.get("avg_at_k") is not None]
    return sorted(items, key=lambda item: (rank.get(item[0], len(rank)), item[0]))


def _label(entry: dict[str, Any]) -> str:
    return f"{percent(entry['avg_at_k'], 0)} ({_ci(entry, 'avg_at_k')}) \u00b7 {entry['tasks']}"


def _rate_plots(summary: dict[str, Any]) -> list[Markup]:
    """Pass rate (Avg@k) per capability, difficulty, plan length and feasibility, with intervals."""
    groups, k, out = summary["groups"], summary["k"], []
    what = f"Avg@{k} with its 95% interval and the number of tasks"
    capability = _ordered(groups["capability"], CAPABILITIES)
    if capability:
        plot = plots.bars("p-capability", [n.replace("_", " ") for n, _ in capability],
                          [e["avg_at_k"] for _, e in capability], fmt="percent",
                          value_labels=[_label(e) for _, e in capability], title="Pass rate per capability")
        out.append(tile("Pass rate per capability", plot.html(what), kind=f"Avg@{k}"))
    for key, title, order, xlabel in (
        ("difficulty", "Pass rate per difficulty", DIFFICULTIES, "difficulty"),
        ("plan_length", "Pass rate by reference plan length", plan_bins(), "steps of the reference plan"),
    ):
        items = _ordered(groups[key], order)
        if items:
            plot = plots.columns(f"p-{key.replace('_', '-')}", [n for n, _ in items],
                                 [e["avg_at_k"] for _, e in items], fmt="percent", xlabel=xlabel, title=title,
                                 note=", ".join(f"{n}: {e['tasks']}" for n, e in items) + " tasks")
            table = data_table([key.replace("_", " "), "tasks", f"Avg@{k}", "95% CI"],
                               [[n, e["tasks"], percent(e["avg_at_k"]), _ci(e, "avg_at_k")]
                                for n, e in items],
                               align="lrrr", sortable=False)
            out.append(tile(title, plot.html(), table, kind=f"Avg@{k}"))
    feasible = _ordered(groups["feasible"], ("feasible", "infeasible"))
    if feasible:
        plot = plots.bars("p-feasible", [n for n, _ in feasible], [e["avg_at_k"] for _, e in feasible],
                          fmt="percent", value_labels=[_label(e) for _, e in feasible],
                          title="Feasible vs infeasible")
        out.append(tile("Feasible vs infeasible tasks", plot.html(
            "infeasible: passed when declined with nothing changed"), kind=f"Avg@{k}"))
    kinds = [(n, e) for n, e in summary.get("verifier_kinds", {}).items() if e["episodes"]]
    if kinds:  # EnterpriseOps-Gym's table: goal, integrity, policy, side effect
        plot = plots.bars("p-verifier-kinds", [n.replace("_", " ") for n, _ in kinds],
                          [e["pass_rate"] for _, e in kinds], fmt="percent",
                          value_labels=[f"{e['episodes_passed']} of {e['episodes']}" for _, e in kinds],
                          title="Verifiers passed, by kind")
        table = data_table(["policy", "episodes", "passed"],
                           [[n, e["episodes"], percent(e["passed"] / e["episodes"])]
                            for n, e in summary.get("policies", {}).items() if e["episodes"]],
                           align="lrr", sortable=False, empty="No task has a policy verifier.")
        out.append(tile("Verifiers passed, by kind", plot.html(
            "episodes whose every verifier of the kind passed"), table, kind="episodes"))
    return out


def _cost_plot(rows: list[TaskRow]) -> Markup | None:
    """Cost against score, one point per task: dollars, else tokens, else tool calls per episode."""
    scored = [r for r in rows if r.score is not None]
    if not scored:
        return None
    axes = {"cost_usd": "mean cost per episode ($)", "tokens": "mean tokens per episode",
            "n_tool_calls": "mean tool calls per episode"}
    for attribute in axes:
        xs = [r.mean(attribute) if attribute != "tokens" else r.tokens for r in scored]
        if any(xs) or attribute == "n_tool_calls":
            break
    plot = plots.scatter("p-cost", xs, [r.score or 0.0 for r in scored], xlabel=axes[attribute],
                         ylabel="task score (Avg@k)",
                         groups=["feasible" if r.facts.feasible else "infeasible" for r in scored],
                         title="Cost against score per task")
    note = "" if attribute == "cost_usd" else (
        " (no cost was recorded: tokens instead)" if attribute == "tokens" else
        " (no model was called: tool calls instead of cost)")
    return tile("Cost against score", plot.html(f"one point per task{note}"), kind="per task")


def _failure_plot(groups: list[FailureGroup], failed: int) -> Markup | None:
    if not groups:
        return None
    top = groups[:12]
    plot = plots.bars("p-failures", [g.label for g in top], [len(g.episodes) for g in top],
                      warn=[g.label for g in top], title="Commonest failures",
                      value_labels=[f"{len(g.episodes)} ({percent(len(g.episodes) / failed, 0)})"
                                    for g in top])
    return tile("Commonest failures", plot.html(f"failed episodes with each kind of failure, of {failed}"),
                kind="episodes")


def _links(records: list[EpisodeRecord], limit: int = 6) -> Markup:
    shown = [tag("a", f"{r.task_id[:8]}/{r.trial + 1}", href=f"#{episode_anchor(r.task_id, r.trial)}")
             for r in records[:limit]]
    more = f" and {len(records) - limit} more" if len(records) > limit else ""
    return join(shown, ", ") + more


def _failures_section(groups: list[FailureGroup], failed: int) -> Section:
    rows = [[g.label, Cell(count(len(g.episodes)), len(g.episodes)),
             ", ".join(f"{t} ({n})" for t, n in g.tables.most_common(6)) or "-",
             join(tag("div", e) for e in g.examples), _links(g.episodes)] for g in groups]
    body = data_table(["failure", "episodes", "tables", "as the grader put it", "episodes"], rows,
                      align="lrlll", empty="No episode failed.")
    return Section("failures", "Failures", body,
                   subtitle=f"{plural(failed, 'failed episode')}, grouped by the kind of mismatch or check "
                   "(an episode counts once a kind, and may have several)")


def _infra_section(summary: dict[str, Any], records: list[EpisodeRecord]) -> Section:
    broken = [r for r in records if r.outcome == "infra_error"]
    retried = [r for r in records if r.outcome != "infra_error" and r.infra_errors]
    rows = [[tag("a", f"{r.task_id[:8]}/{r.trial + 1}", href=f"#{episode_anchor(r.task_id, r.trial)}"),
             r.attempts, r.reasons[0] if r.reasons else "-"] for r in broken]
    health = summary["harness"]
    text = (f"{plural(len(broken), 'episode')} could not be judged ({percent(health['infra_share'])}; "
            f"at most {percent(health['max_infra_share'], 0)} allowed). They are left out of every "
            f"score, never counted as failures. {plural(len(retried), 'other episode')} passed or failed "
            "after a retry.")
    body = join([callout(text, "good" if not broken else "warn" if health["ok"] else "bad"),
                 data_table(["episode", "attempts", "error"], rows, align="lrl", empty="None.")])
    return Section("infra", "Infrastructure errors", body, subtitle="kept apart from the agent's failures")


def _tasks_section(rows: list[TaskRow], k: int) -> Section:
    body = []
    for row in rows:
        trials = join((tag("a", outcome_badge(r.outcome), href=f"#{episode_anchor(r.task_id, r.trial)}",
                           title=f"trial {r.trial + 1}: open its trajectory") for r in row.trials), " ")
        score = row.score
        body.append([
            tag("code", row.task_id), ", ".join(c.replace("_", " ") for c in row.facts.capabilities),
            row.facts.difficulty, row.facts.plan_steps, "yes" if row.facts.feasible else "no",
            Cell(f"{row.passed}/{len(row.graded)}" if row.graded else "-",
                 score if score is not None else -1),
            trials, Cell(number(row.mean("n_tool_calls")), row.mean("n_tool_calls")),
            Cell(count(round(row.tokens)), row.tokens),
            Cell(f"${row.mean('cost_usd'):.4f}", row.mean("cost_usd")),
        ])
    table = data_table(["task", "capabilities", "difficulty", "plan", "feasible", "passed", f"trials ({k})",
                        "tool calls", "tokens", "cost"], body, align="nlnrnrlrrr")
    return Section("tasks", "Tasks", table, subtitle="click a header to sort; a trial's badge opens its "
                   "trajectory (tool calls, tokens and cost: means over graded episodes)")


def _run_section(summary: dict[str, Any], folder: RunFolder) -> Section:
    spec = folder.spec
    timing = summary["timing"]
    # summary.json sorts its keys: order by what things are, never by the dict, so that a summary read
    # back from the file gives the same page as the one in memory.
    median = timing["median_ms"]
    parts = ", ".join(f"{p} {number(median[p])}" for p in (*PARTS, "episode") if median.get(p) is not None)
    stops = sorted(summary["stop_reasons"].items(), key=lambda item: (-item[1], item[0]))
    rows = [["run id", spec.run_id], ["solver", spec.solver], ["model", spec.model or "-"],
            ["trials per task (k)", spec.k], ["seed", spec.seed], ["database", spec.db],
            ["database fingerprint", spec.db_fingerprint], ["tasks file", spec.tasks_file],
            ["task filter", spec.task_filter or "-"], ["toolkit", spec.toolkit.get("name", "-")],
            ["distractor tools per episode", spec.distractors], ["reference plan given", spec.with_plan],
            ["limits", ", ".join(f"{k} {v}" for k, v in spec.solver_config.limits.model_dump().items())],
            ["created", spec.created_at], ["Stateforge", spec.stateforge_version],
            ["median ms per episode", parts or "-"],
            ["stop reasons", ", ".join(f"{k or '-'} {v}" for k, v in stops) or "-"]]
    body = data_table(["", ""], rows, align="nl", sortable=False)
    if summary.get("shards"):
        shards = [[s["shard"], s["state"], s.get("worker") or "-", s.get("host") or "-", s["pairs"],
                   s.get("episodes_run") if s.get("episodes_run") is not None else "-", s["flow_run"]]
                  for s in summary["shards"]]
        body = join([body, tag("h3", f"Shards on the work pool {summary.get('pool', '')}"),
                     data_table(["shard", "state", "worker", "host", "episodes", "run there", "flow run"],
                                shards, align="nlllrrn")])
    return Section("run", "The run", body,
                   subtitle="what was asked (run.json) and how it went (summary.json), beside this file")


def build_page(folder: RunFolder, summary: dict[str, Any], records: list[EpisodeRecord]) -> Page:
    """The report of a run as a `Page` (its summary and records as read from its folder)."""
    rows = task_rows(records, folder.spec.task_ids)
    failed = summary["failed"]
    groups = failure_groups(records)
    page = Page(title=summary["run_id"], subtitle=f"Evaluation of {summary['solver']} on {summary['domain']}",
                brand="Stateforge evaluation", lead=join([_verdict(summary), _metric_cards(summary)]))
    figures = [*_rate_plots(summary), _cost_plot(rows), _failure_plot(groups, failed)]
    page.add(Section("plots", "Scores", grid((f for f in figures if f is not None), wide=False),
                     subtitle="pass rates with 95% intervals, cost against score, the commonest failures"))
    page.add(_failures_section(groups, failed))
    page.add(_infra_section(summary, records))
    page.add(_tasks_section(rows, summary["k"]))
    trajectories = join(episode_details(r) for row in rows for r in row.trials)
    page.add(Section("trajectories", "Trajectories", join([
        tag("style", Markup(STYLE)), trajectories, tag("script", Markup(OPEN_TARGET_JS))]),
        subtitle="every episode: the verdict, the messages, each tool call with its arguments and result"))
    page.add(_run_section(summary, folder))
    page.nav("Report", [
        NavItem("#plots", "Scores"),
        NavItem("#failures", "Failures", count(failed), "bad" if failed else "good"),
        NavItem("#infra", "Infrastructure errors", count(summary["infra_errors"]),
                "warn" if summary["infra_errors"] else "good"),
        NavItem("#tasks", "Tasks", count(len(rows))),
        NavItem("#trajectories", "Trajectories", count(len(records))),
        NavItem("#run", "The run"),
    ])
    return page


def write_run_report(run: str | Path | RunFolder, summary: dict[str, Any] | None = None) -> Path:
    """Write `report.html` into a run's folder and return its path. Without `summary`, the run's
    summary.json is used (or computed from its records and written, when the run has none)."""
    folder = run if isinstance(run, RunFolder) else RunFolder.open(Path(run))
    records = folder.records()
    if summary is None:
        if folder.summary_path.is_file():
            import json

            summary = json.loads(folder.summary_path.read_text(encoding="utf-8"))
        else:
            summary = summarize(folder.spec, records)
            summary["folder"] = str(folder.path)
            write_json(folder.summary_path, summary)
    assert summary is not None
    path = folder.path / REPORT_FILE
    text = build_page(folder, summary, records).render()
    tmp = path.with_name(f".{REPORT_FILE}.partial")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
