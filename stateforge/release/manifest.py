"""The parts of the manifest computed from the bundle: the database, the task counts and the baselines.

    database_info(folder, written)   # DatabaseInfo: file, storage version, fingerprint, rows per table
    task_counts(tasks)               # TaskCounts: by capability, difficulty, feasibility
    baseline_entry(summary)          # Baseline: a solver's scores from its (stable) run summary
    read_manifest(folder)            # the Manifest of a bundle, or ReleaseError
"""

from __future__ import annotations

import hashlib
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from stateforge.release.bundle import Written
from stateforge.release.database import storage_version
from stateforge.release.files import ReleaseError
from stateforge.release.model import MANIFEST, Baseline, DatabaseInfo, Manifest, TableEntry, TaskCounts
from stateforge.store import connect
from stateforge.store.build_meta import read_build_meta
from stateforge.tasks.model import CAPABILITIES, DIFFICULTIES, INFEASIBLE_KINDS, Task
from stateforge.values import dumps


def fingerprint(hashes: dict[str, str]) -> str:
    """What tasks' `db_fingerprint` names: the sha256 of the table hashes (16 hex digits), as
    `stateforge.tasks.Workspace.fingerprint` computes it."""
    return hashlib.sha256(dumps(hashes).encode()).hexdigest()[:16]


def database_info(folder: Path, written: Written) -> DatabaseInfo:
    """The database of a bundle being written."""
    path = folder / written.database
    with connect(path, read_only=True) as con:
        now = read_build_meta(con).get("now", "")
    tables = {
        name: TableEntry(
            rows=p.rows, md5=written.table_hashes[name], parquet=p.path, columns=p.columns,
            cast_to_text=p.cast_to_text,
        )
        for name, p in written.parquet.items()
    }
    return DatabaseInfo(
        file=written.database,
        storage_version=storage_version(path),
        fingerprint=fingerprint(written.table_hashes),
        now=now,
        rows=sum(t.rows for t in tables.values()),
        tables=tables,
    )


def task_counts(tasks: list[Task]) -> TaskCounts:
    """The task set, counted (every capability, difficulty and infeasible kind named, zeros included)."""
    caps = Counter(c for t in tasks for c in t.capabilities)
    diffs = Counter(t.difficulty for t in tasks)
    kinds = Counter(
        t.provenance.infeasible.kind for t in tasks if not t.feasible and t.provenance.infeasible is not None
    )
    changed = [sum(t.diff.summary.values()) for t in tasks if t.feasible]
    horizons = [len(t.reference_calls) for t in tasks]
    knobs = Counter(k for t in tasks for k in t.provenance.knobs)
    return TaskCounts(
        total=len(tasks),
        feasible=sum(t.feasible for t in tasks),
        infeasible=sum(not t.feasible for t in tasks),
        capabilities={c: caps[c] for c in CAPABILITIES},
        difficulty={d: diffs[d] for d in DIFFICULTIES},
        infeasible_kinds={k: kinds[k] for k in INFEASIBLE_KINDS},
        changed_rows={
            "mean": round(statistics.fmean(changed), 3) if changed else 0.0,
            "median": float(statistics.median(changed)) if changed else 0.0,
            "max": float(max(changed, default=0)),
        },
        horizon={
            "mean": round(statistics.fmean(horizons), 3) if horizons else 0.0,
            "median": float(statistics.median(horizons)) if horizons else 0.0,
            "max": float(max(horizons, default=0)),
            "share_30": round(sum(h >= 30 for h in horizons) / len(horizons), 4) if horizons else 0.0,
        },
        tool_sequences=len({tuple(c.tool for c in t.reference_calls) for t in tasks}),
        knobs=dict(sorted(knobs.items())),
    )


def baseline_entry(summary: dict[str, Any]) -> Baseline:
    """A baseline's scores from its run summary."""
    groups = summary.get("groups", {})
    feasible = groups.get("feasible", {})
    return Baseline(
        solver=summary["solver"],
        k=summary["k"],
        episodes=summary["episodes"],
        passed=summary["passed"],
        failed=summary["failed"],
        infra_errors=summary["infra_errors"],
        avg_at_k=summary["avg_at_k"],
        pass_at_k=summary["pass_at_k"],
        pass_hat_k=summary["pass_hat_k"],
        by_capability={c: g["avg_at_k"] for c, g in groups.get("capability", {}).items()},
        feasible=feasible.get("feasible", {}).get("avg_at_k"),
        infeasible=feasible.get("infeasible", {}).get("avg_at_k"),
    )


def read_manifest(folder: Path) -> Manifest:
    """The manifest of the bundle in `folder`; `ReleaseError` when there is none or it is not one."""
    path = Path(folder) / MANIFEST
    if not Path(folder).is_dir():
        raise ReleaseError(f"{folder} is not a folder: give the folder of a release bundle.")
    if not path.is_file():
        raise ReleaseError(f"{folder} has no {MANIFEST}: it is not a Stateforge release bundle.")
    try:
        return Manifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReleaseError(
            f"{path}: not a valid stateforge-release/1 manifest ({where}: {first['msg']}); it was edited or "
            "made by another version."
        ) from None
