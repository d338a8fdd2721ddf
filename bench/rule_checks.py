"""CPU of replaying tasks' reference calls with the domain rules re-run column-aware (the default: a rule
runs again only when a call changed a column its check reads) against table-level (any change to a table
it reads), in one process on the same calls.

    python bench/rule_checks.py hr artifacts/bench/horizon-hr/tasks.jsonl --n 30

Prints one JSON object: per mode, CPU seconds, calls and rule checks run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from stateforge.episode import Episode
from stateforge.episode.rules import RuleCheck
from stateforge.resources import artifacts_dir
from stateforge.tools import CANNOT_COMPLETE


def replay(db: Path, tasks: list[dict]) -> dict[str, float]:
    checks = calls = 0
    started = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        for task in tasks:
            actor = (task.get("actor") or {}).get("person")
            with Episode.open(db, workdir=Path(tmp), actor=actor) as ep:
                for call in task["reference_calls"]:
                    if call["tool"] == CANNOT_COMPLETE:
                        continue
                    result = ep.call(call["tool"], call["arguments"])
                    calls += 1
                    checks += len(result.rules_checked or [])
    return {"cpu_s": round(time.process_time() - started, 2), "calls": calls, "rule_checks": checks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pack")
    parser.add_argument("tasks", type=Path)
    parser.add_argument("--n", type=int, default=30)
    args = parser.parse_args()
    db = artifacts_dir() / args.pack / f"{args.pack}.duckdb"
    lines = [line for line in args.tasks.read_text().splitlines() if line.strip()]
    tasks = [json.loads(line) for line in lines[: args.n]]
    found = {"tasks": len(tasks), "column_aware": replay(db, tasks)}
    applies = RuleCheck.applies
    RuleCheck.applies = lambda self, changed, columns=None: applies(self, changed, None)  # type: ignore[method-assign]
    try:
        found["table_level"] = replay(db, tasks)
    finally:
        RuleCheck.applies = applies  # type: ignore[method-assign]
    print(json.dumps(found, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
