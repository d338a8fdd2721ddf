"""`Tool`: one operation a solver may call, with its argument model, JSON schema and declared effects.

Two ways to make one:

    @tool(kind="write", reads=("users",), writes=("playlists",))
    def create_playlist(env: Env, owner: str, name: str) -> dict:
        '''Create a playlist for a user.

        Args:
            owner: The owner's username.
            name: The playlist's name.
        '''

    Tool.from_model("search_users", SearchUsers, run, description="...", reads=("users",))

The first derives the argument model once from the signature and the docstring; the second takes an
explicit pydantic model and a `run(env, arguments)` that receives the validated model (so it can tell an
argument that was given from one left at its default: `arguments.model_fields_set`). Either way the one
JSON schema serves in-process calls, the MCP listing and OpenAI function calling.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from stateforge.tools.arguments import json_schema, model_from_function, validate_arguments
from stateforge.tools.blame import blame
from stateforge.tools.errors import ToolDefinitionError, ToolError
from stateforge.tools.hints import derive_destructive
from stateforge.tools.times import PATTERN as DATETIME

if TYPE_CHECKING:
    from stateforge.tools.env import Env

Kind = Literal["read", "write"]
NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]{0,63}$")
"""A valid tool name: what OpenAI function calling and MCP clients accept (at most 64 characters)."""


@dataclass(frozen=True, eq=False)
class Tool:
    """A callable operation: `run(env, validated_arguments)` plus everything a client must know about it."""

    name: str
    description: str
    arguments: type[BaseModel]
    """The strict pydantic model of the arguments (`extra="forbid"`)."""
    run: Callable[[Env, BaseModel], Any]
    kind: Kind = "read"
    reads: tuple[str, ...] = ()
    """Tables the tool reads (checked at every call against the queries it runs)."""
    writes: tuple[str, ...] = ()
    """Tables the tool writes directly (cascades excluded; checked at every call)."""
    idempotent: bool | None = None
    """Calling it again with the same arguments changes nothing more (an MCP annotation)."""
    destructive: bool | None = None
    """It may delete or overwrite data, not only add (an MCP annotation)."""
    fn: Callable[..., Any] | None = field(default=None, repr=False)
    """The decorated function, for `@tool` tools."""

    def __post_init__(self) -> None:
        check_declaration(self.name, self.kind, self.writes, self.idempotent, self.destructive)
        if not self.description.strip():
            raise ToolDefinitionError(f"tool {self.name}: give it a description.")

    @classmethod
    def from_model(
        cls,
        name: str,
        arguments: type[BaseModel],
        run: Callable[[Env, Any], Any],
        *,
        description: str,
        kind: Kind = "read",
        reads: Iterable[str] = (),
        writes: Iterable[str] = (),
        idempotent: bool | None = None,
        destructive: bool | None = None,
    ) -> Tool:
        """A tool from an explicit argument model; `run(env, arguments)` gets the validated model."""
        if arguments.model_config.get("extra") != "forbid":
            raise ToolDefinitionError(f'tool {name}: its argument model needs model_config extra="forbid".')

        def blamed(env: Env, validated: BaseModel) -> Any:
            try:
                return run(env, validated)
            except ToolError as exc:
                with_argument(exc, dict(validated))
                raise

        return cls(
            name=name,
            description=description,
            arguments=arguments,
            run=blamed,
            kind=kind,
            reads=tuple(reads),
            writes=tuple(writes),
            idempotent=idempotent,
            destructive=destructive,
        )

    @cached_property
    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments (an object; derived once)."""
        return json_schema(self.arguments)

    def validate(self, arguments: Mapping[str, Any] | None) -> BaseModel:
        """The arguments checked against the schema; `ArgumentError` naming every bad parameter."""
        return validate_arguments(self.name, self.arguments, arguments)

    def __call__(self, env: Env, /, **arguments: Any) -> Any:
        """Validate `arguments` and run the tool on `env` (no transaction, log or rule check: see Episode)."""
        return self.run(env, self.validate(arguments))

    @property
    def annotations(self) -> dict[str, Any]:
        """The MCP tool annotations this tool's declaration implies."""
        read = self.kind == "read"
        return {
            "readOnlyHint": read,
            "destructiveHint": False if read else self.destroys,
            "idempotentHint": True if read else bool(self.idempotent),
            "openWorldHint": False,
        }

    @cached_property
    def destroys(self) -> bool:
        """Whether the tool may delete or overwrite data (the MCP `destructiveHint`): as declared, else as
        its code shows (`hints.derive_destructive`), else (it cannot tell) True, the MCP default."""
        if self.kind == "read":
            return False
        if self.destructive is not None:
            return self.destructive
        return derive_destructive(self) is not False

    def openai(self) -> dict[str, Any]:
        """The tool in OpenAI function-calling form (`tools=[...]` of a chat completion)."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def mcp(self) -> dict[str, Any]:
        """The tool as an MCP `tools/list` entry: name, description, inputSchema, annotations."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.parameters,
            "annotations": self.annotations,
        }

    def describe(self) -> dict[str, Any]:
        """A listing entry: name, kind, declared tables, parameters and description."""
        props, required = self.parameters["properties"], set(self.parameters["required"])
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "reads": list(self.reads),
            "writes": list(self.writes),
            "parameters": [
                {
                    "name": p,
                    "type": type_label(s),
                    "required": p in required,
                    "description": s.get("description", ""),
                }
                for p, s in props.items()
            ],
        }


