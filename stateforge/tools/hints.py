"""The MCP `destructiveHint` of a write tool, derived from what its code does to the data.

    derive_destructive(tool)   # True: it may delete or overwrite; False: it only adds; None: cannot tell

The tool's function and the helpers it calls (functions of its own pack, or of Stateforge, followed by
name) are read as source (`ast`), and every `env.<write>(...)` they contain is classified:

- `env.insert`, `env.insert_many`: adds;
- `env.delete`, `env.delete_where`: destroys;
- `env.update`, `env.update_where` with a literal `{column: value}` whose every value steps a counter
  (`Expr("plays + 1")`, `Expr(f"{currency} - ?", [n])`) or stamps the call's time (`env.now`,
  `env.today`): adds (a balance moves, a stamp is set: nothing a user wrote is lost);
- any other `env.update`, `env.update_where`: overwrites, so destroys.

`env` is a parameter named `env` or annotated `Env`, in the tool or the helper.
A tool is destructive when any of its calls destroys, additive when it makes at least one write call and
none destroys, and undecided (None) when no write call is found (its writes happen where the reading
cannot follow: a method, a callable passed in, code without source). The MCP specification's default for
an undecided write tool is destructive; a tool declares `@tool(destructive=...)` where the reading cannot
tell or is wrong, and a declaration always wins (`Tool.annotations`).
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from stateforge.tools.base import Tool

Effect = Literal["adds", "destroys"]
ADDS = frozenset({"insert", "insert_many"})
DESTROYS = frozenset({"delete", "delete_where"})
UPDATES = {"update": 2, "update_where": 3}
"""Update methods and the position of their `changes` argument."""
COUNTER = re.compile(r"^\s*(\w+|\{[^{}]+\})\s*[-+]\s*(\?|\d+(\.\d+)?|\{[^{}]+\})\s*$")
"""`plays + 1`, `{currency} - ?`: a column stepped by an amount (the f-string's fields as `{...}`)."""
STAMPS = frozenset({"now", "today"})
MAX_FUNCTIONS = 200
"""Functions read for one tool at most (a guard against a helper graph that never ends)."""


def derive_destructive(tool: Tool) -> bool | None:
    """Whether `tool` may delete or overwrite data (True), only adds (False), or None when it cannot tell."""
    if tool.kind == "read":
        return False
    if tool.fn is None:
        return None
    effects = set(write_effects(tool.fn))
    if "destroys" in effects:
        return True
    return False if effects else None


def write_effects(fn: Callable[..., Any]) -> Iterator[Effect]:
    """The effect of every `env` write call in `fn` and the helpers it reaches."""
    home = _package(fn)
    seen: set[Any] = set()
    todo = [fn]
    while todo and len(seen) < MAX_FUNCTIONS:
        current = inspect.unwrap(todo.pop())
        code = getattr(current, "__code__", None)
        if code is None or code in seen:
            continue
        seen.add(code)
        tree = _tree(current)
        if tree is None:
            continue
        envs = _env_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            effect = _effect(node, envs)
            if effect is not None:
                yield effect
                continue
            called = _resolve(node.func, current)
            if called is not None and _package(called) in (home, "stateforge"):
                todo.append(called)


def _env_names(tree: ast.AST) -> set[str]:
    """The names the function's `Env` goes by: parameters named `env` or annotated `Env`."""
    names = {"env"}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            annotation = node.annotation
            text = annotation.value if isinstance(annotation, ast.Constant) else _name(annotation)
            if text == "Env":
                names.add(node.arg)
    return names


def _effect(call: ast.Call, envs: set[str]) -> Effect | None:
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in envs):
        return None
    if func.attr in ADDS:
        return "adds"
    if func.attr in DESTROYS:
        return "destroys"
    if func.attr in UPDATES:
        changes = _argument(call, UPDATES[func.attr], "changes")
        return "adds" if changes is not None and _only_steps(changes) else "destroys"
    return None


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return call.args[position] if len(call.args) > position else None


def _only_steps(changes: ast.expr) -> bool:
    """A literal `{column: value}` whose every value steps a counter or stamps the call's time."""
    if not isinstance(changes, ast.Dict) or not changes.values or None in changes.keys:
        return False
    return all(_is_step(value) for value in changes.values)


def _is_step(value: ast.expr) -> bool:
    if isinstance(value, ast.Attribute) and value.attr in STAMPS:
        return True
    if not (isinstance(value, ast.Call) and _name(value.func) == "Expr" and value.args):
        return False
    template = _template(value.args[0])
    return template is not None and COUNTER.match(template) is not None


def _template(node: ast.expr) -> str | None:
    """A string literal, or an f-string with its fields as `{...}`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
            else:
                parts.append("{field}")
        return "".join(parts)
    return None


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _resolve(func: ast.expr, within: Callable[..., Any]) -> Callable[..., Any] | None:
    """The function a call names (`helper(...)`, `module.helper(...)`), looked up in `within`'s globals."""
    scope = getattr(within, "__globals__", {})
    if isinstance(func, ast.Name):
        found = scope.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = scope.get(func.value.id)
        found = getattr(owner, func.attr, None) if isinstance(owner, types.ModuleType) else None
    else:
        return None
    return found if inspect.isfunction(found) else None


def _tree(fn: Callable[..., Any]) -> ast.AST | None:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None


def _package(fn: Any) -> str:
    return (getattr(fn, "__module__", None) or "").split(".")[0]
