"""A tool's JSON schema, derived once from its signature and docstring, and the forms clients get."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, Tool, ToolDefinitionError, Toolkit, times, tool
from stateforge.tools.docstrings import parse_docstring


@tool(kind="write", reads=("users",), writes=("playlists",), idempotent=False, destructive=False)
def create_playlist(
    env: Env,
    owner: str,
    name: Annotated[str, Field(min_length=1, max_length=100)],
    size: Annotated[int, Field(ge=1, le=100)] = 20,
    price: Decimal | None = None,
    ratio: float = 0.5,
    public: bool = True,
    release: dt.date | None = None,
    at: dt.datetime | None = None,
    mood: Literal["calm", "happy"] = "calm",
    tags: list[str] | None = None,
) -> dict:
    """Create a playlist for a user.

    The owner must exist.

    Args:
        owner: The owner's username.
        name: The playlist's name,
            1 to 100 characters.
        size (int): Songs to seed it with.
        price: A price.
        ratio: A ratio.
        public: Whether others can find it.
        release: A date.
        at: A timestamp.
        mood: The mood.
        tags: Labels.

    Returns:
        The playlist.
    """
    return {}


def test_docstring_gives_description_and_each_parameter():
    doc = parse_docstring(create_playlist.fn.__doc__)
    assert doc.description == "Create a playlist for a user.\n\nThe owner must exist."
    assert doc.params["name"] == "The playlist's name, 1 to 100 characters."
    assert doc.params["size"] == "Songs to seed it with."
    assert "Returns" not in doc.description and "The playlist." not in doc.params.values()


def test_schema_types_bounds_defaults_and_required():
    schema = create_playlist.parameters
    props = schema["properties"]
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == ["owner", "name"]
    assert list(props) == [
        "owner",
        "name",
        "size",
        "price",
        "ratio",
        "public",
        "release",
        "at",
        "mood",
        "tags",
    ]
    assert props["owner"] == {"type": "string", "description": "The owner's username."}
    assert props["name"]["minLength"] == 1 and props["name"]["maxLength"] == 100
    assert props["size"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 20,
        "description": "Songs to seed it with.",
    }
    assert {"type": "number"} in props["price"]["anyOf"] and {"type": "null"} in props["price"]["anyOf"]
    assert props["ratio"]["type"] == "number" and props["public"]["type"] == "boolean"
    assert {"type": "string", "format": "date"} in props["release"]["anyOf"]
    at = next(s for s in props["at"]["anyOf"] if s.get("type") == "string")  # a zone optional: no format
    assert "format" not in at and at["pattern"] == times.PATTERN
    assert props["mood"]["enum"] == ["calm", "happy"] and props["mood"]["default"] == "calm"
    assert {"type": "array", "items": {"type": "string"}} in props["tags"]["anyOf"]
    assert "title" not in str(schema)


def test_one_schema_serves_openai_and_mcp():
    openai = create_playlist.openai()
    assert openai == {
        "type": "function",
        "function": {
            "name": "create_playlist",
            "description": create_playlist.description,
            "parameters": create_playlist.parameters,
        },
    }
    mcp = create_playlist.mcp()
    assert mcp["inputSchema"] is create_playlist.parameters
    assert mcp["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    }
    unsure = tool(create_playlist.fn, name="unsure", kind="write", writes=("playlists",))
    # undeclared, and its code makes no write the reading can see: the MCP default (tests/tools/test_hints.py)
    assert unsure.annotations["destructiveHint"] is True and unsure.annotations["idempotentHint"] is False
    kit = Toolkit([create_playlist])
    assert [t["function"]["name"] for t in kit.openai_tools()] == ["create_playlist", "cannot_complete"]
    assert kit.mcp_tools()[1]["annotations"]["readOnlyHint"] is True


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sku: str = Field(description="The SKU.")
    quantity: int = 1


def test_nested_models_are_inlined():
    @tool
    def order(env: Env, items: list[Item]) -> None:
        """Order things.

        Args:
            items: What to order.
        """

    item = order.parameters["properties"]["items"]["items"]
    assert "$ref" not in str(order.parameters) and "$defs" not in order.parameters
    assert item["properties"]["sku"] == {"type": "string", "description": "The SKU."}
    assert item["additionalProperties"] is False


def test_explicit_model_form():
    class Args(BaseModel):
        model_config = ConfigDict(extra="forbid")
        q: str = Field(description="Query.")

    made = Tool.from_model("find", Args, lambda env, a: a.q.upper(), description="Find.", reads=("t",))
    assert made.parameters["required"] == ["q"] and made(None, q="x") == "X"  # type: ignore[arg-type]
    with pytest.raises(ToolDefinitionError, match='extra="forbid"'):
        Tool.from_model(
            "find",
            type("Loose", (BaseModel,), {"__annotations__": {"q": str}}),
            lambda e, a: 0,
            description="Find.",
        )


def test_unresolvable_annotation_is_a_definition_error():
    class Local(BaseModel):
        x: int

    def uses_local(env: Env, item: Local) -> None:
        """Do it.

        Args:
            item: A thing.
        """

    with pytest.raises(ToolDefinitionError, match="cannot resolve its type hints"):
        tool(uses_local)


def undocumented(env: Env, x: int) -> None:
    """Do it."""


def docs_unknown(env: Env, x: int) -> None:
    """Do it.

    Args:
        x: A number.
        y: Not a parameter.
    """


def no_doc(env: Env, x: int) -> None:
    pass


def untyped(env: Env, x) -> None:  # noqa: ANN001
    """Do it.

    Args:
        x: A thing.
    """


def star(env: Env, *xs: int) -> None:
    """Do it.

    Args:
        xs: Things.
    """


@pytest.mark.parametrize(
    ("fn", "options", "message"),
    [
        (undocumented, {}, "document parameter x"),
        (docs_unknown, {}, 'documents "y", which is not a parameter'),
        (no_doc, {}, "give the function a docstring"),
        (untyped, {}, "parameter x needs a type annotation"),
        (star, {}, "no \\*args"),
        (undocumented, {"name": "bad name!"}, "a name is a letter"),
        (create_playlist.fn, {"writes": ("t",)}, "a read tool cannot write t"),
        (create_playlist.fn, {"kind": "delete"}, 'kind must be "read" or "write"'),
    ],
)
def test_definition_errors_name_the_tool_and_the_fix(fn, options, message):
    with pytest.raises(ToolDefinitionError, match=message):
        tool(fn, **options)


def test_toolkit_refuses_duplicates_and_unknown_tables():
    from tests.episode.fixture import shop_schema

    with pytest.raises(ToolDefinitionError, match="two tools are named create_playlist"):
        Toolkit([create_playlist, tool(create_playlist.fn, name="create_playlist", kind="write")])
    kit = Toolkit([create_playlist])
    with pytest.raises(ToolDefinitionError, match='declares table "users"'):
        kit.check(shop_schema())
