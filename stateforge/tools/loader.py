"""`load_toolkit`: the toolkit of a pack, a database or a DDL file.

A pack's business tools live in `tools.py` beside its `schema.sql` (`stateforge/packs/<pack>/tools.py`). The
module
is imported by file path, so a pack folder outside the repository works too, and gives its tools as:

- `TOOLS`: a `Toolkit` or a list of tools, or
- `toolkit(schema) -> Toolkit | list[Tool]`, a function (for tools derived from the schema), or else
- every `Tool` defined at module level (decorated with `@tool`), in the order they are defined.

A database or DDL file with no pack (or a pack without `tools/`) gets `generic_toolkit(schema)`.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

from stateforge.domain import list_domains, load_domain
from stateforge.domain.loader import load_config, schemas_dir
from stateforge.domain.modules import has_part, import_pack_part, pack_files_stamp, part_file
from stateforge.errors import StateforgeError
from stateforge.schema.model import Schema
from stateforge.tools.base import Tool
from stateforge.tools.errors import ToolDefinitionError
from stateforge.tools.generic import generic_toolkit
from stateforge.tools.policies import check_policy_names
from stateforge.tools.toolkit import Toolkit

TOOLS_PART = "tools"
DATABASE_SUFFIXES = (".duckdb", ".db", ".ddb")
_POLICIES_CHECKED: set[tuple[str, str, int]] = set()  # packs (folder, files, domain.yaml) already checked


def load_toolkit(domain_or_db: str | Path, *, pack: str | Path | None = None) -> Toolkit:
    """The toolkit of a pack name, a pack folder, a DDL file or a built database.

    For a database, the pack is the one named in its build metadata (`stateforge.build_meta` 'inputs'),
    looked up under `stateforge/packs/`, or `pack` (a folder) when given.
    """
    return resolve(domain_or_db, pack=pack)[1]


def resolve(domain_or_db: str | Path, *, pack: str | Path | None = None) -> tuple[Schema, Toolkit]:
    """The schema model and the toolkit of a pack name, pack folder, DDL file or database."""
    path = Path(domain_or_db)
    if path.is_file() and path.suffix.lower() != ".sql":
        schema, domain = read_database_model(path)
        return schema, toolkit_for(schema, domain, pack_dir=Path(pack) if pack else None)
    if path.is_file() and path.name != "schema.sql":
        from stateforge.schema import load_ddl

        schema = load_ddl(path)
        return schema, generic_toolkit(schema, name=path.stem)
    loaded = load_domain(str(pack or domain_or_db))
    return loaded.schema, toolkit_for(loaded.schema, loaded.name, pack_dir=loaded.root)


def read_database_model(path: Path) -> tuple[Schema, str | None]:
    """The schema model stored in a database file and the domain name its build recorded (if any)."""
    from stateforge.store import connect, read_model

    with connect(path, read_only=True) as con:
        schema, _ = read_model(con)
        return schema, domain_name(con)


def domain_name(con: Any) -> str | None:
    """The domain named in `stateforge.build_meta` 'inputs', or None (a file made by `init-db`)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'stateforge' AND table_name = 'build_meta'"
    ).fetchall()
    if not found[0][0]:
        return None
    rows = con.execute("SELECT value FROM stateforge.build_meta WHERE key = 'inputs'").fetchall()
    return json.loads(rows[0][0]).get("domain") if rows else None


def toolkit_for(schema: Schema, domain: str | None, *, pack_dir: Path | None = None) -> Toolkit:
    """The pack's toolkit when its folder (given, or `stateforge/packs/<domain>`) has `tools/`; else the
    generic toolkit."""
    if pack_dir is None and domain and domain in list_domains():
        pack_dir = schemas_dir() / domain
    if pack_dir is not None and has_part(pack_dir, TOOLS_PART):
        return pack_toolkit(pack_dir, schema, name=domain or pack_dir.name)
    return generic_toolkit(schema, name=domain or "generic")


def pack_toolkit(pack_dir: Path, schema: Schema, *, name: str) -> Toolkit:
    """The toolkit a pack's `tools` package defines, checked against `schema`."""
    module = import_tools(pack_dir)
    try:
        if hasattr(module, "TOOLS"):
            tools: Any = module.TOOLS
        elif callable(getattr(module, "toolkit", None)):
            tools = module.toolkit(schema)
        else:
            tools = [v for v in vars(module).values() if isinstance(v, Tool)]
        kit = tools if isinstance(tools, Toolkit) else Toolkit(list(tools), name=name)
        kit.name = kit.name or name
        kit.check(schema)
    except StateforgeError as exc:
        raise ToolDefinitionError(f"{part_file(pack_dir, TOOLS_PART)}: {exc}") from exc
    check_pack_policies(pack_dir)
    check_actor_arguments(kit, pack_dir / "domain.yaml")
    return kit


def check_pack_policies(pack_dir: Path) -> None:
    """Every policy refusal of the pack's `tools/` names a policy of its domain.yaml (`ToolDefinitionError`
    naming the file, line, function and the known policies otherwise)."""
    config_file = pack_dir / "domain.yaml"
    yaml_stamp = config_file.stat().st_mtime_ns if config_file.is_file() else 0
    key = (str(pack_dir.resolve()), pack_files_stamp(pack_dir), yaml_stamp)
    if key in _POLICIES_CHECKED:
        return
    tools_dir = pack_dir / TOOLS_PART
    if not tools_dir.is_dir():
        tools_dir = part_file(pack_dir, TOOLS_PART).parent
    config = load_config(config_file) if config_file.is_file() else None
    policies = config.policies if config is not None else []
    # a procedure is the actor's to follow: a tool refusing by its name would make it a product rule
    known = [p.name for p in policies if p.enforced]
    procedures = [p.name for p in policies if not p.enforced]
    check_policy_names(tools_dir, known, config_file=config_file, procedures=procedures)
    _POLICIES_CHECKED.add(key)


def check_actor_arguments(kit: Toolkit, config_file: Path) -> None:
    """In a pack with `actors:`, no tool takes the actors' key as an argument: tools act for `env.actor`, so
    a solver cannot name whom to act for (`ToolDefinitionError` naming the tools and the fix)."""
    if not config_file.is_file():
        return
    actors = load_config(config_file).actors
    if actors is None:
        return
    key = actors.key.lower()
    named = [t.name for t in kit if key in {k.lower() for k in t.parameters.get("properties", {})}]
    if named:
        raise ToolDefinitionError(
            f"{config_file}: actors are {actors.table} named by {actors.key}, but the tools "
            f"{', '.join(named)} "
            f"take {actors.key} as an argument: a tool acts for the episode's actor (env.acting().person), "
            "not for a person it is told. Drop the argument, or name it for the other person it is about."
        )


def import_tools(pack_dir: Path) -> ModuleType:
    """Import a pack's `tools` (cached until a file of the pack changes); errors name the file and line."""
    return import_pack_part(pack_dir, TOOLS_PART, what="tools", error=ToolDefinitionError)
