"""Finding and loading a domain pack: a shipped pack by name (`stateforge/packs/<name>/`: schema.sql +
domain.yaml,
package data of the `stateforge.packs` package), a pack folder of yours, or a .sql file.

Every problem is a `DomainError` that names the file, the line where known, the key path, and what was
expected, with the closest valid name suggested.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from stateforge.domain.config import DomainConfig
from stateforge.errors import DomainError
from stateforge.resources import package_dir
from stateforge.schema.model import Schema, suggest

DDL_FILE = "schema.sql"
CONFIG_FILE = "domain.yaml"

YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (about 10x faster than the pure-Python one on a
pack's domain.yaml: ~0.1 s of every build), else the pure-Python `SafeLoader`; both build the same data."""


@dataclass
class DomainPack:
    """A loaded domain: its config and its parsed schema."""

    name: str
    root: Path | None
    """The pack's folder; None for a bare DDL file or a pack made in memory."""
    ddl_path: Path | None
    """The DDL file; None for a pack made in memory (`DomainPack.of`)."""
    config: DomainConfig
    schema: Schema

    @classmethod
    def of(cls, schema: Schema, config: DomainConfig) -> DomainPack:
        """A pack made in memory, from a schema model and a config (tests, generated schemas)."""
        config.validate_against(schema)
        return cls(name=config.name, root=None, ddl_path=None, config=config, schema=schema)


def schemas_dir() -> Path:
    """The folder of the packs that ship with Stateforge (the `stateforge.packs` package)."""
    return package_dir("stateforge.packs")


def list_domains() -> list[str]:
    """The names of the packs under `stateforge/packs/` (folders with a schema.sql), sorted."""
    base = schemas_dir()
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if (p / DDL_FILE).is_file())


def load_domain(
    name_or_path: str,
    *,
    dialect: str | None = None,
    drop_missing_references: bool = False,
    skip_missing_includes: bool = False,
    ignore_seed_inserts: bool = False,
) -> DomainPack:
    """Load a pack by name, a pack folder, or a bare DDL file (which gets `DomainConfig.default`).

    `dialect` overrides the config's; with neither, the parser detects it. The config is checked against
    the schema (`DomainConfig.validate_against`). Time-relative CHECKs are pinned to the environment's
    frozen clock (`TimeWindow.clock`). `drop_missing_references`, `skip_missing_includes` and
    `ignore_seed_inserts`: see `stateforge.schema.parse_ddl`.
    """
    from stateforge.schema import load_ddl  # the parser lands separately; keep import-time light

    path = Path(name_or_path)
    if path.is_file():
        if path.suffix.lower() != ".sql":
            raise DomainError(f"{path}: expected a .sql DDL file or a domain pack folder.")
        root, ddl, config = None, path, DomainConfig.default(path.stem)
    else:
        root = path if path.is_dir() and _looks_like_path(name_or_path) else _pack_dir(name_or_path)
        ddl = root / DDL_FILE
        if not ddl.is_file():
            raise DomainError(f"{root}: a domain pack needs {DDL_FILE}; none found.")
        yaml_path = root / CONFIG_FILE
        config = load_config(yaml_path) if yaml_path.is_file() else DomainConfig.default(root.name)
        if config.members:
            return _composed(root, config, ignore_seed_inserts=ignore_seed_inserts)
    schema = load_ddl(ddl, dialect or config.dialect, drop_missing_references=drop_missing_references,
                      skip_missing_includes=skip_missing_includes, ignore_seed_inserts=ignore_seed_inserts)
    schema.pin_clock(config.time_window.clock)
    config.validate_against(schema)
    return DomainPack(name=config.name, root=root, ddl_path=ddl, config=config, schema=schema)


def _composed(root: Path, config: DomainConfig, *, ignore_seed_inserts: bool) -> DomainPack:
    """A pack of packs (`members:`): their DDL under their schemas, their configs qualified (compose.py)."""
    from stateforge.domain.compose import compose_config, composed_ddl
    from stateforge.schema import parse_ddl

    members = {}
    for namespace, member in config.members.items():
        loaded = member_pack(root, member.pack, ignore_seed_inserts=ignore_seed_inserts)
        dialect = loaded.config.dialect or loaded.schema.dialect
        if dialect != "duckdb":
            raise DomainError(f"{config.source}: members.{namespace}: {member.pack} is {dialect} DDL; the "
                              "members of a composed pack are read as one DuckDB text: give it a "
                              "duckdb-dialect schema.sql.")
        if loaded.config.members:
            raise DomainError(f"{config.source}: members.{namespace}: {member.pack} is itself composed; "
                              "list its members here instead.")
        members[namespace] = loaded
    ddl = composed_ddl(root, {ns: m.ddl_path for ns, m in members.items() if m.ddl_path is not None})
    schema = parse_ddl(ddl, "duckdb", source=str(root / DDL_FILE), ignore_seed_inserts=ignore_seed_inserts)
    composed = compose_config(config, {ns: (m.config, m.schema) for ns, m in members.items()})
    schema.pin_clock(composed.time_window.clock)
    composed.validate_against(schema)
    return DomainPack(name=composed.name, root=root, ddl_path=root / DDL_FILE, config=composed, schema=schema)


