"""The LLM client layer: settings, backends, the `openai` client with retries and a response cache, and
the LLM fill (`fill`, `columns`, `context`, `rows`, `rounds`, `prompts`).

The project's OpenAI-compatible test server is its own package, `stateforge.fakellm`.
"""

# The client layer, exported lazily (PEP 562) so that `import stateforge.llm` stays cheap: `openai` is
# imported on first use of a name that needs it. `settings`, `backends`, `client` (+ `reply`, `retry`),
# `cache`, `accounting`: see each module.
_EXPORTS = {
    "LLMSettings": "stateforge.llm.settings",
    "Price": "stateforge.llm.settings",
    "BACKENDS": "stateforge.llm.backends",
    "get_backend": "stateforge.llm.backends",
    "check_backend": "stateforge.llm.backends",
    "LLMClient": "stateforge.llm.client",
    "LLMReply": "stateforge.llm.reply",
    "LLMRequest": "stateforge.llm.reply",
    "Usage": "stateforge.llm.reply",
    "LLMStats": "stateforge.llm.accounting",
    "ResponseCache": "stateforge.llm.cache",
    "cache_key": "stateforge.llm.cache",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'stateforge.llm' has no attribute {name!r}")
