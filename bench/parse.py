"""Benchmark of DDL parsing: a synthetic pg_dump of N tables, with sqlglot's compiled build and without it.

    .venv/bin/python bench/parse.py [--tables 2000] [--runs 3] [--no-write]

Four timings, each the median of `--runs` in a fresh subprocess, all in one run of this command:
`parse_ddl` (split, classify, parse, build the model, resolve keys, try expressions against DuckDB) and
the baseline `sqlglot.parse` of the CREATE TABLEs alone in one call (what a naive parser would do, and
which fails on real dumps), each with sqlglot as pure Python and with sqlglotc (sqlglot's mypyc-compiled
modules, pinned in pyproject.toml). The pure runs hide the compiled modules from the import system, so
both builds are measured from one installation. sqlglot's former Rust tokenizer (sqlglotrs 0.13) is no
longer used by sqlglot 30: importing it only warns, so it is not measured.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def big_dump(tables: int, *, extras: bool = True) -> str:
    """A pg_dump-shaped file: a chain of `tables` tables with keys and a CHECK, and (with `extras`) the
    OWNER TO and COPY blocks a real dump has."""
    parts = []
    for i in range(tables):
        parent = f"REFERENCES public.t{i - 1}(id) ON DELETE CASCADE" if i else ""
        parts.append(
            f"CREATE TABLE public.t{i} (\n    id integer NOT NULL PRIMARY KEY,\n"
            f"    parent_id integer {parent},\n    name character varying(100) NOT NULL,\n"
            f"    amount numeric(10,2) CHECK ((amount >= (0)::numeric)),\n"
            f"    created_at timestamp with time zone DEFAULT now()\n);\n"
        )
        if extras:
            parts.append(
                f"ALTER TABLE public.t{i} OWNER TO app;\nCOPY public.t{i} (id, name) FROM stdin;\n1\tx\n\\.\n"
            )
    return "".join(parts)


def pure_sqlglot() -> None:
    """Make this process import sqlglot's .py modules even where sqlglotc installed compiled ones."""
    import importlib.machinery as machinery
    import importlib.util

    spec = importlib.util.find_spec("sqlglot")
    assert spec is not None and spec.submodule_search_locations
    root = str(Path(next(iter(spec.submodule_search_locations))))

    def hook(path: str) -> machinery.FileFinder:
        if not path.startswith(root):
            raise ImportError  # not sqlglot: the next hook (the usual one) handles it
        return machinery.FileFinder(path, (machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES))

    sys.path_hooks.insert(0, hook)
    sys.path_importer_cache.clear()


def _measure(what: str, tables: int, runs: int) -> dict:
    """Run in a child process: the median seconds of `what` ("ours" or "sqlglot") and the build used."""
    import sqlglot
    import sqlglot.tokens

    from stateforge.schema import parse_ddl

    if what == "ours":
        text = big_dump(tables)

        def job() -> object:
            return parse_ddl(text, "postgres")
    else:
        text = big_dump(tables, extras=False)  # sqlglot alone cannot read COPY data blocks or OWNER TO

        def job() -> object:
            return sqlglot.parse(text, read="postgres")

    times = []
    for _ in range(runs):
        started = time.perf_counter()
        job()
        times.append(time.perf_counter() - started)
    return {"seconds": statistics.median(times), "compiled": sqlglot.tokens.SQLGLOTC_INSTALLED}


def _child(what: str, build: str, tables: int, runs: int) -> dict:
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from bench import parse as b; "
        f"{'b.pure_sqlglot(); ' if build == 'pure' else ''}"
        "print(json.dumps(b._measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), what, str(tables), str(runs)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()

    found: dict[tuple[str, str], dict] = {}
    for build in ("pure", "installed"):
        for what in ("ours", "sqlglot"):
            found[(what, build)] = _child(what, build, args.tables, args.runs)
    if found[("ours", "pure")]["compiled"] or found[("sqlglot", "pure")]["compiled"]:
        raise SystemExit("the pure-Python runs still loaded compiled sqlglot modules; the comparison is void")
    compiled = found[("ours", "installed")]["compiled"]
    installed = "sqlglotc (compiled)" if compiled else "pure Python (sqlglotc not installed)"
    base = found[("sqlglot", "pure")]["seconds"]
    ours = found[("ours", "pure")]["seconds"]
    rows = [
        ("`parse_ddl`, sqlglot as pure Python", found[("ours", "pure")]),
        (f"`parse_ddl`, sqlglot as installed: {installed}", found[("ours", "installed")]),
        ("baseline: `sqlglot.parse` of the CREATE TABLEs alone, pure Python", found[("sqlglot", "pure")]),
        (f"baseline: `sqlglot.parse` alone, as installed: {installed}", found[("sqlglot", "installed")]),
    ]
    size = len(big_dump(args.tables)) / 1e6
    lines = [
        f"Command: `.venv/bin/python bench/parse.py --tables {args.tables}` ({dt.date.today()}; 2 cores, "
        f"shared: compare the ratios). A pg_dump-shaped file of {args.tables:,} tables ({size:.1f} MB, with "
        f"OWNER TO and COPY blocks); medians of {args.runs} runs, each timing in a fresh process.",
        "",
        "| what | seconds | tables/s | vs sqlglot alone (pure) | vs `parse_ddl` (pure) |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, result in rows:
        s = result["seconds"]
        lines.append(f"| {label} | {s:.2f} | {args.tables / s:,.0f} | {s / base:.2f}x | {s / ours:.2f}x |")
    lines += [
        "",
        "sqlglot's Rust tokenizer (`sqlglot[rs]`, sqlglotrs 0.13.0) installs here, but sqlglot 30.30.0 no "
        "longer uses it (importing it only warns); its successor, sqlglotc 30.30.0 (sqlglot's parser, "
        "tokenizer and generator compiled with mypyc), is pinned in pyproject.toml and used by default. "
        "The schema tests and golden files pass with both builds.",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        sys.path.insert(0, str(Path(__file__).parent))
        from _doc import write_section

        write_section("Parse (bench/parse.py)", body)


if __name__ == "__main__":
    main()
