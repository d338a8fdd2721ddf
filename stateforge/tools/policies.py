"""Policy refusals: a tool that would break a product policy refuses with the policy's name as a field.

    from stateforge.tools.policies import refuse

    if row["status"] != "active":
        raise refuse("active_accounts_only", f"the account {name} is {row['status']}; only active accounts "
                     "can make changes", argument="username")

The name is one of domain.yaml's `policies:`. `check_policy_names` runs when a pack's toolkit loads: it
reads the pack's `tools/` sources and finds every `refuse(...)` / `PolicyRefusal(...)`; a name domain.yaml
does not list, or a name that is not a string literal, is a `ToolDefinitionError` naming the file, line,
function and the known policies. So a refusal's policy is known before any call runs, and a typo cannot
reach a task.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from stateforge.tools.errors import PolicyRefusal, ToolDefinitionError

REFUSERS = frozenset({"refuse", "PolicyRefusal"})
"""The callables whose first argument names a policy."""


def refuse(policy: str, text: str, *, argument: str | None = None) -> PolicyRefusal:
    """A refusal by the product policy `policy` (a name of domain.yaml `policies:`); `raise` it."""
    return PolicyRefusal(policy, text, argument=argument)


@dataclass(frozen=True)
class PolicyUse:
    """One place a pack's code refuses with a policy: the name (None when not a literal) and where."""

    policy: str | None
    file: Path
    line: int
    function: str


def policy_uses(files: Iterable[Path]) -> list[PolicyUse]:
    """Every policy a pack's code names: the first argument of `refuse(...)` / `PolicyRefusal(...)` and any
    `policy="<name>"` keyword (a pack's own wrapper, `refuse_banned(env, p, "trade", policy="purchases")`),
    with the enclosing function's name. A wrapper that passes its own `policy` parameter on is not a use."""
    uses: list[PolicyUse] = []
    for path in sorted(files):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        _visit(tree, path, None, uses)
    return uses


def _visit(
    node: ast.AST, path: Path, function: ast.FunctionDef | ast.AsyncFunctionDef | None, uses: list
) -> None:
    for child in ast.iter_child_nodes(node):
        inside = child if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
        if isinstance(child, ast.Call):
            name = function.name if function is not None else "<module>"
            for value in _named_policies(child, function):
                policy = (
                    value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
                )
                uses.append(PolicyUse(policy, path, child.lineno, name))
        _visit(child, path, inside, uses)


def _named_policies(
    call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef | None
) -> list[ast.expr]:
    params = {a.arg for a in [*function.args.args, *function.args.kwonlyargs]} if function else set()
    named = [k.value for k in call.keywords if k.arg == "policy"]
    if _callee(call) in REFUSERS and call.args:
        named.append(call.args[0])
    # a wrapper passing its own parameter on (`def refuse_banned(..., policy)`): its callers are checked
    return [v for v in named if not (isinstance(v, ast.Name) and v.id in params)]


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def check_policy_names(
    tools_dir: Path, known: Iterable[str], *, config_file: Path | str, procedures: Iterable[str] = ()
) -> int:
    """Raise `ToolDefinitionError` unless every refusal under `tools_dir` names a policy of `known` (never
    one of `procedures`, which the tools do not enforce); returns how many refusals were checked."""
    names = sorted(set(known))
    unenforced = set(procedures)
    problems = []
    uses = policy_uses(p for p in tools_dir.rglob("*.py") if "__pycache__" not in p.parts)
    for use in uses:
        where = f"{use.file}:{use.line}: {use.function}"
        if use.policy is None:
            problems.append(f"{where} refuses with a policy that is not a string literal; name it as written")
        elif use.policy in unenforced:
            problems.append(
                f"{where} refuses with {use.policy!r}, a `kind: procedure` of {config_file}: procedures are "
                "the actor's to follow and no tool enforces them (make it `kind: action` if the product does)"
            )
        elif use.policy not in names:
            problems.append(f"{where} refuses with policy {use.policy!r}, which {config_file} does not list")
    if problems:
        listed = ", ".join(names) if names else "none"
        raise ToolDefinitionError(
            "; ".join(problems) + f". The policies of {config_file} are: {listed}. Use one of them, or add "
            "the policy to `policies:`."
        )
    return len(uses)
