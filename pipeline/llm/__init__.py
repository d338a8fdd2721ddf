"""LLM backends and the tools to test them.

The fake OpenAI-compatible server that tests and benchmarks of the LLM fill path run against on loopback:
`fake_server` (`FakeLLMServer`, `serve`: lifecycle, counters, control endpoints), `fake_http` (HTTP/1.1
plumbing), `fake_chat` (request in, `chat.completion` out), `fake_rows` and `fake_words` (values that
conform to a JSON schema and look like data), `fake_faults` (injectable faults). Nothing is re-exported
here, so that importing `pipeline.llm` stays cheap.
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
