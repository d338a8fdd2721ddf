"""One episode of a run as HTML: its verdict, the solver's conversation, every tool call with its arguments
and result, the verifiers and the diff (the trajectories of `report.html`, one `<details>` each).

    episode_anchor("ed989a6d69252aaf", 0)        # "ep-ed989a6d69252aaf-0": the link target
    episode_details(record)                      # <details id="ep-..."> ... </details>

Values are shown as canonical JSON (`stateforge.values.dumps`); a long one is cut to `LIMIT` characters
with a note saying so (the whole value stays in episodes.jsonl).
"""

from __future__ import annotations

from typing import Any

from stateforge.evaluate.records import EpisodeRecord
from stateforge.html import Markup, Tone, badge, code_block, data_table, facts, join, tag
from stateforge.html.fmt import count, number
from stateforge.values import dumps

LIMIT = 4000
"""Characters of one message, argument list or tool result shown before it is cut."""

OUTCOME_TONE: dict[str, Tone] = {"pass": "good", "fail": "bad", "infra_error": "warn"}
OUTCOME_TEXT = {"pass": "pass", "fail": "fail", "infra_error": "infrastructure error"}


def episode_anchor(task_id: str, trial: int) -> str:
    """The element id of an episode's trajectory (task ids are hex digests, safe in an id)."""
    return f"ep-{task_id}-{trial}"


def outcome_badge(outcome: str) -> Markup:
    """`pass` (green), `fail` (red) or `infrastructure error` (amber)."""
    return badge(OUTCOME_TEXT.get(outcome, outcome), OUTCOME_TONE.get(outcome))


def cut(text: str, limit: int = LIMIT) -> str:
    """`text`, or its first `limit` characters and a note of how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n\u2026 ({count(len(text) - limit)} more characters in episodes.jsonl)"


def _json(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value, indent=1)


def _content(content: Any) -> str:
    """A chat message's content as text: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) and p.get("type") == "text" else _json(p)
                 for p in content]
        return "\n".join(parts)
    return _json(content)


def _message(message: Any) -> Markup:
    """One message of the conversation: its role, its text, the tool calls it asks for."""
    if not isinstance(message, dict):
        return tag("div", code_block(cut(_json(message))), class_="msg")
    role = str(message.get("role", "?"))
    head = [badge(role, "info" if role == "assistant" else None)]
    if message.get("tool_call_id"):
        head.append(tag("span", f" answers {message['tool_call_id']}", class_="muted"))
    body = [code_block(cut(text))] if (text := _content(message.get("content"))) else []
    for call in message.get("tool_calls") or []:
        function = call.get("function", {}) if isinstance(call, dict) else {}
        arguments = function.get("arguments", "")
        body.append(tag("div", tag("b", "calls "), tag("code", function.get("name", "?")),
                        tag("span", f" ({call.get('id', '')})", class_="muted") if call.get("id") else None))
        body.append(code_block(cut(_json(arguments))))
    return tag("div", tag("div", *head), *body, class_="msg")


def _tool_call(number_: int, call: dict[str, Any]) -> Markup:
    """One call from the episode's log: tool, arguments, then its value or its error."""
    ok = bool(call.get("ok"))
    head = tag("div", tag("b", f"{number_}. "), tag("code", call.get("tool", "?")), " ",
               badge("ok", "good") if ok else badge(call.get("error_kind") or "error", "bad"),
               tag("span", f" {number(call.get('ms'))} ms" if call.get("ms") is not None else "",
                   class_="muted"))
    result = call.get("value") if ok else call.get("error")
    changes = call.get("changes") or {}
    return tag(
        "div", head,
        tag("div", "arguments", class_="muted"), code_block(cut(_json(call.get("arguments", {})))),
        tag("div", "result" if ok else "error", class_="muted"), code_block(cut(_json(result))),
        tag("div", "changes: " + ", ".join(f"{t} {_json(c)}" for t, c in changes.items()), class_="muted")
        if changes else None,
        class_="call",
    )


def _verifiers(record: EpisodeRecord) -> Markup:
    rows = []
    for v in record.verifiers:
        got = "" if v.get("passed") else cut(_json(v.get("actual")), 400)
        rows.append([v.get("kind", ""), v.get("name", ""), badge("passed", "good") if v.get("passed")
                     else badge("failed", "bad"), got])
    return data_table(["kind", "check", "", "rows it returned (when it failed)"], rows, align="lll",
                      sortable=False, empty="No verifier ran (the episode was not graded).")


