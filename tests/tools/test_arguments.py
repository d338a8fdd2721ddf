"""Bad arguments come back as one error naming each parameter and what is allowed."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

import pytest
from pydantic import Field

from stateforge.tools import ArgumentError, Env, tool


@tool
def plan(
    env: Env,
    owner: str,
    size: Annotated[int, Field(ge=1, le=100)] = 20,
    mood: Literal["calm", "happy", "angry"] = "calm",
    price: Annotated[Decimal, Field(max_digits=6, decimal_places=2)] | None = None,
    day: dt.date | None = None,
    at: dt.datetime | None = None,
    public: bool = True,
    tags: Annotated[list[str], Field(max_length=3)] | None = None,
) -> None:
    """Plan something.

    Args:
        owner: The owner's username.
        size: How big.
        mood: The mood.
        price: A price.
        day: A day.
        at: A moment.
        public: Visible to others.
        tags: Labels.
    """


def error(arguments: object) -> str:
    with pytest.raises(ArgumentError) as caught:
        plan.validate(arguments)  # type: ignore[arg-type]
    return str(caught.value)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"owner": "a", "sise": 3},
            "unknown argument 'sise'. Did you mean \"size\"? The parameters are: owner, size",
        ),
        ({}, "missing required argument 'owner' (The owner's username.)"),
        (
            {"owner": "a", "mood": "hapy"},
            "argument 'mood' is 'hapy', which is not allowed; use one of 'calm', "
            "'happy' or 'angry'. Did you mean \"happy\"?",
        ),
        ({"owner": "a", "size": 500}, "argument 'size' must be at most 100, got 500"),
        ({"owner": "a", "size": 0}, "argument 'size' must be at least 1, got 0"),
        ({"owner": "a", "size": "5"}, "argument 'size' must be an integer, got '5'"),
        ({"owner": "a", "size": True}, "argument 'size' must be an integer, got true"),
        ({"owner": "a", "size": 2.5}, "argument 'size' must be an integer, got 2.5"),
        ({"owner": 5}, "argument 'owner' must be a string, got 5"),
        ({"owner": {"$gt": ""}}, "argument 'owner' must be a string"),
        ({"owner": "a", "public": "yes"}, "argument 'public' must be true or false, got 'yes'"),
        (
            {"owner": "a", "price": "12.345"},
            "argument 'price': decimal input should have no more than 2 decimal",
        ),
        ({"owner": "a", "price": "abc"}, "argument 'price' must be a decimal number"),
        (
            {"owner": "a", "day": "2024-13-01"},
            "argument 'day' must be a date as YYYY-MM-DD, got '2024-13-01'",
        ),
        ({"owner": "a", "at": "yesterday"}, "argument 'at' must be a date and time"),
        ({"owner": "a", "tags": ["a", "b", "c", "d"]}, "argument 'tags' may hold at most 3 items, got 4"),
        ({"owner": "a", "tags": ["a", 1]}, "argument 'tags[1]' must be a string, got 1"),
        ({"owner": "a\x00b"}, "argument 'owner' contains a NUL character"),
        ({"owner": "a", "tags": ["ok", "b\x00"]}, "argument 'tags[1]' contains a NUL character"),
        (["owner"], "arguments must be a JSON object of parameter names to values, got list"),
    ],
)
def test_argument_errors_name_the_parameter_and_what_is_allowed(arguments, expected):
    message = error(arguments)
    assert message.startswith("plan: ")
    assert expected in message


def test_several_errors_in_one_message():
    message = error({"size": 0, "mood": "x", "extra": 1})
    assert "missing required argument 'owner'" in message
    assert "argument 'size' must be at least 1" in message and "argument 'mood' is 'x'" in message
    assert "unknown argument 'extra'" in message


def test_valid_arguments_are_typed_and_remember_what_was_given():
    args = plan.validate({"owner": "ana", "price": "9.50", "day": "2024-02-29", "at": "2024-02-29T10:00:00"})
    assert args.price == Decimal("9.50") and args.day == dt.date(2024, 2, 29)
    assert args.at == dt.datetime(2024, 2, 29, 10, 0) and args.size == 20
    assert args.model_fields_set == {"owner", "price", "day", "at"}
    # Python callers may pass Python values: they are checked as their JSON spelling
    assert plan.validate(
        {"owner": "b", "price": Decimal("1.25"), "day": dt.date(2024, 1, 1)}
    ).price == Decimal("1.25")


def test_long_strings_are_accepted_as_text():
    assert plan.validate({"owner": "x" * 1_000_000}).owner == "x" * 1_000_000


@tool
def page(
    env: Env, offset: Annotated[int, Field(ge=0)] = 0, song: int | str = 1, ids: list[int] | None = None
) -> None:
    """A page of songs.

    Args:
        offset: Rows to skip.
        song: A song id or title.
        ids: Song ids.
    """


def test_every_integer_is_bounded_to_64_bits_in_the_schema_and_the_validation():
    props = page.parameters["properties"]
    assert (props["offset"]["minimum"], props["offset"]["maximum"]) == (0, 2**63 - 1)  # its own bound wins
    song_int = next(s for s in props["song"]["anyOf"] if s["type"] == "integer")
    assert (song_int["minimum"], song_int["maximum"]) == (-(2**63), 2**63 - 1)
    assert props["ids"]["anyOf"][0]["items"]["maximum"] == 2**63 - 1
    with pytest.raises(ArgumentError, match=r"'offset' must be at most 9223372036854775807, got 92233"):
        page.validate({"offset": 2**63})
    with pytest.raises(ArgumentError, match="at most 9223372036854775807"):
        page.validate({"song": 10**20})
    with pytest.raises(ArgumentError, match="must be an integer or a string, got 1e"):
        page.validate({"song": 1e20})
    assert page.validate({"song": 2**63 - 1, "ids": [-(2**63)]}).song == 2**63 - 1
