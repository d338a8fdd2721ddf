"""The prompt templates, as package data: one `<name>.md` per prompt (`stateforge.llm.prompts` loads them).

Hashed into every build report that used them.
"""
