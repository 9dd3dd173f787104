"""The three roles of one induction run (Proposer, Validator, Auditor) and its guards, built from its settings."""

from __future__ import annotations

from typing import Any

from kari.core.terms import Semantics
from kari.vocab.vocabulary import Vocabulary
from kari.induce.auditor import Auditor
from kari.core.induce_config import InduceConfig
from kari.induce.guards import Guard
from kari.induce.llmio import LLMSession
from kari.induce.loop import Components
from kari.induce.offline import KBValidator, SymbolicProposer
from kari.induce.proposer import LLMProposer
from kari.induce.validator import LLMValidator


def guard(config: InduceConfig, vocab: Vocabulary) -> Guard:
    """The guards every proposal passes, whatever the backend."""
    return Guard(vocab, lift_tolerance=config.lift_tolerance, strict=config.semantics == Semantics.STRICT,
                 lift=config.lift, time_limit=config.solver_time_limit)


def components(config: InduceConfig, vocab: Vocabulary, session: LLMSession | None = None,
               auditor: Auditor | None = None) -> Components:
    """The offline roles (a symbolic Proposer and the KB Validator) when ``session`` is None, else the LLM's;
    ``auditor`` defaults to a plain :class:`Auditor` of ``vocab``."""
    auditor = auditor or Auditor(vocab)
    if session is None:
        proposer: Any = SymbolicProposer(vocab, config.proposer_settings(), seed_branches=config.seed_branches,
                                         time_limit=config.solver_time_limit)
        return Components(proposer, KBValidator(vocab), auditor, vocab, guard(config, vocab))

    validator = LLMValidator(session, repair_attempts=config.repair_attempts, batch=config.validator_batch)
    return Components(LLMProposer(session), validator, auditor, vocab, guard(config, vocab))
