"""Episode templates: the base without its audit views, made once per base content, never the base itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb

from stateforge.episode import Episode
from stateforge.episode.template import FOLDER
from stateforge.tools import Toolkit
from tests.episode.fixture import sha256

STATE = (
    "SELECT table_schema, table_name, table_type FROM information_schema.tables "
    "WHERE table_catalog = current_database() ORDER BY ALL"
)


def contents(con: duckdb.DuckDBPyConnection, *, views: bool) -> dict[str, object]:
    """Every base table's rows (as a sorted multiset) and the catalog, views included or not."""
    out: dict[str, object] = {}
    for schema, name, kind in con.execute(STATE).fetchall():
        if kind == "VIEW":
            if views:
                out[f"view {schema}.{name}"] = True
            continue
        out[f"{schema}.{name}"] = sorted(map(repr, con.execute(f'FROM "{schema}"."{name}"').fetchall()))
    return out


def templates(workdir: Path) -> list[Path]:
    return sorted((workdir / FOLDER).glob("*.duckdb"))


def test_an_episode_has_every_row_of_the_base_but_not_its_audit_views(
    shop_db: Path, kit: Toolkit, tmp_path: Path
):
    before = sha256(shop_db)
    with duckdb.connect(str(shop_db), read_only=True) as con:
        base = contents(con, views=False)
        assert any(k.startswith("view stateforge.") for k in contents(con, views=True))
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
        assert contents(ep.connection, views=True) == base
        [made] = templates(tmp_path)
        stamp = made.stat().st_mtime_ns
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path):
        assert templates(tmp_path) == [made] and made.stat().st_mtime_ns == stamp  # made once
    assert sha256(shop_db) == before


def test_a_kept_copy_is_the_base_with_its_views(shop_db: Path, kit: Toolkit, tmp_path: Path):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path, keep=True) as ep:
        pass
    with duckdb.connect(str(ep.path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM stateforge.violations").fetchall()[0][0] > 0


def test_a_changed_base_gets_a_new_template_and_the_old_one_goes(
    shop_db: Path, kit: Toolkit, tmp_path: Path
):
    base, work = tmp_path / "base" / "shop.duckdb", tmp_path / "work"
    base.parent.mkdir()
    shutil.copyfile(shop_db, base)
    with Episode.open(base, toolkit=kit, workdir=work) as ep:
        assert ep.query("SELECT count(*) AS n FROM carriers")[0]["n"] == 4
        [old] = templates(work)
    with duckdb.connect(str(base)) as con:
        con.execute("DELETE FROM carriers WHERE carrier_id = 4")
    with Episode.open(base, toolkit=kit, workdir=work) as ep:
        assert ep.query("SELECT count(*) AS n FROM carriers")[0]["n"] == 3
        [new] = templates(work)
    assert new != old and not old.exists()


def test_a_template_removed_by_someone_else_is_made_again(shop_db: Path, kit: Toolkit, tmp_path: Path):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path):
        [made] = templates(tmp_path)
    made.unlink()  # another process (a newer base, a temp cleaner) removed it
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
        assert ep.query("SELECT count(*) AS n FROM carriers")[0]["n"] == 4
        ep.reset()
        assert templates(tmp_path) == [made]
    made.unlink()
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
        made.unlink()  # gone again before the reset's copy
        ep.reset()
        assert ep.query("SELECT count(*) AS n FROM carriers")[0]["n"] == 4
