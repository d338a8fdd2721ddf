"""Mutation testing by hand, made repeatable: remove one repair at a time and see which tests notice.

    .venv/bin/python tests/mutation.py                  # every mutant, against the repair and engine tests
    .venv/bin/python tests/mutation.py --only fk_redraw # one mutant

Each mutant is a textual edit of one module (the snippet must be found exactly, so a refactor that moves
the code fails this script loudly instead of silently testing nothing). The edited copy of the project
goes into a temporary folder, first on PYTHONPATH, and pytest runs the chosen tests there. A mutant that
no test kills is a repair the suite does not really test: the script exits 1 and names it.
Not collected by pytest (the name does not start with `test_`): it runs the suite many times.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ("tests/validation/test_repair.py", "tests/fill/test_engine.py", "tests/validation/test_rules.py")


@dataclass(frozen=True)
class Mutant:
    """One removed repair: in `path`, `old` becomes `new`."""

    name: str
    path: str
    old: str
    new: str


def _noop(rule: str, signature: str) -> Mutant:
    """The repair `rule` returns its batch untouched and claims nothing."""
    return Mutant(f"{rule}_removed", "stateforge/validation/repair.py", signature,
                  f'{signature}\n    return batch, RepairCount("{rule}")')


REPAIR = "stateforge/validation/repair.py"
RULES = "stateforge/validation/rules.py"
SIGNATURE = "(batch: pa.Table, failures: list[Failure], ctx: RepairContext) -> Repaired:"
MUTANTS: tuple[Mutant, ...] = (
    *(_noop(rule, f"def {rule}{SIGNATURE}") for rule in (
        "coerce_types", "truncate_to_length", "redraw_dangling_keys", "redraw_duplicates", "drop_invalid")),
    Mutant("missing_column_not_added", REPAIR, 'if f.rule == "missing_column" and', 'if False and'),
    Mutant("range_not_clamped", REPAIR, 'elif f.rule == "range":', 'elif False:'),
    Mutant("dtype_not_clamped", REPAIR,
           "return pc.cast(pc.min_element_wise(pc.max_element_wise(values, limits[0]), limits[1]), target)",
           "return pc.cast(values, target, safe=False)"),
    Mutant("dangling_redraws_kept_columns", REPAIR,
           "if position is None or _kept(ctx, f.columns):", "if position is None:"),
    Mutant("fk_redraw", REPAIR, "        for p in fk_parts:\n            for name, values in",
           "        for p in []:\n            for name, values in"),
    Mutant("fresh_parts_not_redrawn", REPAIR, "if rest and ctx.fresh is not None:", "if False:"),
    Mutant("duplicates_redraw_kept_columns", REPAIR,
           'if f.rule not in ("unique", "stored") or not f.count or _kept(ctx, f.columns):',
           'if f.rule not in ("unique", "stored") or not f.count:'),
    Mutant("no_replacement_rows", REPAIR, "    if ctx.fresh is not None:\n        dropped",
           "    if False:\n        dropped"),
    Mutant("replacements_forget_kept_columns", REPAIR,
           "keep = {c: dropped.column(_index(dropped, c)).combine_chunks() for c in ctx.keep}", "keep = {}"),
    Mutant("no_revalidation", REPAIR, "    for round_ in range(rounds + 1):", "    for round_ in range(1):"),
    Mutant("still_invalid_rows_kept", REPAIR, "    mask[bad] = False\n", "    mask[bad] = True\n"),
    Mutant("rule_repairs_not_run", RULES, "                result = con.execute(statement).fetchall()",
           "                result = con.execute('SELECT 1').fetchall()"),
    Mutant("repaired_is_found", RULES, "            _repair(con, schema, rule, rep)\n    return reports",
           "            _repair(con, schema, rule, rep)\n    for rep in reports:\n"
           "        rep.repaired = rep.found\n    return reports"),
    Mutant("orphans_not_cleaned", RULES,
           "        for key, n in clean_orphans(con, schema, changed_tables(rule.repair)).items():",
           "        for key, n in {}.items():"),
)


def _copy(dest: Path) -> None:
    for name in ("stateforge", "tests"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")


def _apply(dest: Path, mutant: Mutant) -> None:
    path = dest / mutant.path
    text = path.read_text()
    if text.count(mutant.old) != 1:
        raise SystemExit(f"mutant {mutant.name}: {mutant.path} has {text.count(mutant.old)} copies of the "
                         f"snippet {mutant.old!r} (need exactly 1): update tests/mutation.py")
    path.write_text(text.replace(mutant.old, mutant.new))


def run(mutant: Mutant | None, tests: tuple[str, ...], workers: str) -> list[str]:
    """The tests that fail with `mutant` applied (None: the unmutated project, which must pass)."""
    with tempfile.TemporaryDirectory(prefix="stateforge-mutant-") as tmp:
        dest = Path(tmp)
        _copy(dest)
        if mutant is not None:
            _apply(dest, mutant)
        env = {**os.environ, "PYTHONPATH": str(dest), "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *tests, "-q", "-n", workers, "-p", "no:cacheprovider", "-rf",
             "--timeout", "300"],
            cwd=dest, env=env, capture_output=True, text=True,
        )
    failed = sorted(set(re.findall(r"^FAILED (\S+)", done.stdout, flags=re.M)))
    if done.returncode not in (0, 1):
        tail = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        raise SystemExit(f"pytest could not run ({done.returncode}):\n{tail}")
    return [f.split(" - ")[0] for f in failed]


def main() -> None:
    """Run the mutants, print which tests kill each, exit 1 if one survives."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="the name of one mutant")
    parser.add_argument("--tests", nargs="*", default=list(TESTS))
    parser.add_argument("-n", default="2", help="pytest-xdist workers")
    args = parser.parse_args()
    tests = tuple(args.tests)
    baseline = run(None, tests, args.n)
    if baseline:
        raise SystemExit(f"the unmutated project fails {baseline}: fix that first")
    chosen = [m for m in MUTANTS if args.only in (None, m.name)]
    if not chosen:
        raise SystemExit(f"no mutant {args.only!r}; known: {', '.join(m.name for m in MUTANTS)}")
    survivors = []
    for mutant in chosen:
        killed = run(mutant, tests, args.n)
        names = ", ".join(k.split("::")[-1] for k in killed[:4]) + (" ..." if len(killed) > 4 else "")
        print(f"| `{mutant.name}` | {len(killed)} | {names or '**none: survives**'} |", flush=True)
        if not killed:
            survivors.append(mutant.name)
    if survivors:
        raise SystemExit(f"mutants no test kills: {', '.join(survivors)}")


if __name__ == "__main__":
    main()
