"""The bundle's dataset card: README.md with Hugging Face dataset-card YAML front matter, then prose.

    text = dataset_card(manifest_without_files, description)

The front matter says what the Hub (and `datasets.load_dataset(folder, name)`) needs: the licence, the
task categories, a size category, tags, and one config per table (`data/<table>.parquet`) plus `tasks`
(`tasks.jsonl`, the default). The prose is written from the manifest alone, so it changes exactly when
the release does.
"""

from __future__ import annotations

from typing import Any

import yaml

from stateforge.release.bundle import BUILD_REPORT, FLAT_TASKS, GENERATION_REPORT, REPORT_HTML, TASKS, TOOLS
from stateforge.release.model import LICENSE, LICENSE_ID, Manifest, TaskCounts
from stateforge.tasks.model import CAPABILITIES

TASKS_CONFIG = "tasks"
SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
         (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"))
CAPABILITY_WORDS = {
    "multi_condition_filtering": "pick the rows that meet several conditions at once",
    "full_data_acquisition": "gather every item that qualifies, not the first page",
    "aggregation_computation": "count, sum or rank before acting",
    "cross_step_dependency": "use what one call returned in the next",
    "precise_boundary_judgment": "get dates, limits and thresholds exactly right",
}


def size_category(rows: int) -> str:
    """The Hugging Face size category of a dataset of `rows` rows."""
    for limit, name in SIZES:
        if rows < limit:
            return name
    return "n>100M"


def front_matter(manifest: Manifest) -> dict[str, Any]:
    """The card's YAML front matter."""
    configs: list[dict[str, Any]] = [
        {"config_name": TASKS_CONFIG, "data_files": [{"split": "test", "path": FLAT_TASKS}], "default": True}
    ]
    for table, entry in manifest.database.tables.items():
        configs.append({"config_name": table, "data_files": [{"split": "train", "path": entry.parquet}]})
    return {
        "pretty_name": f"Stateforge {manifest.domain} {manifest.version}",
        "license": LICENSE_ID,
        "language": ["en"],
        "task_categories": ["text-generation", "table-question-answering"],
        "size_categories": [size_category(manifest.database.rows)],
        "tags": [
            "agents", "tool-use", "benchmark", "stateful", "synthetic", "duckdb", "mcp", manifest.domain,
        ],
        "configs": configs,
    }


def dataset_card(manifest: Manifest, description: str) -> str:
    """README.md of the bundle: front matter and prose."""
    head = yaml.safe_dump(front_matter(manifest), sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{head}---\n\n" + "\n".join(_prose(manifest, " ".join(description.split()))) + "\n"


def _horizon(t: TaskCounts) -> list[str]:
    """How long the tasks are: reference calls, changed rows, distinct solutions and knobs (a paragraph)."""
    if t.horizon is None:
        return []
    h, rows = t.horizon, t.changed_rows
    knobs = ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in (t.knobs or {}).items()) or "none"
    return [
        f"A reference solution (reads, writes and the decline, through the agent's tools) takes "
        f"{h['mean']:.1f} calls on average (median {h['median']:g}, up to {h['max']:g}; "
        f"{h['share_30']:.0%} of the tasks take 30 or more); a feasible task changes {rows['mean']:.1f} rows "
        f"on average (median {rows['median']:g}, up to {rows['max']:g}). The {t.total} solutions follow "
        f"{t.tool_sequences} distinct sequences of tools. What makes them hard, by task: {knobs}.",
        "",
    ]


def _prose(m: Manifest, description: str) -> list[str]:
    t, db, inputs = m.tasks, m.database, m.inputs
    lines = [
        f"# Stateforge {m.domain} {m.version}",
        "",
        f"A stateful benchmark for tool-using LLM agents. {description}".strip(),
        "",
        "## What it measures",
        "",
        "Whether an agent, given a request in plain English and the domain's business tools (over MCP, "
        "`tools.json`), changes the database exactly as asked, and declines what cannot be done. Each task "
        "is graded by the diff its episode makes to a fresh copy of the database, compared with the "
        f"task's expected diff, and by its verifiers. The tasks exercise five capabilities "
        f"({t.total} tasks; a task may exercise several):",
        "",
        "| capability | tasks | what it asks |",
        "|---|---:|---|",
        *(f"| {c} | {t.capabilities.get(c, 0)} | {CAPABILITY_WORDS[c]} |" for c in CAPABILITIES),
        "",
        f"{t.feasible} of them are feasible and {t.infeasible} infeasible (the agent must refuse: "
        + (", ".join(f"{k} {v}" for k, v in t.infeasible_kinds.items()) or "none")
        + "). Difficulty: " + ", ".join(f"{k} {v}" for k, v in t.difficulty.items()) + ".",
        "",
        *_horizon(t),
        "## How it was built",
        "",
        f"From the DDL in `source/` by Stateforge {inputs.code.stateforge}"
        + (f" (commit {inputs.code.git_commit[:12]})" if inputs.code.git_commit else "")
        + f": the tables were filled in foreign-key order with seed {inputs.seed} at scale {inputs.scale:g} "
        + (f"by the {inputs.llm.model} model and the offline generator" if inputs.llm else
           "by the offline generator (Faker and numpy, no LLM)")
        + ", every batch validated and the whole database audited clean. Tasks were made by the "
        f"`{inputs.task_backend}` task generator (seed {inputs.task_seed}) and kept only when replaying "
        "their reference calls on a fresh copy reproduced their expected diff. `manifest.json` holds the "
        "hash of every input and file; `stateforge verify-release` checks them and replays every task.",
        "",
        "## Sizes",
        "",
        f"{db.rows:,} rows in {len(db.tables)} tables; {t.total} tasks.",
        "",
        "| table | rows |",
        "|---|---:|",
        *(f"| {name} | {entry.rows:,} |" for name, entry in db.tables.items()),
        "",
    ]
    if m.baselines:
        lines += [
            "## Baselines",
            "",
            "| solver | k | Avg@k | Pass@k | Pass^k | feasible | infeasible |",
            "|---|---:|---:|---:|---:|---:|---:|",
            *(
                f"| {b.solver} | {b.k} | {b.avg_at_k:.3f} | {b.pass_at_k:.3f} | {b.pass_hat_k:.3f} | "
                f"{_num(b.feasible)} | {_num(b.infeasible)} |"
                for b in m.baselines.values()
            ),
            "",
            "`oracle` replays the reference calls (an upper bound that checks the harness); `noop` does "
            "nothing (it passes only tasks whose right answer is to refuse).",
            "",
        ]
    lines += [
        "## Files and how to load them",
        "",
        f"- `{db.file}`: the DuckDB database (`ATTACH '{db.file}' AS bench (READ_ONLY)`), with the model "
        "in its `stateforge` schema;",
        "- `data/<table>.parquet`: one file per table, rows in key order (`read_parquet`, pandas, polars, "
        "or `datasets.load_dataset(\"<this folder>\", \"<table>\")`);",
        f"- `{TASKS}` (JSON Schema: `task.schema.json`): the tasks, as Stateforge reads them; "
        f"`{FLAT_TASKS}`: the same tasks with their nested fields (reference calls, expected diff, "
        "verifiers, ...) as JSON text, for column-typed readers "
        "(`datasets.load_dataset(\"<this folder>\", \"tasks\")`, pandas);",
        f"- `{TOOLS}`: the tools as an MCP `tools/list`; `{REPORT_HTML}`: the audit report;",
        f"- `{BUILD_REPORT}`, `{GENERATION_REPORT}`: how the data and the tasks were made.",
        "",
        "## Intended use",
        "",
        "Evaluating and comparing tool-using agents on state-changing requests, offline and repeatably "
        "(`stateforge evaluate`), and studying where they fail by capability. Not for training a model "
        "that is then evaluated on the same release.",
        "",
        "## Known limits",
        "",
        "- The data is synthetic: names, texts and amounts are plausible, not real; distributions follow "
        "the pack's configuration, not any real service.",
        "- Requests are templated or generated; their wording is narrower than real users'.",
        "- One correct end state per task: a solution that reaches the goal another way may be graded "
        "a failure where the task's policy does not allow for it.",
        "- The environment's clock is frozen at " + db.now + "; tasks about 'today' mean that day.",
        "",
        "## Licence",
        "",
        f"The data, tasks and reports of this release are licensed under {LICENSE} (Creative Commons "
        "Attribution 4.0 International): share and adapt them freely, crediting \"Stateforge "
        f"{m.domain} {m.version}\". The Stateforge code that made them is under its own licence.",
    ]
    return lines


def release_markdown(manifest: Manifest) -> str:
    """A short markdown summary of a release (the flow's artifact): sizes, tasks and baselines."""
    m, t = manifest, manifest.tasks
    lines = [
        f"# Release {m.domain} {m.version}",
        "",
        f"Release id `{m.release_id[:16]}`, {len(m.files)} files; {m.database.rows:,} rows in "
        f"{len(m.database.tables)} tables; {t.total} tasks ({t.feasible} feasible, "
        f"{t.infeasible} infeasible).",
    ]
    if m.baselines:
        lines += ["", "| solver | Avg@k | Pass@k | Pass^k |", "|---|---:|---:|---:|"]
        lines += [f"| {b.solver} | {b.avg_at_k:.3f} | {b.pass_at_k:.3f} | {b.pass_hat_k:.3f} |"
                  for b in m.baselines.values()]
    return "\n".join(lines) + "\n"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
