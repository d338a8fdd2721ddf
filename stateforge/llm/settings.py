"""How Stateforge talks to an LLM: one pydantic model, `LLMSettings`, read from flags and the environment.

The settings cross the CLI / Prefect boundary, so they are strict (`extra="forbid"`) and every field is
documented (the docstrings become the field descriptions, shown by `--help` and in flow parameters).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from stateforge.resources import artifacts_dir

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""Where the `openai` client goes when no base URL is given."""

ResponseFormatMode = Literal["json_schema", "json_object", "auto"]


class Price(BaseModel):
    """What one model costs, in US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    prompt_per_1m: float = Field(ge=0)
    """Dollars per million prompt (input) tokens."""
    completion_per_1m: float = Field(ge=0)
    """Dollars per million completion (output) tokens."""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The cost of that many tokens, in dollars."""
        return (prompt_tokens * self.prompt_per_1m + completion_tokens * self.completion_per_1m) / 1e6


# Published list prices at the time of writing; a rough estimate, not a bill. Override with `prices=`.
DEFAULT_PRICES: dict[str, Price] = {
    "gpt-4o": Price(prompt_per_1m=2.50, completion_per_1m=10.00),
    "gpt-4o-mini": Price(prompt_per_1m=0.15, completion_per_1m=0.60),
    "gpt-4.1": Price(prompt_per_1m=2.00, completion_per_1m=8.00),
    "gpt-4.1-mini": Price(prompt_per_1m=0.40, completion_per_1m=1.60),
    "gpt-4.1-nano": Price(prompt_per_1m=0.10, completion_per_1m=0.40),
}


class LLMSettings(BaseModel):
    """Which LLM backend to use, and how to call it. `LLMSettings()` is the offline default (no LLM)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    backend: str = "offline"
    """Backend name: `offline` (no LLM, the default) or `openai` (any OpenAI-compatible server)."""
    model: str | None = None
    """Model name as the server lists it (`GET /models`), e.g. `gpt-4o-mini` or `llama3.1:8b`."""
    base_url: str | None = None
    """The server's OpenAI root, e.g. `http://localhost:11434/v1` (Ollama); None: api.openai.com."""
    api_key: SecretStr | None = None
    """The API key; any non-empty value for a local server that does not check it."""
    concurrency: int = Field(8, ge=1)
    """At most this many requests in flight at once (per event loop)."""
    timeout: float = Field(60.0, gt=0)
    """Seconds to wait for one HTTP request before it counts as a timeout (and is retried)."""
    max_retries: int = Field(6, ge=0)
    """Retries of one request after a rate limit, a 5xx, a timeout or a connection error."""
    backoff_base: float = Field(0.5, ge=0)
    """Seconds: retry n waits a random time in [0, backoff_base * 2**n] (full jitter)."""
    backoff_max: float = Field(30.0, ge=0)
    """Seconds: the cap of one backoff wait."""
    temperature: float = Field(0.0, ge=0, le=2)
    """Sampling temperature; 0 for the most repeatable answers."""
    seed: int | None = 0
    """Passed to the API (`seed`) for reproducibility where the server honours it; part of the cache key."""
    max_tokens: int | None = Field(None, ge=1)
    """A cap on completion tokens per request (`max_tokens`); None: the server's default."""
    response_format: ResponseFormatMode = "json_schema"
    """`json_schema` (Structured Outputs), `json_object` (schema described in the prompt, for servers
    without schema support) or `auto` (json_schema, falling back to json_object once a server says no)."""
    use_cache: bool = True
    """Read replies from the response cache; False (`--no-cache`) still writes them."""
    cache_dir: Path = Field(default_factory=lambda: artifacts_dir() / "llm-cache")
    """Folder of the content-addressed response cache (default: `./artifacts/llm-cache/`)."""
    prices: dict[str, Price] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    """Prices by model name (the longest matching prefix wins) for the cost estimate."""
    whole_rows: bool = False
    """Ask the LLM for whole rows; False (hybrid): it writes the text columns, the generator the rest."""

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, name: str) -> str:
        from stateforge.llm.backends import get_backend  # late: backends imports this module

        return get_backend(name).name

    @field_validator("api_key")
    @classmethod
    def _blank_key_is_none(cls, key: SecretStr | None) -> SecretStr | None:
        return key if key is not None and key.get_secret_value().strip() else None

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMSettings:
        """Settings from the environment, then `overrides` (keyword arguments whose value is None are
        ignored, so CLI options left unset do not erase the environment).

        Reads OPENAI_BASE_URL, OPENAI_API_KEY, STATEFORGE_LLM_MODEL, STATEFORGE_LLM_BACKEND and
        STATEFORGE_LLM_CACHE (the cache folder) and STATEFORGE_LLM_TIMEOUT (seconds per request). An
        endpoint is configured, and the backend becomes `openai`, when OPENAI_BASE_URL is set or a model
        is named (unless STATEFORGE_LLM_BACKEND or `backend=` says otherwise); an API key alone in a
        developer's shell does not turn a build into a paid one.
        """
        env = {
            "base_url": os.environ.get("OPENAI_BASE_URL"),
            "api_key": os.environ.get("OPENAI_API_KEY"),
            "model": os.environ.get("STATEFORGE_LLM_MODEL"),
            "backend": os.environ.get("STATEFORGE_LLM_BACKEND"),
            "cache_dir": os.environ.get("STATEFORGE_LLM_CACHE"),
            "timeout": os.environ.get("STATEFORGE_LLM_TIMEOUT"),
        }
        values = {k: v for k, v in env.items() if v} | {k: v for k, v in overrides.items() if v is not None}
        if "backend" not in values and (values.get("base_url") or values.get("model")):
            values["backend"] = "openai"
        return cls(**values)

    @property
    def resolved_base_url(self) -> str:
        """The base URL requests go to (without a trailing slash)."""
        return (self.base_url or OPENAI_DEFAULT_BASE_URL).rstrip("/")

    def price_for(self, model: str | None) -> Price | None:
        """The price of `model`: an exact entry, else the longest name it starts with, else None."""
        if not model:
            return None
        if model in self.prices:
            return self.prices[model]
        matches = [name for name in self.prices if model.startswith(name)]
        return self.prices[max(matches, key=len)] if matches else None


def llm_settings(
    *,
    backend: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    concurrency: int | None = None,
    whole_rows: bool = False,
    no_cache: bool = False,
    timeout: float | None = None,
) -> LLMSettings | None:
    """The settings behind the CLI's and the flow's LLM options, over the environment; None when offline."""
    settings = LLMSettings.from_env(
        backend=backend, model=model, base_url=base_url, concurrency=concurrency,
        whole_rows=whole_rows or None, use_cache=False if no_cache else None, timeout=timeout,
    )
    return None if settings.backend == "offline" else settings
