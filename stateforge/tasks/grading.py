"""The domain's default comparison policy: `grading:` in domain.yaml, validated here.

    grading:
      playlists.description: normalized          # free text the solver writes
      "*.updated_at": {rule: time, seconds: 120}
      payments.amount: {rule: numeric, abs: 0.01}

`stateforge.domain` keeps it as plain data (the domain sits below the diff in `stateforge.LAYERS`); this
module
reads it as a `stateforge.diff.Policy` and checks every rule and column against the schema. Every task of the
domain stores its own rules layered over these (`Policy.over`), so a task file is self-contained.
"""

from __future__ import annotations

from pydantic import ValidationError

from stateforge.diff import DiffError, Policy
from stateforge.domain import DomainConfig
from stateforge.errors import DomainError
from stateforge.schema.model import Schema


def domain_policy(config: DomainConfig, schema: Schema) -> Policy:
    """The `grading:` rules of `config` as a Policy; `DomainError` naming the key and the fix otherwise."""
    where = f"{config.source or 'domain.yaml'}: grading"
    try:
        policy = Policy.model_validate({"columns": config.grading})
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"][1:2]) or "(the mapping)"
        raise DomainError(
            f"{where}: {key}: {str(first['msg']).removeprefix('Value error, ')}. A rule is exact, "
            "normalized, ignore, any_non_null, {rule: numeric, abs: 0.01} or {rule: time, seconds: 120}."
        ) from None
    try:
        policy.check(schema)
    except DiffError as exc:
        raise DomainError(f"{where}: {exc}") from None
    return policy
