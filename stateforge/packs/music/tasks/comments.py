"""Recipes over comments: delete one's comments from before a day (their replies go too), reply to
someone's comment under a song, rewrite one's latest comment."""

from __future__ import annotations

from stateforge.tasks import RecipeContext, recipe

from .common import (
    ACTIVE,
    SAFE_ARTISTS,
    artist_name,
    days_with,
    introduce,
    next_day,
    refer_song,
    sized,
)

REPLIES = (
    "Totally agree, this one never gets old.",
    "Thanks for the tip, I had never heard it before!",
    "Same here, it was on repeat all summer.",
    "The live version is even better.",
    "Couldn't have said it better myself.",
    "This was our wedding song too!",
)
EDITS = (
    "After a few more listens, this is my favourite track of the year.",
    "Changed my mind: the chorus really grows on you.",
    "Saw them live last week and this one was the highlight.",
    "Still not sure about the ending, but the first half is brilliant.",
)


@recipe(capabilities=("full_data_acquisition", "precise_boundary_judgment"), difficulty="medium")
def delete_old_comments(ctx: RecipeContext) -> None:
    """A listener deletes every comment they wrote before a day (or up to and including it); the replies
    under them go too. The day is one on which they commented."""
    user = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, count(*) AS n FROM comments AS c JOIN users AS u ON "
        f"u.user_id = c.user_id WHERE {ACTIVE} GROUP BY ALL",
        what="listener with comments",
        bands=((3, 12), (12, 60), (60, 250)),
    )
    days = days_with(ctx, "comments", "created_at", "user_id = ?", [user["user_id"]])
    if len(days) < 3:
        ctx.skip("comments on too few days")
    day = ctx.choice(days[1:-1])
    inclusive = ctx.rng.random() < 0.5
    cutoff = next_day(day) if inclusive else day
    introduce(ctx, user)
    ctx.say(
        [
            "Delete all the comments I wrote on or before {day}.",
            "Please remove every comment of mine from {day} or earlier; newer ones stay.",
        ]
        if inclusive
        else [
            "Delete all the comments I wrote before {day}; the ones from {day} on stay.",
            "Please remove every comment of mine older than {day} (not the ones written that day).",
        ],
        day=day,
    )
    ctx.call(
        "delete_comments",
        {"username": user["username"], "before": cutoff},
        step=f"Delete @{user['username']}'s comments written before {cutoff}",
    )
    ctx.goal(
        "no comment of theirs from before the cutoff is left, the later ones stay",
        "SELECT count(*) FILTER (WHERE created_at < ?) AS old, count(*) AS comments FROM comments WHERE "
        "user_id = ?",
        [cutoff, user["user_id"]],
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def reply_to_comment(ctx: RecipeContext) -> None:
    """A listener replies to someone's comment under a song: the song's comments by that person are read
    for the comment's id, then the reply is posted under it. Variant: a song that does not exist (missing)."""
    target = ctx.pick(
        "SELECT c.comment_id, c.song_id, s.title, s.artist_id, u.user_id, u.username FROM comments AS c "
        "JOIN songs AS s ON s.song_id = c.song_id JOIN users AS u ON u.user_id = c.user_id WHERE "
        f"s.artist_id IN {SAFE_ARTISTS} AND (SELECT count(*) FROM comments AS o WHERE o.song_id = c.song_id "
        "AND o.user_id = c.user_id) = 1",
        what="comment",
    )
    me = ctx.pick(
        f"SELECT u.user_id, u.username, u.display_name FROM users AS u WHERE {ACTIVE} AND u.user_id <> ?",
        [target["user_id"]],
        what="listener",
    )
    artist = artist_name(ctx, target["artist_id"])
    refer_song(ctx, target["title"], artist)
    ctx.refer(
        f"the comment of @{target['username']} under {target['title']!r}",
        "SELECT count(*) FROM comments AS c JOIN users AS u ON u.user_id = c.user_id JOIN songs AS s ON "
        "s.song_id = c.song_id JOIN artists AS a ON a.artist_id = s.artist_id WHERE u.username = ? AND "
        "lower(s.title) = lower(?) AND lower(a.name) = lower(?)",
        [target["username"], target["title"], artist],
    )
    body = ctx.choice(REPLIES)
    introduce(ctx, me)
    ctx.say(
        [
            'Under the song {title:q} by {artist}, reply to @{author}\'s comment with: "{body}"',
            'Please answer @{author}\'s comment on {title:q} ({artist}). My reply: "{body}"',
        ],
        title=target["title"],
        artist=artist,
        author=target["username"],
        body=body,
    )
    ctx.read(
        "list_comments",
        {"song": {"title": target["title"], "artist": artist}, "username": target["username"]},
        step=f"Find @{target['username']}'s comment under {target['title']!r}",
    )
    ctx.call(
        "post_comment",
        {"username": me["username"], "body": body, "reply_to": target["comment_id"]},
        step=f"Reply to comment {target['comment_id']}",
    )
    ctx.goal(
        "the reply is under the comment",
        "SELECT count(*) AS replies FROM comments WHERE parent_comment_id = ? AND user_id = ? AND body = ?",
        [target["comment_id"], me["user_id"], body],
    )
    other = f"{target['title']} (Acoustic)"
    ctx.infeasible(
        "missing",
        swap={target["title"]: other},
        because=f"there is no song called {other!r} by {artist}",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def edit_latest_comment(ctx: RecipeContext) -> None:
    """A listener rewrites their most recent comment: their comments are read newest first, the first one
    edited."""
    user = ctx.pick(
        "SELECT u.user_id, u.username, u.display_name, (SELECT c.comment_id FROM comments AS c WHERE "
        "c.user_id = u.user_id ORDER BY c.created_at DESC, c.comment_id DESC LIMIT 1) AS latest FROM users "
        f"AS u WHERE {ACTIVE} AND EXISTS (SELECT 1 FROM comments AS c WHERE c.user_id = u.user_id)",
        what="listener with comments",
    )
    body = ctx.choice(EDITS)
    introduce(ctx, user)
    ctx.say(
        [
            'Please change the text of my most recent comment to: "{body}"',
            'Edit the last comment I wrote so it says "{body}"',
        ],
        body=body,
    )
    ctx.read(
        "list_comments",
        {"username": user["username"], "sort_by": "newest", "limit": 1},
        step=f"Find @{user['username']}'s latest comment",
    )
    ctx.call(
        "edit_comment",
        {"username": user["username"], "comment_id": user["latest"], "body": body},
        step=f"Edit comment {user['latest']}",
    )
    ctx.goal(
        "the comment says the new text", "SELECT body FROM comments WHERE comment_id = ?", [user["latest"]]
    )
