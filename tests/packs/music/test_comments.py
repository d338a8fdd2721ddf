"""Comments: posting and replying (a reply stays under its song), editing and deleting only one's own,
and a deletion taking the replies under it (ON DELETE CASCADE of comments.parent_comment_id)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("music_pack")


def test_post_reply_edit_and_delete_with_replies(run):
    a, b = [
        r["username"]
        for r in run.rows("SELECT username FROM users WHERE status = 'active' ORDER BY user_id LIMIT 2")
    ]
    song, other = [r["song_id"] for r in run.rows("SELECT song_id FROM songs ORDER BY song_id LIMIT 2")]
    top = run.ok("post_comment", username=a, song=song, body="First!")["comment_id"]
    reply = run.ok("post_comment", username=b, reply_to=top, body="Second.")
    assert reply["song_id"] == song
    run.ok("post_comment", username=a, reply_to=reply["comment_id"], body="Third, nested.")
    error = run.refused("post_comment", username=b, song=other, reply_to=top, body="Elsewhere")
    assert "(policy: comment_permissions)" in error
    thread = run.ok("list_comments", replies_to=top)
    assert [(r["author"], r["reply_to_author"]) for r in thread["rows"]] == [(b, a)]
    error = run.refused("edit_comment", username=b, comment_id=top, body="Edited by someone else")
    assert f"written by {a}" in error and "comment_permissions" in error
    edited = run.ok("edit_comment", username=a, comment_id=top, body="First, edited")
    assert edited["edited_at"] == run.ep.now.isoformat()
    error = run.refused("delete_comments", username=b, comment_ids=[top])
    assert "only its author can delete it" in error
    gone = run.ok("delete_comments", username=a, comment_ids=[top])
    assert (gone["deleted"], gone["replies_deleted"]) == (1, 2)
    assert run.changes() == {"comments": {"deleted": 3}}
    assert "no comment has the id" in run.refused("edit_comment", username=a, comment_id=top, body="x")


def test_reading_and_bulk_deleting_a_listeners_comments(run):
    author = run.value(
        "SELECT u.username FROM comments AS c JOIN users AS u USING (user_id) "
        "WHERE u.status = 'active' GROUP BY u.username ORDER BY count(*) DESC, u.username LIMIT 1"
    )
    mine = run.ok("list_comments", username=author, sort_by="oldest", limit=50)
    assert mine["total"] >= 2 and all(r["author"] == author for r in mine["rows"])
    cut = mine["rows"][1]["created_at"]
    top = run.ok("list_comments", username=author, top_level_only=True, limit=50)
    assert all(r["reply_to"] is None for r in top["rows"])
    gone = run.ok("delete_comments", username=author, before=cut)
    assert gone["deleted"] == 1
    assert run.ok("list_comments", username=author, limit=1)["total"] == mine["total"] - 1
    assert "give a song, a username" in run.refused("list_comments")
