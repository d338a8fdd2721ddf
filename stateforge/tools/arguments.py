"""A tool's parameters: the pydantic model derived from its signature, its JSON schema, and validation.

The model is strict (`extra="forbid"`, `strict=True`) and arguments are validated as JSON, so what an agent
sends is checked exactly as a JSON client would send it: integers must be JSON integers (not `"5"`, not
`true`), booleans must be booleans, dates and times are ISO 8601 strings, decimals a string or a number.
Every failure becomes one `ArgumentError` whose message names each bad parameter, what it got and what is
allowed, with a did-you-mean for unknown parameter names and enum values.
"""

from __future__ import annotations

import datetime as dt
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from stateforge.schema.model import suggest
from stateforge.tools.docstrings import parse_docstring
from stateforge.tools.errors import ArgumentError, ToolDefinitionError
from stateforge.tools.times import WORDS as DATETIME_WORDS
from stateforge.tools.times import DomainDateTime, KeepZone
from stateforge.values import dumps

STRICT = ConfigDict(extra="forbid", strict=True)
"""The configuration of every argument model: unknown names refused, no type coercion."""

MAX_ERRORS = 5
INT64 = (-(2**63), 2**63 - 1)
"""The integers a parameter may take unless it says tighter: what DuckDB binds as BIGINT (beyond it a query
fails inside the tool, showing SQL, instead of the agent being told what to send)."""


