"""Determinism across processes: the same pack built in two interpreters with different hash seeds.

`PYTHONHASHSEED` changes the iteration order of sets and dicts of strings and every `hash()` of a string;
a build that depends on either (a set of column names iterated to seed a draw, `hash(name) % n`) gives
other rows in another process. In-process determinism (tests/test_build.py, tests/fill/test_engine.py)
cannot see that: both builds share one hash seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from stateforge.store import read_model, table_hashes

PACKS = ("music", "game")
BUILD = """
import sys
from stateforge.build import build_domain
for pack in sys.argv[2:]:
    build_domain(pack, scale=0.01, seed=11, out=f"{sys.argv[1]}/{pack}")
"""
TIMINGS = {"seconds", "wall_seconds"}


def _start(out: Path, hash_seed: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.Popen([sys.executable, "-c", BUILD, str(out), *PACKS], env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _without_timings(value: Any, out: Path) -> Any:
    """The report with every timing removed and the output folder written as `<out>`."""
    if isinstance(value, dict):
        return {k: _without_timings(v, out) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_without_timings(v, out) for v in value]
    if isinstance(value, str):
        return value.replace(str(out), "<out>")
    return value


def _tables(db: Path) -> dict[str, str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return table_hashes(con, read_model(con)[0])


@pytest.mark.slow
def test_two_processes_with_other_hash_seeds_build_the_same_bytes(tmp_path: Path) -> None:
    seeds = ("0", "2718281828")
    for process in [_start(tmp_path / seed, seed) for seed in seeds]:  # both at once
        _, stderr = process.communicate(timeout=540)
        assert process.returncode == 0, stderr[-3000:]
    for pack in PACKS:
        one, two = (tmp_path / seed / pack for seed in seeds)
        assert _tables(one / f"{pack}.duckdb") == _tables(two / f"{pack}.duckdb"), pack
        reports = [json.loads((d / "build_report.json").read_text()) for d in (one, two)]
        first, second = (_without_timings(r, d) for r, d in zip(reports, (one, two), strict=True))
        assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True), pack
        assert reports[0]["fingerprint"] == reports[1]["fingerprint"]
