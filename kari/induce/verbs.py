"""Head words of KB affordance verbs as the sources write them (``cutting``, ``cut_bread``, ``as_a_weapon``,
``storing_drinks_or_other_liquids``), for grouping verbs that mean the same (:mod:`kari.induce.grouping`).

A verb phrase's **head** is its first content word once leading function words are dropped (``used_for_``,
``as_a_``, ``to_``, ``be_``: ``as_a_weapon`` -> ``weapon``), read in its base form: ``cutting`` -> ``cut``,
``holds`` -> ``hold``, ``storing`` -> ``store``, ``worn`` -> ``wear``. A verb that says little alone (a *light*
verb: make, take, keep, put, get, give, do, have, go, let, set, turn, play) keeps its object's head word:
``make_music`` and ``make_noise`` stay apart, ``keep_warm`` and ``keeping_warm`` meet. The key is
``head`` or ``head_object``.

The base form is chosen among a word's spelling candidates (``storing``: ``stor``, ``store``; ``cutting``:
``cutt``, ``cut``) by a ``known`` predicate: with :func:`lexicon_of` it accepts a form only when the KB itself
writes it somewhere (so ``measuring`` becomes ``measure`` only in a KB that also says ``measure``); the
WordNet reading (:mod:`kari.induce.grouping`) accepts WordNet's verb lemmas.

>>> known = lexicon_of(["cut_bread", "store_food", "hold"]).__contains__
>>> [head_key(v, known) for v in ("cutting", "cut_bread", "storing_drinks_or_other_liquids", "holds",
...                               "as_a_weapon", "make_music", "worn_by_women")]
['cut', 'cut', 'store', 'hold', 'weapon', 'make_music', 'wear']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from kari.vocab.morphology import singular

LEADING = frozenset({"used", "use", "using", "designed", "intended", "meant", "made", "for", "to", "as", "be",
                     "being", "is", "are", "can", "could", "able", "capable", "of", "a", "an", "the", "it", "its"})
"""Words dropped at the start of a phrase (``used_for_cleaning`` -> ``cleaning``)."""

LIGHT = frozenset({"make", "take", "keep", "put", "get", "give", "do", "have", "go", "let", "set", "turn", "play"})
"""Verbs whose meaning is in their object: the key keeps the object's head word."""

STOP = frozenset({"a", "an", "the", "to", "of", "for", "with", "and", "or", "in", "on", "at", "by", "from",
                  "into", "onto", "up", "down", "out", "off", "over", "it", "its", "them", "their", "his", "her",
                  "your", "one", "one's", "someone", "something", "things", "thing", "person", "people", "sure"})
"""Words skipped when looking for a light verb's object (``take_off`` keeps ``off`` only when nothing follows)."""

IRREGULAR = {"worn": "wear", "wore": "wear", "held": "hold", "made": "make", "built": "build", "bought": "buy",
             "brought": "bring", "kept": "keep", "put": "put", "cut": "cut", "set": "set", "hung": "hang",
             "thrown": "throw", "threw": "throw", "eaten": "eat", "ate": "eat", "drunk": "drink", "drank": "drink",
             "sat": "sit", "stood": "stand", "written": "write", "wrote": "write", "ridden": "ride", "rode": "ride",
             "driven": "drive", "drove": "drive", "given": "give", "gave": "give", "taken": "take", "took": "take",
             "broken": "break", "broke": "break", "spun": "spin", "sewn": "sew", "shot": "shoot", "fed": "feed",
             "led": "lead", "lit": "light", "caught": "catch", "taught": "teach", "struck": "strike", "stuck": "stick",
             "swept": "sweep", "slept": "sleep", "kept_warm": "keep_warm", "flown": "fly", "flew": "fly",
             "blown": "blow", "blew": "blow", "grown": "grow", "drawn": "draw", "drew": "draw", "dug": "dig",
             "hidden": "hide", "bitten": "bite", "shaken": "shake", "woven": "weave", "wove": "weave", "bound": "bind",
             "ground": "grind", "wound": "wind", "found": "find", "sold": "sell", "told": "tell", "sent": "send",
             "spent": "spend", "bent": "bend", "lent": "lend", "meant": "mean", "read": "read", "fit": "fit"}
"""Irregular verb forms (past tense and participle) and their base form."""

_VOWELS = "aeiou"


def lexicon_of(verbs: Iterable[str]) -> set[str]:
    """Every word the verb phrases use (``cut_bread`` -> cut, bread): the forms :func:`base_form` may choose."""
    return {word for verb in verbs for word in verb.split("_") if word}


def _candidates(word: str) -> Iterator[str]:
    """Base-form candidates of an inflected ``word`` (gerund, third person, past), most likely first."""
    if word.endswith("ing") and len(word) > 4:
        stem = word[:-3]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            yield stem[:-1]  # cutting -> cut, spinning -> spin
        yield stem + "e"  # storing -> store, serving -> serve
        yield stem  # cooking -> cook, rolling -> roll
        if stem.endswith("y"):
            yield stem[:-1] + "ie"  # tying -> tie
    if word.endswith("ied") and len(word) > 4:
        yield word[:-3] + "y"  # carried -> carry
    if word.endswith("ed") and len(word) > 3:
        stem = word[:-2]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            yield stem[:-1]  # stopped -> stop
        yield stem + "e"  # stored -> store
        yield stem  # cooked -> cook
        yield word[:-1]  # used -> use
    if word.endswith("ies") and len(word) > 4:
        yield word[:-3] + "y"  # carries -> carry
    if word.endswith("es") and len(word) > 3:
        yield word[:-2]  # passes -> pass, boxes -> box
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        yield word[:-1]  # holds -> hold, slides -> slide


def base_form(word: str, known: Callable[[str], bool]) -> str:
    """``word`` in its base form: an irregular form's base, else the first spelling candidate ``known`` accepts,
    else the word as written."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    for candidate in _candidates(word):
        if candidate != word and known(candidate):
            return candidate
    return word


def content_words(verb: str) -> list[str]:
    """The phrase's words without its leading function words (all of them when nothing else is left)."""
    words = [w for w in verb.lower().split("_") if w]
    start = 0
    while start < len(words) - 1 and words[start] in LEADING:
        start += 1
    return words[start:]


def head_key(verb: str, known: Callable[[str], bool]) -> str:
    """The grouping key of a verb phrase: its head in base form, with the object's head word after a light
    verb (see the module docstring)."""
    words = content_words(verb)
    if not words:
        return verb
    head = base_form(words[0], known)
    if head in LIGHT:
        rest = [w for w in words[1:] if w not in STOP] or words[1:]
        if rest:
            obj = rest[0]
            return f"{head}_{singular(obj) or obj}"
    if len(words) == 1 and head == words[0]:
        return singular(head) or head  # a noun head: bags -> bag
    return head
