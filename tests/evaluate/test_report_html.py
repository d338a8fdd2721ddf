"""report.html of an evaluation run: written at the end of every run, made again by `stateforge
eval-report`, and shown in a real headless Chromium: every plot drawn, no error, no request to the network,
and a trial's badge opens that episode's trajectory (messages, tool calls, the verdict)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from stateforge.evaluate import Assignment, BaseSolver, EpisodeHandle, SolverOutcome, evaluate
from stateforge.evaluate.comparehtml import write_comparison
from stateforge.evaluate.htmlreport import REPORT_FILE, write_run_report
from stateforge.evaluate.rundir import RunFolder
from stateforge.evaluate.taskrows import failure_groups, failure_label, task_rows
from stateforge.tasks import Task
from tests.html.browser import PLOTS_JS, Chromium, distinct_colours, undrawn

pytestmark = pytest.mark.xdist_group("evaluate")
STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
HOSTILE = "<script>window.hacked = 1</script> & <b>bold</b>"


class Mixed(BaseSolver):
    """Per task, by its position: replays the answer (and talks like a model, with tokens and cost), skips
    the last reference call (a fail), or reports an infrastructure error on its first trial."""

    name = "mixed"

    def __init__(self, tasks: Mapping[str, Task]) -> None:
        self.tasks = dict(tasks)
        self.position = {t: i for i, t in enumerate(tasks)}

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        which = self.position[task.task_id] % 3
        if which == 2 and task.trial == 0:
            return SolverOutcome(infra_error="the model server is unreachable (simulated)")
        calls = self.tasks[task.task_id].reference_calls
        messages: list[dict] = [{"role": "user", "content": task.instruction + " " + HOSTILE}]
        for i, call in enumerate(calls[:-1] if which == 1 else calls):
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{i}", "type": "function",
                 "function": {"name": call.tool, "arguments": str(call.arguments)}}]})
            result = episode.call(call.tool, call.arguments)
            messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": result.content()})
        messages.append({"role": "assistant", "content": "Done."})
        return SolverOutcome(messages=messages, turns=len(calls) + 1, prompt_tokens=300 * (which + 1),
                             completion_tokens=40, cost_usd=0.002 * (which + 1), llm_calls=len(calls) + 1)


@pytest.fixture(scope="module")
def mixed_run(pack_db: Path, tasks: list[Task], tmp_path_factory: pytest.TempPathFactory) -> dict:
    return evaluate(pack_db, solver_object=Mixed({t.id: t for t in tasks}), k=2, retries=0,
                    max_infra_share=0.5, concurrency=2, out=tmp_path_factory.mktemp("report-runs"))


def test_every_run_writes_its_report_with_every_episode_one_link_away(mixed_run: dict) -> None:
    path = Path(mixed_run["report"])
    assert path == Path(mixed_run["folder"]) / REPORT_FILE and path.is_file()
    html = path.read_text()
    records = RunFolder.open(path.parent).records()
    assert {r.outcome for r in records} == {"pass", "fail", "infra_error"}
    ids = set(re.findall(r' id="([^"]+)"', html))
    for record in records:  # each trajectory exists, and the task table links to it
        anchor = f"ep-{record.task_id}-{record.trial}"
        assert anchor in ids and f'href="#{anchor}"' in html
    assert all(h in ids for h in re.findall(r'href="#([^"]+)"', html)), "a link leads nowhere"
    for figure in ("p-capability", "p-difficulty", "p-plan-length", "p-feasible", "p-cost", "p-failures"):
        assert f'data-plot="{figure}"' in html
    assert "mean cost per episode ($)" in html  # the solver reported a cost: cost, not tool calls
    assert HOSTILE not in html and "&lt;script&gt;window.hacked = 1&lt;/script&gt;" in html
    assert "http://" not in html.replace("http://www.w3.org/", "")  # nothing to fetch (SVG namespaces)
    assert "the model server is unreachable (simulated)" in html.split('id="infra"')[1].split("</section>")[0]


def test_failures_group_by_kind_of_mismatch_and_infra_errors_stay_apart(mixed_run: dict) -> None:
    records = RunFolder.open(Path(mixed_run["folder"])).records()
    groups = failure_groups(records)
    failed = [r for r in records if r.outcome == "fail"]
    assert groups and max(len(g.episodes) for g in groups) <= len(failed)
    assert {id(r) for g in groups for r in g.episodes} == {id(r) for r in failed}  # infra errors left out
    assert [len(g.episodes) for g in groups] == sorted((len(g.episodes) for g in groups), reverse=True)
    assert all(g.examples for g in groups), "every group quotes the grader"
    assert failure_label("missing_update listeners") == ("missing update", "listeners")
    assert failure_label("goal check") == ("goal check failed", None)
    assert failure_label("not declined") == ("not declined", None)
    rows = task_rows(records, RunFolder.open(Path(mixed_run["folder"])).spec.task_ids)
    assert [r.task_id for r in rows] == list(dict.fromkeys(r.task_id for r in records))
    assert all(r.score is None or 0 <= r.score <= 1 for r in rows)


def test_eval_report_makes_the_same_file_again(mixed_run: dict) -> None:
    path = Path(mixed_run["report"])
    before = path.read_bytes()
    path.unlink()
    done = subprocess.run([STATEFORGE, "eval-report", mixed_run["folder"]], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == before and str(path) in done.stdout.replace("\n", "")
    assert write_run_report(path.parent) == path and path.read_bytes() == before
    missing = subprocess.run([STATEFORGE, "eval-report", str(path.parent / "nope")], capture_output=True,
                             text=True, timeout=120)
    assert missing.returncode == 2 and "no run" in missing.stderr


@pytest.fixture(scope="module")
def comparison(mixed_run: dict, pack_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The paired view of a noop run (A) against the mixed run (B), written beside neither."""
    noop = evaluate(pack_db, solver="noop", out=Path(mixed_run["folder"]).parent)
    out = tmp_path_factory.mktemp("compare") / "noop-vs-mixed.html"
    return write_comparison(noop["folder"], mixed_run["folder"], out)


