"""How values are written in instructions, and how the gate recognises them (normalised matching)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from stateforge.tasks.wording import Style, numbers_in, render, stated

WHEN = dt.datetime(2026, 5, 3, 14, 30)


@pytest.mark.parametrize(
    ("style", "text"),
    [
        (Style("long", "12h"), "Move it to May 3, 2026 at 2:30 pm."),
        (Style("day_month", "24h"), "Move it to 3 May 2026 at 14:30."),
        (Style("iso", "12h"), "Move it to 2026-05-03 at 2:30 pm."),
    ],
)
def test_render_writes_times_as_people_do_and_the_gate_reads_them_back(style: Style, text: str):
    assert render("Move it to {when}.", {"when": WHEN}, style) == text
    assert stated("2026-05-03T14:30:00", text)
    assert not stated("2026-05-03T15:30:00", text)
    assert not stated("2026-05-04T14:30:00", text)


def test_render_specs():
    values = {
        "t": "Road Trip",
        "d": dt.date(2026, 1, 9),
        "xs": ["a", "b", "c"],
        "n": Decimal("12.50"),
        "ok": True,
        "w": WHEN,
    }
    text = render("{t:q} {d} {xs:qlist} {n} {ok} {w:date} {w:time} {t:upper}", values, Style())
    assert text == "'Road Trip' January 9, 2026 'a', 'b' and 'c' 12.50 yes May 3, 2026 2:30 pm ROAD TRIP"


def test_numbers_are_matched_by_value_not_spelling():
    assert numbers_in("Raise it by 1,200 to 12.5 (not 2026-05-03 or 14:30).") == {
        Decimal(1200),
        Decimal("12.5"),
        Decimal(2026),
    }
    assert stated("12.50", "Set the price to 12.5.")
    assert stated(1200, "about 1,200 of them")
    assert not stated(5, "on 2026-05-03")
    assert not stated(30, "at 14:30")
    assert stated(2, "order two of them") and stated(12, "a dozen eggs") and not stated(3, "order two")


def test_text_is_matched_as_whole_words_after_normalising():
    assert stated("Road Trip", "rename my playlist ROAD-TRIP, please")
    assert stated("O'Brien", "ask o brien")
    assert not stated("Trip", "my playlist Triple")
    assert stated(["Rock", "Jazz"], "tag it with rock and jazz")
    assert not stated(["Rock", "Opera"], "tag it with rock and jazz")


def test_null_booleans_microseconds_and_midnight():
    assert not stated(None, "clear it")
    assert not stated(False, "make it private (false)")
    assert not stated("2026-05-03T14:30:00.123456", "on May 3, 2026 at 2:30 pm")
    assert stated("2026-05-03T00:00:00", "everything from 3 May 2026 on")
    assert stated("09:30:00", "the meeting at 9:30 am")
