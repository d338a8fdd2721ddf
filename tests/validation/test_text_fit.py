"""Text that fits its row: a `values_by` hint picks a mail's subject and body from its category's lists
(paired), its check (kind `text`) catches a row whose text belongs to another category, the build's
repair picks again from the right list."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from pydantic import ValidationError

from stateforge.domain.config import ColumnHint, DomainConfig
from stateforge.schema import load_ddl
from stateforge.validation.rules import apply_rules
from stateforge.validation.text_fit import text_rules

DDL = """CREATE TABLE mail (mail_id INTEGER PRIMARY KEY, category VARCHAR NOT NULL, subject VARCHAR NOT NULL,
    body VARCHAR);"""
TEXTS = {"event": ["Event prize", "Login streak reward"], "clan": ["Clan weekly bonus", "Clan war starts"]}
BODIES = {"event": ["You won a prize.", "Seven days in a row!"], "clan": ["Bonus for all.", "War tomorrow."]}


def config() -> DomainConfig:
    return DomainConfig.model_validate({"name": "mail", "columns": {
        "mail.subject": {"values_by": {"column": "category", "pick_by": ["mail_id"], "values": TEXTS}},
        "mail.body": {"values_by": {"column": "category", "pick_by": ["mail_id"], "values": BODIES}},
    }})


def test_text_is_picked_by_the_row_and_paired() -> None:
    con = duckdb.connect()
    con.execute(DDL)
    cfg = config()
    subject, body = cfg.hint("mail", "subject").expr, cfg.hint("mail", "body").expr
    con.execute("INSERT INTO mail SELECT i, CASE WHEN i % 2 = 0 THEN 'event' ELSE 'clan' END, '', '' "
                "FROM range(40) t(i)")
    con.execute(f"UPDATE mail SET subject = {subject}, body = {body}")
    for category, s, b in con.execute("SELECT category, subject, body FROM mail").fetchall():
        assert s in TEXTS[category] and TEXTS[category].index(s) == BODIES[category].index(b)
    assert con.execute("SELECT count(DISTINCT subject) FROM mail").fetchall() == [(4,)]  # every text is used


def test_the_text_check_catches_a_row_and_the_build_repairs_it(tmp_path: Path) -> None:
    ddl = tmp_path / "mail.sql"
    ddl.write_text(DDL)
    schema = load_ddl(ddl, "duckdb")
    con = duckdb.connect()
    con.execute(DDL)
    con.execute("INSERT INTO mail VALUES (1, 'event', 'Event prize', 'You won a prize.'), "
                "(2, 'event', 'Clan war starts', 'War tomorrow.'), (3, 'clan', 'Clan weekly bonus', NULL)")
    rules = {r.name: r for r in text_rules(schema, config())}
    assert {r.kind for r in rules.values()} == {"text"}
    assert con.execute(f"SELECT count(*) FROM ({rules['text_fits_mail_subject'].check})").fetchall() == [(1,)]
    reports = {r.name: r for r in apply_rules(con, schema, config(), rules=list(rules.values()))}
    assert reports["text_fits_mail_subject"].found == 1 and reports["text_fits_mail_body"].found == 1
    (subject, body), = con.execute("SELECT subject, body FROM mail WHERE mail_id = 2").fetchall()
    assert subject in TEXTS["event"] and body in BODIES["event"]
    assert con.execute("SELECT subject FROM mail WHERE mail_id = 1").fetchall() == [("Event prize",)]


def test_values_by_gives_the_values_alone() -> None:
    with pytest.raises(ValidationError, match="values_by gives the values"):
        ColumnHint.model_validate({"values": ["a"], "values_by": {"column": "c", "pick_by": ["id"],
                                                                 "values": {"x": ["a"]}}})


def test_a_config_read_back_from_a_build_keeps_its_text_hints() -> None:
    import json

    # as build_meta holds it: JSON with its keys sorted
    stored = json.loads(json.dumps(config().model_dump(mode="json"), sort_keys=True))
    made = config().hint("mail", "subject").expr
    assert DomainConfig.model_validate(stored).hint("mail", "subject").expr == made


def test_a_null_rate_leaves_that_share_of_rows_without_text() -> None:
    hint = ColumnHint.model_validate(
        {"null_rate": 0.3, "values_by": {"column": "category", "pick_by": ["mail_id"], "values": TEXTS}}
    )
    con = duckdb.connect()
    con.execute(DDL)
    con.execute("INSERT INTO mail SELECT i, CASE WHEN i % 2 = 0 THEN 'event' ELSE 'clan' END, '', '' "
                "FROM range(2000) t(i)")
    con.execute(f"UPDATE mail SET body = {hint.expr}")
    rows = con.execute("SELECT category, body FROM mail").fetchall()
    assert 500 <= sum(body is None for _, body in rows) <= 700
    assert all(body is None or body in TEXTS[category] for category, body in rows)
    again = ColumnHint.model_validate(hint.model_dump(mode="json"))  # as a build stores it
    assert again.expr == hint.expr


PARENTS = """CREATE TABLE games (game_id INTEGER PRIMARY KEY, genre VARCHAR NOT NULL);
CREATE TABLE reviews (review_id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games (game_id),
    body VARCHAR);"""
REVIEWS = {"racing": ["Fast cars, tight corners.", "The drift feels great."],
           "puzzle": ["Clever levels.", "That last riddle took me an hour."]}


def test_text_read_through_a_parent_is_set_after_the_fill_and_kept(tmp_path: Path) -> None:
    from stateforge.validation.text_fit import fill_parent_texts

    ddl = tmp_path / "games.sql"
    ddl.write_text(PARENTS)
    schema = load_ddl(ddl, "duckdb")
    cfg = DomainConfig.model_validate({"name": "games", "columns": {"reviews.body": {"values_by": {
        "column": "genre", "pick_by": ["review_id"], "values": REVIEWS, "default": ["Fun."],
        "via": "(SELECT g.genre FROM games AS g WHERE g.game_id = reviews.game_id)"}}}})
    fill = cfg.hint("reviews", "body").expr
    assert "games" not in fill  # the fill reads the row alone: it writes the default texts
    con = duckdb.connect()
    con.execute(PARENTS)
    con.execute("INSERT INTO games VALUES (1, 'racing'), (2, 'puzzle'), (3, 'chess')")
    con.execute("INSERT INTO reviews SELECT i, i % 3 + 1, NULL FROM range(60) t(i)")
    con.execute(f"UPDATE reviews SET body = {fill} WHERE review_id % 10 <> 0")  # a tenth left NULL
    assert con.execute("SELECT DISTINCT body FROM reviews WHERE body IS NOT NULL").fetchall() == [("Fun.",)]
    assert fill_parent_texts(con, schema, cfg) == {"reviews.body": 54}
    rows = con.execute("SELECT g.genre, r.body FROM reviews AS r JOIN games AS g USING (game_id)").fetchall()
    assert all(body is None or body in REVIEWS.get(genre, ["Fun."]) for genre, body in rows)
    assert sum(body is None for _, body in rows) == 6 and len({b for _, b in rows if b}) == 5
    (rule,) = text_rules(schema, cfg)
    assert con.execute(f"SELECT count(*) FROM ({rule.check})").fetchall() == [(0,)]
    # a repair elsewhere changes a parent: the check names the rows by the value read through it, the
    # build's repair picks their text again
    con.execute("UPDATE games SET genre = 'puzzle' WHERE game_id = 1")
    found = con.execute(rule.check).fetchall()
    assert len(found) == 18 and {genre for _, genre, _ in found} == {"puzzle"}
    (report,) = apply_rules(con, schema, cfg, rules=[rule])
    assert report.found == 18 and con.execute(f"SELECT count(*) FROM ({rule.check})").fetchall() == [(0,)]


def test_a_via_that_duckdb_cannot_compute_names_the_hint(tmp_path: Path) -> None:
    from stateforge.errors import DomainError
    from stateforge.validation.text_fit import fill_parent_texts

    ddl = tmp_path / "games.sql"
    ddl.write_text(PARENTS)
    schema = load_ddl(ddl, "duckdb")
    cfg = DomainConfig.model_validate({"name": "games", "columns": {"reviews.body": {"values_by": {
        "column": "genre", "pick_by": ["review_id"], "values": REVIEWS,
        "via": "(SELECT g.kind FROM games AS g WHERE g.game_id = reviews.game_id)"}}}})
    con = duckdb.connect()
    con.execute(PARENTS)
    with pytest.raises(DomainError, match=r"columns\.reviews\.body\.values_by\.via: DuckDB could not"):
        fill_parent_texts(con, schema, cfg)


def test_tails_follow_a_share_of_texts_and_the_check_knows_them(tmp_path: Path) -> None:
    ddl = tmp_path / "mail.sql"
    ddl.write_text(DDL)
    schema = load_ddl(ddl, "duckdb")
    cfg = DomainConfig.model_validate({"name": "mail", "columns": {"mail.subject": {"values_by": {
        "column": "category", "pick_by": ["mail_id"], "values": TEXTS, "tails": ["Soon!", "Hurry."],
        "tail_rate": 0.5}}}})
    con = duckdb.connect()
    con.execute(DDL)
    con.execute("INSERT INTO mail SELECT i, CASE WHEN i % 2 = 0 THEN 'event' ELSE 'clan' END, '', '' "
                "FROM range(2000) t(i)")
    con.execute(f"UPDATE mail SET subject = {cfg.hint('mail', 'subject').expr}")
    rows = con.execute("SELECT category, subject FROM mail").fetchall()
    tailed = [s for _, s in rows if s.endswith((" Soon!", " Hurry."))]
    assert 800 <= len(tailed) <= 1200
    assert all(s.rsplit(" ", 1)[0] in TEXTS[c] if s.endswith((" Soon!", " Hurry.")) else s in TEXTS[c]
               for c, s in rows)
    assert con.execute("SELECT count(DISTINCT subject) FROM mail").fetchall() == [(12,)]
    (rule,) = text_rules(schema, cfg)
    assert con.execute(f"SELECT count(*) FROM ({rule.check})").fetchall() == [(0,)]
    con.execute("UPDATE mail SET subject = 'Event prize Later.' WHERE mail_id = 0")  # not a tail it lists
    assert con.execute(f"SELECT count(*) FROM ({rule.check})").fetchall() == [(1,)]