def with_argument(exc: ToolError, values: Mapping[str, Any]) -> ToolError:
    """`exc`, its `argument` set to the parameter its message names when the tool did not set one."""
    if exc.argument is None:
        exc.argument = blame(str(exc), values)
    return exc


def check_declaration(
    name: str, kind: str, writes: tuple[str, ...], idempotent: bool | None, destructive: bool | None
) -> None:
    """`ToolDefinitionError` for an invalid name or a kind that contradicts the declared effects."""
    if not NAME.match(name):
        raise ToolDefinitionError(
            f'tool "{name}": a name is a letter then letters, digits, "_" or "-", at most 64 '
            "characters (what OpenAI and MCP clients accept)."
        )
    if kind not in ("read", "write"):
        raise ToolDefinitionError(f'tool {name}: kind must be "read" or "write", got {kind!r}.')
    if kind == "read" and writes:
        raise ToolDefinitionError(
            f'tool {name}: a read tool cannot write {", ".join(writes)}; declare kind="write".'
        )
    if kind == "read" and (destructive or idempotent is False):
        raise ToolDefinitionError(f"tool {name}: destructive/idempotent apply to write tools only.")


def type_label(schema: Mapping[str, Any]) -> str:
    """A short type name for a JSON schema node: `string`, `integer?`, `"a" | "b"`, `array of string`."""
    if "enum" in schema:
        return " | ".join(repr(v) for v in schema["enum"])
    if "anyOf" in schema:
        parts = [type_label(s) for s in schema["anyOf"] if s.get("type") != "null"]
        nullable = any(s.get("type") == "null" for s in schema["anyOf"])
        return " | ".join(dict.fromkeys(parts)) + ("?" if nullable else "")
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {type_label(schema.get('items', {}))}"
    fmt = schema.get("format") or ("date-time, zone optional" if schema.get("pattern") == DATETIME else None)
    return f"{kind} ({fmt})" if fmt else str(kind)


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    kind: Kind = "read",
    reads: Iterable[str] = (),
    writes: Iterable[str] = (),
    name: str | None = None,
    idempotent: bool | None = None,
    destructive: bool | None = None,
) -> Any:
    """Make a `Tool` of a typed, documented function `fn(env, ...)`; usable bare (`@tool`) or with options.

    The argument model and description come from the signature and the Google-style docstring, once;
    a missing docstring, type or parameter description is a `ToolDefinitionError` at import time.
    """

    def make(func: Callable[..., Any]) -> Tool:
        tool_name = name or func.__name__
        check_declaration(tool_name, kind, tuple(writes), idempotent, destructive)
        model, description = model_from_function(func, tool_name)
        names = list(model.model_fields)

        def run(env: Env, arguments: BaseModel) -> Any:
            values = {n: getattr(arguments, n) for n in names}
            try:
                return func(env, **values)
            except ToolError as exc:
                with_argument(exc, values)
                raise

        made = Tool(
            name=tool_name,
            description=description,
            arguments=model,
            run=run,
            kind=kind,
            reads=tuple(reads),
            writes=tuple(writes),
            idempotent=idempotent,
            destructive=destructive,
            fn=func,
        )
        return made

    return make(fn) if fn is not None else make
