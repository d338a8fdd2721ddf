"""Pooled copies: a closed episode's file serves the next episode only while its main file is unwritten."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from stateforge.episode import Episode
from stateforge.tools import Toolkit


def carriers(ep: Episode) -> int:
    return ep.query("SELECT count(*) AS n FROM carriers")[0]["n"]


def test_the_next_episode_reuses_the_copy_and_sees_none_of_the_last_ones_writes(
    shop_db: Path, kit: Toolkit, tmp_path: Path
):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as first:
        assert first.call("delete_carrier", {"carrier_id": 2}).ok
        assert first.call("create_carrier", {"name": "Mine"}).value["carrier_id"] == 5
        used = first.path
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as second:
        assert second.path == used
        assert carriers(second) == 4
        assert second.query("SELECT count(*) AS n FROM carriers WHERE name = 'Mine'")[0]["n"] == 0
        assert second.call("create_carrier", {"name": "Other"}).value["carrier_id"] == 5


def test_a_copy_whose_file_was_written_is_not_used_again(shop_db: Path, kit: Toolkit, tmp_path: Path):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
        assert ep.call("delete_carrier", {"carrier_id": 2}).ok
        ep.connection.execute("CHECKPOINT")  # folds the WAL into the copy's main file
        written = ep.path
    assert not written.exists()
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
        assert ep.path != written and carriers(ep) == 4


def test_concurrent_episodes_never_share_a_copy(shop_db: Path, kit: Toolkit, tmp_path: Path):
    paths: list[Path] = []
    seen: list[int] = []
    barrier = threading.Barrier(3)

    def one(n: int) -> None:
        with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
            ep.call("create_carrier", {"name": f"carrier {n}"})
            barrier.wait(timeout=60)  # all three open at once
            paths.append(ep.path)
            seen.append(carriers(ep))

    for _ in range(2):  # the second round takes the first round's copies from the pool
        threads = [threading.Thread(target=one, args=(n,)) for n in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert seen == [5] * 6
    assert len(set(paths[:3])) == 3 and set(paths[3:]) == set(paths[:3])


def test_pooled_copies_are_removed_at_exit(shop_db: Path, tmp_path: Path):
    script = (
        "import sys\n"
        "from stateforge.episode import Episode\n"
        "with Episode.open(sys.argv[1], workdir=sys.argv[2]) as ep:\n"
        "    ep.call('cannot_complete', {'reason': 'checking'})\n"
        "assert ep.path.exists()\n"
    )
    args = [sys.executable, "-c", script, str(shop_db), str(tmp_path)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not any(tmp_path.glob("*.duckdb*")), "the pooled copy is removed at exit"
