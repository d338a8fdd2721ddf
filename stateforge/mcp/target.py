"""What an MCP server serves: the database, the toolkit, and the instructions every client is given.

    db, pack = resolve_database("music")             # ./artifacts/music/music.duckdb, stateforge/packs/music
    target = load_target(db, pack=pack)              # the model, config, clock and tools, read once
    target.instructions                              # the domain's description and policies

The instructions say what the service is and what it allows (domain.yaml `description` and `policies`: the
product's rules, which the tools enforce, and the organisation's procedures, which the agent must follow
and the tools do not check), who the sessions act as (`--as`) and the episode's frozen date; never the
schema: a solver learns the data through the tools alone.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from stateforge.domain import DomainConfig, load_domain
from stateforge.episode import Episode, read_domain_info
from stateforge.episode.domain_info import file_key
from stateforge.errors import DomainError, StoreError
from stateforge.mcp.errors import ServeError
from stateforge.resources import artifacts_dir
from stateforge.store import connect
from stateforge.tools import Toolkit, toolkit_for
from stateforge.tools.actor import Actor, bind_actor
from stateforge.tools.loader import DATABASE_SUFFIXES


@dataclass(frozen=True)
class Target:
    """One database and everything a server tells its clients about it."""

    db: Path
    """The built database (every session's episode is a copy of it, or it itself with persist)."""
    name: str
    """The domain's name, as its build recorded it."""
    config: DomainConfig
    now: dt.datetime
    """The episode clock every call sees."""
    toolkit: Toolkit
    pack: Path | None = None
    """The pack folder the tools come from, when given (a pack outside `stateforge/packs/`)."""
    actor: Actor | None = None
    """Who every session acts as (`--as`), checked against the pack's `actors:`; None: no one."""
    plan: tuple[str, ...] = ()
    """A task's reference plan in words, told to the client (an evaluation with `--with-plan`)."""

    @property
    def instructions(self) -> str:
        """The MCP `instructions`: the domain's description, its policies, the actor and today's date (and
        the plan, when there is one)."""
        return instructions(self.config, self.now, self.name, actor=self.actor, plan=self.plan)


def resolve_database(domain_or_db: str | Path, *, db: str | Path | None = None) -> tuple[Path, Path | None]:
    """The database file and the pack folder meant by `DOMAIN_OR_DB` (and `--db`).

    A database file is served as it is. A pack name, a pack folder or a DDL file names its build:
    `./artifacts/<name>/<name>.duckdb` (what `stateforge build-domain` writes), or `db` when given.
    """
    path = Path(domain_or_db)
    if path.is_file() and path.suffix.lower() != ".sql":
        if db is not None:
            raise ServeError(
                f"{path} is a database and --db names another ({db}); give the database once, "
                "either as DOMAIN_OR_DB or, after a pack name, with --db."
            )
        return path, None
    if path.suffix.lower() in DATABASE_SUFFIXES and not path.exists():
        raise StoreError(
            f"no database at {path}: the file does not exist. Build it first (`stateforge build-domain`)."
        )
    try:
        pack = load_domain(str(domain_or_db))
    except DomainError as exc:  # names the closest pack for an unknown name
        if path.exists():
            raise
        raise DomainError(f"{exc} To serve a database, give its file (.duckdb).") from exc
    file = Path(db) if db is not None else artifacts_dir() / pack.name / f"{pack.name}.duckdb"
    if not file.is_file():
        how = "" if db is not None else " (the default for this pack; pass --db FILE for another)"
        raise StoreError(
            f"no database at {file}{how}: build it first with `stateforge build-domain {domain_or_db}`."
        )
    return file, pack.root


def load_target(
    db: str | Path,
    *,
    pack: str | Path | None = None,
    toolkit: Toolkit | None = None,
    actor: Actor | str | None = None,
) -> Target:
    """The target of a built database: its model, config and clock read once, and its toolkit.

    `toolkit` defaults to the pack's `tools/` (the pack named by the build, or `pack`), else the generic
    toolkit of the schema; a `ToolDefinitionError` names what is wrong with a pack's tools. `actor`: who
    every session acts as (`Actor`, or a person's key), checked against the pack's `actors:` (`NoActor`).
    """
    path = Path(db).resolve()
    try:
        with connect(path, read_only=True) as con:
            info = read_domain_info(con, str(db), file_key=file_key(path))
            bound = bind_actor(con, info.config, actor)
    except StoreError as exc:
        if "lock" not in str(exc).lower():
            raise
        raise StoreError(
            f"{exc} Another process has {path} open for writing (a `stateforge mcp --persist` of it?); "
            "one process at a time writes a database: stop that one first."
        ) from exc
    pack_dir = Path(pack) if pack is not None else None
    kit = toolkit or toolkit_for(info.schema, info.name, pack_dir=pack_dir)
    kit.check(info.schema)
    return Target(db=path, name=info.name, config=info.config, now=info.now, toolkit=kit, pack=pack_dir,
                  actor=bound)


def episode_target(episode: Episode, *, plan: tuple[str, ...] = ()) -> Target:
    """The target of an episode someone else opened (all sessions then share that episode); `plan`: the
    task's plan in words, for the instructions."""
    return Target(
        db=episode.path,
        name=episode.domain,
        config=episode.config,
        now=episode.now,
        toolkit=episode.toolkit,
        actor=episode.actor,
        plan=tuple(plan),
    )


PLAN_INTRO = (
    "A plan for this request, step by step, as someone who knows the service would carry it out (the tools' "
    "results decide the details):"
)


def instructions(
    config: DomainConfig, now: dt.datetime, name: str, *, actor: Actor | None = None,
    plan: tuple[str, ...] | list[str] = (),
) -> str:
    """What a client is told about the service: description, policies, procedures, who it acts as and the
    date, then `plan` (a task's reference plan, in an evaluation with `--with-plan`); never the schema."""
    about = " ".join((config.description or f"The {name} service.").split())
    parts = [about]
    enforced = [p for p in config.policies if p.enforced]
    procedures = [p for p in config.policies if not p.enforced]
    if enforced:
        parts.append(
            "Policies of the service (its tools refuse what breaks them):\n"
            + "\n".join(f"- {' '.join(p.description.split())}" for p in enforced)
        )
    if procedures:
        parts.append(
            "Procedures you must follow (the tools allow breaking them, but doing so is a failure; follow "
            "them even when the user asks otherwise):\n"
            + "\n".join(f"- {' '.join(p.description.split())}" for p in procedures)
        )
    if actor is not None and config.actors is not None:
        roles = f", acting as {' and '.join(actor.roles)}" if actor.roles else ""
        parts.append(
            f"You act for {config.actors.table} {actor.person} ({config.actors.key}){roles}: every tool acts "
            "as them, and you cannot act for anyone else."
        )
    parts.append(
        f"Now is {now:%A %d %B %Y, %H:%M} ({now.isoformat()}): \"today\", \"last week\" and every date the "
        "tools record are relative to it."
    )
    if plan:
        parts.append(PLAN_INTRO + "\n" + "\n".join(f"{i}. {' '.join(step.split())}"
                                                   for i, step in enumerate(plan, 1)))
    return "\n\n".join(parts)
