"""Benchmark of DDL parsing: a synthetic pg_dump of N tables, against sqlglot alone, in one run.

    .venv/bin/python bench/parse.py [--tables 2000] [--runs 3] [--no-write]

The baseline is `sqlglot.parse` of the same text in one call (what a naive parser would do, and which
fails on real dumps); the ratio shows what our statement splitting, classification and model building cost
on top of sqlglot's own tokenizer and parser.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time

import sqlglot

from pipeline.schema import parse_ddl


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


def _median(fn, runs: int) -> float:  # noqa: ANN001
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()

    text = big_dump(args.tables)
    # sqlglot alone cannot read COPY data blocks or OWNER TO: give it only the CREATE TABLEs.
    creates = big_dump(args.tables, extras=False)
    ours = _median(lambda: parse_ddl(text, "postgres"), args.runs)
    baseline = _median(lambda: sqlglot.parse(creates, read="postgres"), args.runs)
    body = "\n".join(
        [
            f"Command: `.venv/bin/python bench/parse.py --tables {args.tables}` ({dt.date.today()}; 2 cores, "
            f"shared: compare the ratio). A pg_dump-shaped file of {args.tables:,} tables "
            f"({len(text) / 1e6:.1f} MB, with OWNER TO and COPY blocks); medians of {args.runs} runs.",
            "",
            "| what | seconds | tables/s | vs sqlglot alone |",
            "|---|---:|---:|---:|",
            f"| `parse_ddl` (split, classify, parse, build the model, resolve keys) | {ours:.2f} "
            f"| {args.tables / ours:,.0f} | {ours / baseline:.2f}x |",
            f"| baseline: `sqlglot.parse` of the CREATE TABLEs alone, one call | {baseline:.2f} "
            f"| {args.tables / baseline:,.0f} | 1.00x |",
        ]
    )
    print(body)
    if not args.no_write:
        from _doc import write_section

        write_section("Parse (bench/parse.py)", body)


if __name__ == "__main__":
    main()
