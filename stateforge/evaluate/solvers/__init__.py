"""The built-in solvers, each a module with a factory that `registry.py` names as `module:attribute`:

- `oracle` (the ground truth replayed) and `noop` (does nothing, declines);
- `openai` (`openai_agent.py`): a tool-calling agent over any OpenAI-compatible server;
- `openai-code` (`code_agent.py`, E-Bench-Code): one exec_code tool running Python in the sandbox of
  `sandbox.py` (parent side), `sandbox_forks.py` / `sandbox_zygote.py` (the fork server) and
  `sandbox_child.py` (each run's child), where the tools are functions;
- `mcp` (`mcp_agent.py`): an external agent command, given its episode's MCP URL.

`loop.py` is the conversation both LLM solvers hold; `llm_options.py` turns `--option`s into settings.
"""
