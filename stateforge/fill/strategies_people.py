"""People and places: names, user names and e-mails consistent with the row's names, phones, addresses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from stateforge.fill.pools import pool, sample, stable_hash
from stateforge.fill.spec import Ctx
from stateforge.fill.strings import ascii_lower, join, numbers, pattern_codes, truncate

FREE_MAIL_SHARE = 0.6
"""Share of e-mails at free providers (gmail.com, ...); the rest at made-up company domains."""
SHORT_EMAIL = 48
"""E-mail columns narrower than this get free providers only, to leave room for the names."""


def pooled(provider: str, **args: Any) -> Callable[[Ctx], pa.Array]:
    def strategy(ctx: Ctx) -> pa.Array:
        made = pool(provider, seed=ctx.seed, size=ctx.spec.pool or 2000, args=args or None)
        return sample(made, ctx.rng, ctx.n)

    strategy.__doc__ = f"Faker's `{provider}`, sampled from a pool."
    return strategy


def _names(ctx: Ctx, role: str) -> pa.Array:
    """The row's `role` names (first, last, full) if the table has that column, else fresh ones."""
    source = ctx.spec.sources.get(role)
    if source is not None and source.lower() in ctx.row:
        return ctx.row[source.lower()]
    if role == "full":
        return join(_names(ctx, "first"), _names(ctx, "last"), sep=" ")
    provider = "first_name" if role == "first" else "last_name"
    return sample(pool(provider, seed=ctx.seed, distinct=True), ctx.rng, ctx.n)


def first_name(ctx: Ctx) -> pa.Array:
    return sample(pool("first_name", seed=ctx.seed, distinct=True), ctx.rng, ctx.n)


def last_name(ctx: Ctx) -> pa.Array:
    return sample(pool("last_name", seed=ctx.seed, distinct=True), ctx.rng, ctx.n)


def full_name(ctx: Ctx) -> pa.Array:
    """`First Last`, from the row's first and last names when the table has them."""
    return join(_names(ctx, "first"), _names(ctx, "last"), sep=" ")


def _name_parts(ctx: Ctx) -> tuple[pa.Array, pa.Array]:
    """Lower-case ASCII first and last names of the row (split from a full name if that is all there is)."""
    if "first" in ctx.spec.sources or "last" in ctx.spec.sources or "full" not in ctx.spec.sources:
        return ascii_lower(_names(ctx, "first")), ascii_lower(_names(ctx, "last"))
    words = pc.split_pattern(pc.utf8_lower(_names(ctx, "full")), " ")
    first = pc.list_element(words, 0)
    last = pc.binary_join(pc.list_slice(words, 1), "")
    return ascii_lower(first), ascii_lower(last)


def _handle(ctx: Ctx, separators: tuple[str, ...]) -> pa.Array:
    """A handle made from the row's names in a few common shapes: jane.doe, janedoe, jane_doe, jdoe."""
    first, last = _name_parts(ctx)
    initial = ctx.rng.random(ctx.n) < 1 / (len(separators) + 1)
    first = pc.if_else(pa.array(initial), pc.utf8_slice_codeunits(first, 0, 1), first)
    seps = pa.array(separators).take(ctx.rng.integers(0, len(separators), ctx.n))
    return join(first, last, sep=pc.if_else(pa.array(initial), "", seps))


def _number_suffix(ctx: Ctx) -> pa.Array:
    """The row number when the column is unique (distinct by construction), else two digits on some rows."""
    if ctx.spec.unique:
        return numbers(ctx.ordinals)
    digits = numbers(ctx.rng.integers(1, 100, ctx.n))
    return pc.if_else(pa.array(ctx.rng.random(ctx.n) < 0.4), digits, "")


def _suffix_room(ctx: Ctx) -> int:
    return len(str(ctx.start + ctx.n)) if ctx.spec.unique else 2


def username(ctx: Ctx) -> pa.Array:
    handles = _handle(ctx, ("", "_", "."))
    if ctx.spec.max_len is not None:
        handles = truncate(handles, max(ctx.spec.max_len - _suffix_room(ctx), 1))
    return join(handles, _number_suffix(ctx))


def mail_domains(ctx: Ctx) -> pa.Array:
    """Free providers and made-up domains; free providers only (short names) in short columns."""
    free = sample(pool("free_email_domain", seed=ctx.seed, size=50, distinct=True), ctx.rng, ctx.n)
    if ctx.spec.max_len is not None and ctx.spec.max_len < SHORT_EMAIL:
        return free
    return pc.if_else(pa.array(ctx.rng.random(ctx.n) < FREE_MAIL_SHARE), free, domains(ctx))


def email(ctx: Ctx) -> pa.Array:
    """`first.last<n>@domain`, consistent with the row's names; the row number makes unique ones distinct."""
    handles = _handle(ctx, (".", "", "_"))
    suffix = _number_suffix(ctx)
    hosts = mail_domains(ctx)
    if ctx.spec.max_len is not None:
        longest_host = pc.max(pc.utf8_length(hosts)).as_py() or 0
        handles = truncate(handles, max(ctx.spec.max_len - 1 - longest_host - _suffix_room(ctx), 1))
    return join(handles, suffix, "@", hosts)


def domains(ctx: Ctx) -> pa.Array:
    """`word.tld` or `wordword.tld`; unique ones carry the row number in their first label."""
    words = pc.unique(ascii_lower(pool("word", seed=ctx.seed, distinct=True)))
    second = pc.if_else(pa.array(ctx.rng.random(ctx.n) < 0.5), sample(words, ctx.rng, ctx.n), "")
    number = numbers(ctx.ordinals) if ctx.spec.unique and ctx.spec.strategy == "domain" else ""
    tlds = pool("tld", seed=ctx.seed, size=200, distinct=True)
    return join(sample(words, ctx.rng, ctx.n), second, number, ".", sample(tlds, ctx.rng, ctx.n))


def phone(ctx: Ctx) -> pa.Array:
    """North-American style numbers, fitted to the column's length; unique ones distinct by construction."""
    width = ctx.spec.max_len
    pattern = "(###) ###-####" if width is None or width >= 14 else "#" * min(width, 10)
    codes = pattern_codes(
        pattern, ctx.rng, ctx.ordinals, unique=ctx.spec.unique, key=stable_hash(ctx.spec.key)
    )
    return codes


def address(ctx: Ctx) -> pa.Array:
    made = pool("address", seed=ctx.seed, size=ctx.spec.pool or 2000)
    return pc.replace_substring(sample(made, ctx.rng, ctx.n), "\n", ", ")


PEOPLE_STRATEGIES = {
    "first_name": first_name,
    "last_name": last_name,
    "full_name": full_name,
    "username": username,
    "email": email,
    "phone": phone,
    "company": pooled("company"),
    "job_title": pooled("job"),
    "address": address,
    "street": pooled("street_address"),
    "city": pooled("city"),
    "state": pooled("state"),
    "postcode": pooled("postcode"),
}
