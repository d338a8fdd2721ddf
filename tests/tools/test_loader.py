"""`load_toolkit`: a pack's tools.py loaded by file path (anywhere), else the generic toolkit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.episode import Episode
from pipeline.tools import ToolDefinitionError, load_toolkit
from tests.episode.fixture import SHOP

TOOLS_PY = '''
from __future__ import annotations

from pipeline.tools import Env, ToolError, generic_tools, tool


@tool(reads=("customers",))
def customer_by_email(env: Env, email: str) -> dict:
    """Find a customer by login address.

    Args:
        email: The login address.
    """
    row = env.one("SELECT * FROM customers WHERE email = ?", [email])
    if row is None:
        raise ToolError(f"no customer with email {email!r}")
    return row
'''


def make_pack(tmp_path: Path, tools_py: str | None) -> Path:
    pack = tmp_path / "myshop"
    pack.mkdir(parents=True)
    for name in ("schema.sql", "domain.yaml"):
        shutil.copy(SHOP / name, pack / name)
    if tools_py is not None:
        (pack / "tools.py").write_text(tools_py)
    return pack


SECOND = '''

@tool(reads=("orders",))
def count_orders(env: Env) -> int:
    """How many orders there are."""
    return env.scalar("SELECT count(*) FROM orders")
'''


def test_module_level_tools_in_definition_order(tmp_path: Path):
    kit = load_toolkit(make_pack(tmp_path, TOOLS_PY + SECOND))
    assert kit.names == ["customer_by_email", "count_orders", "cannot_complete"]
    assert kit.name == "shop"


def test_tools_list_and_toolkit_function(tmp_path: Path):
    listed = make_pack(tmp_path / "a", TOOLS_PY + "\nTOOLS = [customer_by_email]\n")
    assert load_toolkit(listed).names == ["customer_by_email", "cannot_complete"]
    derived = make_pack(
        tmp_path / "b",
        TOOLS_PY + "\n\ndef toolkit(schema):\n"
        "    return [customer_by_email, *generic_tools(schema, tables=['carriers'])]\n",
    )
    assert load_toolkit(derived).names[:3] == ["customer_by_email", "search_carriers", "get_carrier"]


def test_a_pack_without_tools_and_a_ddl_file_get_the_generic_toolkit(tmp_path: Path):
    pack = make_pack(tmp_path, None)
    assert "search_customers" in load_toolkit(pack)
    assert "delete_order" in load_toolkit(pack / "schema.sql")
    ddl = tmp_path / "bare.sql"
    ddl.write_text("CREATE TABLE notes (id INT PRIMARY KEY, body TEXT);")
    assert load_toolkit(ddl).names == [
        "search_notes",
        "get_note",
        "create_note",
        "update_note",
        "delete_note",
        "cannot_complete",
    ]


def test_a_database_and_an_episode_find_the_pack_outside_the_repository(shop_db: Path, tmp_path: Path):
    assert "search_customers" in load_toolkit(shop_db)  # "shop" is not under schemas/: generic
    pack = make_pack(tmp_path, TOOLS_PY)
    assert load_toolkit(shop_db, pack=pack).names == ["customer_by_email", "cannot_complete"]
    with Episode.open(shop_db, pack=pack, workdir=tmp_path) as ep:
        email = ep.query("SELECT email FROM customers WHERE customer_id = 2")[0]["email"]
        assert ep.call("customer_by_email", {"email": email}).value["customer_id"] == 2
        assert ep.call("customer_by_email", {"email": "nobody"}).error == "no customer with email 'nobody'"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x = 1 +\n", r"tools\.py:1: importing the pack's tools failed: SyntaxError"),
        (
            "import nonexistent_module_xyz\n",
            r"tools\.py:1: importing the pack's tools failed: ModuleNotFoundError",
        ),
        (
            "from pipeline.tools import tool\n\n@tool\ndef f(env, x: int):\n    'Do.'\n",
            r"tools\.py:3: tool f: document parameter x",
        ),
        (
            TOOLS_PY.replace('reads=("customers",)', 'reads=("customer",)'),
            r'tool customer_by_email: declares table "customer", .*Did you mean "customers"\?',
        ),
    ],
)
def test_errors_name_the_file_and_line(tmp_path: Path, source: str, message: str):
    pack = make_pack(tmp_path, source)
    with pytest.raises(ToolDefinitionError, match=message):
        load_toolkit(pack)


def test_a_changed_tools_py_is_reloaded(tmp_path: Path):
    pack = make_pack(tmp_path, TOOLS_PY)
    assert load_toolkit(pack).names == ["customer_by_email", "cannot_complete"]
    (pack / "tools.py").write_text(TOOLS_PY.replace("def customer_by_email", "def find_customer"))
    import os

    stat = (pack / "tools.py").stat()
    os.utime(pack / "tools.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert load_toolkit(pack).names == ["find_customer", "cannot_complete"]
