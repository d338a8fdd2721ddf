"""The project's own OpenAI-compatible server, for tests, benchmarks and trying the LLM path offline.

    with FakeLLMServer(faults={"malformed": 0.1}) as server:    # on 127.0.0.1, any free port
        client = openai.OpenAI(base_url=server.base_url, api_key="x")

`server` (`FakeLLMServer`, `serve`: lifecycle, counters, control endpoints; `stateforge fake-llm`),
`httpd` (HTTP/1.1 plumbing), `chat` (request in, `chat.completion` out), `rows` and `words` (values that
conform to a JSON schema and look like data), `faults` (injectable faults). It imports nothing of the
client (`stateforge.llm`) nor of the rest of Stateforge: it speaks the wire format only, like any server.
"""

from __future__ import annotations

from stateforge.fakellm.server import FakeLLMServer, serve

__all__ = ["FakeLLMServer", "serve"]
