"""Recipes for the catalogue, knowledge and the CMDB: order items, approve a report's items as their manager,
retire poorly rated articles, write and publish one, relate configuration items, manage a team."""

from __future__ import annotations

from stateforge.tasks import RecipeContext, recipe

from .common import PERSON, has_role, in_group, introduce, someone, swap_person


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def order_equipment(ctx: RecipeContext) -> None:
    """An employee orders catalogue items for themself. Variants: more than the item allows, or an item that
    is no longer offered (catalog_ordering)."""
    who = someone(ctx, "u.manager_id IS NOT NULL", what="employee with a manager")
    first = ctx.pick(
        "SELECT name, max_quantity FROM catalog_items WHERE active AND catalog_category_id IN (1, 2, 4)",
        what="item",
    )
    second = ctx.pick(
        "SELECT name FROM catalog_items WHERE active AND max_quantity >= 2 AND name <> ?",
        [first["name"]],
        what="second item",
    )
    qty = 2
    introduce(ctx, who)
    ctx.say(
        [
            "I'd like to order one {first} and {qty} of {second}.",
            "Please order for me: a {first}, plus {qty} x {second}.",
        ],
        first=first["name"],
        qty=qty,
        second=second["name"],
    )
    ctx.call(
        "order_catalog_items",
        {
            "items": [{"item": first["name"], "quantity": 1}, {"item": second["name"], "quantity": qty}],
        },
    )
    ctx.goal(
        "the request holds both items",
        "SELECT list(i.name ORDER BY i.name) AS items FROM requests AS q JOIN "
        "requested_items AS r USING (request_id) JOIN catalog_items AS i USING (item_id) JOIN users AS u ON "
        "u.user_id = q.requested_for WHERE u.user_name = ? AND q.opened_at = ?",
        [who["user_name"], ctx.now],
    )
    big = ctx.pick(
        "SELECT name, max_quantity FROM catalog_items WHERE active AND max_quantity < 5 AND name NOT IN (?, "
        "?)",
        [first["name"], second["name"]],
        what="limited item",
    )
    ctx.infeasible(
        "forbidden",
        because=f"{big['name']} allows at most {big['max_quantity']} per request",
        swap={second["name"]: big["name"], qty: 5},
        policy="catalog_ordering",
    )


@recipe(capabilities=("full_data_acquisition", "cross_step_dependency"), difficulty="medium")
def manager_approves_reports(ctx: RecipeContext) -> None:
    """A manager approves every requested item waiting for their approval. Variant: someone else (not their
    manager) approves one of them (manager_approves_requests)."""
    mgr = ctx.pick(
        f"{PERSON} JOIN request_approvals AS a ON a.approver_id = u.user_id WHERE a.state = 'requested' "
        "AND u.active GROUP BY ALL",
        what="manager with approvals waiting",
    )
    introduce(ctx, mgr)
    ctx.say(
        [
            "Approve everything my team is waiting on in the catalogue.",
            "Please approve all the requested items that wait for my approval.",
        ]
    )
    waiting = ctx.read("list_my_request_approvals", {"limit": 50})
    for row in waiting["rows"]:
        ctx.call("approve_requested_item", {"number": row["number"]})
    ctx.goal(
        "nothing waits",
        "SELECT count(*) AS n FROM request_approvals WHERE approver_id = ? AND state = 'requested'",
        [mgr["user_id"]],
        expected=[{"n": 0}],
    )
    other = someone(ctx, "u.user_id NOT IN (SELECT approver_id FROM request_approvals)", what="not a manager")
    first = waiting["rows"][0]["number"]
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} is not the manager {first} waits for",
        instruction=f"I'm {other['full_name']} (user name {other['user_name']}). Approve {first} "
        "for my colleague, please.",
        calls=[("approve_requested_item", {"number": first})],
        swap=swap_person(mgr, other),  # signed in as the colleague
        policy="manager_approves_requests",
    )


