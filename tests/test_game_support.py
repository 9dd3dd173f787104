"""Shared builders for the game tests: a small vocabulary and a synthetic benchmark written to a folder.

Eight affordances, each enabled by one material; six objects per affordance (that material plus assorted shape,
size and surface facts); one game per object with all eight affordances as candidates.
"""

from __future__ import annotations

import json
from pathlib import Path

from kari.vocab.vocabulary import Vocabulary

MATERIAL_OF = {"cut": "metal", "burn": "wood", "see_through": "glass", "bounce": "rubber", "write_on": "paper",
               "wear": "fabric", "build_with": "stone", "wrap": "plastic"}
SHAPES = ("flat", "round", "pointed", "hollow")
SIZES = ("small", "large")
SURFACES = ("smooth", "rough")
VALUES = {"MADE_OF": ("material", "steel", *MATERIAL_OF.values()), "SHAPE": SHAPES, "SIZE": SIZES,
          "SURFACE": SURFACES}
PER_AFFORDANCE = 6


def write_vocab(root: Path) -> Path:
    """The test vocabulary as TSV files (steel is-a metal, every material is-a material; 'metallic' -> metal)."""
    root.mkdir(parents=True, exist_ok=True)
    values = [f"{p}\t{v}\t" for p, vs in VALUES.items() for v in vs]
    (root / "values.tsv").write_text("predicate\tvalue\tdescription\n" + "\n".join(values) + "\n")
    isa = ["MADE_OF\tsteel\tmetal", *(f"MADE_OF\t{m}\tmaterial" for m in MATERIAL_OF.values())]
    (root / "isa.tsv").write_text("predicate\tchild\tparent\n" + "\n".join(isa) + "\n")
    (root / "synonyms.tsv").write_text("predicate\tsynonym\tvalue\nMADE_OF\tmetallic\tmetal\nSHAPE\tcircular\tround\n")
    (root / "banned.tsv").write_text("term\tkind\nfoldable\tdynamic\n")
    return root


def vocab(root: Path) -> Vocabulary:
    return Vocabulary.load(write_vocab(root))


def write_bench(root: Path) -> Path:
    """The synthetic benchmark directory (48 objects, 8 affordances, 48 games)."""
    root.mkdir(parents=True, exist_ok=True)
    affordances = list(MATERIAL_OF)
    objects, labels, games = [], [], []
    for a_index, aff in enumerate(affordances):
        for i in range(PER_AFFORDANCE):
            oid = f"{aff}_obj{i}"
            material = "steel" if (aff == "cut" and i % 2) else MATERIAL_OF[aff]
            props = [("whole", "MADE_OF", material), ("whole", "SHAPE", SHAPES[(i + a_index) % 4]),
                     ("handle", "SIZE", SIZES[i % 2]), ("whole", "SURFACE", SURFACES[(i // 2) % 2])]
            objects.append({"id": oid, "description": f"a {material} thing", "parts": ["handle"],
                            "properties": [{"part": p, "predicate": k, "value": v} for p, k, v in props]})
            labels += [{"object": oid, "affordance": other, "label": other == aff} for other in affordances]
            shift = (a_index + i) % len(affordances)
            games.append({"id": f"g_{oid}", "object": oid, "target": aff,
                          "candidates": affordances[shift:] + affordances[:shift]})
    files = {"objects": objects, "labels": labels, "games": games,
             "affordances": [{"id": a, "description": f"{a.replace('_', ' ')} something"} for a in affordances]}
    for name, rows in files.items():
        (root / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def write_questions(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.write_text("dimension\tvalue\n" + "".join(f"{d}\t{v}\n" for d, v in rows))
    return path


RULES_TEXT = """cut:
OR( PART(x, AND(MADE_OF:metal, SHAPE:pointed)), AND(MADE_OF:metal, SIZE:small) )
burn:
MADE_OF:wood
see_through:
MADE_OF:glass
bounce:
AND(MADE_OF:rubber, SHAPE:round)
"""
