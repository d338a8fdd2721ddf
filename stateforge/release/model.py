"""The release manifest (`manifest.json`): what a bundle holds, what made it, and the hash of every file.

A public format: scripts read it, `verify-release` checks a bundle against it and `release-diff` compares
two of them. Pydantic models with `extra="forbid"` (a key this version does not know is an error, not
silently dropped); written as canonical JSON (`stateforge.values.dumps`, indented). Nothing in it depends on
when or where the release was made (no timestamps, no absolute paths), so the same inputs give the same
bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from stateforge.values import dumps

FORMAT = "stateforge-release/1"
"""The manifest's format; a reader refuses another."""
MANIFEST = "manifest.json"
LICENSE = "CC-BY-4.0"
"""The licence of the data of every bundle (tables, tasks, reports): attribution required, reuse free."""
LICENSE_ID = "cc-by-4.0"
"""The same, as the Hugging Face dataset card spells it."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FileEntry(_Model):
    """One file of the bundle."""

    sha256: str
    bytes: int


class TableEntry(_Model):
    """One table of the database."""

    rows: int
    md5: str = Field(description="`stateforge.store.table_hashes`: the md5 of the rows in key order.")
    parquet: str = Field(description="The table's Parquet file, relative to the bundle.")
    columns: list[str]
    cast_to_text: list[str] = Field(
        default_factory=list,
        description="Columns written to Parquet as text (types Parquet readers do not share: INTERVAL, "
        "UUID, ENUM, JSON, MAP, UNION); the database keeps their own type.",
    )


class Code(_Model):
    """The code that made the release."""

    stateforge: str
    git_commit: str | None = None
    git_dirty: bool | None = None
    """True when the working tree had uncommitted changes: the commit alone does not describe the code."""


class LLMInputs(_Model):
    """The LLM behind the data, when a build used one."""

    backend: str
    model: str | None
    settings: dict[str, Any]
    prompts: dict[str, str]
    cache: dict[str, Any] = Field(
        description="The response cache: entries and the sha256 of their keys and contents."
    )


class Inputs(_Model):
    """Everything that determines the bytes of the bundle."""

    domain: str
    pack: str | None = Field(description="The pack's name when it is one of Stateforge's, else None.")
    ddl: str = Field(description="The DDL, copied into the bundle (path relative to it).")
    ddl_sha256: str
    domain_yaml: str | None = None
    domain_yaml_sha256: str | None = None
    pack_files: dict[str, str] = Field(
        default_factory=dict, description="sha256 of every file of the pack folder (tools, recipes, ...)."
    )
    prompts: dict[str, str] = Field(description="sha256 of every prompt template of this code version.")
    seed: int
    task_seed: int
    scale: float
    rows: int | None = None
    tasks_asked: int
    task_backend: str
    build_fingerprint: str = Field(description="The hash of the build's inputs (`build_report.json`).")
    code: Code
    packages: dict[str, str] = Field(description="Installed versions of Stateforge's dependencies.")
    llm: LLMInputs | None = None


class DatabaseInfo(_Model):
    """The DuckDB file and its tables."""

    file: str
    storage_version: str
    fingerprint: str = Field(description="What tasks' `db_fingerprint` names: a hash of the table hashes.")
    now: str = Field(description="The environment's frozen clock.")
    rows: int
    tables: dict[str, TableEntry]


class TaskCounts(_Model):
    """The task set, counted."""

    total: int
    feasible: int
    infeasible: int
    capabilities: dict[str, int]
    difficulty: dict[str, int]
    infeasible_kinds: dict[str, int]
    changed_rows: dict[str, float]
    """Rows the feasible tasks change: mean, median, max."""
    horizon: dict[str, float] | None = None
    """Reference calls per task (reads, writes, the decline): mean, median, max, and `share_30` (the share of
    tasks of 30 calls or more). None in manifests made before it was counted."""
    tool_sequences: int | None = None
    """Distinct sequences of tool names among the reference solutions."""
    knobs: dict[str, int] | None = None
    """Tasks per difficulty knob the generator set (`provenance.knobs`: full data, boundary distractor...)."""

    NEWER: ClassVar[tuple[str, ...]] = ("horizon", "tool_sequences", "knobs")
    """Fields an older manifest lacks (None there): checks compare them only where the manifest has them."""


class Baseline(_Model):
    """A baseline solver's scores on the task set (k trials a task)."""

    solver: str
    k: int
    episodes: int
    passed: int
    failed: int
    infra_errors: int
    avg_at_k: float
    pass_at_k: float
    pass_hat_k: float
    by_capability: dict[str, float] = Field(default_factory=dict, description="Avg@k per capability.")
    feasible: float | None = None
    """Avg@k on the feasible tasks."""
    infeasible: float | None = None
    """Avg@k on the infeasible tasks."""


class Manifest(_Model):
    """`manifest.json` (see the module docstring)."""

    format: Literal["stateforge-release/1"] = FORMAT
    domain: str
    version: str
    license: str = LICENSE
    release_id: str = Field(
        description="sha256 of the file list (path and sha256 of every file) and of the database's file name "
        "and fingerprint."
    )
    inputs: Inputs
    database: DatabaseInfo
    tasks: TaskCounts
    baselines: dict[str, Baseline] = Field(default_factory=dict)
    files: dict[str, FileEntry] = Field(
        description="Every file but the manifest and the database (which is verified by its table hashes)."
    )

    def to_json(self) -> str:
        """The manifest's canonical text (sorted keys, indented, a final newline)."""
        return dumps(self.model_dump(mode="json"), indent=2) + "\n"


def release_id(files: dict[str, FileEntry], database: DatabaseInfo) -> str:
    """The identity of a bundle's content: the sha256 of its sorted (path, sha256) list, then a line naming
    the database file and its fingerprint (the database is identified by its rows, not its bytes, which
    DuckDB does not write the same twice)."""
    listing = "".join(f"{path}\t{entry.sha256}\n" for path, entry in sorted(files.items()))
    listing += f"{database.file}\ttables {database.fingerprint}\n"
    return hashlib.sha256(listing.encode()).hexdigest()
