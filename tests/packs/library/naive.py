"""Solvers for the library tests, loaded by the harness as `module:attribute` (never registered).

`make`: the straightforward in-process solver of a two-title request, which lends every title asked for
without first looking at what the member has out (so it breaks the procedure `one_copy_per_title`).
`whoami_agent.py` beside this file is the MCP agent that reports who its session acts as.
"""

from __future__ import annotations

import re

from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import Assignment, BaseSolver, SolverConfig, SolverOutcome

BRANCHES = ("Central Library", "Riverside Branch", "Hillcrest Branch", "Old Town Branch")


class NaiveSolver(BaseSolver):
    """Borrows a shelf copy, at the branch the request names, of every quoted title."""

    name = "naive"

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Search each title, list its copies, lend the first on the shelf at the branch."""
        branch = next(b for b in BRANCHES if b in task.instruction)
        for title in re.findall(r'"([^"]+)"', task.instruction):
            found = episode.call("search_books", {"query": title}).value
            isbn = next(b["isbn"] for b in found["rows"] if b["title"] == title)
            copies = episode.call("list_copies", {"isbn": isbn}).value["copies"]
            shelf = [c["barcode"] for c in copies if c["branch"] == branch and c["status"] == "on_shelf"]
            episode.call("borrow_copy", {"barcode": shelf[0]})
        return SolverOutcome(stop_reason="done")


def make(config: SolverConfig) -> NaiveSolver:
    """The harness's factory."""
    return NaiveSolver()
