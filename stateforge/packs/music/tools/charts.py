"""The charts: the list of charts and any edition of one (the latest, a numbered one, or the one in force
on a date), with each entry's rank, movement, weeks on the chart and streams. Read only: the service
computes the charts."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import Field

from stateforge.tools import Env, ToolError, tool

from .lookup import SONG_TABLES, Limit, Offset


@tool(reads=("charts", "chart_editions"))
def list_charts(env: Env) -> dict[str, Any]:
    """List the charts (global and regional Top 50s, viral and new-release charts): name, region,
    frequency, size, how many editions were published and the latest one."""
    charts = env.query(
        "SELECT c.name, c.region, c.frequency, c.size, count(ed.edition_id) AS editions, "
        "max(ed.edition_no) AS latest_edition_no, max(ed.published_on) AS latest_published_on "
        "FROM charts AS c LEFT JOIN chart_editions AS ed ON ed.chart_id = c.chart_id "
        "GROUP BY c.chart_id, c.name, c.region, c.frequency, c.size ORDER BY c.name"
    )
    return {"charts": charts}


@tool(reads=("charts", "chart_editions", "chart_entries", *SONG_TABLES))
def get_chart(
    env: Env,
    chart: str,
    edition_no: Annotated[int, Field(ge=1)] | None = None,
    as_of: dt.date | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict:
    """Read one edition of a chart: the latest by default, a given edition number, or the edition in force
    on a date (the last one published on or before it). Each entry shows rank, song_id, title, artist,
    previous rank, movement (places gained since the last edition; null for a new entry), weeks on the
    chart and streams.

    Args:
        chart: The chart's name, e.g. "Top 50 Global" (list_charts shows them).
        edition_no: The edition number (1 is the first).
        as_of: The edition published on or before this date.
        limit: Entries per page, 1 to 50.
        offset: Entries to skip (51st place and below start at offset 50).
    """
    found = env.one("SELECT chart_id, name, region, size FROM charts WHERE lower(name) = lower(?)", [chart])
    if found is None:
        names = [r["name"] for r in env.query("SELECT name FROM charts ORDER BY name")]
        raise ToolError(f"no chart is called {chart!r}; the charts are: {', '.join(names)}.")
    if edition_no is not None and as_of is not None:
        raise ToolError("give edition_no or as_of, not both.")
    sql = "SELECT edition_id, edition_no, published_on FROM chart_editions WHERE chart_id = ?"
    params: list[Any] = [found["chart_id"]]
    if edition_no is not None:
        sql += " AND edition_no = ?"
        params.append(edition_no)
    elif as_of is not None:
        sql += " AND published_on <= ?"
        params.append(as_of)
    edition = env.one(sql + " ORDER BY published_on DESC, edition_no DESC LIMIT 1", params)
    if edition is None:
        when = f"edition {edition_no}" if edition_no is not None else f"edition on or before {as_of}"
        raise ToolError(f"{found['name']} has no {when}; list_charts shows its editions.")
    entries = env.page(
        "SELECT e.rank, s.song_id, s.title, ar.name AS artist, e.previous_rank, "
        "e.previous_rank - e.rank AS movement, e.weeks_on_chart, e.streams "
        "FROM chart_entries AS e JOIN songs AS s ON s.song_id = e.song_id "
        "JOIN artists AS ar ON ar.artist_id = s.artist_id WHERE e.edition_id = ?",
        [edition["edition_id"]],
        order_by="rank, song_id",
        limit=limit,
        offset=offset,
    )
    return {
        "chart": found["name"],
        "region": found["region"],
        "edition_no": edition["edition_no"],
        "published_on": edition["published_on"],
        **entries,
    }
