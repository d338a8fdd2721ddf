"""The teaching pack end to end, as docs/domain-packs.md walks through it: it builds clean with its rules
and policies holding, its recipes make tasks the gate keeps (the policy detour among them), the oracle
solves them all and doing nothing solves only the infeasible ones."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.domain import load_domain
from stateforge.episode import Episode
from stateforge.evaluate import evaluate
from stateforge.tasks.runner import generate_tasks

NOW = "TIMESTAMP '2026-06-30 23:59:59'"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("library")
    report = build_domain("library", out=out)
    assert report["totals"]["violations"] == 0
    return out / "library.duckdb"


@pytest.fixture(scope="module")
def tasks(built: Path) -> list[dict]:
    generate_tasks(built, n=24, seed=3, out=built.parent)
    return [json.loads(line) for line in (built.parent / "tasks.jsonl").read_text().splitlines()]


def test_the_data_keeps_the_policies_it_states(built: Path):
    checks = {p.name: p.check for p in load_domain("library").config.policies if p.check}
    with duckdb.connect(str(built), read_only=True) as con:
        for name, sql in checks.items():
            assert con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0] == 0, name
        late = con.execute(f"SELECT count(*) FROM loans WHERE returned_at > {NOW} OR borrowed_at > {NOW}")
        assert late.fetchone()[0] == 0
        blocked = con.execute(
            "SELECT count(DISTINCT member_id) FROM loans "
            f"WHERE returned_at IS NULL AND due_on < CAST({NOW} AS DATE)"
        ).fetchone()[0]
    assert blocked >= 10  # enough members with overdue books for the detour


def test_borrowing_is_refused_by_name_while_a_book_is_overdue(built: Path, tmp_path: Path):
    with duckdb.connect(str(built), read_only=True) as con:
        card, barcode = con.execute(
            "SELECT m.card_number, (SELECT min(barcode) FROM copies WHERE status = 'on_shelf') "
            "FROM members AS m JOIN loans AS l USING (member_id) "
            f"WHERE l.returned_at IS NULL AND l.due_on < CAST({NOW} AS DATE) "
            "ORDER BY 1 LIMIT 1"
        ).fetchone()
    with Episode.open(built, workdir=tmp_path) as ep:
        refused = ep.call("borrow_copy", {"card_number": card, "barcode": barcode})
        assert not refused.ok and refused.policy == "overdue_blocks_borrowing"
        overdue = ep.call("list_loans", {"card_number": card, "state": "overdue", "limit": 20}).value
        codes = [row["barcode"] for row in overdue["rows"]]
        assert ep.call("return_copies", {"card_number": card, "barcodes": codes}).ok
        assert ep.call("borrow_copy", {"card_number": card, "barcode": barcode}).ok


def test_every_recipe_keeps_tasks_and_the_oracle_solves_them(built: Path, tasks: list[dict], tmp_path: Path):
    recipes = {t["provenance"]["recipe"] for t in tasks}
    assert recipes == {"return_overdue_books", "borrow_a_title", "return_then_borrow"}
    assert any(not t["feasible"] for t in tasks)
    oracle = evaluate(built, solver="oracle", out=tmp_path / "oracle")
    assert oracle["passed"] == oracle["episodes"] == len(tasks)
    noop = evaluate(built, solver="noop", out=tmp_path / "noop")
    assert noop["passed"] == sum(not t["feasible"] for t in tasks)
