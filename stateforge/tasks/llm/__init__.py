"""The LLM task generator: an agent over any OpenAI-compatible server proposes tasks for the gate.

    from stateforge.tasks.llm import LLMGenerator, GeneratorLimits
    report = generate_tasks("music", backend="openai", ...)      # registered as the `openai` generator

`generator` (the `Generator` the runner drives: one conversation per attempt), `session` (the agent loop,
its limits and outcome), `sql` (the privileged read-only `run_sql`), `submit` (`submit_task` and the
draft it becomes), `prompt` (the opening messages from `stateforge/prompts/generate_task.md`). The factory
`llm_generator` is registered as the `openai` generator (`stateforge.tasks.generators.GENERATORS`), imported
when a run asks for it.
"""

from __future__ import annotations

from typing import Any

from stateforge.llm.backends import check_backend
from stateforge.llm.settings import LLMSettings
from stateforge.tasks.gate import Gate
from stateforge.tasks.llm.generator import LLMGenerator, generator_tools
from stateforge.tasks.llm.session import GeneratorLimits, Outcome, Session
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit

__all__ = ["GeneratorLimits", "LLMGenerator", "Outcome", "Session", "generator_tools", "llm_generator"]


def llm_generator(
    workspace: Workspace,
    toolkit: Toolkit,
    *,
    recipes: Any = None,
    seed: int,
    settings: LLMSettings | None = None,
    limits: GeneratorLimits | None = None,
    gate: Gate | None = None,
    **_: Any,
) -> LLMGenerator:
    """The `openai` generator factory: `settings` (default: the environment's, backend openai), `limits`,
    and the run's `gate`. Runs the backend's preflight first (key, model, server reachable, model served),
    so a wrong setting stops the run before anything is written, with what to fix."""
    settings = settings or LLMSettings.from_env(backend="openai")
    check_backend(settings)
    return LLMGenerator(
        workspace,
        toolkit,
        seed=seed,
        settings=settings,
        limits=limits,
        gate=gate,
    )

