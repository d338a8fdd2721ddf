"""LLM backends, registered by name: `offline` (no LLM, the default) and `openai` (the official `openai`
client, for any OpenAI-compatible server: OpenAI, vLLM, Ollama, llama.cpp).

`get_backend(name)` looks a name up in `BACKENDS` (a `stateforge.registry.Registry`: an unknown name gets
the list and a did-you-mean; packages add backends through the entry-point group `stateforge.backends`);
`check_backend(settings)` is the preflight the CLI and the flows run before anything is written: it
fails fast, with what to fix, on a missing key or model, an unreachable server, or a model the server
does not list. The `openai` package is imported only when a backend needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stateforge.errors import TerminalError, suggest
from stateforge.registry import Registry

if TYPE_CHECKING:
    from stateforge.llm.client import LLMClient
    from stateforge.llm.settings import LLMSettings

SERVER_HINT = (
    "Check that the server is running and that OPENAI_BASE_URL (or --base-url) is its OpenAI root, "
    "ending in /v1: Ollama's default is http://localhost:11434/v1, vLLM's http://localhost:8000/v1, "
    "llama.cpp's http://localhost:8080/v1."
)


@dataclass(frozen=True)
class Backend:
    """A named way of producing LLM answers (or none)."""

    name: str
    description: str
    uses_llm: bool
    check: Callable[[LLMSettings], list[str]]
    """Preflight: raise TerminalError with the fix, or return the models the server offers."""

    def client(self, settings: LLMSettings) -> LLMClient:
        """An `LLMClient` for `settings` (TerminalError for a backend that calls no LLM)."""
        if not self.uses_llm:
            raise TerminalError(
                f"the {self.name!r} backend does not call an LLM; choose --backend openai "
                "(with --model and OPENAI_BASE_URL / OPENAI_API_KEY) for the LLM path"
            )
        from stateforge.llm.client import LLMClient

        return LLMClient(settings)


BACKENDS = Registry("LLM backend", group="stateforge.backends")
"""Every registered backend, by name: a `Backend` (or its `module:attribute`)."""


def register_backend(backend: Backend) -> Backend:
    """Add `backend` to `BACKENDS` (a later registration of the same name replaces it)."""
    BACKENDS.add(backend.name, backend, backend.description)
    return backend


def get_backend(name: str) -> Backend:
    """The backend called `name`; TerminalError listing the valid names (with a did-you-mean) if none."""
    return BACKENDS.load(name)


def check_backend(settings: LLMSettings) -> list[str]:
    """Preflight `settings` before anything is written; returns the models the server lists ([] offline)."""
    return get_backend(settings.backend).check(settings)


def _check_offline(settings: LLMSettings) -> list[str]:
    return []


def _check_openai(settings: LLMSettings) -> list[str]:
    """Key and model given, server reachable, model listed by `GET /models`."""
    if settings.api_key is None:
        raise TerminalError(
            "the openai backend needs an API key: set OPENAI_API_KEY "
            "(any non-empty value for a local server such as vLLM or Ollama)"
        )
    if not settings.model:
        raise TerminalError(
            "the openai backend needs a model: pass --model NAME (or set STATEFORGE_LLM_MODEL), "
            "a name the server lists at GET /models"
        )
    import openai

    url = settings.resolved_base_url
    with openai.OpenAI(
        base_url=url,
        api_key=settings.api_key.get_secret_value(),
        max_retries=0,
        timeout=min(settings.timeout, 10.0),
    ) as client:
        try:
            served = sorted(model.id for model in client.models.list())
        except openai.APIConnectionError as error:  # includes timeouts
            raise TerminalError(
                f"cannot reach the LLM server at {url} ({error.message}). {SERVER_HINT}"
            ) from None
        except openai.AuthenticationError as error:
            raise TerminalError(
                f"the LLM server at {url} refused the API key (HTTP 401: {error.message}); "
                "check OPENAI_API_KEY"
            ) from None
        except openai.NotFoundError:
            raise TerminalError(
                f"the LLM server at {url} has no GET /models (HTTP 404). {SERVER_HINT}"
            ) from None
        except openai.APIStatusError as error:
            raise TerminalError(
                f"the LLM server at {url} answered GET /models with HTTP {error.status_code}: "
                f"{error.message}. {SERVER_HINT}"
            ) from None
    if settings.model not in served:
        listed = ", ".join(served[:20]) + (", ..." if len(served) > 20 else "") or "none"
        raise TerminalError(
            f"model {settings.model!r} is not served at {url}.{suggest(settings.model, served)} "
            f"It lists: {listed}. Pass one of them with --model (for Ollama, `ollama pull NAME` first)."
        )
    return served


register_backend(
    Backend("offline", "no LLM: Faker and column-aware rules fill every table", False, _check_offline)
)
register_backend(
    Backend("openai", "any OpenAI-compatible server through the official openai client", True, _check_openai)
)
