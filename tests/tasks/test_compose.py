"""A step's shared values come from its source when it does not declare them (stateforge.tasks.compose)."""

from __future__ import annotations

import pytest

from stateforge.tasks.compose import Story, Storyline, shared_values, step
from stateforge.tasks.recipes import RecipeDefinitionError


def _cast(story: Story) -> None:
    story["user"] = {"name": "ana"}


@step(goal="the user's songs")
def songs(story: Story) -> None:
    story["songs"] = [story["user"]["name"]]
    story["count"] = len(story["songs"])  # read after it is set here: not an input


@step(inputs=("user", "songs"), goal="an order the body does not show")
def declared(story: Story) -> None:
    del story


def test_inputs_and_outputs_come_from_the_source_in_order_of_use() -> None:
    assert (songs.inputs, songs.outputs) == (("user",), ("songs", "count"))
    assert shared_values(_cast) == ((), ("user",))
    assert (declared.inputs, declared.outputs) == (("user", "songs"), ())
    assert shared_values(len) == ((), ())  # no Python source: nothing derived


def test_a_derived_input_nobody_provides_is_a_definition_error() -> None:
    @step(goal="reads what no step sets")
    def needs_playlist(story: Story) -> None:
        story.say(story["playlist"])

    assert Storyline("fine", _cast, (songs, declared)).provides == ("user",)  # what the cast sets
    with pytest.raises(RecipeDefinitionError, match="step needs_playlist needs playlist"):
        Storyline("broken", _cast, (songs, needs_playlist))
