-- Coverage tables and views written by `kari coverage` (kari.solver.store fills the tables; their rows are
-- replaced on every run). The representatives table is in representatives.sql.
-- Views (ratios are rounded to 4 decimals; the counts beside them are exact):
--   rule_recall(rule, affordance, target, positives, covered_positives, recall)  recall on the labelled
--                  positives of each target the rule answers for (one row per rule and target)
--   rule_precision(rule, affordance, target, covered_labelled, true_positives, false_positives, negatives,
--                  precision, false_positive_rate)                             against its labelled negatives
--   affordance_coverage(affordance, rules, objects, covered_objects, share)    objects covered by any rule
--   game_rule_match(game, object, target, has_rule, target_covers_object)      the paper's figure per game
-- Rules answer for labels and games through rule_matches(target, rule, verb, similarity, match): the rule (by its
-- affordance name) matched to each labelled affordance / game target (kari coverage fills it: sentence similarity
-- for a benchmark, the KB verbs grouped into each rule for the KB's own labels); a rule no target is matched to
-- is judged on the labels of its own name.

-- one row per rule x object, in rule order, then object order; branch and part of the covering branch
CREATE TABLE IF NOT EXISTS coverage (affordance VARCHAR, object VARCHAR, covered BOOLEAN, branch INTEGER,
                                     part VARCHAR, rule INTEGER, semantics VARCHAR);
-- labelled positives (true) and negatives (false)
CREATE TABLE IF NOT EXISTS coverage_labels (affordance VARCHAR, object VARCHAR, label BOOLEAN);
-- the games of the benchmark (empty for KB objects)
CREATE TABLE IF NOT EXISTS coverage_games (game VARCHAR, object VARCHAR, target VARCHAR);
-- the rule matched to each labelled affordance / game target: its affordance, the rule verb that matched, the
-- similarity and how it was matched (embedding or exact)
CREATE TABLE IF NOT EXISTS rule_matches (target VARCHAR, rule VARCHAR, verb VARCHAR, similarity DOUBLE,
                                         match VARCHAR);

CREATE OR REPLACE VIEW rule_recall AS
SELECT c.rule, c.affordance, m.target,
       count(l.object) AS positives,
       count(l.object) FILTER (WHERE c.covered) AS covered_positives,
       CASE WHEN count(l.object) > 0
            THEN round((count(l.object) FILTER (WHERE c.covered))::DOUBLE / count(l.object), 4) END AS recall
FROM coverage c
LEFT JOIN (SELECT target, rule FROM rule_matches
           UNION SELECT affordance, affordance FROM coverage WHERE affordance NOT IN (SELECT rule FROM rule_matches)) m
       ON m.rule = c.affordance
LEFT JOIN coverage_labels l ON l.affordance = m.target AND l.object = c.object AND l.label
GROUP BY c.rule, c.affordance, m.target;

CREATE OR REPLACE VIEW rule_precision AS
SELECT c.rule, c.affordance, m.target,
       count(l.object) FILTER (WHERE c.covered) AS covered_labelled,
       count(l.object) FILTER (WHERE c.covered AND l.label) AS true_positives,
       count(l.object) FILTER (WHERE c.covered AND NOT l.label) AS false_positives,
       count(l.object) FILTER (WHERE NOT l.label) AS negatives,
       CASE WHEN count(l.object) FILTER (WHERE c.covered) > 0
            THEN round((count(l.object) FILTER (WHERE c.covered AND l.label))::DOUBLE
                       / count(l.object) FILTER (WHERE c.covered), 4) END AS precision,
       CASE WHEN count(l.object) FILTER (WHERE NOT l.label) > 0
            THEN round((count(l.object) FILTER (WHERE c.covered AND NOT l.label))::DOUBLE
                       / count(l.object) FILTER (WHERE NOT l.label), 4) END AS false_positive_rate
FROM coverage c
LEFT JOIN (SELECT target, rule FROM rule_matches
           UNION SELECT affordance, affordance FROM coverage WHERE affordance NOT IN (SELECT rule FROM rule_matches)) m
       ON m.rule = c.affordance
LEFT JOIN coverage_labels l ON l.affordance = m.target AND l.object = c.object
GROUP BY c.rule, c.affordance, m.target;

CREATE OR REPLACE VIEW affordance_coverage AS
SELECT affordance, count(DISTINCT rule) AS rules, count(DISTINCT object) AS objects,
       count(DISTINCT object) FILTER (WHERE covered) AS covered_objects,
       round((count(DISTINCT object) FILTER (WHERE covered))::DOUBLE / nullif(count(DISTINCT object), 0), 4) AS share
FROM coverage
GROUP BY affordance;

CREATE OR REPLACE VIEW game_rule_match AS
SELECT g.game, g.object, g.target,
       EXISTS (SELECT 1 FROM rule_matches m JOIN coverage c ON c.affordance = m.rule WHERE m.target = g.target)
           AS has_rule,
       EXISTS (SELECT 1 FROM rule_matches m JOIN coverage c ON c.affordance = m.rule
               WHERE m.target = g.target AND c.object = g.object AND c.covered) AS target_covers_object
FROM coverage_games g;
