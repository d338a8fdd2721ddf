"""Comments under songs: read a song's (or a listener's) comments and the replies to one, post a comment
or a reply, edit one's own comment, and delete one's own comments (their replies go with them)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .lookup import SONG_TABLES, Limit, Offset, SongSpec, When, moment, plural, refuse

Body = Annotated[str, Field(min_length=1, max_length=1000)]
COMMENT_TABLES = ("users", "comments", *SONG_TABLES)
ORDERS = {"newest": "created_at DESC", "oldest": "created_at ASC", "likes": "likes DESC, created_at DESC"}


def comment(env: Env, comment_id: int) -> dict:
    """The comment with this id; a `ToolError` when there is none."""
    return find.one(
        env,
        "SELECT c.comment_id, c.song_id, c.user_id, u.username AS author, c.body, c.created_at "
        "FROM comments AS c JOIN users AS u ON u.user_id = c.user_id WHERE c.comment_id = ?",
        [comment_id],
        f"no comment has the id {comment_id}; list_comments shows a song's comments.",
    )


@tool(reads=COMMENT_TABLES)
def list_comments(
    env: Env,
    song: SongSpec | None = None,
    username: str | None = None,
    replies_to: int | None = None,
    top_level_only: bool = False,
    since: When | None = None,
    before: When | None = None,
    sort_by: Literal["newest", "oldest", "likes"] = "newest",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Read comments: under a song, written by a listener, or the replies to one comment (any of these
    together), newest first by default, a page at a time. Each shows comment_id, the song, the author,
    the text, likes, whether it is pinned, when written and edited, the comment it replies to and how many
    replies it has.

    Args:
        song: Comments under this song (its song_id, or {"title", "artist"?, "album"?}).
        username: Comments written by this listener (username or e-mail address).
        replies_to: Only the direct replies to this comment_id.
        top_level_only: Leave replies out (only comments that answer nobody).
        since: Written at or after this moment (a date means its midnight).
        before: Written before this moment (a date means its midnight).
        sort_by: newest (default), oldest or likes (most liked first).
        limit: Comments per page, 1 to 50.
        offset: Comments to skip.
    """
    if song is None and username is None and replies_to is None:
        raise ToolError("give a song, a username or replies_to (a comment_id) to read comments of.")
    where = Where().when(find.song(env, song)["song_id"] if song is not None else None, "c.song_id = ?")
    where.when(find.user(env, username)["user_id"] if username is not None else None, "c.user_id = ?")
    parent = comment(env, replies_to)["comment_id"] if replies_to is not None else None
    where.when(parent, "c.parent_comment_id = ?")
    if top_level_only:
        where.add("c.parent_comment_id IS NULL")
    where.when(moment(since) if since else None, "c.created_at >= ?")
    where.when(moment(before) if before else None, "c.created_at < ?")
    sql = (
        "SELECT c.comment_id, c.song_id, s.title AS song, ar.name AS artist, u.username AS author, c.body, "
        "c.like_count AS likes, c.is_pinned AS pinned, c.created_at, c.edited_at, "
        "c.parent_comment_id AS reply_to, pu.username AS reply_to_author, "
        "(SELECT count(*) FROM comments AS r WHERE r.parent_comment_id = c.comment_id) AS replies "
        "FROM comments AS c JOIN users AS u ON u.user_id = c.user_id "
        "JOIN songs AS s ON s.song_id = c.song_id JOIN artists AS ar ON ar.artist_id = s.artist_id "
        "LEFT JOIN comments AS p ON p.comment_id = c.parent_comment_id "
        "LEFT JOIN users AS pu ON pu.user_id = p.user_id "
        f"WHERE {where.sql}"
    )
    return env.page(sql, where.params, order_by=f"{ORDERS[sort_by]}, comment_id", limit=limit, offset=offset)


