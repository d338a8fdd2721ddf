"""Text that fits its row on the meeting pack built small (issue 18, item 4): the build's `text` checks find
nothing, and each hinted column reads as its row's category says."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.domain.loader import load_domain
from stateforge.validation.text_fit import text_rules

pytestmark = pytest.mark.xdist_group("meeting-pack")


def test_generated_text_fits_its_row(meeting_db: Path) -> None:
    pack = load_domain("meeting")
    config = pack.config
    rules = text_rules(pack.schema, config)
    assert {r.name for r in rules} == {
        "text_fits_meeting_series_title",
        "text_fits_out_of_office_auto_reply_message",
        "text_fits_meeting_notes_body",
        "text_fits_meetings_agenda",
    }
    with duckdb.connect(str(meeting_db), read_only=True) as con:
        for rule in rules:
            assert con.execute(f"SELECT count(*) FROM ({rule.check})").fetchall() == [(0,)], rule.name
        titles = dict(con.execute(
            "SELECT frequency, list(DISTINCT title ORDER BY title) FROM meeting_series GROUP BY ALL"
        ).fetchall())
        replies = con.execute(
            "SELECT count(*) FILTER (WHERE auto_reply_message IS NULL) / count(*), "
            "count(*) FILTER (WHERE reason = 'sick' AND auto_reply_message ILIKE '%vacation%') "
            "FROM out_of_office"
        ).fetchall()[0]
        standups = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE agenda LIKE '%Blockers%' OR agenda LIKE '%stuck%' "
            "OR agenda LIKE '%Blocked%') FROM meetings WHERE title ILIKE '%standup%' AND agenda IS NOT NULL"
        ).fetchall()[0]
    by = config.hint("meeting_series", "title").values_by
    assert by is not None and all(set(found) <= set(by.values[f]) for f, found in titles.items())
    assert "Monthly Business Review" not in titles.get("daily", [])
    assert 0.15 <= replies[0] <= 0.45 and replies[1] == 0  # about 30% set no reply; a sick day is no vacation
    assert standups[0] > 0 and standups[1] == standups[0]  # a standup's agenda asks about blockers
