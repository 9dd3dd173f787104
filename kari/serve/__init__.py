"""A human study in the browser (``kari serve``): many participants at once, each with their own link, playing
the Questioner (the benchmark's facts answer) or the Oracle (a kari player asks about an object they are shown),
on kari's own engine, Checker and Oracle; their games recorded as a ``kari play`` run directory that ``kari
report`` compares with every player.

:mod:`kari.serve.store` opens a study's run directory, :mod:`kari.serve.study` holds its state and steps,
:mod:`kari.serve.assignment` says who plays which game in which order, :mod:`kari.serve.journal` journals every
step, :mod:`kari.serve.views` decides what each response holds, :mod:`kari.serve.app` is the Starlette
application and :mod:`kari.serve.server` runs it with uvicorn; :mod:`kari.serve.export` writes the anonymised
export and :mod:`kari.serve.agreement` the human Oracles' agreement. Needs the ``serve`` extra
(``pip install 'kari[serve]'``: Starlette and uvicorn).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:
    from kari.serve.agreement import oracle_agreement
    from kari.serve.assignment import assign
    from kari.serve.export import export_study
    from kari.serve.settings import Mode, StudySettings
    from kari.serve.store import open_study, study_config
    from kari.serve.study import Study

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.serve.agreement": ("oracle_agreement",),
    "kari.serve.assignment": ("assign",),
    "kari.serve.export": ("export_study",),
    "kari.serve.settings": ("Mode", "StudySettings"),
    "kari.serve.store": ("open_study", "study_config"),
    "kari.serve.study": ("Study",),
})
