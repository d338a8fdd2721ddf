"""From the CLI's and the flow's options to a generator: which backend, and the LLM generator's options.

    backend, options = generator_backend("openai", model="gpt-4o-mini", base_url=None, max_turns=20)
    generate_tasks("music", backend=backend, generator_options=options)

The LLM settings follow the same rules as `build-domain` (`stateforge.llm.settings.llm_settings`): flags
over the environment (OPENAI_BASE_URL, OPENAI_API_KEY, STATEFORGE_LLM_MODEL, ...); with no `--backend`,
a model or a base URL (given or in the environment) means `openai`, else the offline recipes run.
"""

from __future__ import annotations

from typing import Any

from stateforge.llm.backends import BACKENDS
from stateforge.llm.settings import llm_settings
from stateforge.tasks.llm.session import GeneratorLimits


def generator_backend(
    backend: str | None,
    *,
    model: str | None = None,
    base_url: str | None = None,
    no_cache: bool = False,
    max_turns: int | None = None,
    max_tool_calls: int | None = None,
    max_tokens: int | None = None,
    max_submissions: int | None = None,
    timeout: float | None = None,
) -> tuple[str, dict[str, Any]]:
    """(the generator's name, its options): `offline` with none, or `openai` with `settings` and `limits`.

    A backend that is not an LLM backend (a generator registered by another name) is passed through
    unchanged, with no options.
    """
    if backend is not None and backend.strip().lower() not in BACKENDS:
        return backend, {}
    settings = llm_settings(
        backend=backend, model=model, base_url=base_url, no_cache=no_cache, timeout=timeout
    )
    if settings is None:
        return "offline", {}
    given = {
        "max_turns": max_turns,
        "max_tool_calls": max_tool_calls,
        "max_tokens": max_tokens,
        "max_submissions": max_submissions,
    }
    limits = GeneratorLimits(**{k: v for k, v in given.items() if v is not None})
    return "openai", {"settings": settings, "limits": limits}
