"""Benchmark of the LLM fill path against the local fake OpenAI-compatible server, in one run.

    .venv/bin/python bench/llm_fill.py [--rows 2000] [--latency 0.3] [--no-write]

The music pack is filled offline up to `songs` (about `--rows` songs, with their albums and artists);
the songs batch then goes through `LLMFill` exactly as the engine hands it over (keys, foreign keys and
numbers fixed; the LLM writes the titles, with each chunk's albums and artists as upstream context),
against a `FakeLLMServer` that takes `--latency` seconds per call, run in a child process (as a real
server would be: its CPU does not compete with the client's for the GIL). Each run uses a fresh cache
folder (no cache hits) and a fresh copy of the database.

1. Concurrency 1, 8 and 32, no faults: rows/s, calls per 1,000 rows, prompt tokens per row, and the
   achieved fraction of the ideal time (calls x latency / concurrency).
2. Concurrency 8 with 20% of replies faulty (a mix of every content and text fault): calls per chunk
   (first requests), repair requests and rows by path.
3. Concurrency 8 against a server that follows the JSON schema but ignores the prompt (as a strict
   decoding server whose model does not read the rows it is asked to complete), with 15% of replies
   faulty (the same mix): the share of the LLM columns' values that come from the model.

Prints a markdown report; unless `--no-write`, replaces the "LLM fill" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from _doc import write_section
from _fakellm import fake_server, server_stats

from stateforge.domain import load_domain
from stateforge.fill.engine import fill_table
from stateforge.fill.sizing import plan_rows
from stateforge.graph import plan_fill
from stateforge.llm.fill import LLMFill
from stateforge.llm.settings import LLMSettings
from stateforge.store import create_tables
from stateforge.types import batch_arrow_type
from stateforge.validation.batch import validate_batch

HEADING = "LLM fill (bench/llm_fill.py)"
MIXED_FAULTS = {"wrong_types": 0.03, "invented_fk": 0.03, "duplicates": 0.03, "missing_fields": 0.03,
                "extra_fields": 0.03, "malformed": 0.03, "truncated": 0.02}
"""20% of replies faulty, spread over every content and text fault."""
STRICT_FAULTS = {name: rate * 0.75 for name, rate in MIXED_FAULTS.items()}
"""15% of replies faulty, the same mix."""


def prepare(folder: Path, songs: int) -> tuple[Any, Path]:
    """The music pack filled offline up to songs (included); returns the pack and the database file."""
    pack = load_domain("music")
    plan = plan_fill(pack.schema)
    scale = songs / (pack.config.table_config("songs").rows or 20_000)
    rows = plan_rows(pack.schema, plan, pack.config, scale=scale)
    path = folder / "music.duckdb"
    with duckdb.connect(str(path)) as con:
        create_tables(con, pack.schema, plan)
        for name in plan.order[: plan.order.index("songs") + 1]:
            fill_table(con, pack.schema, plan, pack.config, name, seed=pack.config.seed, rows=rows)
    return pack, path


def run(pack: Any, db: Path, folder: Path, *, concurrency: int, latency: float, faults: dict | None,
        rows_per_call: int, follow_prompt: bool = True) -> dict[str, Any]:
    """One timed enrich of the songs batch; the table's report plus the wall time and the check."""
    work = folder / f"run-{concurrency}-{bool(faults)}-{follow_prompt}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copyfile(db, work / "music.duckdb")
    songs = pack.schema.table("songs")
    with (
        duckdb.connect(str(work / "music.duckdb")) as con,
        fake_server(latency, faults, follow_prompt=follow_prompt) as base_url,
    ):
        stored = con.sql("SELECT * FROM songs ORDER BY song_id").to_arrow_table()
        batch = pa.table(
            {c.name: stored.column(c.name).cast(batch_arrow_type(c.type)) for c in songs.columns}
        )
        con.execute("DELETE FROM songs")
        settings = LLMSettings(backend="openai", model="fake-model", base_url=base_url, api_key="bench",
                               concurrency=concurrency, cache_dir=work / "cache", max_retries=3)
        fill = LLMFill(pack.schema, pack.config, settings, seed=pack.config.seed, rows_per_call=rows_per_call)
        started = time.perf_counter()
        out = fill(con, songs, batch, 0)
        seconds = time.perf_counter() - started
        report = fill.report(songs)
        fill.close()
        valid = not validate_batch(con, songs, out)
        peak = server_stats(base_url)["max_in_flight"]
    return report | {"seconds": seconds, "valid": valid, "max_in_flight": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000, help="songs to fill (about)")
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per call at the fake server")
    parser.add_argument("--rows-per-call", type=int, default=20)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sf-bench-llm-") as tmp:
        folder = Path(tmp)
        pack, db = prepare(folder, args.rows)
        results = {c: run(pack, db, folder, concurrency=c, latency=args.latency, faults=None,
                          rows_per_call=args.rows_per_call) for c in (1, 8, 32)}
        faulty = run(pack, db, folder, concurrency=8, latency=args.latency, faults=MIXED_FAULTS,
                     rows_per_call=args.rows_per_call)
        strict = run(pack, db, folder, concurrency=8, latency=args.latency, faults=STRICT_FAULTS,
                     rows_per_call=args.rows_per_call, follow_prompt=False)
    body = render(args, results, faulty, strict)
    print(body)
    if not args.no_write:
        write_section(HEADING, body)


