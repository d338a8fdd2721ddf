"""Benchmark of the LLM task generator against the local fake OpenAI-compatible server, in one run.

    .venv/bin/python bench/llm_tasks.py [--domain music] [--scale 1] [--n 10] [--latency 0.5] [--rounds 3]
                                        [--no-write]

The domain is built once (offline) under ./artifacts/bench-llm-tasks/. Each round generates `--n` tasks
three ways on that database, with the same seed:

1. the offline generator (recipes): the baseline, measured in the same run;
2. the LLM generator (`--backend openai`) against a `FakeLLMServer` in a child process (its CPU does not
   compete with the generator's for the GIL) that takes `--latency` seconds per turn, its rule-based
   agent playing the model, with a fresh response cache;
3. the same LLM run again from that cache (zero calls; the tasks file must be byte-identical).

Then one LLM run with 20% of turns faulty (rate limits, 5xx, malformed and truncated arguments, unknown
tools, wrong types). Reports medians over the rounds: tasks per minute, the ratio to the offline baseline,
turns, calls and tokens per kept task, the share of the wall time spent waiting for the model. Prints a
markdown report; unless `--no-write`, replaces its section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _doc import write_section
from _fakellm import fake_server, server_stats

from stateforge.build import build_domain
from stateforge.llm.settings import LLMSettings
from stateforge.resources import artifacts_dir
from stateforge.tasks import generate_tasks

HEADING = "Task generation: the LLM generator (bench/llm_tasks.py)"
FAULTS = {
    "rate_limit": 0.04,
    "server_error": 0.03,
    "malformed": 0.04,
    "truncated": 0.03,
    "unknown_tool": 0.03,
    "wrong_types": 0.03,
}
"""20% of turns faulty: transport faults the client retries, and broken calls the generator answers."""


def timed(db: Path, out: Path, n: int, backend: str, settings: LLMSettings | None = None) -> dict[str, Any]:
    """One generation: its report, with the wall seconds."""
    shutil.rmtree(out, ignore_errors=True)
    options = {"settings": settings} if settings is not None else {}
    started = time.perf_counter()
    report = generate_tasks(
        db, n=n, seed=0, backend=backend, out=out, generator_options=options, max_attempts=4 * n
    )
    return report | {"wall": time.perf_counter() - started}


def llm_settings(base_url: str, cache: Path) -> LLMSettings:
    return LLMSettings(
        backend="openai",
        model="fake-model",
        base_url=base_url,
        api_key="bench",
        cache_dir=cache,
        max_retries=6,
        backoff_base=0.2,
        backoff_max=2.0,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="music")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--n", type=int, default=10, help="tasks to keep per run")
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per turn at the fake server")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()
    root = artifacts_dir() / "bench-llm-tasks"
    db = root / f"{args.domain}-{args.scale:g}" / f"{args.domain}.duckdb"
    if not db.is_file():
        build_domain(args.domain, scale=args.scale, out=db.parent)
    rounds = []
    with fake_server(args.latency, None, retry_after=0.2) as base_url:
        for k in range(args.rounds):
            cache = root / f"cache-{k}"
            shutil.rmtree(cache, ignore_errors=True)
            offline = timed(db, root / "offline", args.n, "offline")
            before = server_stats(base_url)["by_path"].get("/v1/chat/completions", 0)
            fresh = timed(db, root / "llm", args.n, "openai", llm_settings(base_url, cache))
            served = server_stats(base_url)["by_path"].get("/v1/chat/completions", 0) - before
            again = timed(db, root / "again", args.n, "openai", llm_settings(base_url, cache))
            same = (root / "llm" / "tasks.jsonl").read_bytes() == (
                root / "again" / "tasks.jsonl"
            ).read_bytes()
            rounds.append({"offline": offline, "llm": fresh, "again": again, "served": served, "same": same})
            print(
                f"round {k + 1}: offline {offline['wall']:.1f} s, LLM {fresh['wall']:.1f} s, "
                f"from the cache {again['wall']:.1f} s",
                file=sys.stderr,
            )
    with fake_server(args.latency, FAULTS, retry_after=0.2) as base_url:
        cache = root / "cache-faults"
        shutil.rmtree(cache, ignore_errors=True)
        faulty = timed(db, root / "faults", args.n, "openai", llm_settings(base_url, cache))
        faulty["served"] = server_stats(base_url)
    body = render(args, db, rounds, faulty)
    print(body)
    if not args.no_write:
        write_section(HEADING, body)


def per_minute(report: dict[str, Any]) -> float:
    return 60 * report["kept"] / report["wall"]


def render(args: argparse.Namespace, db: Path, rounds: list[dict[str, Any]], faulty: dict[str, Any]) -> str:
    def med(values: list[float]) -> float:
        return statistics.median(values)

    offline = med([per_minute(r["offline"]) for r in rounds])
    llm = med([per_minute(r["llm"]) for r in rounds])
    again = med([per_minute(r["again"]) for r in rounds])
    last = rounds[-1]["llm"]
    conv = last["generator"]["conversations"]
    calls = med([r["llm"]["generator"]["llm"]["calls"] / r["llm"]["kept"] for r in rounds])
    prompt = med([r["llm"]["generator"]["llm"]["prompt_tokens"] / r["llm"]["kept"] for r in rounds])
    completion = med([r["llm"]["generator"]["llm"]["completion_tokens"] / r["llm"]["kept"] for r in rounds])
    waiting = med([r["llm"]["generator"]["llm"]["seconds"] / r["llm"]["wall"] for r in rounds])
    ideal = med([r["llm"]["generator"]["llm"]["calls"] * args.latency / r["llm"]["wall"] for r in rounds])
    lines = [
        f"Command: `.venv/bin/python bench/llm_tasks.py --domain {args.domain} --scale {args.scale:g} "
        f"--n {args.n} --latency {args.latency:g} --rounds {args.rounds}` ({dt.date.today().isoformat()}; "
        f"2 cores, shared). {args.n} tasks per run on {args.domain} (scale {args.scale:g}, "
        f"{db.stat().st_size / 1e6:.0f} MB); the LLM generator's model is the fake server's rule-based "
        f"agent, in a child process, at {args.latency * 1000:.0f} ms per turn. Medians of {args.rounds} "
        "rounds; the offline generator is the baseline, measured in the same rounds.",
        "",
        "| generator | tasks per minute | vs offline | seconds per kept task |",
        "|---|---:|---:|---:|",
        f"| offline recipes (baseline) | {offline:.1f} | 1.00x | {60 / offline:.2f} |",
        f"| **LLM, fresh cache** | **{llm:.1f}** | {llm / offline:.2f}x | {60 / llm:.2f} |",
        f"| LLM, rerun from the cache (0 calls) | {again:.1f} | {again / offline:.2f}x | {60 / again:.2f} |",
        "",
        f"Per kept task (LLM, fresh): **{calls:.1f} calls** (turns), {prompt:,.0f} prompt and "
        f"{completion:,.0f} completion tokens; {conv['tool_calls'] / last['kept']:.1f} tool calls. The "
        f"model's latency is {ideal:.0%} of the wall time (turns x latency) and the client's HTTP time "
        f"{waiting:.0%}; the rest is the generator's own work (episodes, SQL, the tools, the gate's two "
        "replays). Prompt tokens are dominated by the tool listing sent with every turn "
        f"(the {args.domain} toolkit's JSON schemas).",
        "",
        f"Every rerun made {sum(r['again']['generator']['llm']['calls'] for r in rounds)} calls and wrote a "
        f"{'byte-identical' if all(r['same'] for r in rounds) else 'DIFFERENT'} tasks.jsonl; the server "
        f"answered {sum(r['served'] for r in rounds)} completions in all, the client counted "
        f"{sum(r['llm']['generator']['llm']['calls'] for r in rounds)}.",
        "",
    ]
    fl, fs, fc = faulty["generator"]["llm"], faulty["served"], faulty["generator"]["conversations"]
    faults = ", ".join(f"{k} {v}" for k, v in sorted(fs["faults"].items())) or "none"
    told = ", ".join(f"{k} {v}" for k, v in sorted(fc["faults"].items())) or "none"
    lines += [
        "With 20% of turns faulty (same latency, fresh cache):",
        "",
        "| kept | attempts | tasks per minute | calls per kept task | retries | faults injected | "
        "told to the model |",
        "|---:|---:|---:|---:|---:|---|---|",
        f"| {faulty['kept']} of {args.n} | {faulty['attempts']['total']} | {per_minute(faulty):.1f} | "
        f"{fl['calls'] / max(faulty['kept'], 1):.1f} | {fl['total_retries']} | {faults} | {told} |",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
