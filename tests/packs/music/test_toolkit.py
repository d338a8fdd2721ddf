"""The music toolkit as a whole: every tool runs (which proves its declared reads and writes), the tables
it can change, its listings, and the policies of domain.yaml (each enforced by name, each check clean on a
fresh build)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stateforge.domain import load_domain
from stateforge.episode import Episode
from stateforge.tools import Toolkit

pytestmark = pytest.mark.xdist_group("music_pack")

PACK = Path(__file__).resolve().parents[3] / "stateforge" / "packs" / "music"
READ_ONLY = {
    "subscription_plans",
    "genres",
    "artists",
    "albums",
    "song_genres",
    "song_credits",
    "album_credits",
    "charts",
    "chart_editions",
    "chart_entries",
}
"""The catalogue, the plans and the charts: the build writes them (labels, billing, the chart service)."""


def test_the_toolkit_is_the_packs(music_kit: Toolkit, ep: Episode):
    names = [t.name for t in music_kit]
    assert ep.toolkit is music_kit and len(names) >= 40
    assert names[-1] == "cannot_complete"
    reads = [t for t in music_kit if t.kind == "read"]
    writes = [t for t in music_kit if t.kind == "write"]
    assert len(reads) >= 20 and len(writes) >= 25
    for listed in music_kit.mcp_tools():
        assert listed["description"] and listed["inputSchema"]["additionalProperties"] is False
        for name, prop in listed["inputSchema"]["properties"].items():
            assert prop.get("description"), f"{listed['name']}.{name} has no description"
        assert listed["annotations"]["readOnlyHint"] == (music_kit[listed["name"]].kind == "read")


def test_every_table_a_task_may_change_is_writable(music_kit: Toolkit, ep: Episode):
    coverage = music_kit.coverage(ep.schema)
    assert set(coverage.unwritable) == READ_ONLY
    assert coverage.unread == []


def test_every_policy_is_enforced_by_name_and_every_check_holds(ep: Episode):
    policies = {p.name: p for p in load_domain("music").config.policies}
    assert 5 <= len(policies) <= 10
    code = "\n".join(p.read_text() for p in PACK.glob("tools/*.py"))
    named = set(re.findall(r'refuse\(\s*"([a-z_]+)"', code))
    assert named == set(policies), "every policy is refused by name somewhere, and only policies are"
    checked = [p for p in policies.values() if p.check]
    assert len(checked) >= 3
    for policy in checked:
        assert ep.query(policy.check) == [], f"{policy.name} is broken on a fresh build"


def test_every_tool_runs(run, music_kit: Toolkit):
    """A tour of the whole product, one call per tool at least, each of which must succeed."""
    u = run.username(
        "NOT EXISTS (SELECT 1 FROM subscriptions AS s WHERE s.user_id = u.user_id "
        "AND s.status IN ('active', 'past_due'))"
    )
    w = run.username(
        "EXISTS (SELECT 1 FROM subscriptions AS s WHERE s.user_id = u.user_id AND s.status = 'active') "
        "AND (SELECT count(*) FROM subscriptions AS s WHERE s.user_id = u.user_id "
        "AND s.status IN ('active', 'past_due')) = 1"
    )
    v = run.username(
        "(SELECT count(*) FROM subscriptions AS s WHERE s.user_id = u.user_id AND s.status = 'past_due') = 1"
    )
    song = run.value("SELECT song_id FROM songs WHERE is_available AND NOT explicit ORDER BY song_id LIMIT 1")
    artist = run.value("SELECT artist_id FROM artists ORDER BY artist_id LIMIT 1")
    album = run.value("SELECT album_id FROM songs WHERE song_id = ?", [song])
    # the catalogue and the charts
    run.ok("search_songs", query="a", year_from=1990, max_duration_s=400, sort_by="title", limit=5)
    run.ok("get_song", song=song)
    run.ok("search_albums", released_since="2000-01-01", sort_by="tracks")
    run.ok("get_album", album=album)
    run.ok("search_artists", verified=True, sort_by="followers")
    run.ok("get_artist", artist=artist)
    run.ok("list_artist_albums", artist=artist)
    run.ok("list_genres")
    chart = run.ok("list_charts")["charts"][0]["name"]
    run.ok("get_chart", chart=chart, edition_no=1)
    # people and accounts
    run.ok("find_users", query=u[:4])
    run.ok("get_profile", username=u)
    run.ok("update_profile", username=u, display_name="Road Tripper")
    # billing: subscribe, pay, refund
    run.ok("list_plans")
    run.ok("subscribe", username=u, plan="family_monthly", payment_method="card")
    run.ok("get_subscription", username=u)
    receipt = run.ok("list_payments", username=u)["rows"][0]["external_ref"]
    run.ok("refund_payment", username=u, payment=receipt)
    # devices and listening
    device = run.ok("register_device", username=u, device_type="tv", name="Living room TV")["device_id"]
    run.ok("list_devices", username=u)
    run.ok("play_song", username=u, song=song, device=device, source="album")
    run.ok("get_listening_history", username=u)
    run.ok("listening_stats", username=u, group_by="day")
    run.ok("delete_listening_history", username=u, device=device)
    run.ok("sign_out_devices", username=u, devices=[device])
    run.ok("remove_device", username=u, device="Living room TV")
    # another listener's plan changes
    run.ok("set_auto_renew", username=w, enabled=False)
    other = run.value(
        "SELECT code FROM subscription_plans WHERE plan_id NOT IN (SELECT s.plan_id FROM subscriptions AS s "
        "JOIN users AS u ON u.user_id = s.user_id WHERE u.username = ? AND s.status = 'active') "
        "ORDER BY plan_id",
        [w],
    )
    run.ok("change_plan", username=w, plan=other, payment_method="paypal")
    run.ok("cancel_subscription", username=w)
    run.ok("pay_overdue", username=v, payment_method="card")
    # the library
    run.ok("like_songs", username=u, songs=[song])
    run.ok("list_liked_songs", username=u)
    run.ok("unlike_songs", username=u, songs=[song])
    run.ok("follow_artists", username=u, artists=[artist])
    run.ok("list_followed_artists", username=u)
    run.ok("set_artist_notifications", username=u, enabled=False, artists=[artist])
    run.ok("unfollow_artists", username=u, artists=[artist])
    # playlists
    pid = run.ok("create_playlist", username=u, title="Tour", songs=[song])["playlist_id"]
    run.ok("search_playlists", owner=u)
    run.ok("get_playlist", playlist=pid)
    run.ok("update_playlist", username=u, playlist="Tour", description="songs of the tour")
    others = [
        r["song_id"]
        for r in run.rows(
            "SELECT song_id FROM songs WHERE is_available AND song_id <> ? ORDER BY song_id LIMIT 3", [song]
        )
    ]
    run.ok("add_songs_to_playlist", username=u, playlist=pid, songs=others)
    run.ok("move_playlist_song", username=u, playlist=pid, song=song, to_position=4)
    run.ok("sort_playlist", username=u, playlist=pid, by="duration")
    run.ok("remove_songs_from_playlist", username=u, playlist=pid, positions=[1])
    run.ok("duplicate_playlist", username=u, playlist=pid, title="Tour again")
    run.ok("delete_playlist", username=u, playlist=pid)
    # comments
    comment = run.ok("post_comment", username=u, song=song, body="What a track")["comment_id"]
    run.ok("list_comments", song=song)
    run.ok("edit_comment", username=u, comment_id=comment, body="What a track!")
    run.ok("delete_comments", username=u, comment_ids=[comment])
    # leaving
    run.ok("close_account", username=u)
    run.ok("cannot_complete", reason="nothing left to do")
    called = {r.tool for r in run.ep.log if r.ok}
    assert called == {t.name for t in music_kit}, sorted({t.name for t in music_kit} - called)


@pytest.mark.parametrize(
    ("tool", "arguments", "needle"),
    [
        ("search_songs", {"limit": 51}, "'limit' must be at most 50"),
        ("search_songs", {"sort_by": "titel"}, 'Did you mean "title"'),
        ("search_songs", {"year_from": "2020"}, "'year_from'"),
        ("create_playlist", {"username": "x", "title": ""}, "'title' needs at least 1 characters"),
        ("like_songs", {"username": "x", "songs": [{"name": "Hour"}]}, "songs[0]"),
        ("get_chart", {"chart": "Top 50 Global", "as_of": "yesterday"}, "'as_of'"),
        ("list_payments", {"username": "x", "status": "refund"}, 'Did you mean "refunded"'),
    ],
)
def test_bad_arguments_name_the_parameter(run, tool, arguments, needle):
    assert needle in run.refused(tool, kind="arguments", **arguments)


def test_injection_shaped_arguments_are_inert(run):
    assert "no user has the username" in run.refused("get_profile", username="x'; DROP TABLE users; --")
    assert run.ok("search_songs", query="%' OR 1=1 --")["total"] == 0
    u = run.username()
    title = "Mix'); DELETE FROM songs; --"
    made = run.ok("create_playlist", username=u, title=title, description="%' OR 1=1 --")
    assert run.value("SELECT title FROM playlists WHERE playlist_id = ?", [made["playlist_id"]]) == title
    assert run.value("SELECT count(*) FROM songs") == 1000
