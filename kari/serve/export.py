"""The anonymised export of a study (``kari serve --out DIR --export EXPORT``): a run directory that ``kari
report``, ``kari merge`` and every resume check read like any ``kari play`` run, holding nothing that leads back
to a person.

What it holds: ``config.json`` (the settings and the fingerprints of the inputs), ``plan.json``, ``games.jsonl``,
``summary.json``, the plots and, in Oracle mode, ``agreement.json``. What it leaves out: the private folder
(the links, the journal with its clock times, the coordinator's report). The participants are renumbered in an
order drawn from the operating system's randomness and never stored, so neither a participant's id nor their
run index says which link, or which moment of recruitment, they came from; the records are written participant
by participant in the plan's order, not in the order games finished. Withdrawn participants have no records left
to export. Turn and game durations stay (they are the study's measure); the participants' own questions stay
as typed (the consent text asks them to type nothing personal).
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from pathlib import Path

from kari.errors import KariError
from kari.core.game_records import GAMES_FILE
from kari.game.run import checked_records, finish_run
from kari.core.game_settings import PlayConfig
from kari.io.atomic import atomic_write_json, atomic_write_jsonl, check_output_dir
from kari.io.lock import folder_lock, output_folder
from kari.io.plan import PLAN_FILE, Plan
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE
from kari.serve.agreement import AGREEMENT_FILE, oracle_agreement
from kari.serve.links import participant_id
from kari.serve.settings import STUDY_KEY, Mode, StudySettings


def export_study(out: Path, to: Path) -> int:
    """Write the anonymised export of the study in ``out`` into the new folder ``to``; returns the records."""
    if not (out / CONFIG_FILE).is_file():
        raise KariError(f"not a study's run directory (no {CONFIG_FILE}; kari serve --out)", file=str(out),
                        code="run-config")
    check_output_dir(to)
    if to.exists() and any(to.iterdir()):
        raise KariError("the export goes into a new or empty folder", file=str(to), code="output-exists")
    with folder_lock(out, "study"):  # not while the study is served
        logged = checked_records(out)
        if logged.plan is None or logged.plan.items is None or STUDY_KEY not in logged.config:
            raise KariError("not a study's run directory (kari serve --out)", file=str(out), code="run-config")
        settings = StudySettings.from_json(logged.config[STUDY_KEY])
        order = list(range(logged.plan.runs))
        secrets.SystemRandom().shuffle(order)  # new index of each old one; never written anywhere
        new_of = dict(enumerate(order))
        plan = _renumbered(logged.plan, new_of)
        position = {key: rank for rank, key in enumerate(plan.order)}
        count = settings.participants
        records = sorted((replace(r, run=new_of[r.run], participant=participant_id(new_of[r.run], count))
                          for r in logged.records), key=lambda r: position[(r.game, r.run)])
    config = PlayConfig.from_json(logged.config)
    with output_folder(to, "export"):
        atomic_write_json(to / CONFIG_FILE, logged.config)
        atomic_write_json(to / PLAN_FILE, plan.to_json())
        atomic_write_jsonl(to / GAMES_FILE, [r.to_json() for r in records])
        finish_run(to, config, records, plan.runs)
        if settings.mode == Mode.ORACLE:
            atomic_write_json(to / AGREEMENT_FILE, oracle_agreement(records))
    return len(records)


def _renumbered(plan: Plan, new_of: dict[int, int]) -> Plan:
    """The plan with each participant's run index renumbered, participants in their new order."""
    items = sorted(((game, new_of[run]) for game, run in plan.items or ()), key=lambda item: item[1])
    return replace(plan, items=tuple(items))


EXPORTED = (CONFIG_FILE, PLAN_FILE, GAMES_FILE, SUMMARY_FILE)
"""The files every export holds (besides the plots and, in Oracle mode, ``agreement.json``)."""

__all__ = ["EXPORTED", "export_study"]