def _diff(record: EpisodeRecord) -> str:
    diff = record.diff
    if not diff:
        return "not computed"
    per_table = diff.get("tables") or {}
    totals = ", ".join(f"{diff.get(kind, 0)} {kind}" for kind in ("inserted", "updated", "deleted"))
    if not per_table:
        return totals
    return totals + " (" + "; ".join(f"{t}: {_json(c)}" for t, c in per_table.items()) + ")"


def verdict_block(record: EpisodeRecord) -> Markup:
    """The verdict in words: the reasons (mismatches, failed checks, infrastructure errors) as a list."""
    reasons = record.reasons or (["every check passed"] if record.outcome == "pass" else [])
    items = [tag("li", r) for r in reasons]
    if record.infra_errors and record.outcome != "infra_error":
        items += [tag("li", f"attempt before: {e}", class_="muted") for e in record.infra_errors]
    return tag("ul", *items, class_="reasons")


def episode_details(record: EpisodeRecord, *, open_: bool = False) -> Markup:
    """The whole episode as a `<details>` element whose id is `episode_anchor(...)`."""
    summary = tag("summary", tag("code", record.task_id), f" trial {record.trial + 1} ",
                  outcome_badge(record.outcome),
                  tag("span", f" {record.n_tool_calls} tool calls, {record.wall_seconds:.2f} s",
                      class_="muted"))
    tokens = record.prompt_tokens + record.completion_tokens
    about = facts([
        ("stop reason", record.stop_reason or "-"),
        ("declined", record.declined),
        ("attempts", str(record.attempts) if record.attempts > 1 else None),
        ("turns", str(record.turns) if record.turns else None),
        ("tokens", f"{count(record.prompt_tokens)} prompt + {count(record.completion_tokens)} completion"
         if tokens else None),
        ("cost", f"${record.cost_usd:.4f}" + ("" if record.cost_known else " (some calls unpriced)")
         if record.llm_calls else None),
        ("diff", _diff(record)),
        ("started", record.started_at or None),
    ])
    messages = [_message(m) for m in record.messages]
    calls = [_tool_call(i, c) for i, c in enumerate(record.tool_calls, start=1)]
    parts = [
        tag("h4", "Verdict"), verdict_block(record), about,
        tag("h4", f"Messages ({len(messages)})"),
        join(messages) if messages else tag("p", "The solver recorded no messages.", class_="muted"),
        tag("h4", f"Tool calls ({len(calls)})"),
        join(calls) if calls else tag("p", "No tool was called.", class_="muted"),
        tag("h4", "Verifiers"), _verifiers(record),
    ]
    return tag("details", summary, tag("div", *parts, class_="episode"), id=episode_anchor(record.task_id,
               record.trial), class_="trajectory", open=open_)


STYLE = """
details.trajectory { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; margin: 8px 0; }
details.trajectory[open] { background: #fcfcfd; }
details.trajectory:target, details.trajectory.target { border-color: var(--accent); }
.episode h4 { margin: 12px 0 4px; font-size: 13px; }
.episode .msg, .episode .call { border-left: 3px solid var(--line); padding: 2px 0 2px 10px; margin: 6px 0; }
.episode .call { border-left-color: var(--accent-soft); }
ul.reasons { margin: 4px 0 8px; padding-left: 20px; }
"""
"""Styles of the trajectories (added to the page next to the shared ones)."""

OPEN_TARGET_JS = """
(function () {
  function show(id) {
    var el = id && document.getElementById(id); if (!el) return;
    var d = el.closest('details'); while (d) { d.open = true; d = d.parentElement.closest('details'); }
  }
  document.addEventListener('click', function (e) {  // before the jump, so that it lands on the open one
    var a = e.target.closest && e.target.closest('a[href^="#"]');
    if (a) show(decodeURIComponent(a.getAttribute('href').slice(1)));
  });
  function fromHash() {
    var id = decodeURIComponent(location.hash.slice(1)); show(id);
    if (id && document.getElementById(id)) document.getElementById(id).scrollIntoView();
  }
  window.addEventListener('hashchange', fromHash); fromHash();
})();
"""
"""Opens the trajectory a link points to (a closed `<details>` would hide its target)."""
