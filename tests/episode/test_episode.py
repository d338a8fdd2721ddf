"""Episodes: private copies, the frozen clock, one transaction per call, the log, ids, isolation."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from stateforge.episode import Episode
from stateforge.episode.template import FOLDER
from stateforge.errors import StoreError
from stateforge.tools import Toolkit
from tests.episode.fixture import sha256

NOW = dt.datetime(2025, 12, 31, 23, 59, 59)  # the shop's time_window ends 2025-12-31: its last second


def email_of(ep: Episode, customer_id: int) -> str:
    return ep.query("SELECT email FROM customers WHERE customer_id = ?", [customer_id])[0]["email"]


def test_the_base_never_changes_and_the_copy_is_clean_after_close(
    shop_db: Path, kit: Toolkit, tmp_path: Path
):
    before = sha256(shop_db)
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
        assert ep.path.parent == tmp_path and ep.path != ep.base_path == shop_db.resolve()
        template = sha256(next((tmp_path / FOLDER).glob("*.duckdb")))
        assert ep.call("delete_carrier", {"carrier_id": 2}).ok
        assert ep.query("SELECT count(*) AS n FROM carriers")[0]["n"] == 3
        copy = ep.path
    # the copy went back to the pool: its writes are gone with its WAL, its bytes are the template's
    assert not Path(str(copy) + ".wal").exists() and sha256(copy) == template
    assert sha256(shop_db) == before
    with duckdb.connect(str(shop_db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM carriers").fetchall() == [(4,)]


def test_keep_leaves_the_copy_with_its_writes(shop_db: Path, kit: Toolkit, tmp_path: Path):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path, keep=True) as ep:
        ep.call("delete_carrier", {"carrier_id": 2})
    with duckdb.connect(str(ep.path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM carriers").fetchall() == [(3,)]


def test_frozen_clock_from_the_time_window_or_build_meta(
    ep: Episode, shop_db: Path, kit: Toolkit, tmp_path: Path
):
    assert ep.now == NOW
    placed = ep.call(
        "place_order",
        {
            "email": email_of(ep, 3),
            "items": [{"sku": ep.query("SELECT sku FROM products LIMIT 1")[0]["sku"]}],
        },
    )
    assert (
        ep.query("SELECT placed_at FROM orders WHERE order_id = ?", [placed.value["order_id"]])[0][
            "placed_at"
        ]
        == NOW
    )
    stamped = tmp_path / "stamped.duckdb"
    shutil.copy(shop_db, stamped)
    with duckdb.connect(str(stamped)) as con:
        con.execute("INSERT OR REPLACE INTO stateforge.build_meta VALUES ('now', '2025-03-04T08:30:00')")
    with Episode.open(stamped, toolkit=kit, workdir=tmp_path) as other:
        assert other.now == dt.datetime(2025, 3, 4, 8, 30)
    unstamped = tmp_path / "unstamped.duckdb"  # a file built before 'now' was recorded: the window's end
    shutil.copy(shop_db, unstamped)
    with duckdb.connect(str(unstamped)) as con:
        con.execute("DELETE FROM stateforge.build_meta WHERE key = 'now'")
    with Episode.open(unstamped, toolkit=kit, workdir=tmp_path) as other:
        assert other.now == NOW


def test_a_call_is_one_transaction(ep: Episode):
    orders = ep.query("SELECT count(*) AS n FROM orders")[0]["n"]
    sku = ep.query("SELECT sku FROM products LIMIT 1")[0]["sku"]
    failed = ep.call("place_order", {"email": email_of(ep, 3), "items": [{"sku": sku}, {"sku": "NOPE"}]})
    assert not failed.ok and failed.error == "no product with SKU 'NOPE'" and failed.changes == {}
    assert ep.query("SELECT count(*) AS n FROM orders")[0]["n"] == orders  # the order insert was rolled back


def test_pages_of_a_query_with_named_parameters(ep: Episode):
    busiest = ep.query(
        "SELECT c.email, count(*) AS n FROM orders o JOIN customers c USING (customer_id) "
        "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1"
    )[0]
    first = ep.call("find_orders", {"email": busiest["email"], "limit": 2})
    rest = ep.call("find_orders", {"email": busiest["email"], "limit": 50, "offset": 2})
    assert first.value["total"] == rest.value["total"] == busiest["n"] >= 3
    rows = first.value["rows"] + rest.value["rows"]
    assert len({r["order_id"] for r in rows}) == busiest["n"]
    assert [r["placed_at"] for r in rows] == sorted((r["placed_at"] for r in rows), reverse=True)
    paid = ep.call("find_orders", {"email": busiest["email"], "status": "paid", "limit": 50})
    assert all(r["status"] == "paid" for r in paid.value["rows"])


def test_every_page_tells_the_same_total(ep: Episode):
    # the total comes from the rows when the page is the last one, else from a count: the same either way
    busiest = ep.query(
        "SELECT c.email, count(*) AS n FROM orders o JOIN customers c USING (customer_id) "
        "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1"
    )[0]
    n = busiest["n"]
    for limit in (1, n - 1, n, n + 1):
        for offset in (0, 1, n - 1, n, n + 3):
            page = ep.call("find_orders", {"email": busiest["email"], "limit": limit, "offset": offset}).value
            assert page["total"] == n, (limit, offset)
            assert len(page["rows"]) == max(0, min(limit, n - offset)), (limit, offset)
    idle = ep.query(
        "SELECT email FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = "
        "c.customer_id) ORDER BY 1 LIMIT 1"
    )[0]["email"]
    for offset in (0, 2):
        page = ep.call("find_orders", {"email": idle, "limit": 5, "offset": offset}).value
        assert page["total"] == 0 and page["rows"] == []


def test_the_log_records_every_call(ep: Episode):
    ep.call("get_carrier", {"carrier_id": 1})
    ep.call("get_carier", {"carrier_id": 1})
    ep.call("delete_carrier", {"carrier_id": 2})
    ep.call("cannot_complete", {"reason": "the carrier is gone"})
    log = ep.log
    assert [r.tool for r in log] == ["get_carrier", "get_carier", "delete_carrier", "cannot_complete"]
    assert (
        log[0].ok
        and log[0].arguments == {"carrier_id": 1}
        and log[0].value == {"carrier_id": 1, "name": "DHL"}
    )
    assert log[1].error_kind == "unknown_tool" and 'Did you mean "get_carrier"?' in log[1].error
    assert log[2].changes == {"carriers": {"deleted": 1}, "shipments": {"updated": 8}}
    assert all(r.ms > 0 for r in log)
    assert ep.declined == "the carrier is gone"
    assert log[3].changes == {} and log[3].content() == '{"reason":"the carrier is gone","status":"declined"}'


def test_ids_are_deterministic_and_never_reused(shop_db: Path, kit: Toolkit, tmp_path: Path):
    def script(ep: Episode) -> list:
        email = email_of(ep, 4)
        sku = ep.query("SELECT sku FROM products WHERE product_id = 5")[0]["sku"]
        ids = [ep.call("place_order", {"email": email, "items": [{"sku": sku}]}).value["order_id"]]
        ep.call("place_order", {"email": email, "items": [{"sku": "NOPE"}]})  # fails, burns an id
        ids.append(ep.call("place_order", {"email": email, "items": [{"sku": sku}]}).value["order_id"])
        new = {"email": "x@shop.test", "name": "X", "created_at": "2025-01-01T00:00:00"}
        ids.append(ep.call("create_customer", new).value["customer_id"])
        ep.call("delete_customer", {"customer_id": ids[-1]})
        ids.append(ep.call("create_customer", new).value["customer_id"])
        return ids

    with (
        Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as a,
        Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as b,
    ):
        first, second = script(a), script(b)
    assert first == second
    assert first[0] == 61 and first[1] > first[0]  # identity: the sequence after the built rows
    assert first[2:] == [31, 32]  # max+1, and the deleted 31 is not handed out again


def test_concurrent_episodes_do_not_see_each_other(shop_db: Path, kit: Toolkit, tmp_path: Path):
    results: dict[int, tuple] = {}

    def run(i: int) -> None:
        with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as ep:
            made = ep.call(
                "create_customer",
                {"email": "same@shop.test", "name": f"n{i}", "created_at": "2025-01-01T00:00:00"},
            )
            ep.call("update_carrier", {"carrier_id": 1, "name": f"Carrier {i}"})
            seen = ep.query("SELECT name FROM customers WHERE email = 'same@shop.test'")
            carrier = ep.query("SELECT name FROM carriers WHERE carrier_id = 1")[0]["name"]
            results[i] = (made.ok, [r["name"] for r in seen], carrier)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: (True, [f"n{i}"], f"Carrier {i}") for i in range(4)}


def test_one_episode_serialises_calls_from_threads(ep: Episode):
    def run(i: int) -> None:
        ep.call("create_carrier", {"name": f"C{i}"})

    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.ok for r in ep.log)
    assert sorted(r.value["carrier_id"] for r in ep.log) == [5, 6, 7, 8, 9, 10]


def test_reset_returns_to_the_base(ep: Episode):
    ep.call("delete_carrier", {"carrier_id": 2})
    ep.reset()
    assert ep.log == [] and ep.query("SELECT count(*) AS n FROM carriers")[0]["n"] == 4
    assert ep.call("create_carrier", {"name": "New"}).value["carrier_id"] == 5


def test_persist_writes_the_file_one_writer_at_a_time(shop_db: Path, kit: Toolkit, tmp_path: Path):
    target = tmp_path / "mine.duckdb"
    shutil.copy(shop_db, target)
    with Episode.open(target, toolkit=kit, persist=True) as ep:
        assert ep.path == target.resolve()
        with pytest.raises(StoreError, match="already open for writing"):
            Episode.open(target, toolkit=kit, persist=True)
        assert ep.call("create_carrier", {"name": "Kept"}).ok
        with pytest.raises(StoreError, match="cannot reset"):
            ep.reset()
    with duckdb.connect(str(target), read_only=True) as con:
        assert con.execute("SELECT name FROM carriers WHERE carrier_id = 5").fetchall() == [("Kept",)]
        assert con.execute("SELECT current_setting('enable_external_access')").fetchall() == [(True,)]
    Episode.open(target, toolkit=kit, persist=True).close()  # the writer slot is free again


def test_a_closed_episode_says_so(shop_db: Path, kit: Toolkit, tmp_path: Path):
    ep = Episode.open(shop_db, toolkit=kit, workdir=tmp_path)
    ep.close()
    ep.close()
    with pytest.raises(StoreError, match="is closed"):
        ep.call("get_carrier", {"carrier_id": 1})


def test_bad_databases_are_named(tmp_path: Path):
    with pytest.raises(StoreError, match="the file does not exist"):
        Episode.open(tmp_path / "missing.duckdb")
    plain = tmp_path / "plain.duckdb"
    duckdb.connect(str(plain)).close()
    with pytest.raises(StoreError, match="is not a Stateforge database"):
        Episode.open(plain, workdir=tmp_path)
    assert list(tmp_path.glob("plain-*")) == []  # the failed copy was removed


def test_declarations_are_checked_at_every_call(ep: Episode):
    wrote = ep.call("sneaky_write", {"order_id": 3})
    assert wrote.error_kind == "definition" and wrote.infra_error
    assert "sneaky_write wrote products without declaring it" in wrote.error
    assert ep.query("SELECT note FROM orders WHERE order_id = 3")[0]["note"] != "x"  # rolled back
    read = ep.call("sneaky_read")
    assert read.error_kind == "definition" and "read customers without declaring it" in read.error
    clock = ep.call("wall_clock")
    assert clock.error_kind == "definition" and "frozen clock" in clock.error
    write = ep.call("sql_write")
    assert "run one SELECT; this SQL holds DELETE" in write.error
    assert ep.query("SELECT count(*) AS n FROM customers")[0]["n"] == 30
    bug = ep.call("broken")
    assert bug.error_kind == "internal" and "ZeroDivisionError" in bug.error


def test_an_episode_never_closed_does_not_keep_the_interpreter_alive(shop_db: Path, tmp_path: Path):
    """A forgotten episode is closed by the garbage collector at exit, without starting a thread then."""
    script = (
        "import sys\n"
        "from stateforge.episode import Episode\n"
        "ep = Episode.open(sys.argv[1], workdir=sys.argv[2])\n"
        "ep.call('cannot_complete', {'reason': 'checking'})\n"
    )
    args = [sys.executable, "-c", script, str(shop_db), str(tmp_path)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not any(tmp_path.glob("*.duckdb")), "the copy is removed at exit"
