"""The audit report as one HTML page: a verdict and key figures, the build's inputs and figures, the
audit's violations, the domain rules, then one section per table (`stateforge.report.tables`)."""

from __future__ import annotations

import json
from typing import Any

from stateforge.html import (
    Anchors,
    Card,
    Cell,
    Markup,
    NavItem,
    Page,
    Section,
    badge,
    callout,
    cards,
    code_block,
    data_table,
    facts,
    plots,
    tag,
)
from stateforge.html.fmt import count, number, percent, plural, size
from stateforge.report.model import DatabaseProfile, RuleResult
from stateforge.report.tables import table_anchor, table_section, violations_table


def _verdict(db: DatabaseProfile) -> Markup:
    checks = db.audit.get("checks_run", 0)
    rules = [r for r in db.rules if r.sql is not None]
    held = sum(1 for r in rules if r.violations == 0)
    if db.violations == 0:
        text = f"Clean: no violation in {count(checks)} audit checks"
        text += f", and all {len(rules)} domain checks hold." if rules else "."
        return callout(text, "good")
    broken = sum(1 for r in rules if r.violations)
    text = (f"Not clean: {plural(db.audit.get('violations', 0), 'audit violation')} in "
            f"{len(db.audit.get('checks', []))} of {count(checks)} checks; {broken} of {len(rules)} "
            f"domain checks find rows ({held} hold). The sections below name the rows.")
    return callout(text, "bad")


def _cards(db: DatabaseProfile) -> Markup:
    cells = sum(t.rows * len(t.columns) for t in db.tables)
    nulls = sum(c.nulls for t in db.tables for c in t.columns)
    rules = [r for r in db.rules if r.sql is not None]
    held = sum(1 for r in rules if r.violations == 0)
    return cards([
        Card("tables", count(len(db.tables))),
        Card("rows", count(db.rows)),
        Card("file", size(db.size_bytes)),
        Card("NULL cells", percent(nulls / cells) if cells else "-", f"{count(nulls)} of {count(cells)}"),
        Card("audit checks", count(db.audit.get("checks_run", 0))),
        Card("violations", count(db.audit.get("violations", 0)),
             tone="bad" if db.audit.get("violations") else "good"),
        Card("domain rules", f"{held}/{len(rules)}" if rules else "-", "hold now" if rules else "none stored",
             tone=("good" if held == len(rules) else "bad") if rules else None),
    ])


def _inputs(db: DatabaseProfile) -> Markup:
    inputs, build = db.inputs or {}, db.build or {}
    totals = build.get("totals", {})
    llm = (inputs.get("llm") or {}).get("model") or ("offline generator" if inputs else None)
    built = (f"{count(totals['batches'])} batches, {count(sum(totals.get('repairs', {}).values()))} repaired "
             f"rows, {totals.get('rule_violations_found', 0)} rule violations found and repaired, "
             f"{number(totals.get('wall_seconds'))} s") if totals else None
    return facts([
        ("domain", db.domain), ("file", tag("code", db.file)),
        ("size", f"{size(db.size_bytes)} ({count(db.size_bytes)} bytes)"),
        ("made by", f"Stateforge {db.stateforge_version}" if db.stateforge_version else None),
        ("seed", inputs.get("seed")), ("scale", build.get("scale")), ("frozen now", db.now),
        ("fingerprint", tag("code", build["fingerprint"]) if build.get("fingerprint") else None),
        ("DDL sha256", tag("code", inputs["ddl_sha256"]) if inputs.get("ddl_sha256") else None),
        ("generator", llm), ("build", built),
        ("sampling", f"tables above {count(db.sample_rows)} rows: distributions from a deterministic "
                     f"sample of about {count(db.sample_rows)} rows, distinct counts estimated (\u2248); "
                     "NULLs, ranges, fan-outs and the audit read every row"),
    ])


def summary_section(db: DatabaseProfile, ids: Anchors) -> Section:
    """The inputs of the build, the build report's figures, rows per table and an overview of every table."""
    body = [_inputs(db)]
    for note in db.notes:
        body.append(callout(note, "warn"))
    if db.tables:
        ordered = sorted(db.tables, key=lambda t: (-t.rows, t.name))
        body.append(tag("h3", "Rows per table"))
        body.append(tag("div", plots.bars(ids("p-rows"), [t.name for t in ordered], [t.rows for t in ordered],
                                          title="rows per table", log=True, width=6.8,
                                          value_labels=[count(t.rows) for t in ordered]).html(
            "Logarithmic scale: each step of the axis is ten times more rows."), class_="wide"))
    rows = []
    for t in db.tables:
        cells = t.rows * len(t.columns)
        nulls = sum(c.nulls for c in t.columns)
        bad = sum(v["count"] for v in t.violations)
        repairs = sum((t.build or {}).get("repairs", {}).values())
        rows.append([
            tag("a", t.name, href=f"#{table_anchor(t.name)}"), Cell(count(t.rows), t.rows), len(t.columns),
            Cell(percent(nulls / cells) if cells else "-", nulls / cells if cells else 0),
            len(t.fanouts), len(t.referenced_by), Cell(count(repairs), repairs),
            Cell(badge(count(bad), "bad") if bad else badge("0", "good"), bad),
            "sample" if t.sampled is not None else "",
        ])
    body += [tag("h3", "Tables"), data_table(
        ["table", "rows", "columns", "NULL cells", "foreign keys", "referenced by", "repaired rows",
         "violations", ""], rows, align="lrrrrrrrl")]
    return Section("summary", "Summary", Markup("").join(body))


