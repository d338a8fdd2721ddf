"""Escaping, ids and number formats of the HTML layer: what any page shows goes through these."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from stateforge.html import Anchors, Card, Cell, anchor, cards, data_table, facts, tag
from stateforge.html.fmt import count, number, percent, size, value


def test_values_from_a_database_cannot_inject_markup():
    hostile = '<script>alert("x")</script>'
    html = str(data_table(["name"], [[hostile]]) + tag("a", hostile, href=f'#"{hostile}'))
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert 'href="#&#34;&lt;script' in html


def test_tag_attributes_and_void_elements():
    assert str(tag("input", type="search", disabled=True, hidden=False, data_x=None)) == \
        '<input type="search" disabled>'
    assert str(tag("td", 5, class_="r", data_sort=0.5, aria_label="x")) == \
        '<td class="r" data-sort="0.5" aria-label="x">5</td>'


def test_anchors_are_readable_and_unique_in_order():
    ids = Anchors()
    assert anchor("t", "Order Items") == "t-order-items"
    assert [ids("p", "a b"), ids("p", "a-b"), ids("p", "A B")] == ["p-a-b", "p-a-b-2", "p-a-b-3"]


def test_shares_never_round_a_non_zero_to_zero_or_a_part_to_all():
    assert percent(0.0486) == "4.9%"
    assert percent(0.0001) == "<0.1%"
    assert percent(0.9999) == ">99.9%"
    assert (percent(0.0), percent(1.0), percent(None)) == ("0.0%", "100.0%", "-")
    assert (percent(0.004, 0), percent(0.006, 0), percent(0.996, 0)) == ("<1%", "1%", ">99%")


def test_numbers_sizes_and_values_read_the_same_everywhere():
    assert (count(1234567), count(None)) == ("1,234,567", "-")
    shown = (number(3.14159), number(12.345), number(1234.0), number(0.000123))
    assert shown == ("3.14", "12.3", "1,234", "0.000123")
    assert size(35_401_728) == "33.8 MiB" and size(512) == "512 B"
    assert value(Decimal("9.50")) == "9.50"
    assert value(dt.datetime(2026, 6, 30, 23, 59, 59, 123456)) == "2026-06-30 23:59:59"
    assert value(True) == "true" and value(None) == "NULL"
    assert value("x" * 100, 10) == "x" * 9 + "\u2026"


def test_tables_sort_keys_cards_and_facts():
    html = str(data_table(["a", "b"], [["x", Cell("1.2%", 0.012, title="exact")]], align="lr"))
    assert '<td class="r" data-sort="0.012" title="exact">1.2%</td>' in html
    assert 'class="data sortable"' in html
    assert "Nothing" in str(data_table(["a"], [], empty="Nothing here."))
    card = str(cards([Card("rows", "10", "of 20", tone="bad")]))
    assert 'class="card bad"' in card and "of 20" in card
    listed = str(facts([("seed", 7), ("scale", None)]))
    assert "seed" in listed and "scale" not in listed