@recipe(
    capabilities=("aggregation_computation", "full_data_acquisition", "multi_condition_filtering"),
    difficulty="hard",
)
def retire_poor_articles(ctx: RecipeContext) -> None:
    """A knowledge author retires every published article of a category rated below a threshold on average
    (by at least two readers). Variant: an employee who is not an author (knowledge_publishing)."""
    cat = ctx.pick(
        "SELECT c.name, count(*) AS n FROM kb_articles AS a JOIN categories AS c USING (category_id) "
        "WHERE a.workflow_state = 'published' GROUP BY c.name HAVING count(*) BETWEEN 3 AND 60",
        what="category with articles",
    )
    author = someone(ctx, has_role("knowledge_author"), what="knowledge author")
    threshold = ctx.choice((2.5, 3.0, 3.5))
    introduce(ctx, author)
    ctx.say(
        [
            "Retire every published {cat} article rated below {t} stars on average by two or more readers.",
            "Clean up {cat} knowledge: any published article whose average rating is under {t} (with at "
            "least two "
            "ratings) should be retired.",
        ],
        cat=cat["name"],
        t=threshold,
    )
    rows, offset = [], 0
    while True:
        page = ctx.read(
            "search_knowledge",
            {"category_name": cat["name"], "limit": 50, "offset": offset},
        )
        rows += page["rows"]
        offset += 50
        if offset >= page["total"]:
            break
    poor = [
        r["number"]
        for r in rows
        if r["ratings"] >= 2 and r["rating"] is not None and float(r["rating"]) < threshold
    ]
    if not poor:
        ctx.skip("no poorly rated article")
    for number in poor:
        ctx.call("retire_article", {"number": number})
    ctx.goal(
        "the poor articles are retired",
        "SELECT list(a.number ORDER BY a.number) AS retired FROM kb_articles "
        "AS a JOIN categories AS c USING (category_id) WHERE c.name = ? AND a.workflow_state = 'retired'",
        [cat["name"]],
    )
    other = someone(ctx, f"NOT {has_role('knowledge_author')}", what="not an author")
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} is not a knowledge author",
        swap=swap_person(author, other),
        policy="knowledge_publishing",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def publish_fix_article(ctx: RecipeContext) -> None:
    """A knowledge author writes a self-help article and publishes it."""
    author = someone(ctx, has_role("knowledge_author"), what="knowledge author")
    cat = ctx.pick(
        "SELECT name, subcategory FROM categories WHERE name IN ('Network', 'Software', 'Access')",
        what="category",
    )
    title = f"How to fix {cat['subcategory']} problems yourself"
    body = "1. Restart the device. 2. Sign in again. 3. Contact the Service Desk if it still fails."
    introduce(ctx, author)
    ctx.say(
        [
            "Write an article in IT Self-Help under {cat} / {sub} titled {title:q} with the text {body:q}, "
            "and "
            "publish it.",
            "Publish a new IT Self-Help article ({cat}, {sub}): {title:q}, body {body:q}.",
        ],
        cat=cat["name"],
        sub=cat["subcategory"],
        title=title,
        body=body,
    )
    made = ctx.call(
        "create_article",
        {
            "knowledge_base": "IT Self-Help",
            "category_name": cat["name"],
            "subcategory": cat["subcategory"],
            "short_description": title,
            "body": body,
        },
    )
    ctx.derived(made["number"], "the new article's number, returned by create_article")
    ctx.call("publish_article", {"number": made["number"]})
    ctx.goal(
        "published",
        "SELECT workflow_state FROM kb_articles WHERE short_description = ? AND author_id = ?",
        [title, author["user_id"]],
    )
    other = someone(ctx, f"NOT {has_role('knowledge_author')}", what="not an author")
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} is not a knowledge author",
        swap=swap_person(author, other),
        policy="knowledge_publishing",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def relate_cis(ctx: RecipeContext) -> None:
    """A member of an application's support group records that it depends on a database. Variant: someone
    outside the support group (cmdb_changes)."""
    app = ctx.pick(
        "SELECT ci.name, ci.support_group_id FROM configuration_items AS ci WHERE ci.class_id = 4 AND "
        "ci.operational_status = 'operational'",
        what="application",
    )
    db = ctx.pick(
        "SELECT ci.name FROM configuration_items AS ci WHERE ci.class_id = 3 AND ci.operational_status = "
        "'operational' AND NOT EXISTS (SELECT 1 FROM ci_relationships AS r JOIN configuration_items AS p ON "
        "p.ci_id = r.parent_ci_id WHERE r.child_ci_id = ci.ci_id AND p.name = ?)",
        [app["name"]],
        what="database",
    )
    who = someone(
        ctx, f"{has_role('itil')} AND {in_group('?')}", [app["support_group_id"]], what="support member"
    )
    introduce(ctx, who)
    ctx.say(
        [
            "Record in the CMDB that {app} depends on {db}.",
            "{app} now uses the database {db}: add the Depends on relation.",
        ],
        app=app["name"],
        db=db["name"],
    )
    ctx.call(
        "add_ci_relation",
        {"parent": app["name"], "child": db["name"], "relation": "Depends on"},
    )
    ctx.goal(
        "related",
        "SELECT count(*) AS n FROM ci_relationships AS r JOIN configuration_items AS p ON p.ci_id = "
        "r.parent_ci_id JOIN configuration_items AS c ON c.ci_id = r.child_ci_id WHERE p.name = ? AND "
        "c.name = ?",
        [app["name"], db["name"]],
    )
    other = someone(
        ctx,
        f"{has_role('itil')} AND NOT {in_group('?')} AND NOT {has_role('itil_admin')}",
        [app["support_group_id"]],
        what="outsider",
    )
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} is not in the support group of {app['name']}",
        swap=swap_person(who, other),
        policy="cmdb_changes",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def add_team_member(ctx: RecipeContext) -> None:
    """A group's manager adds a colleague to the group. Variant: the colleague has left
    (active_users_only)."""
    grp = ctx.pick(
        "SELECT g.name, g.group_id, u.user_name, u.first_name || ' ' || u.last_name AS full_name "
        "FROM assignment_groups AS g JOIN users AS u ON u.user_id = g.manager_id WHERE u.active",
        what="group with a manager",
    )
    new = someone(ctx, f"NOT {in_group('?')}", [grp["group_id"]], what="colleague outside the group")
    introduce(ctx, grp)
    ctx.say(
        ["Add {who} to {grp}.", "{who} joins my team {grp}: please add them."],
        who=new["user_name"],
        grp=grp["name"],
    )
    ctx.call(
        "add_group_member",
        {"group_name": grp["name"], "member": new["user_name"]},
    )
    ctx.goal(
        "a member",
        "SELECT count(*) AS n FROM group_members AS gm JOIN users AS u USING (user_id) WHERE "
        "u.user_name = ? AND gm.group_id = ?",
        [new["user_name"], grp["group_id"]],
    )
    gone = ctx.pick(f"{PERSON} WHERE NOT u.active", what="inactive user")
    ctx.infeasible(
        "forbidden",
        because=f"{gone['user_name']} has left the company",
        swap={new["user_name"]: gone["user_name"]},
        policy="active_users_only",
    )


RECIPES = [
    order_equipment,
    manager_approves_reports,
    retire_poor_articles,
    publish_fix_article,
    relate_cis,
    add_team_member,
]
