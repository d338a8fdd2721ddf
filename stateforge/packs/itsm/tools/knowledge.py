"""Knowledge: search and read articles, rate them, and the author's workflow (draft, publish, retire)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Limit, Offset, actor, category, record

READS = (*PEOPLE, "kb_articles", "knowledge_bases", "kb_feedback", "categories")
VIEW = (
    "SELECT a.number, a.short_description, kb.title AS knowledge_base, c.name AS category, c.subcategory, "
    "a.workflow_state, u.user_name AS author, a.published_at, a.view_count, "
    "(SELECT round(avg(f.rating), 2) FROM kb_feedback AS f WHERE f.article_id = a.article_id) AS rating, "
    "(SELECT count(*) FROM kb_feedback AS f WHERE f.article_id = a.article_id) AS ratings "
    "FROM kb_articles AS a JOIN knowledge_bases AS kb USING (kb_id) JOIN categories AS c USING (category_id) "
    "JOIN users AS u ON u.user_id = a.author_id"
)


def author_only(me, what: str) -> None:
    if not me.has("knowledge_author"):
        raise refuse(
            "knowledge_publishing",
            f"{me.name} is not a knowledge author and cannot {what}"
        )


@tool(reads=READS)
def search_knowledge(
    env: Env,
    query: str | None = None,
    category_name: str | None = None,
    state: Literal["published", "draft", "review", "retired", "any"] = "published",
    sort: Literal["views", "rating", "newest"] = "views",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Knowledge articles whose title contains the words of `query`; employees see published ones only.

    Args:
        query: Words of the article's title.
        category_name: The category's name.
        state: published (default), draft, review, retired or any (authors and IT staff only for the others).
        sort: views (most read first), rating (best rated first) or newest.
    """
    me = actor(env)
    if state != "published" and not (me.has("knowledge_author") or me.has("itil")):
        raise refuse(
            "knowledge_publishing", "only published articles are shown to employees", argument="state"
        )
    where, params = ["TRUE"], []
    for word in (query or "").lower().split():
        where.append("lower(a.short_description) LIKE ?")
        params.append(f"%{word}%")
    if category_name:
        where.append("lower(c.name) = lower(?)")
        params.append(category_name)
    if state != "any":
        where.append("a.workflow_state = ?")
        params.append(state)
    order = {
        "views": "view_count DESC, number",
        "rating": "rating DESC NULLS LAST, number",
        "newest": "published_at DESC NULLS LAST, number",
    }[sort]
    return env.page(
        f"SELECT * FROM ({VIEW} WHERE {' AND '.join(where)}) AS kb",
        params,
        order_by=order,
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def get_article(env: Env, number: str) -> dict:
    """One article with its text and its readers' ratings.

    Args:
        number: The article number (KB0010001).
    """
    me = actor(env)
    art = record(env, "kb_articles", number)
    if art["workflow_state"] != "published" and not (me.has("knowledge_author") or me.has("itil")):
        raise refuse(
            "knowledge_publishing", "only published articles are shown to employees", argument="number"
        )
    row = env.one(f"{VIEW} WHERE a.article_id = ?", [art["article_id"]])
    row["body"] = art["body"]
    return row


@tool(kind="write", reads=READS, writes=("kb_articles",), idempotent=False)
def create_article(
    env: Env,
    knowledge_base: str,
    category_name: str,
    subcategory: str,
    short_description: Annotated[str, Field(min_length=3, max_length=120)],
    body: Annotated[str, Field(min_length=3, max_length=2000)],
) -> dict:
    """Write a new article as a draft.

    Args:
        knowledge_base: The knowledge base's title (IT Self-Help, Service Desk Runbooks, Security Advisories).
        category_name: The category.
        subcategory: The subcategory.
        short_description: The title.
        body: The text.
    """
    me = actor(env)
    author_only(me, "write articles")
    kb = env.one("SELECT kb_id FROM knowledge_bases WHERE lower(title) = lower(?)", [knowledge_base])
    if kb is None:
        raise ToolError(f"no knowledge base is called {knowledge_base!r}.", argument="knowledge_base")
    cat = category(env, category_name, subcategory)
    last = env.scalar("SELECT max(number) FROM kb_articles")
    number = f"KB{int(last[2:]) + 1:07d}" if last else "KB0010001"
    env.insert(
        "kb_articles",
        {
            "number": number,
            "kb_id": kb["kb_id"],
            "category_id": cat["category_id"],
            "author_id": me.id,
            "short_description": short_description,
            "body": body,
            "workflow_state": "draft",
            "created_at": env.now,
            "view_count": 0,
        },
    )
    return {"number": number, "workflow_state": "draft"}


@tool(kind="write", reads=READS, writes=("kb_articles",), idempotent=True)
def publish_article(env: Env, number: str) -> dict:
    """Publish a draft or reviewed article.

    Args:
        number: The article number.
    """
    me = actor(env)
    author_only(me, "publish articles")
    art = record(env, "kb_articles", number)
    if art["workflow_state"] not in ("draft", "review"):
        raise refuse(
            "knowledge_publishing",
            f"{art['number']} is {art['workflow_state']}: only drafts and articles in review are published",
            argument="number",
        )
    env.update("kb_articles", art["article_id"], {"workflow_state": "published", "published_at": env.now})
    return {"number": art["number"], "workflow_state": "published"}


@tool(kind="write", reads=READS, writes=("kb_articles",), idempotent=True)
def retire_article(env: Env, number: str) -> dict:
    """Retire a published article that is out of date.

    Args:
        number: The article number.
    """
    me = actor(env)
    author_only(me, "retire articles")
    art = record(env, "kb_articles", number)
    if art["workflow_state"] != "published":
        raise refuse(
            "knowledge_publishing",
            f"{art['number']} is {art['workflow_state']}: only published articles are retired",
            argument="number",
        )
    env.update("kb_articles", art["article_id"], {"workflow_state": "retired"})
    return {"number": art["number"], "workflow_state": "retired"}


@tool(kind="write", reads=READS, writes=("kb_feedback",), idempotent=False)
def rate_article(
    env: Env,
    number: str,
    rating: Annotated[int, Field(ge=1, le=5)],
    comments: Annotated[str, Field(max_length=300)] | None = None,
) -> dict:
    """Rate a published article, 1 to 5 stars (4 or more counts as helpful); once per reader.

    Args:
        number: The article number.
        rating: 1 to 5.
        comments: A remark for the author.
    """
    me = actor(env)
    art = record(env, "kb_articles", number)
    if art["workflow_state"] != "published":
        raise refuse("knowledge_publishing", f"{art['number']} is not published", argument="number")
    if env.scalar(
        "SELECT count(*) FROM kb_feedback WHERE article_id = ? AND user_id = ?", [art["article_id"], me.id]
    ):
        raise refuse("knowledge_publishing", f"{me.name} rated {art['number']} already", argument="number")
    env.insert(
        "kb_feedback",
        {
            "article_id": art["article_id"],
            "user_id": me.id,
            "rating": rating,
            "helpful": rating >= 4,
            "comments": comments,
            "created_at": env.now,
        },
    )
    return {"number": art["number"], "rating": rating}


KNOWLEDGE_TOOLS = [
    search_knowledge,
    get_article,
    create_article,
    publish_article,
    retire_article,
    rate_article,
]
