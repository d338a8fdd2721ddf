"""Benchmark releases: versioned, byte-reproducible bundles that anyone can load and verify.

    from stateforge.release import make_release, verify_release, release_diff

    manifest = make_release("music", version="1.0.0", baselines=["oracle", "noop"])
    result = verify_release("artifacts/releases/music-1.0.0")     # result.ok, result.problems
    changes = release_diff("artifacts/releases/music-1.0.0", "artifacts/releases/music-1.1.0")

`model` is the manifest (a public format); `make` the stages of a release and their driver; `bundle`
writes the files, `database` the reproducible DuckDB file, `parquet` the tables, `card` the dataset card,
`inputs` and `manifest` what the manifest records; `verify` checks a bundle, `compare` compares two and
`show` renders both in the terminal. The guide is docs/releases.md.
"""

from __future__ import annotations

from stateforge.release.files import ReleaseError
from stateforge.release.make import (
    BASELINE_SOLVERS,
    STAGES,
    ReleaseRun,
    Stage,
    baseline_names,
    default_target,
    make_release,
    run_release,
)
from stateforge.release.manifest import read_manifest
from stateforge.release.model import FORMAT, LICENSE, MANIFEST, Manifest

__all__ = [
    "BASELINE_SOLVERS",
    "FORMAT",
    "LICENSE",
    "MANIFEST",
    "STAGES",
    "Manifest",
    "ReleaseError",
    "ReleaseRun",
    "Stage",
    "baseline_names",
    "default_target",
    "make_release",
    "read_manifest",
    "run_release",
]
