"""Stateforge: stateful benchmark environments for tool-using agents, built from SQL DDL.

The library, one subpackage per stage. Imports go one way only, down this list (`LAYERS`; a subpackage
never imports one above it, not even inside a function; `tests/test_layers.py` checks it):

    errors                           the error tree
    values, types, resources,        shared leaves: canonical JSON values, DuckDB -> Arrow types, package
    fakellm, prompts, stages,        data and output folders; the OpenAI-compatible test server (which
    registry                         imports nothing of Stateforge); the prompt templates (package data);
                                     the one stage driver of every pipeline; the one registry shape
    html                             self-contained HTML pages and plots (matplotlib SVG) for every report
    schema                           DDL -> the schema model
    constraints                      the one description of what a table's constraints allow, from
                                     which every check, the DDL and the LLM's reply schema derive
    graph                            the foreign-key graph, the fill plan, the schema report
    domain                           domain packs: `domain.yaml` models and the loader
    store                            DuckDB files: tables, metadata, sequences, hashes, build metadata
    validation                       batch checks, repairs, domain rules, the audit and its views
    fill                             the offline generator and the fill engine
    llm                              the LLM client and the LLM fill
    build                            the stages of a build and the one driver that runs them
    report                           the HTML audit report of a built database (`stateforge report`)
    diff                             database diffs and their comparison (ground truth, grading)
    tools                            business tools: the framework, the generic toolkit, pack loading
    episode                          a private copy of a database where tools run, one transaction a call
    mcp                              the MCP server: tools over stdio or streamable HTTP, an episode a session
    tasks                            task generation: the task model, recipes, the gate, the runner, reports
    packs                            the domain packs that ship: `<pack>/schema.sql`, `domain.yaml`,
                                     `tools/`, `tasks/` (loaded as packages of their own, by folder)
    evaluate                         solvers on episodes, graded by diff: the harness, metrics, runs
    release                          benchmark releases: reproducible bundles, verification, comparison
    render                           terminal rendering of reports
    flows                            Prefect flows over build, tasks, evaluate and release
    cli                              the `stateforge` command

Everything installs as this one package. The packs' folders and the prompt templates are read with
`importlib.resources` (`stateforge.resources.package_dir`), so they are found the same way installed.
"""

from __future__ import annotations

__version__ = "0.1.0"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("values", "types", "resources", "fakellm", "prompts", "stages", "registry"),
    ("html",),
    ("schema",),
    ("constraints",),
    ("graph",),
    ("domain",),
    ("store",),
    ("validation",),
    ("fill",),
    ("llm",),
    ("build",),
    ("report",),
    ("diff",),
    ("tools",),
    ("episode",),
    ("mcp",),
    ("tasks",),
    ("packs",),
    ("evaluate",),
    ("release",),
    ("render",),
    ("flows",),
    ("cli",),
)
"""The subpackages (and top-level modules) of Stateforge, lowest first; each may import only lower ones."""
