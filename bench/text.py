"""Benchmark of the offline text and code strategies: the project's vocabularies against Faker pools.

    .venv/bin/python bench/text.py [--rows 100000] [--repeats 5] [--no-write]

For each column kind the packs fill with text, the values of `--rows` rows are generated through
`TableGenerator` (the build's path) twice in the same run: with the vocabulary strategy the packs use now
(song_title, bio, language_code weighted by frequency, ...) and with the Faker-pool way that filled the
same columns before (`faker` hints: a pool of 2,000 Faker values sampled with numpy). Medians of
`--repeats` runs after a warm-up (pools and compiled grammars are made once per process, as in a build);
the share of distinct values at 20,000 rows (music's songs at scale 1) says how often values repeat.
Prints a markdown table; unless `--no-write`, replaces the "Offline text" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import datetime as dt
import platform
import statistics
import time
from typing import Any

from _doc import bench_parser, publish

from stateforge.domain.config import DomainConfig
from stateforge.fill.generator import TableGenerator
from stateforge.schema.model import Column, Table

# (what, table, column type, the strategy the packs use now, the Faker hint that stood in for it before)
CASES: tuple[tuple[str, str, str, dict[str, Any], dict[str, Any]], ...] = (
    ("song titles", "songs", "VARCHAR(200)", {"strategy": "song_title"}, {"faker": "catch_phrase"}),
    ("artist names", "artists", "VARCHAR(100)", {"strategy": "artist_name"}, {"faker": "name"}),
    ("playlist names", "playlists", "VARCHAR(100)", {"strategy": "playlist_name"}, {"faker": "catch_phrase"}),
    ("clan names", "clans", "VARCHAR(30)", {"strategy": "clan_name"}, {"faker": "word"}),
    ("artist bios", "artists", "VARCHAR(2000)", {"strategy": "bio"}, {"faker": "paragraph"}),
    ("comments on songs", "song_comments", "VARCHAR(1000)", {"strategy": "comment"}, {"faker": "sentence"}),
    ("meeting agendas", "meetings", "VARCHAR(2000)", {"strategy": "agenda"}, {"faker": "paragraph"}),
    ("song languages", "songs", "VARCHAR(8)", {"strategy": "language_code"}, {"faker": "language_code"}),
    ("countries", "users", "CHAR(2)", {"strategy": "country_code"}, {"faker": "country_code"}),
)


MUSIC_ROWS = {"song titles": 20_000, "artist names": 2_000, "playlist names": 5_000, "artist bios": 1_400,
              "comments on songs": 8_000, "song languages": 18_000, "countries": 11_900}
"""Rows of these columns in the music pack at scale 1 (non-NULL), to weigh the difference per build."""


def _generator(table: str, type_: str, hint: dict[str, Any]) -> TableGenerator:
    columns = [Column("id", "BIGINT", nullable=False), Column("v", type_)]
    config = DomainConfig(name="bench", columns={f"{table}.v": hint}, null_rate=0.0)
    return TableGenerator(Table(table, columns, primary_key=("id",)), config, seed=7)


def _median_ms(gen: TableGenerator, rows: int, repeats: int) -> float:
    gen.generate(1_000, 0)  # warm-up: pools and compiled grammars, once per process as in a build
    times = []
    for i in range(repeats):
        started = time.perf_counter()
        gen.generate(rows, i * rows)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _distinct(gen: TableGenerator, rows: int = 20_000) -> float:
    values = gen.generate(rows, 0).column("v").to_pylist()
    return len(set(values)) / len(values)


def main() -> None:
    """Time both ways for every case and print (and record) the table."""
    parser = bench_parser(__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    lines = [
        f"Command: `.venv/bin/python bench/text.py --rows {args.rows}` ({dt.date.today()}; "
        f"{platform.machine()}, 2 cores, shared and noisy: compare the ratios). {args.rows:,} rows a run, "
        f"medians of {args.repeats} runs after a warm-up; distinct share at 20,000 rows.",
        "",
        "| column | vocabulary: ms | Faker pool (before): ms | vocabulary vs Faker | distinct: vocabulary "
        "| distinct: Faker pool |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    extra_ms = 0.0
    for what, table, type_, now, before in CASES:
        new, old = _generator(table, type_, now), _generator(table, type_, before)
        new_ms, old_ms = _median_ms(new, args.rows, args.repeats), _median_ms(old, args.rows, args.repeats)
        extra_ms += (new_ms - old_ms) / args.rows * MUSIC_ROWS.get(what, 0)
        lines.append(
            f"| {what} (`{now['strategy']}`) | {new_ms:,.1f} | {old_ms:,.1f} | {new_ms / old_ms:.2f}x "
            f"| {_distinct(new):.3f} | {_distinct(old):.3f} |"
        )
    lines += [
        "",
        f"Per build the difference is small: the music pack at scale 1 has {sum(MUSIC_ROWS.values()):,} "
        f"rows in these columns: the vocabularies add about {extra_ms:.0f} ms to a build of several seconds. "
        "A Faker pool holds 2,000 values, so its values repeat from a few thousand rows on; the vocabularies "
        "draw titles and names without repeats while their combinations last. Codes are drawn by real-world "
        "frequency, so few distinct values is the point there (songs are mostly in English).",
    ]
    publish("Offline text (bench/text.py)", lines, write=not args.no_write)


if __name__ == "__main__":
    main()
