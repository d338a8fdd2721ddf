"""What changed between two releases: inputs, schema, rows per table, tasks, task figures and scores.

    changes = release_diff("artifacts/releases/music-1.0.0", "artifacts/releases/music-1.1.0")
    changes["tasks"]["added"], changes["schema"]["tables_added"], changes["scores"]["oracle"]

Tasks are matched by id first (the same id: the same content); the rest by their instruction (the same
request, made again with another content: `changed`, with the fields that differ); what is left was
added or removed. `identical`: the same files (release ids) and no change found. The schema comes from
each bundle's database (its `stateforge.model`), the task figures (horizon, changed rows, distinct tool
sequences) from the task files, the rest from the manifests. A plain dict, ready for `--json`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stateforge.diff.policy import normalize_text
from stateforge.release.bundle import TASKS
from stateforge.release.manifest import read_manifest, task_counts
from stateforge.release.model import Manifest, TaskCounts
from stateforge.schema.model import Schema
from stateforge.store import connect, read_model
from stateforge.tasks import Task, read_tasks

SCHEMA_KEYS = ("tables_added", "tables_removed", "tables_changed", "unavailable")
TASK_FIELDS = (
    "instruction", "capabilities", "difficulty", "feasible", "reference_calls", "expected_diff", "policy",
    "verifiers", "references", "db_fingerprint",
)
"""The fields of a task compared for `changed` (not `id`, which follows them, nor `provenance`)."""


def release_diff(a: str | Path, b: str | Path) -> dict[str, Any]:
    """The changes from bundle `a` to bundle `b` (see the module docstring)."""
    ma, mb = read_manifest(Path(a)), read_manifest(Path(b))
    tasks_a, tasks_b = read_tasks(Path(a) / TASKS), read_tasks(Path(b) / TASKS)
    changes = {
        "inputs": input_changes(ma, mb),
        "schema": schema_changes(_schema(Path(a), ma), _schema(Path(b), mb)),
        "rows": row_changes(ma, mb),
        "tasks": task_changes(tasks_a, tasks_b),
        "figures": figure_changes(task_counts(tasks_a), task_counts(tasks_b)),
        "scores": score_changes(ma, mb),
    }
    tasks, schema = changes["tasks"], changes["schema"]
    same = (
        ma.release_id == mb.release_id
        and not changes["inputs"]
        and tasks["unchanged"] == tasks["a"] == tasks["b"]
        and all(r["delta"] == 0 for r in changes["rows"].values())
        and not any(schema.get(k) for k in SCHEMA_KEYS)
        and all(m["delta"] in (0, 0.0) for s in changes["scores"].values() for m in s.values())
    )
    return {
        "a": {"folder": str(a), "domain": ma.domain, "version": ma.version, "release_id": ma.release_id},
        "b": {"folder": str(b), "domain": mb.domain, "version": mb.version, "release_id": mb.release_id},
        "identical": same,
        **changes,
    }


def input_changes(a: Manifest, b: Manifest) -> dict[str, list[Any]]:
    """The inputs that differ: {name: [a, b]} (packages and files by name)."""
    ia, ib = a.inputs.model_dump(mode="json"), b.inputs.model_dump(mode="json")
    out: dict[str, list[Any]] = {}
    for key in sorted(set(ia) | set(ib)):
        va, vb = ia.get(key), ib.get(key)
        if va == vb:
            continue
        if isinstance(va, dict) and isinstance(vb, dict) and key in ("packages", "pack_files", "prompts"):
            for name in sorted(set(va) | set(vb)):
                if va.get(name) != vb.get(name):
                    out[f"{key}.{name}"] = [va.get(name), vb.get(name)]
        else:
            out[key] = [va, vb]
    return out


def schema_changes(a: Schema | None, b: Schema | None) -> dict[str, Any]:
    """Tables added and removed; per table kept, columns added, removed and retyped, and key changes."""
    if a is None or b is None:
        return {"unavailable": "a database could not be read; see `stateforge verify-release`"}
    ta, tb = {t.name: t for t in a.tables}, {t.name: t for t in b.tables}
    changed: dict[str, Any] = {}
    for name in sorted(set(ta) & set(tb)):
        ca, cb = {c.name: c for c in ta[name].columns}, {c.name: c for c in tb[name].columns}
        entry: dict[str, Any] = {}
        if added := sorted(set(cb) - set(ca)):
            entry["columns_added"] = added
        if removed := sorted(set(ca) - set(cb)):
            entry["columns_removed"] = removed
        retyped = {c: [ca[c].type, cb[c].type] for c in sorted(set(ca) & set(cb)) if ca[c].type != cb[c].type}
        if retyped:
            entry["columns_retyped"] = retyped
        if ta[name].primary_key != tb[name].primary_key:
            entry["primary_key"] = [ta[name].primary_key, tb[name].primary_key]
        if entry:
            changed[name] = entry
    return {
        "tables_added": sorted(set(tb) - set(ta)),
        "tables_removed": sorted(set(ta) - set(tb)),
        "tables_changed": changed,
    }


def row_changes(a: Manifest, b: Manifest) -> dict[str, dict[str, int | None]]:
    """Rows per table in each release and the difference (None where a release lacks the table)."""
    ra = {t: e.rows for t, e in a.database.tables.items()}
    rb = {t: e.rows for t, e in b.database.tables.items()}
    out = {}
    for table in sorted(set(ra) | set(rb)):
        x, y = ra.get(table), rb.get(table)
        out[table] = {"a": x, "b": y, "delta": (y - x) if x is not None and y is not None else None}
    out["(total)"] = {"a": a.database.rows, "b": b.database.rows, "delta": b.database.rows - a.database.rows}
    return out


def task_changes(a: list[Task], b: list[Task]) -> dict[str, Any]:
    """Tasks kept (same id), changed (same instruction, other content), added and removed."""
    ids_a, ids_b = {t.id: t for t in a}, {t.id: t for t in b}
    same = sorted(set(ids_a) & set(ids_b))
    rest_a = {normalize_text(t.instruction): t for t in a if t.id not in ids_b}
    rest_b = {normalize_text(t.instruction): t for t in b if t.id not in ids_a}
    changed = []
    for words in sorted(set(rest_a) & set(rest_b)):
        ta, tb = rest_a[words], rest_b[words]
        da, db = ta.model_dump(mode="json"), tb.model_dump(mode="json")
        fields = [f for f in TASK_FIELDS if da.get(f) != db.get(f)]
        changed.append({"a": ta.id, "b": tb.id, "instruction": tb.instruction, "fields": fields})
    matched = {c["a"] for c in changed} | {c["b"] for c in changed}
    return {
        "a": len(a),
        "b": len(b),
        "unchanged": len(same),
        "changed": changed,
        "added": [_brief(t) for t in b if t.id not in ids_a and t.id not in matched],
        "removed": [_brief(t) for t in a if t.id not in ids_b and t.id not in matched],
    }


def figure_changes(a: TaskCounts, b: TaskCounts) -> dict[str, dict[str, Any]]:
    """The two task sets' figures (counted from their tasks, so a release made before the manifest held
    them compares too): changed rows and reference calls (mean, median, max), distinct tool sequences."""
    out: dict[str, dict[str, Any]] = {}
    for group in ("changed_rows", "horizon"):
        x, y = getattr(a, group) or {}, getattr(b, group) or {}
        for key in sorted(set(x) | set(y)):
            out[f"{group}.{key}"] = {"a": x.get(key), "b": y.get(key)}
    out["tool_sequences"] = {"a": a.tool_sequences, "b": b.tool_sequences}
    return out


def score_changes(a: Manifest, b: Manifest) -> dict[str, dict[str, Any]]:
    """Each baseline's Avg@k, Pass@k and Pass^k in each release and the difference."""
    out: dict[str, dict[str, Any]] = {}
    for solver in sorted(set(a.baselines) | set(b.baselines)):
        x, y = a.baselines.get(solver), b.baselines.get(solver)
        entry: dict[str, Any] = {}
        for metric in ("avg_at_k", "pass_at_k", "pass_hat_k"):
            va = getattr(x, metric) if x else None
            vb = getattr(y, metric) if y else None
            delta = round(vb - va, 6) if va is not None and vb is not None else None
            entry[metric] = {"a": va, "b": vb, "delta": delta}
        out[solver] = entry
    return out


def _brief(task: Task) -> dict[str, Any]:
    return {"id": task.id, "instruction": task.instruction, "capabilities": task.capabilities,
            "feasible": task.feasible}


def _schema(folder: Path, manifest: Manifest) -> Schema | None:
    try:
        with connect(folder / manifest.database.file, read_only=True) as con:
            return read_model(con)[0]
    except Exception:  # noqa: BLE001 - a damaged database leaves the schema unknown, not the whole diff
        return None
