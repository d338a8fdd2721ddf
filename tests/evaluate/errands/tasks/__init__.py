"""One storyline in which every mutant kind applies, and its all-or-nothing infeasible twin.

    the pending orders of a date range (every page; an order pending the day before the range exists)
    -> cancel them -> order a product told apart from its same-name twin by its brand -> leave a note
"""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step
from stateforge.tasks.picks import introduce, read_pages

NOTES = ("Please leave parcels at the back door.", "I'm away until the 20th: hold deliveries.")


def _cast(story: Story, *, shipped: bool) -> None:
    """A customer, a range of 12+ orders starting the day after one of their pending orders, with pending
    orders on the second page (and, for the infeasible twin, a shipped one inside)."""
    ctx = story.ctx
    who = ctx.pick("SELECT customer_id, email, name FROM customers AS c WHERE "
                   "(SELECT count(*) FROM orders AS o WHERE o.customer_id = c.customer_id) >= 16",
                   what="customer with 16+ orders")
    orders = [{**o, "day": dt.date.fromisoformat(str(o["day"])[:10])} for o in ctx.sql(
        "SELECT order_id, CAST(placed_at AS DATE) AS day, status FROM orders WHERE customer_id = ? "
        "ORDER BY placed_at, order_id", [who["customer_id"]])]
    for i, edge in enumerate(orders):
        start = edge["day"] + dt.timedelta(days=1)
        inside = [o for o in orders[i + 1:] if o["day"] >= start][:14]
        if edge["status"] != "pending" or len(inside) < 12 or inside[0]["day"] == edge["day"]:
            continue
        late = [o for o in inside[10:] if o["status"] == "pending"]
        early = [o for o in inside[:10] if o["status"] == "pending"]
        has_shipped = any(o["status"] in ("paid", "shipped") for o in inside)
        until = inside[-1]["day"]
        after = [o for o in orders if o["day"] == until and o not in inside]
        if late and early and not after and (has_shipped or not shipped):
            break
    else:
        raise Skip("no range", "no run of orders with pending ones on both pages after a pending order")
    story["who"], story["start"], story["until"] = who, start, until
    introduce(ctx, "customer", "customers", {"email": who["email"]}, who["name"], who["email"],
              variants=("I'm {name} ({handle}).",))


def cast(story: Story) -> None:
    _cast(story, shipped=False)


def cast_shipped(story: Story) -> None:
    _cast(story, shipped=True)


@step(inputs=("who", "start", "until"), outputs=("pending",), goal="the range's pending orders",
      capabilities=("multi_condition_filtering", "full_data_acquisition"))
def pending_orders(story: Story) -> None:
    who = story["who"]
    rows = read_pages(story.ctx, "list_orders", {"email": who["email"], "placed_from": story["start"],
                                                 "placed_until": story["until"]},
                      step="List the range's orders", per_page=10)
    story["pending"] = [r["order_id"] for r in rows if r["status"] == "pending"]
    story.knob("solver_filtering", "pending among the range's orders")
    story.distractor("a pending order the day before the range",
                     "SELECT count(*) FROM orders AS o JOIN customers AS c USING (customer_id) "
                     "WHERE c.email = ? AND o.status = 'pending' AND CAST(o.placed_at AS DATE) = ?",
                     [who["email"], story["start"] - dt.timedelta(days=1)])


@step(inputs=("who", "pending", "start", "until"), goal="they are cancelled")
def cancel(story: Story) -> None:
    story.say("Cancel every order of mine still pending that I placed from {start} to {until}, both days "
              "included.", start=story["start"], until=story["until"])
    who = story["who"]
    story.call("cancel_orders", {"email": who["email"], "order_ids": story["pending"]},
               step="Cancel the pending ones")
    story.ctx.goal("the range's pending orders are cancelled",
                   "SELECT list(order_id ORDER BY order_id) AS cancelled FROM orders WHERE customer_id = ? "
                   "AND list_contains(?, order_id) AND status = 'cancelled'",
                   [who["customer_id"], story["pending"]], expected=[{"cancelled": sorted(story["pending"])}])


@step(inputs=("who",), outputs=("product",), goal="the product of that brand is ordered")
def order_product(story: Story) -> None:
    twin = story.sql("SELECT name FROM products GROUP BY name HAVING count(*) >= 2 AND count(DISTINCT brand) "
                     "= count(*) ORDER BY name")
    if not twin:
        raise Skip("no same-name products")
    name = story.rng.choice(twin)["name"]
    found = read_pages(story.ctx, "search_products", {"query": name}, step=f"Find the {name}s", per_page=10)
    same = [r for r in found if r["name"] == name]
    product = story.rng.choice(same)
    story.say("Then order two of the {brand} {name}.", brand=product["brand"], name=name)
    story.call("place_order", {"email": story["who"]["email"], "product_id": product["product_id"],
                               "quantity": 2}, step="Order it")
    story.ctx.goal("two of that product are ordered",
                   "SELECT count(*) AS n FROM orders WHERE customer_id = ? AND product_id = ? "
                   "AND quantity = 2 AND status = 'pending'",
                   [story["who"]["customer_id"], product["product_id"]])
    story["product"] = product


@step(inputs=("who",), goal="the note is left")
def note(story: Story) -> None:
    text = story.rng.choice(NOTES)
    story.say("And add this note to my account: \"{text}\"", text=text)
    story.call("add_note", {"email": story["who"]["email"], "text": text}, step="Leave the note")
    story.ctx.goal("the note is on the account",
                   "SELECT count(*) AS n FROM notes WHERE customer_id = ? AND body = ?",
                   [story["who"]["customer_id"], text], expected=[{"n": 1}])


@step(inputs=("who", "start", "until"), goal="nothing: a shipped order is in the range")
def cancel_all_or_none(story: Story) -> None:
    story.say("Cancel every order I placed from {start} to {until}, both days included; if any of them can "
              "no longer be cancelled, cancel none of them.", start=story["start"], until=story["until"])
    email = story["who"]["email"]
    rows = read_pages(story.ctx, "list_orders",
                      {"email": email, "placed_from": story["start"], "placed_until": story["until"]},
                      step="List the range's orders", per_page=10)
    story.blocked("cancel_orders", {"email": email, "order_ids": [r["order_id"] for r in rows]},
                  kind="forbidden",
                  because="an order of the range has shipped or been paid: none is cancelled")


TIDY = Storyline("tidy_and_reorder", cast=cast, provides=("who", "start", "until"),
                 steps=(pending_orders, cancel, order_product, note))
ALL_OR_NONE = Storyline("cancel_range_all_or_none", cast=cast_shipped, provides=("who", "start", "until"),
                        steps=(cancel_all_or_none,), feasible=False, weight=0.3)

RECIPES = [TIDY.recipe(), ALL_OR_NONE.recipe()]
