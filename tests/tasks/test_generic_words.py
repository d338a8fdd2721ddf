"""The generic path on every DDL fixture of the project and on the packs' schema.sql read as bare DDL:
12 instructions per fixture and per pack schema in the words people use (no raw identifier with an
underscore, no sentence used as a name, every named thing said with its kind), at least 10% infeasible,
at least 5 task families where the schema has 5 foreign keys, the oracle at 100% and noop at exactly the
infeasible share, the same bytes for the same seed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from stateforge.build import build_domain
from stateforge.evaluate import evaluate
from stateforge.schema import load_ddl
from stateforge.tasks import read_tasks
from stateforge.tasks.generic.names import is_sentence
from stateforge.tasks.runner import GenerationRun, run_generation
from tests.conftest import FIXTURES
from tests.tasks.conftest import built

pytestmark = [pytest.mark.slow]  # no xdist group: the 14 builds spread over the workers (each keeps its own)

PACKS = Path(__file__).resolve().parents[2] / "stateforge" / "packs"
DDLS = {p.stem: p for p in sorted((FIXTURES / "ddl").glob("*.sql"))} | {
    f"{p.parent.name}_bare": p
    for p in sorted(PACKS.glob("*/schema.sql"))
    if "members" not in (yaml.safe_load((p.parent / "domain.yaml").read_text()) or {})
}
"""Every DDL fixture, and every pack's schema.sql read as bare DDL (a composed pack's schema.sql only ties its
members' schemas together: it is not a DDL on its own)."""
N = 12
"""Generic tasks per DDL: 12 still span five families and two infeasible ones (itsm's 34 tables take the
longest to make)."""
QUOTED = re.compile(r"'[^']*'")
IDENTIFIER = re.compile(r"\b[A-Za-z0-9]+_[A-Za-z0-9_]+\b")


def _generated(root: Path, stem: str) -> Path:
    """The fixture built at --rows 30 (a bare DDL: a pack's schema.sql is copied out of its pack; a DDL
    fixture is read where it is, beside the files it includes) and N generic tasks generated beside it."""
    source = DDLS[stem]
    ddl = source
    if source.stem != stem:
        ddl = root / "ddl" / f"{stem}.sql"
        ddl.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, ddl)
    build_domain(str(ddl), rows=30, seed=5, out=root / stem)
    db = root / stem / f"{stem}.duckdb"
    run_generation(GenerationRun(db, n=N, seed=11, out=root / stem))
    return db


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "generic-words"


SAME_SEED = "oracle_script"
"""The fixture whose tasks are generated a second time, to the same bytes: in the test that builds it, so
that no other worker builds it again (the quickest to generate: a second run of T-SQL's took 10 s)."""


@pytest.mark.parametrize("stem", sorted(DDLS))
def test_generic_tasks_read_as_a_team_would_write_them(stem: str, root: Path, tmp_path: Path) -> None:
    db = built(f"generic-words:{stem}", lambda: _generated(root, stem))
    n = N
    if stem == SAME_SEED:  # the same seed gives the same generic tasks
        run_generation(GenerationRun(db, n=n, seed=11, out=tmp_path))
        assert (tmp_path / "tasks.jsonl").read_bytes() == (db.parent / "tasks.jsonl").read_bytes()
    tasks = read_tasks(db.parent / "tasks.jsonl")
    assert len(tasks) == n
    for task in tasks:
        outside = QUOTED.sub("", task.instruction)
        assert not IDENTIFIER.search(outside), f"{stem}: raw identifier in {task.instruction!r}"
        names = [p for ref in task.references for p in ref.params if isinstance(p, str)]
        assert not [n for n in names if is_sentence(n)], f"{stem}: a sentence as a name: {task.instruction!r}"
    infeasible = sum(not t.feasible for t in tasks)
    assert infeasible >= 0.1 * n, f"{stem}: {infeasible} of {n} infeasible"
    foreign_keys = sum(len(t.foreign_keys) for t in load_ddl(DDLS[stem]).tables)
    families = {t.provenance.recipe for t in tasks}
    if foreign_keys >= 5:
        assert len(families) >= 5, f"{stem}: {sorted(families)}"
    oracle = evaluate(db, solver="oracle", out=root / "runs" / stem, report=False)
    assert oracle["passed"] == n and oracle["avg_at_k"] == 1.0, oracle["failures"]
    noop = evaluate(db, solver="noop", out=root / "runs" / stem, report=False)
    assert noop["passed"] == infeasible
    assert noop["avg_at_k"] == pytest.approx(infeasible / n, abs=1e-6)
