"""The symbolic Checker: structured pass-through, free-text mapping, FUNCTION/CATEGORY flags, rejections."""

import pytest

from kari.game.checker import SymbolicChecker, load_cues, predicate_of_dimension
from kari.vocab.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def checker() -> SymbolicChecker:
    return SymbolicChecker(Vocabulary.load())


@pytest.mark.parametrize("question, pairs", [
    ("MATERIAL:metal", ["MATERIAL:metal"]),
    ("MADE_OF: Metallic", ["MATERIAL:metal"]),
    ("shape:hook", ["SHAPE:hook_shaped"]),
    ("Is it made of metal?", ["MATERIAL:metal"]),
    ("Is it wooden?", ["MATERIAL:wood"]),
    ("Does it have a smooth surface?", ["SURFACE:smooth"]),
    ("Is it larger than a hand?", ["SIZE:larger_than_hand"]),
    ("Is it see-through?", ["SURFACE:transparent"]),
    ("Is the handle made of plastic?", ["MATERIAL:plastic"]),
])
def test_accepted_questions_map_to_one_pair(checker, question, pairs):
    result = checker.check(question, ["cut_paper", "hold_water"])
    assert result.accepted, result
    assert result.to_json()["pairs"] == pairs


@pytest.mark.parametrize("question, flag", [
    ("Can it be used to cut paper?", "FUNCTION"),
    ("Is it sharp enough to cut?", "FUNCTION"),
    ("Would it hold water?", "FUNCTION"),
    ("Is it a kind of tool?", "CATEGORY"),
    ("Is it a piece of furniture?", "CATEGORY"),
    ("FUNCTION:cutting", "FUNCTION"),
])
def test_function_and_category_questions_are_flagged(checker, question, flag):
    result = checker.check(question, ["cut_paper", "hold_water"])
    assert result.flag == flag and not result.accepted


@pytest.mark.parametrize("question, reason", [
    ("Is it made of metal or plastic?", "compound"),
    ("Is it round and smooth?", "compound"),
    ("Is it blue?", "no physical property"),
    ("", "empty"),
    ("MATERIAL:unobtainium", "unknown MADE_OF value"),
    ("COLOUR:red", "unknown dimension"),
])
def test_rejections_say_why(checker, question, reason):
    result = checker.check(question)
    assert not result.accepted and reason in (result.reason or "")


def test_dimension_names_and_cue_list():
    assert predicate_of_dimension("material") == "MADE_OF"
    assert predicate_of_dimension("SURFACE") == "SURFACE"
    assert predicate_of_dimension("colour") is None
    kinds = {kind for kind, _ in load_cues()}
    assert kinds == {"FUNCTION", "CATEGORY"}