@tool(kind="write", reads=COMMENT_TABLES, writes=("comments",), idempotent=False)
def post_comment(
    env: Env, username: str, body: Body, song: SongSpec | None = None, reply_to: int | None = None
) -> dict:
    """Post a comment under a song, or a reply to a comment (the reply goes under the same song).

    Args:
        username: The author's username (or e-mail address).
        body: The text, 1 to 1000 characters.
        song: The song to comment on (its song_id, or {"title", "artist"?, "album"?}); optional for a reply.
        reply_to: The comment_id of the comment answered.
    """
    me = find.acting_user(env, username)
    if not body.strip():
        raise ToolError("the comment is empty; write some text.")
    if song is None and reply_to is None:
        raise ToolError("give the song to comment on, or reply_to (a comment_id) to answer a comment.")
    parent = comment(env, reply_to) if reply_to is not None else None
    track = find.song(env, song) if song is not None else None
    if parent and track and parent["song_id"] != track["song_id"]:
        raise refuse(
            "comment_permissions",
            f"comment {parent['comment_id']} is under another song (song_id {parent['song_id']}); a reply "
            "goes under the song of the comment it answers",
        )
    song_id = track["song_id"] if track else parent["song_id"]  # type: ignore[index]
    row = env.insert(
        "comments",
        {
            "song_id": song_id,
            "user_id": me["user_id"],
            "parent_comment_id": reply_to,
            "body": body,
            "like_count": 0,
            "is_pinned": False,
            "created_at": env.now,
        },
    )
    return {
        "comment_id": row["comment_id"],
        "song_id": song_id,
        "reply_to": reply_to,
        "author": me["username"],
        "created_at": row["created_at"],
    }


@tool(kind="write", reads=COMMENT_TABLES, writes=("comments",), idempotent=True, destructive=True)
def edit_comment(env: Env, username: str, comment_id: int, body: Body) -> dict:
    """Change the text of one of the listener's own comments (it is marked as edited).

    Args:
        username: The author's username (or e-mail address).
        comment_id: The comment to edit.
        body: The new text, 1 to 1000 characters.
    """
    me = find.acting_user(env, username)
    found = comment(env, comment_id)
    if found["user_id"] != me["user_id"]:
        raise refuse(
            "comment_permissions",
            f"comment {comment_id} was written by {found['author']}; only its author can edit it",
        )
    if not body.strip():
        raise ToolError("the new text is empty; to remove the comment use delete_comments.")
    if found["created_at"] > env.now:
        raise ToolError(
            f"comment {comment_id} is dated {found['created_at']}, after now; it cannot be edited yet."
        )
    env.update("comments", comment_id, {"body": body, "edited_at": env.now})
    return {"comment_id": comment_id, "body": body, "edited_at": env.now}


@tool(kind="write", reads=COMMENT_TABLES, writes=("comments",), idempotent=True, destructive=True)
def delete_comments(
    env: Env,
    username: str,
    comment_ids: Annotated[list[int], Field(max_length=300)] | None = None,
    song: SongSpec | None = None,
    before: When | None = None,
) -> dict:
    """Delete the listener's own comments: those named by id, or every comment of theirs matching the
    filters (under a song, written before a moment). The replies under a deleted comment are deleted too.

    Args:
        username: The author's username (or e-mail address).
        comment_ids: Comments to delete (each must be theirs).
        song: Every comment of theirs under this song (its song_id, or {"title", "artist"?, "album"?}).
        before: Every comment of theirs written before this moment (a date means its midnight).
    """
    me = find.acting_user(env, username)
    where = Where().add("user_id = ?", me["user_id"])
    if comment_ids is not None:
        if not comment_ids:
            raise ToolError("comment_ids is empty; name at least one comment, or use the filters.")
        rows = [comment(env, cid) for cid in sorted(set(comment_ids))]
        others = [r for r in rows if r["user_id"] != me["user_id"]]
        if others:
            raise refuse(
                "comment_permissions",
                f"comment {others[0]['comment_id']} was written by {others[0]['author']}; "
                "only its author can delete it",
            )
        where.add("comment_id IN (SELECT unnest(?::BIGINT[]))", [r["comment_id"] for r in rows])
    where.when(find.song(env, song)["song_id"] if song is not None else None, "song_id = ?")
    where.when(moment(before) if before is not None else None, "created_at < ?")
    if len(where) == 1:
        raise ToolError("name comments or give a filter (song, before); nothing was deleted.")
    deleted = env.delete_where("comments", where.sql, where.params)
    total = env.changes.counts.get("comments", {}).get("deleted", 0)
    return {
        "deleted": deleted,
        "replies_deleted": total - deleted,
        "message": f"deleted {plural(deleted, 'comment')} and {plural(total - deleted, 'reply', 'replies')}",
    }