_MEMBERS: dict[tuple[str, bool, tuple[int, ...]], DomainPack] = {}


def member_pack(root: Path, pack: str, *, ignore_seed_inserts: bool = False) -> DomainPack:
    """A member of the composed pack at `root` (a folder beside it, else a shipped pack), loaded once per
    state of its schema.sql and domain.yaml (a composed pack and its toolkit read every member)."""
    folder = root / pack
    ref = str(folder) if (folder / DDL_FILE).is_file() else pack
    where = folder if (folder / DDL_FILE).is_file() else _pack_dir(pack)
    stamp = tuple(f.stat().st_mtime_ns for f in (where / DDL_FILE, where / CONFIG_FILE) if f.is_file())
    key = (str(where.resolve()), ignore_seed_inserts, stamp)
    if key not in _MEMBERS:
        _MEMBERS[key] = load_domain(ref, ignore_seed_inserts=ignore_seed_inserts)
    return _MEMBERS[key]


def _looks_like_path(name: str) -> bool:
    return "/" in name or "\\" in name or name.endswith(".sql") or name.startswith(".")


def _pack_dir(name: str) -> Path:
    root = schemas_dir() / name
    if root.is_dir():
        return root
    if Path(name).is_dir() and (Path(name) / DDL_FILE).is_file():
        return Path(name)
    if _looks_like_path(name):
        raise DomainError(f"{name}: no such file or folder.")
    known = list_domains()
    listing = ", ".join(known) if known else "none"
    raise DomainError(
        f'no domain pack "{name}" in {schemas_dir()}.{suggest(name, known)} Available: {listing}. '
        "Pass a pack folder or a .sql file to build something else."
    )


def load_config(path: Path) -> DomainConfig:
    """Read and validate a `domain.yaml`; errors name the file, line and key path."""
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.load(text, Loader=YAML_LOADER)  # a safe loader, C or Python
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise DomainError(f"{where}: YAML syntax error: {problem}.") from None
    if not isinstance(data, dict):
        raise DomainError(f"{path}: expected a mapping of keys (name, tables, columns, ...) at the top.")
    try:
        config = DomainConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        line = _line_of(yaml.compose(text, Loader=YAML_LOADER), loc)  # the node tree, for errors only
        where = f"{path}:{line}" if line else str(path)
        raise DomainError(f"{where}: {_format_loc(loc)}: {_explain(first, loc)}") from None
    config._source = path
    return config


def _explain(error: Any, loc: tuple[Any, ...]) -> str:
    if error["type"] == "extra_forbidden":
        key = str(loc[-1])
        model = _model_at(loc[:-1])
        fields = list(model.model_fields) if model else []
        return f'unknown key "{key}".{suggest(key, fields)} Valid keys: {", ".join(fields)}.'
    if error["type"] == "missing":
        return "this key is required."
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{message} (got {error.get('input')!r})."


def _format_loc(loc: tuple[Any, ...]) -> str:
    parts = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            text = f'"{part}"' if "." in str(part) else str(part)
            parts.append(f"[{text}]" if "." in str(part) else (f".{text}" if parts else text))
    return "".join(parts) or "(top level)"


def _model_at(loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that validates the mapping at `loc` (to list its valid keys)."""
    annotation: Any = DomainConfig
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(str(part))
            if field is None:
                return None
            annotation = field.annotation
        elif typing.get_origin(annotation) in (dict, list):
            annotation = typing.get_args(annotation)[-1]
        else:
            return None
    annotation = _unwrap(annotation)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """`X | None` -> `X`."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """The 1-based line of the YAML node at `loc` (or of its closest existing parent)."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == str(part):
                    line, node = key_node.start_mark.line + 1, value_node
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line
