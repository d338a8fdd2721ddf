"""`load_toolkit`: a pack's `tools` (a package, or one tools.py) loaded with its folder (anywhere), else the
generic toolkit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from stateforge.episode import Episode
from stateforge.tools import ToolDefinitionError, load_toolkit
from tests.episode.fixture import SHOP

TOOLS_PY = '''
from __future__ import annotations

from stateforge.tools import Env, ToolError, generic_tools, tool


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
    assert "search_customers" in load_toolkit(shop_db)  # "shop" is not under stateforge/packs/: generic
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
            "from stateforge.tools import tool\n\n@tool\ndef f(env, x: int):\n    'Do.'\n",
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


def _touch(path: Path) -> None:
    import os

    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_a_tools_package_with_relative_imports_loads_anywhere_and_reloads_on_any_edit(tmp_path: Path):
    """The documented shape: `tools/` is a package whose modules import each other (and `tasks/` imports
    `tools/`) relatively; an edit to any file of the pack is seen by the next load in the same process."""
    pack = make_pack(tmp_path, None)
    (pack / "tools").mkdir()
    (pack / "tools" / "names.py").write_text('LABEL = "login address"\n')
    (pack / "tools" / "people.py").write_text(
        TOOLS_PY.replace("login address", '" + LABEL + "').replace(
            "from stateforge.tools import", "from .names import LABEL\nfrom stateforge.tools import"
        )
    )
    (pack / "tools" / "__init__.py").write_text(
        "from .people import customer_by_email\n\nTOOLS = [customer_by_email]\n"
    )
    (pack / "tasks").mkdir()
    (pack / "tasks" / "__init__.py").write_text(
        "from stateforge.tasks import recipe\nfrom ..tools.names import LABEL\n\n"
        "@recipe(capabilities=('multi_condition_filtering',), difficulty='easy')\n"
        "def touch(ctx):\n    '''Uses LABEL.'''\n    ctx.skip(LABEL)\n"
    )
    from stateforge.tasks import load_recipes

    kit = load_toolkit(pack)
    assert kit.names == ["customer_by_email", "cannot_complete"]
    assert [r.name for r in load_recipes(pack)] == ["touch"]
    module = kit["customer_by_email"].fn.__module__
    assert module.startswith("stateforge_pack_myshop_") and module.endswith(".tools.people")

    (pack / "tools" / "people.py").write_text(
        (pack / "tools" / "people.py").read_text().replace("def customer_by_email", "def find_customer")
    )
    (pack / "tools" / "__init__.py").write_text(
        "from .people import find_customer\n\nTOOLS = [find_customer]\n"
    )
    _touch(pack / "tools" / "people.py")
    assert load_toolkit(pack).names == ["find_customer", "cannot_complete"]

    # a sibling alone changes: the pack is loaded again, not served from the cache
    (pack / "tools" / "names.py").write_text('LABEL = "e-mail"\n')
    _touch(pack / "tools" / "names.py")
    assert load_toolkit(pack)["find_customer"].fn.__globals__["LABEL"] == "e-mail"


def test_a_broken_sibling_module_names_its_own_file_and_line(tmp_path: Path):
    pack = make_pack(tmp_path, None)
    (pack / "tools").mkdir()
    (pack / "tools" / "helpers.py").write_text("X = 1\nY = 1 / 0\n")
    (pack / "tools" / "__init__.py").write_text("from .helpers import X\n")
    with pytest.raises(
        ToolDefinitionError,
        match=r"tools/helpers\.py:2: importing the pack's tools failed: "
        r"ZeroDivisionError",
    ):
        load_toolkit(pack)


REFUSING = '''
from __future__ import annotations

from stateforge.tools import Env, tool
from stateforge.tools.policies import refuse


@tool(reads=("customers",))
def vip_only(env: Env, email: str) -> dict:
    """Only for gold customers.

    Args:
        email: The login address.
    """
    row = env.one("SELECT tier FROM customers WHERE email = ?", [email])
    if row is None or row["tier"] != "gold":
        raise refuse("{policy}", "only gold customers may", argument="email")
    return row
'''


def test_a_refusal_must_name_a_policy_of_domain_yaml(shop_db: Path, tmp_path: Path):
    pack = make_pack(tmp_path / "bad", REFUSING.replace("{policy}", "gold_only"))
    with pytest.raises(ToolDefinitionError) as caught:
        load_toolkit(pack)
    message = str(caught.value)
    assert f"{pack / 'tools.py'}:" in message and "vip_only refuses with policy 'gold_only'" in message
    assert "domain.yaml" in message and "The policies of" in message
    good = make_pack(tmp_path / "good", REFUSING.replace("{policy}", "gold_only"))
    config = (good / "domain.yaml").read_text()
    (good / "domain.yaml").write_text(
        config + "\npolicies:\n  - name: gold_only\n    kind: action\n"
        "    description: Only gold customers get the VIP desk.\n"
        if "policies:" not in config
        else config.replace(
            "policies:", "policies:\n  - name: gold_only\n    kind: action\n    description: Gold only.", 1
        )
    )
    kit = load_toolkit(good)
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path / "ep") as ep:
        plain = ep.query("SELECT email FROM customers WHERE tier IS DISTINCT FROM 'gold' LIMIT 1")[0]["email"]
        result = ep.call("vip_only", {"email": plain})
    assert result.policy == "gold_only" and result.argument == "email" and result.error_kind == "tool"
    assert result.error_fields()["policy"] == "gold_only" and "(policy: gold_only)" in result.error


def test_a_tool_may_not_refuse_by_a_procedure_nor_take_the_actors_key(tmp_path: Path):
    """A procedure is the actor's to follow (no tool enforces it); in a pack with actors, no tool is told
    whom to act for (issue 21)."""
    pack = make_pack(tmp_path / "procedure", REFUSING.replace("{policy}", "gold_only"))
    with (pack / "domain.yaml").open("a") as fh:
        fh.write("\npolicies:\n  - name: gold_only\n    kind: procedure\n    description: Gold only.\n"
                 "    check: SELECT 1 WHERE FALSE\n")
    with pytest.raises(ToolDefinitionError, match="vip_only refuses with 'gold_only', a `kind: procedure`"):
        load_toolkit(pack)
    acting = make_pack(tmp_path / "actors", TOOLS_PY)
    with (acting / "domain.yaml").open("a") as fh:
        fh.write("\nactors: {table: customers, key: email}\n")
    with pytest.raises(ToolDefinitionError, match="the tools .* take email as an argument: a tool acts for"):
        load_toolkit(acting)