def test_the_paired_view_links_into_each_runs_report(comparison: Path, mixed_run: dict) -> None:
    html = comparison.read_text()
    assert 'data-plot="p-paired"' in html and 'data-plot="p-difference"' in html
    links = re.findall(r'href="([^"#]+)#(ep-[^"]+)"', html)
    assert links and {Path(f).name for f, _a in links} == {REPORT_FILE}
    for file, anchor in links:  # every link lands on an episode of that run's report
        target = (comparison.parent / file).resolve()
        assert f'id="{anchor}"' in target.read_text(), (file, anchor)
    assert {(comparison.parent / f).resolve().parent.name for f, _a in links} == {
        Path(mixed_run["folder"]).name, next(p.name for p in Path(mixed_run["folder"]).parent.iterdir()
                                             if "-noop-" in p.name)}


@pytest.mark.slow
def test_the_report_in_a_browser_draws_every_plot_and_opens_trajectories(mixed_run: dict,
                                                                         tmp_path: Path) -> None:
    path = Path(mixed_run["report"])
    expected = path.read_text().count('<figure class="plot"')
    with Chromium.launch(tmp_path / "profile") as browser:
        page = browser.open(path)
        drawn = page.evaluate(PLOTS_JS)
        assert len(drawn) == expected == 7  # the verifier kinds are the seventh
        assert not undrawn(drawn), f"plots not drawn: {undrawn(drawn)}"
        assert page.evaluate("window.hacked === undefined")
        assert page.evaluate("[...document.querySelectorAll('details.trajectory')].every(d => !d.open)")
        opened = page.evaluate("""(function () {
            var link = document.querySelector('#tasks tbody tr a[href^="#ep-"]');
            link.click();
            var target = document.getElementById(link.getAttribute('href').slice(1));
            var box = target.getBoundingClientRect();
            return {open: target.open, top: box.top, inView: box.top > -2 && box.top < innerHeight,
                    calls: target.querySelectorAll('.call').length,
                    verdict: target.querySelector('ul.reasons').textContent.length}; })()""")
        assert opened["open"] and opened["inView"], opened
        assert opened["calls"] > 0 and opened["verdict"] > 0
        shot = page.screenshot(tmp_path / "trajectory.png")
        assert distinct_colours(shot) > 20
        page.evaluate("document.getElementById('plots').scrollIntoView()")
        assert distinct_colours(page.screenshot(tmp_path / "plots.png")) > 50
        assert page.problems() == []


@pytest.mark.slow
def test_the_paired_view_in_a_browser(comparison: Path, tmp_path: Path) -> None:
    with Chromium.launch(tmp_path / "profile") as browser:
        page = browser.open(comparison)
        drawn = page.evaluate(PLOTS_JS)
        assert len(drawn) == 2 and not undrawn(drawn), drawn
        assert page.problems() == []