def model_from_function(fn: Callable[..., Any], name: str) -> tuple[type[BaseModel], str]:
    """The argument model and the description of a tool function `fn(env, ...)`.

    Raises `ToolDefinitionError` for a missing docstring, a parameter without a type or a description,
    `*args`/`**kwargs`, or an `Args:` entry that names no parameter.
    """
    doc = parse_docstring(fn.__doc__)
    if not doc.description:
        raise ToolDefinitionError(
            f"tool {name}: give the function a docstring; its first line is what the "
            "model reads to choose the tool."
        )
    from stateforge.tools.env import Env  # the usual annotation of the first parameter

    try:
        hints = typing.get_type_hints(fn, localns={"Env": Env}, include_extras=True)
    except Exception as exc:  # noqa: BLE001 - any unresolvable annotation
        raise ToolDefinitionError(
            f"tool {name}: cannot resolve its type hints ({exc}); import the types it uses at module level."
        ) from exc
    params = list(inspect.signature(fn).parameters.values())
    if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        raise ToolDefinitionError(f"tool {name}: the first parameter must be the environment (env: Env).")
    fields: dict[str, Any] = {}
    for param in params[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise ToolDefinitionError(
                f"tool {name}: parameter {param.name} must be a plain named parameter "
                "(no *args, **kwargs or positional-only)."
            )
        if param.name not in hints:
            raise ToolDefinitionError(f"tool {name}: parameter {param.name} needs a type annotation.")
        annotation = hints[param.name]
        text = doc.params.get(param.name) or _annotated_description(annotation)
        if not text:
            raise ToolDefinitionError(
                f"tool {name}: document parameter {param.name} in the docstring's Args: section "
                f"(`{param.name}: what it is and what values are allowed`)."
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (bounded(annotation), Field(default, description=text))
    for documented in doc.params:
        if documented not in fields:
            raise ToolDefinitionError(
                f'tool {name}: the docstring documents "{documented}", which is not a parameter.'
                f"{suggest(documented, list(fields))}"
            )
    model = create_model(_model_name(name), __config__=STRICT, **fields)
    return model, doc.description


def bounded(annotation: Any) -> Any:
    """`annotation` with every bare `int` in it (inside unions, lists, Annotated) bounded to `INT64`, and
    every bare `datetime` a `DomainDateTime` (a zone accepted and converted to the domain's time).

    Bounds the annotation states itself come after, so they win (`Annotated[int, Field(ge=0)]` keeps 0).
    """
    if annotation is int:
        return Annotated[int, Field(ge=INT64[0], le=INT64[1])]
    if annotation is dt.datetime:  # with or without a zone (stateforge/tools/times.py)
        return DomainDateTime
    origin = typing.get_origin(annotation)
    if origin is None or origin is typing.Literal:
        return annotation
    args = typing.get_args(annotation)
    if origin is Annotated:
        if any(isinstance(m, KeepZone) for m in annotation.__metadata__):
            return annotation  # the tool converts the zone itself (times.zoned)
        return Annotated[(bounded(args[0]), *annotation.__metadata__)]  # type: ignore[misc]
    new = tuple(bounded(a) for a in args)
    if new == args:
        return annotation
    if origin in (typing.Union, types.UnionType):
        return typing.Union[new]  # noqa: UP007 - built from a tuple
    return annotation.copy_with(new) if hasattr(annotation, "copy_with") else origin[new]


def _annotated_description(annotation: Any) -> str | None:
    for meta in getattr(annotation, "__metadata__", ()):
        if isinstance(meta, FieldInfo) and meta.description:
            return meta.description
    return None


def _model_name(tool_name: str) -> str:
    return "".join(part.capitalize() for part in tool_name.split("_")) + "Arguments"


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as tools are listed: no titles, references inlined, an object at the top."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema = _clean(raw, defs, ())
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    schema.setdefault("required", [])
    return {k: schema[k] for k in ("type", "properties", "required", "additionalProperties")}


def _clean(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_clean(n, defs, seen) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = node["$ref"].rsplit("/", 1)[-1]
        if ref in seen:
            raise ToolDefinitionError(
                f"argument type {ref} refers to itself; tool parameters must be finite."
            )
        target = _clean(defs[ref], defs, (*seen, ref))
        extra = {k: v for k, v in node.items() if k != "$ref"}
        return {**target, **_clean(extra, defs, seen)}
    out = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties":
            out[key] = {name: _no_false_null(_clean(prop, defs, seen)) for name, prop in value.items()}
        else:
            out[key] = _clean(value, defs, seen)
    return out


def _no_false_null(prop: dict[str, Any]) -> dict[str, Any]:
    """Drop `"default": null` from a property that cannot be null (an optional, non-null argument whose
    absence means "leave it to the tool"): a client would otherwise read null as allowed."""
    if "default" in prop and prop["default"] is None:
        types = [prop.get("type")] + [s.get("type") for s in prop.get("anyOf", [])]
        if "null" not in types:
            prop = {k: v for k, v in prop.items() if k != "default"}
    return prop


def validate_arguments(tool_name: str, model: type[BaseModel], arguments: Any) -> BaseModel:
    """`arguments` (a JSON object) checked against `model`; `ArgumentError` naming every bad parameter."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ArgumentError(
            f"{tool_name}: arguments must be a JSON object of parameter names to values, "
            f"got {type(arguments).__name__}."
        )
    nul = _find_nul(arguments, ())
    if nul is not None:
        raise ArgumentError(
            f"{tool_name}: argument {_path(nul)} contains a NUL character (\\x00), which "
            "text may not hold; remove it."
        )
    try:
        return model.model_validate_json(dumps(dict(arguments)))
    except ValidationError as exc:
        first = caller_path(exc.errors()[0]["loc"], arguments, keep_last=True) if exc.errors() else ()
        argument = str(first[0]) if first else None
        raise ArgumentError(explain(tool_name, model, exc, arguments), argument=argument) from None


def _find_nul(value: Any, path: tuple[Any, ...]) -> tuple[Any, ...] | None:
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = _find_nul(item, (*path, key))
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _find_nul(item, (*path, i))
            if found is not None:
                return found
    return None


def _path(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return f"'{text}'"


_EXPECTED = {
    "int": "an integer",
    "float": "a number",
    "string": "a string",
    "bool": "true or false",
    "list": "a list",
    "dict": "an object",
    "model": "an object",
    "decimal": 'a decimal number (a number, or a string like "12.50")',
    "date": "a date as YYYY-MM-DD",
    "datetime": DATETIME_WORDS,
    "time": "a time as HH:MM or HH:MM:SS",
    "uuid": "a UUID",
}


def explain(
    tool_name: str, model: type[BaseModel], exc: ValidationError, arguments: Mapping[str, Any]
) -> str:
    """One readable message for all of a validation's errors (the first `MAX_ERRORS`).

    Paths are the caller's: the members of a union (`int | SongRef`) are pydantic's names for the
    alternatives, not keys the caller sent, so they are left out, and the alternatives a value fits none of
    are said once ("must be an integer or an object, got 'abc'"): no internal type name reaches the agent."""
    fields = model.model_fields
    problems: list[str] = []
    expected: dict[tuple[Any, ...], list[str]] = {}
    single: dict[tuple[Any, ...], str] = {}
    for error in exc.errors():
        error = {
            **error,
            "loc": caller_path(
                error["loc"], arguments, keep_last=error["type"] in ("missing", "extra_forbidden")
            ),
        }
        words = _expected_words(error["type"])
        if words is not None:  # a type mismatch: merged with the other alternatives at the same path
            loc = tuple(error["loc"])
            if loc not in expected:
                expected[loc] = []
                problems.append(f"\0{len(expected) - 1}")
                single[loc] = _problem(error, fields)  # with pydantic's detail, when it is the only one
            if words not in expected[loc]:
                expected[loc].append(words)
            continue
        problem = _problem(error, fields)
        if problem not in problems:
            problems.append(problem)
    typed = list(expected.items())
    values = {loc: _lookup(arguments, loc) for loc, _ in typed}
    for i, (loc, alternatives) in enumerate(typed):
        text = f"argument {_path(loc)} must be {' or '.join(alternatives)}, got {_show(values[loc])}"
        if len(alternatives) == 1:
            text = single[loc]
        problems[problems.index(f"\0{i}")] = text
    shown = problems[:MAX_ERRORS]
    if len(problems) > MAX_ERRORS:
        shown.append(f"and {len(problems) - MAX_ERRORS} more")
    text = f"{tool_name}: " + "; ".join(shown)
    return text if text.endswith((".", "?", "!")) else text + "."


def caller_path(loc: Any, arguments: Any, *, keep_last: bool = False) -> tuple[Any, ...]:
    """`loc` of a validation error without the union members' tags: only the keys and indexes the caller
    sent (and, with `keep_last`, the final key, which a "missing" error names although it was not sent)."""
    path: list[Any] = []
    value = arguments
    parts = list(loc)
    for i, part in enumerate(parts):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list | tuple) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
        elif keep_last and i == len(parts) - 1:
            pass
        else:
            continue  # a union member's tag ('int', 'SongRef'): not a key of what was sent
        path.append(part)
    return tuple(path)


def _lookup(value: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


_SPECIAL = (
    "extra_forbidden",
    "missing",
    "literal_error",
    "enum",
    "less_than",
    "greater_than",
    "string_too",
    "too_long",
    "too_short",
    "decimal_max",
    "decimal_whole_digits",
)
"""Error kinds `_problem` words itself (not "must be <type>")."""


def _expected_words(kind: str) -> str | None:
    if kind.startswith(_SPECIAL):
        return None
    for prefix, words in _EXPECTED.items():
        if kind.startswith(prefix + "_") or kind == prefix:
            return words
    return None


def _problem(error: Any, fields: dict[str, FieldInfo]) -> str:
    loc, kind, ctx = tuple(error["loc"]), error["type"], error.get("ctx") or {}
    where = f"argument {_path(loc)}"
    got = _show(error.get("input"))
    if kind == "extra_forbidden":
        name = str(loc[-1])
        if len(loc) == 1:
            return (
                f"unknown argument '{name}'.{suggest(name, list(fields))} "
                f"The parameters are: {', '.join(fields) or 'none'}"
            )
        return f"unknown key '{name}' in {_path(loc[:-1])}"
    if kind == "missing":
        if len(loc) == 1 and loc[0] in fields:
            info = fields[str(loc[0])]
            return f"missing required argument '{loc[0]}' ({info.description})"
        return f"missing {where}"
    if kind in ("literal_error", "enum"):
        allowed = ctx.get("expected", "")
        options = [o.strip().strip("'") for o in allowed.replace(" or ", ", ").split(",") if o.strip()]
        hint = suggest(str(error.get("input")), options) if isinstance(error.get("input"), str) else ""
        return f"{where} is {got}, which is not allowed; use one of {allowed}.{hint}"
    if kind in ("less_than_equal", "less_than", "greater_than_equal", "greater_than"):
        bound = next(iter(ctx.values()), "?")
        words = {
            "less_than_equal": "at most",
            "less_than": "less than",
            "greater_than_equal": "at least",
            "greater_than": "greater than",
        }[kind]
        return f"{where} must be {words} {bound}, got {got}"
    if kind in ("string_too_long", "too_long"):
        limit = ctx.get("max_length")
        unit = "characters" if kind == "string_too_long" else "items"
        size = len(error["input"]) if hasattr(error.get("input"), "__len__") else "more"
        return f"{where} may hold at most {limit} {unit}, got {size}"
    if kind in ("string_too_short", "too_short"):
        unit = "characters" if kind == "string_too_short" else "items"
        return f"{where} needs at least {ctx.get('min_length')} {unit}, got {got}"
    if kind.startswith("decimal_max") or kind == "decimal_whole_digits":
        return f"{where}: {error['msg'].lower()}, got {got}"
    for prefix, words in _EXPECTED.items():
        if kind.startswith(prefix + "_") or kind == prefix:
            detail = ctx.get("error")
            return f"{where} must be {words}, got {got}" + (f" ({detail})" if detail else "")
    return f"{where}: {error['msg']} (got {got})"


def _show(value: Any) -> str:
    text = dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
