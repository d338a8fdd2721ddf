"""Distractor tools: tools of other packs added to an episode's toolkit, none of them needed for its task
(EnterpriseOps-Gym's ablation: +5, +10, +15 tools).

    kit = with_distractors(toolkit, 5, seed=0, key="t-3fa2c1", domain="itsm")   # 5 more tools, same order

The pool is every tool of every other pack under `stateforge/packs/` whose name the episode's toolkit does
not have (`cannot_complete` excluded), in (pack, tool) order. The `n` tools are a sample of the pool drawn
with a seed made of the run's seed and `key` (the task's id: every trial of a task sees the same toolkit,
and a rerun sees the same again), each put at a seeded position among the episode's own tools
(`cannot_complete` stays last).

A distractor keeps its name, description, parameters and kind, so the function schema, the MCP listing and
its annotations are the real tool's; but it runs against nothing: a call validates its arguments as the
real tool would, then fails with a tool error saying that the tool belongs to another service, which
holds none of this session's data, and that nothing was done. It changes nothing and declares no table, so
the episode goes on, and its grading is untouched: a solver pays for a distractor only with the call.
"""

from __future__ import annotations

import functools
import hashlib
import random
from typing import Any

from pydantic import BaseModel

from stateforge.errors import TerminalError
from stateforge.tools import CANNOT_COMPLETE, Tool, ToolError, Toolkit

LEVELS = (0, 5, 10, 15)
"""The distractor counts EnterpriseOps-Gym reports (0: none)."""


def distractor(real: Tool, pack: str) -> Tool:
    """`real` as a distractor from `pack`: the same listing, a call that refuses and changes nothing."""

    def run(env: Any, arguments: BaseModel) -> Any:
        raise ToolError(
            f"{real.name} is a tool of the {pack} service, which holds none of this session's data: nothing "
            "was done. Use the tools of the service you are working in."
        )

    write = real.kind == "write"
    return Tool(
        name=real.name,
        description=real.description,
        arguments=real.arguments,
        run=run,
        kind=real.kind,
        idempotent=real.idempotent if write else None,
        destructive=real.destroys if write else None,  # the real tool's MCP annotation, not this stub's
    )


@functools.cache
def pool(exclude: str) -> tuple[tuple[str, Tool], ...]:
    """(pack, tool) for every tool of every pack but `exclude`, in that order (the real tools: `distractor`
    wraps the chosen ones); a name two packs share is the first pack's. Loaded once per process."""
    from stateforge.domain import list_domains

    out: dict[str, tuple[str, Tool]] = {}
    for pack in sorted(list_domains()):
        if pack == exclude:
            continue
        try:
            tools = pack_tools(pack)
        except Exception as exc:  # noqa: BLE001 - any pack that does not load is named, with the fix
            raise TerminalError(
                f"--distractors: the tools of the pack {pack!r} do not load ({type(exc).__name__}: {exc}); "
                "fix that pack or run without --distractors."
            ) from exc
        for item in tools:
            if item.name != CANNOT_COMPLETE and item.name not in out:
                out[item.name] = (pack, item)
    return tuple(out.values())


def pack_tools(pack: str) -> list[Tool]:
    """The tools a pack's `tools/` defines (its `TOOLS`, or its module's tools), imported only: a distractor
    never runs them, so neither the schema nor the pack's checks are loaded; a pack whose tools are made
    from its schema (`toolkit(schema)`, or the generic toolkit) gets them through `toolkit_for`."""
    from stateforge.domain import load_domain
    from stateforge.domain.loader import schemas_dir
    from stateforge.domain.modules import has_part
    from stateforge.tools.loader import TOOLS_PART, import_tools, toolkit_for

    folder = schemas_dir() / pack
    if has_part(folder, TOOLS_PART):
        module = import_tools(folder)
        if hasattr(module, "TOOLS"):
            return list(module.TOOLS)
        if not callable(getattr(module, "toolkit", None)):
            return [v for v in vars(module).values() if isinstance(v, Tool)]
    loaded = load_domain(pack)
    return list(toolkit_for(loaded.schema, loaded.name, pack_dir=loaded.root))


def with_distractors(toolkit: Toolkit, n: int, *, seed: int, key: str, domain: str | None = None) -> Toolkit:
    """`toolkit` with `n` distractors of other packs than `domain` (default: the toolkit's name) among its
    tools (see the module docstring); `toolkit` itself when `n` is 0. `TerminalError` when the other packs
    have fewer than `n` tools it lacks."""
    if n <= 0:
        return toolkit
    own = set(toolkit.names)
    candidates = [(pack, t) for pack, t in pool(domain or toolkit.name) if t.name not in own]
    if len(candidates) < n:
        raise TerminalError(
            f"--distractors {n}: the other packs have only {len(candidates)} tools that {toolkit.name} "
            f"lacks; ask for at most {len(candidates)}."
        )
    digest = hashlib.sha256(f"{seed}:distractors:{n}:{key}".encode()).hexdigest()
    rng = random.Random(int(digest[:16], 16))
    tools = [t for t in toolkit if t.name != CANNOT_COMPLETE]
    for pack, real in rng.sample(candidates, n):
        tools.insert(rng.randint(0, len(tools)), _wrapped(pack, real))
    return Toolkit(tools, name=toolkit.name)


@functools.cache
def _wrapped(pack: str, real: Tool) -> Tool:
    """`distractor(real, pack)`, made once per process (the same object in every episode's toolkit)."""
    return distractor(real, pack)


def distractor_names(full: Toolkit, base: Toolkit) -> list[str]:
    """The tools of `full` that `base` does not have (an episode's distractors), in `full`'s order."""
    return [name for name in full.names if name not in base]