def violations_section(db: DatabaseProfile, ids: Anchors) -> Section:
    """The audit: every constraint kind it checks, and the ones violated with a few offending keys."""
    checks = db.audit.get("checks", [])
    total = db.audit.get("violations", 0)
    body = [tag("p", "Primary keys, UNIQUE, NOT NULL, CHECK, text lengths, allowed values and foreign keys "
                     "(orphans), each one set-based query over every row: what ",
                tag("code", "stateforge audit"), " checks.")]
    if not checks:
        body.append(callout(f"No violation in {count(db.audit.get('checks_run', 0))} checks.", "good"))
    else:
        top = sorted(checks, key=lambda c: (-c["count"], c["table"], c["constraint"]))[:12]
        body.append(tag("div", plots.bars(ids("p-violations"), [f"{c['table']}: {c['check']}" for c in top],
                                          [c["count"] for c in top], title="violations", width=6.8,
                                          warn=[f"{c['table']}: {c['check']}" for c in top]).html(),
                        class_="wide"))
        body.append(violations_table(checks))
    badges = [badge(plural(total, "violation"), "bad") if total else badge("clean", "good")]
    return Section("violations", "Audit", Markup("").join(body), badges=badges)


def _rule_row(r: RuleResult) -> list[Any]:
    if r.error:
        now = Cell(badge("check failed", "bad", title=r.error), -1)
    elif r.violations is None:
        now = Cell(tag("span", "no check", class_="muted"), -2)
    else:
        tone = "good" if r.violations == 0 else ("bad" if r.sql is not None else "warn")
        now = Cell(badge(count(r.violations), tone), r.violations)
    b = r.build or {}
    detail = [tag("summary", "SQL and offending rows" if r.samples else "SQL")] if r.sql else []
    if r.sql:
        detail.append(code_block(r.sql.strip()))
    if r.samples:
        detail.append(code_block("\n".join(json.dumps(s, sort_keys=True) for s in r.samples)))
    if r.error:
        detail.append(tag("p", r.error, class_="muted"))
    opened = bool(r.violations) or bool(r.error)
    what = Markup("{}{}").format(r.description or "", tag("details", *detail, open=opened) if detail else "")
    return [tag("b", r.name), r.kind, what,
            now, count(b["found"]) if "found" in b else "", count(b["rounds"]) if "rounds" in b else ""]


def rules_section(db: DatabaseProfile, ids: Anchors) -> Section:
    """The pack's rules and policies: rows their checks find now, and what the build found and repaired."""
    body = [tag("p", "Each check returns the rows that break it, by kind: policy (a stated policy on stored "
                     "state), time (time runs forward along foreign keys, inferred from the DDL), family "
                     "(children resemble their parent), limit (counts bounded by a parent), text, and the "
                     "pack's consistency rules. The build repaired what each found, so a built database "
                     "returns none. Policies with no check are about actions: the write tools enforce them.")]
    kinds: dict[str, list[int]] = {}
    for r in db.rules:
        if r.sql is not None:
            kinds.setdefault(r.kind, []).append(r.violations or 0)
    if kinds:
        body.append(tag("p", "; ".join(
            f"{kind}: {sum(1 for v in found if v == 0)}/{len(found)} hold" for kind, found in kinds.items())))
    built = [r for r in db.rules if r.build and r.build.get("found")]
    if built:
        body.append(tag("div", plots.bars(ids("p-rule-repairs"), [r.name for r in built],
                                          [r.build["found"] for r in built], width=6.8,
                                          title="rows repaired during the build").html(
            "Rows each rule found (and repaired) during the build."), class_="wide"))
    if db.rules:
        body.append(data_table(["name", "kind", "what it says", "rows now", "found at build", "rounds"],
                               [_rule_row(r) for r in db.rules], align="lllrrr"))
    else:
        body.append(tag("p", "The pack defines no rules or policies." if db.inputs else
                        "The file records no pack config, so there are no rules to check.", class_="muted"))
    bad = sum(r.violations or 0 for r in db.rules if r.sql is not None)
    verdict = badge(f"{plural(bad, 'row')} breaking rules", "bad") if bad else badge("hold", "good")
    badges = [verdict] if db.rules else []
    return Section("rules", "Domain rules and policies", Markup("").join(body), badges=badges)


def render(db: DatabaseProfile) -> str:
    """The report of `db` as one self-contained HTML document (the same profile gives the same bytes)."""
    ids = Anchors()
    title = db.file
    page = Page(title=title, brand="Stateforge audit report",
                subtitle=f"Audit report of {'the ' + db.domain + ' domain' if db.domain else 'a database'}: "
                         f"{count(len(db.tables))} tables, {count(db.rows)} rows",
                lead=Markup("").join([_verdict(db), _cards(db)]))
    bad_rules = sum(r.violations or 0 for r in db.rules if r.sql is not None)
    page.nav("Overview", [
        NavItem("#summary", "Summary"),
        NavItem("#violations", "Audit", count(db.audit.get("violations", 0)),
                "bad" if db.audit.get("violations") else "good"),
        NavItem("#rules", "Rules and policies", str(len(db.rules)),
                ("bad" if bad_rules else "good") if db.rules else None),
    ])
    page.nav(f"Tables ({len(db.tables)})", [
        NavItem(f"#{table_anchor(t.name)}", t.name, count(t.rows), "bad" if t.violations else "good")
        for t in db.tables
    ], filterable=True)
    page.add(summary_section(db, ids))
    page.add(violations_section(db, ids))
    page.add(rules_section(db, ids))
    for t in db.tables:
        page.add(table_section(t, ids))
    return page.render()

