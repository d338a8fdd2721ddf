"""The built-in solvers: `oracle` (the ground truth replayed) and `noop` (does nothing, declines).

The LLM solvers (`openai`, `openai-code`, `mcp`) live beside them and register in `registry.py` the same
way: a module with a factory, named as `module:attribute`.
"""
