"""The LLM client layer: settings, backends, the `openai` client with retries and a response cache, and
the LLM fill (`fill`, `columns`, `context`, `rows`, `rounds`, `prompts`).

The project's OpenAI-compatible test server is its own package, `pipeline.fakellm`.
"""

# The client layer, exported lazily (PEP 562) so that `import pipeline.llm` stays cheap: `openai` is
# imported on first use of a name that needs it. `settings`, `backends`, `client` (+ `reply`, `retry`),
# `cache`, `accounting`: see each module.
_EXPORTS = {
    "LLMSettings": "pipeline.llm.settings",
    "Price": "pipeline.llm.settings",
    "BACKENDS": "pipeline.llm.backends",
    "get_backend": "pipeline.llm.backends",
    "check_backend": "pipeline.llm.backends",
    "LLMClient": "pipeline.llm.client",
    "LLMReply": "pipeline.llm.reply",
    "LLMRequest": "pipeline.llm.reply",
    "Usage": "pipeline.llm.reply",
    "LLMStats": "pipeline.llm.accounting",
    "ResponseCache": "pipeline.llm.cache",
    "cache_key": "pipeline.llm.cache",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'pipeline.llm' has no attribute {name!r}")
