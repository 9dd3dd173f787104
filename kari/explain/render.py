"""Plain-text form of a :class:`~kari.explain.proof.Proof`: one line per node, indented like the rule."""

from __future__ import annotations

from kari.explain.induced import InducedFrom
from kari.explain.proof import Proof, ProofNode, Support

REASONS = {
    "exclusive": "false: {where} states {conflict}, exclusive with it ({group})",
    "closed-view": "false: {where} states only {stated} for this predicate (the closed view)",
    "nothing-stated": "unknown: {where} states nothing for this predicate (read as false)",
}


def _where(record: dict) -> str:
    place = f"{record.get('file')}:{record['line']}" if record.get("line") is not None else str(record.get("file"))
    if record.get("kind") == "kb-edge":
        text = f"KB edge {record.get('edge_id')} ({record.get('relation')}"
        text += f" '{record['raw']}'" if record.get("raw") else ""
        text += f", {record['source']}" if record.get("source") else ""
        text += f") at {place}"
        part = record.get("part_edge")
        if part:
            text += f", part by {part.get('relation')} edge {part.get('edge_id')} at {part.get('file')}:{part.get('line')}"
        return text
    return f"stated at {place}"


def support_line(s: Support) -> str:
    """``blade: MADE_OF:steel is-a metal (word 'stainless steel'); KB edge ... at FILE:LINE``."""
    where = "the whole" if s.part == "whole" else f"part {s.part}"
    fact = f"{s.predicate}:{s.isa[0]}" + "".join(f" is-a {v}" for v in s.isa[1:])
    origin = f" (the part's name '{s.part}')" if s.origin == "part-name" else ""
    words = f" (written {', '.join(repr(w) for w in s.raw)})" if s.raw else ""
    evidence = "; ".join(_where(e) for e in s.evidence)
    return f"<- {where}: {fact}{origin}{words}" + (f"; {evidence}" if evidence else "")


def induced_lines(induced: InducedFrom, object_id: str) -> list[str]:
    """``induced from N positives (M KB edges); this object is one: ATOM <- part: value [edges]``."""
    head = f"  induced from {induced.positives} positive(s)" + (f", citing {induced.edges} KB edge(s)"
                                                               if induced.edges else "")
    if induced.entry is None:
        return [head + (f"; {object_id} is one (the file records no facts per positive)" if induced.member
                        else f" ({object_id} is not one of them)")]
    lines = [head + f"; {object_id} is one" + (f" (positive by {', '.join(induced.entry['edges'])})"
                                              if induced.entry.get("edges") else "") + ", by:"]
    for atom, supports in (induced.entry.get("atoms") or {}).items():
        for s in supports:
            where = "the whole" if s.get("part") == "whole" else f"part {s.get('part')}"
            origin = {"inferred": " (inferred)", "part-name": " (the part's name)"}.get(str(s.get("origin")), "")
            edges = f" [{', '.join(s['edges'])}]" if s.get("edges") else ""
            lines.append(f"    {atom} <- {where}: {s.get('value')}{origin}{edges}")
    return lines


def node_lines(node: ProofNode, depth: int = 1) -> list[str]:
    pad = "  " * depth
    if node.op == "ATOM":
        on = "" if node.on == "whole" and node.role == "whole" else f" on {node.on}"
        if node.holds:
            return [f"{pad}{node.atom}{on}: true"] + [f"{pad}    {support_line(s)}" for s in node.support]
        text = REASONS[node.reason or "nothing-stated"].format(
            where="the object" if node.on == "whole" else f"part {node.on}", conflict=node.conflict[0] if node.conflict else "", group=node.conflict[1] if node.conflict else "",
            stated=", ".join(node.stated))
        return [f"{pad}{node.atom}{on}: {text}"]
    if node.op == "PART":
        if node.holds:
            bound = f"binds part {node.part}" if node.part else "(any-part reading: atoms read on the whole object)"
            return [f"{pad}PART({node.var}) {bound}"] + node_lines(node.args[0], depth + 1)
        if node.args:  # any-part
            return [f"{pad}PART({node.var}) fails (any-part reading)"] + node_lines(node.args[0], depth + 1)
        reason = {"object-has-no-parts": "the object has no parts", "no-free-part": "no part left to bind",
                  "no-part-satisfies": "no part satisfies its body"}.get(node.reason or "", node.reason or "")
        lines = [f"{pad}PART({node.var}) fails: {reason}"]
        for part, body in node.tried:
            lines.append(f"{pad}  with {node.var} = {part}:")
            lines += node_lines(body, depth + 2)
        return lines
    state = "holds" if node.holds else "fails"
    extra = " (each argument holds alone, but not on distinct parts)" if node.reason == "parts-must-differ" else ""
    lines = [f"{pad}{node.op} {state}{extra}"]
    for arg in node.args:
        lines += node_lines(arg, depth + 1)
    return lines


def proof_text(proof: Proof) -> str:
    """The proof as text: the verdict, then each branch with its tree."""
    if proof.covered:
        part = f", part {proof.part}" if proof.part else ""
        verdict = f"COVERED by branch {proof.branch}{part}"
    else:
        verdict = "NOT COVERED: no branch holds"
    source = f" ({proof.source})" if proof.source else ""
    lines = [f"{proof.affordance} on {proof.object}{source}, {proof.semantics} reading: {verdict}",
             f"rule: {proof.rule}"]
    for branch in proof.branches:
        lines.append(f"branch {branch.index}: {branch.text}  [{'holds' if branch.holds else 'fails'}]")
        if branch.induced is not None:
            lines += induced_lines(branch.induced, proof.object)
        lines += node_lines(branch.tree)
    return "\n".join(lines) + "\n"
