"""Task generation: a privileged generator proposes state-changing tasks; replayed diffs are the ground truth.

    from stateforge.tasks import RecipeContext, Skip, generate_tasks, read_tasks, recipe

    report = generate_tasks("music", n=150, seed=7)        # artifacts/music/tasks.jsonl + its report
    tasks = read_tasks("artifacts/music/tasks.jsonl")

`model` is the public task format (and its JSON Schema, `task.schema.json`); `recipes` and `context` the
recipe API (docs/tasks.md); `draft` what any generator proposes; `gate` the checks every draft passes
(replay, reachability, references, nothing hidden, verifiers, duplicates); `generators` the offline
generator and the registry; `runner` the stages of a run; `report` its figures; `generic_recipes` the
recipes that work on any DDL through the generic toolkit.
"""

from __future__ import annotations

from stateforge.tasks.context import RecipeContext
from stateforge.tasks.draft import Call, Draft, Goal
from stateforge.tasks.gate import REASONS, Gate, GateResult, Rejection
from stateforge.tasks.generators import Generator, OfflineGenerator, Proposal, Want, register_generator
from stateforge.tasks.grading import domain_policy
from stateforge.tasks.jsonl import TaskFileError, read_tasks, write_tasks
from stateforge.tasks.model import (
    CAPABILITIES,
    DIFFICULTIES,
    INFEASIBLE_KINDS,
    Reference,
    ReferenceCall,
    Task,
    Verifier,
    task_json_schema,
)
from stateforge.tasks.recipes import CallFailed, Recipe, RecipeDefinitionError, Skip, load_recipes, recipe
from stateforge.tasks.runner import STAGES, GenerationRun, generate_tasks, run_generation
from stateforge.tasks.workspace import Workspace

__all__ = [
    "CAPABILITIES",
    "DIFFICULTIES",
    "INFEASIBLE_KINDS",
    "REASONS",
    "STAGES",
    "Call",
    "CallFailed",
    "Draft",
    "Gate",
    "GateResult",
    "GenerationRun",
    "Generator",
    "Goal",
    "OfflineGenerator",
    "Proposal",
    "Recipe",
    "RecipeContext",
    "RecipeDefinitionError",
    "Reference",
    "ReferenceCall",
    "Rejection",
    "Skip",
    "Task",
    "TaskFileError",
    "Verifier",
    "Want",
    "Workspace",
    "domain_policy",
    "generate_tasks",
    "load_recipes",
    "read_tasks",
    "recipe",
    "register_generator",
    "run_generation",
    "task_json_schema",
    "write_tasks",
]
