"""semantic-rdf show ID — one assertion: triple, state in both clocks, sources with quotes, derivations, decisions."""

NAME = "show"
HELP = "show one assertion: its triple, belief and valid time, every source with its quote, derivations, decisions"


def add_arguments(p) -> None:
    p.add_argument("id", help="assertion id (16 hex digits, as `list` prints them)")


def run(args, ctx) -> int:
    from semantic_rdf.core.values import one_line  # stored free text printed in this layout keeps to its line
    from semantic_rdf.lifecycle.browse import show

    s = show(ctx.store(read_only=True), args.id)
    r = s.listed.record
    lines = [f"{r.id}  {r.subject} —{r.predicate}→ {r.object}", f"  kind        {r.kind}   confidence {r.confidence:g}   observed {r.count}×"]
    for start, until in r.believed:
        lines.append(f"  believed    from {start.isoformat()}" + (f" until {until.isoformat()}" if until else " (now)"))
    if r.valid is not None:
        frm = r.valid.start.isoformat() if r.valid.start else "…"
        to = r.valid.until.isoformat() if r.valid.until else "…"
        lines.append(f"  valid       {frm} – {to}")
    else:
        lines.append("  valid       any time (no valid-time bounds)")
    for q in s.listed.quotes:
        lines.append(f"  quote       {one_line(q.reference)} {q.start}..{q.end}: “{one_line(q.text)}”")
    lines.append("  provenance")
    lines += ["    " + line for line in s.trace_text.splitlines()]
    for d in s.decisions:
        verdict = "allowed" if d.allowed else "refused"
        why = "; " + one_line(d.reason) if d.reason else ""
        lines.append(f"  decision    {d.at} {one_line(d.agent)}: {one_line(d.choice)} ({verdict}{why})")
    ctx.emit(s.as_dict(), "\n".join(lines))
    return 0
