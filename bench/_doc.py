"""docs/BENCHMARKS.md: each benchmark script owns one `## ...` section and rewrites only that one."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "BENCHMARKS.md"
INTRO = (
    "# Benchmarks\n\nMeasured on the development machine, each section written by the script its heading "
    "names; rerun that script to refresh it. Sections are independent: a script rewrites only its own.\n"
)


def write_section(heading: str, body: str, doc: Path = DOC) -> None:
    """Replace (or append) the section `## heading` of `doc`, leaving every other section as it is."""
    title = f"## {heading}"
    text = doc.read_text() if doc.exists() else INTRO
    section = f"{title}\n\n{body.rstrip()}\n"
    pattern = re.compile(rf"^{re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1).rstrip("\n") + "\n"
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text)


def bench_parser(doc: str) -> argparse.ArgumentParser:
    """The argument parser of a benchmark (described by the first line of `doc`), with `--no-write`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    return parser


def publish(heading: str, lines: list[str], *, write: bool) -> None:
    """Print a benchmark's section and, with `write`, record it as `## heading` of docs/BENCHMARKS.md."""
    text = "\n".join(lines)
    print(text)
    if write:
        write_section(heading, text)