def render(args: argparse.Namespace, results: dict[int, dict[str, Any]], faulty: dict[str, Any],
           strict: dict[str, Any]) -> str:
    first = next(iter(results.values()))
    lines = [
        f"Command: `.venv/bin/python bench/llm_fill.py` ({dt.date.today().isoformat()}; 2 cores). "
        f"The songs of the music pack ({first['rows']:,} rows, titles written by the LLM, "
        f"{args.rows_per_call} rows per call, each chunk with its albums and artists as context) through "
        f"`LLMFill` against `FakeLLMServer` (a child process) at {args.latency * 1000:.0f} ms per call; a "
        "fresh cache per run (no hits). Ideal time = calls x latency / concurrency.",
        "",
        "| concurrency | seconds | rows/s | calls | calls per 1,000 rows | prompt tokens per row | "
        "peak in flight | of ideal |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    waves = {}
    for c, r in results.items():
        ideal = r["calls"] * args.latency / c
        waves[c] = -(-r["calls"] // c)
        lines.append(
            f"| {c} | {r['seconds']:.2f} | {r['rows'] / r['seconds']:,.0f} | {r['calls']} | "
            f"{1000 * r['calls'] / r['rows']:.1f} | {r['prompt_tokens_per_row']:.1f} | "
            f"{r['max_in_flight']} | **{ideal / r['seconds']:.0%}** |"
        )
    kinds = ", ".join(f"{k} {v}" for k, v in faulty["failures"].items()) or "none"
    top = max(results)
    lines += [
        "",
        f"At {top}, {results[top]['calls']} calls go out in {waves[top]} waves (at best "
        f"{results[top]['calls'] / top / waves[top]:.0%} of the ideal), and the work before and after the "
        "calls (the upstream query, rendering the prompts, reading the replies, validating the batch) "
        "weighs more against a shorter wait; a larger table or batch amortizes both.",
        "",
        "With 20% faulty replies (a mix of wrong_types, invented_fk, duplicates, missing_fields, "
        "extra_fields, malformed and truncated) at concurrency 8:",
        "",
        "| chunks | calls | **calls per chunk** | repair requests | rows: first try / repaired / fallback | "
        "seconds | valid batch |",
        "|---:|---:|---:|---:|---|---:|---|",
        f"| {faulty['chunks']} | {faulty['calls']} | **{faulty['calls_per_chunk']:.2f}** | "
        f"{faulty['repair_requests']} | {faulty['rows_llm']:,} / {faulty['rows_repaired']:,} / "
        f"{faulty['rows_fallback']:,} | {faulty['seconds']:.2f} | {'yes' if faulty['valid'] else 'NO'} |",
        "",
        f"Failures seen: {kinds}. Targets: at least 80% of ideal at concurrency 8, at most 1.3 calls per "
        "chunk with 20% faults.",
        "",
        "A server that follows the JSON schema but ignores the prompt (a strict decoder whose model does not "
        "read the rows it is asked to complete), 15% of replies faulty (the same mix), concurrency 8. Each "
        "row is a required property of the reply, named by its key, so the server cannot invent or drop "
        "one:",
        "",
        "| rows sent | rows: first try / repaired / fallback | invented labels (injected) | calls | "
        "seconds | **values from the model** | valid batch |",
        "|---:|---|---:|---:|---:|---:|---|",
        f"| {strict['rows']:,} | {strict['rows_llm']:,} / {strict['rows_repaired']:,} / "
        f"{strict['rows_fallback']:,} | {strict['failures'].get('invented_key', 0)} | {strict['calls']} | "
        f"{strict['seconds']:.2f} | **{model_share(strict):.1%}** | {'yes' if strict['valid'] else 'NO'} |",
        "",
        f"Failures seen: {', '.join(f'{k} {v}' for k, v in strict['failures'].items()) or 'none'}. Target: "
        "at least 90% of the values from the model (before keys were labels, such a server kept 1 of 574 "
        "rows: 1,589 rows were rejected as invented keys).",
    ]
    return "\n".join(lines)


def model_share(report: dict[str, Any]) -> float:
    """The share of the rows sent (and so of the LLM columns' values) that the model's answers filled."""
    return (report["rows_llm"] + report["rows_repaired"]) / report["rows"] if report["rows"] else 0.0


if __name__ == "__main__":
    main()
