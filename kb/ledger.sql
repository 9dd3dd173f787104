-- The KB-gap ledger (kari.report.ledger; written by `kari coverage --bench DIR --ledger FILE` and by the pipeline,
-- through kari.report.ledger_store; rows replaced on every run). A gap is a fact (part, predicate, value) the KB
-- states nothing about for a game's hidden object (the atom is unknown, not false) that alone makes the
-- target's matched rule cover that object: it decides the game.
--   kb_gaps        one row per (target, rule, object, part, predicate, value) deciding at least one game, ranked
--   kb_gap_games   one row per game: its status (covered, one-fact, more-facts, blocked, no-rule)
-- Views:
--   kb_gap_atoms(rule, predicate, value, objects, games)   each rule atom: the objects it is missing on and the
--                                                          distinct games stating it would decide, ranked
--   kb_gap_status(status, games)                           the games by status

-- rank 1 decides the most games (ties: the rule atom deciding the most games over all objects first, as in
-- kb_gap_atoms; then target, object, part, predicate, value); branch: the rule's lowest branch that holds once the fact is stated;
-- object_source: FILE:LINE of the object, where the fact would be stated
CREATE TABLE IF NOT EXISTS kb_gaps (rank INTEGER, target VARCHAR, rule VARCHAR, object VARCHAR, part VARCHAR,
                                    predicate VARCHAR, value VARCHAR, games INTEGER, branch INTEGER,
                                    game_ids VARCHAR[], object_source VARCHAR, semantics VARCHAR);
-- rule: the target's best matched rule (NULL: none); facts: the single facts that decide the game;
-- unknown: the facts the matched rules' atoms ask of the object and it states nothing about (one per atom,
-- under strict one per atom and part; 0 for covered and no-rule games)
CREATE TABLE IF NOT EXISTS kb_gap_games (game VARCHAR, object VARCHAR, target VARCHAR, rule VARCHAR, status VARCHAR,
                                         facts INTEGER, "unknown" INTEGER, semantics VARCHAR);

CREATE OR REPLACE VIEW kb_gap_atoms AS
SELECT rule, predicate, value, count(DISTINCT object) AS objects, count(DISTINCT g.game) AS games
FROM kb_gaps CROSS JOIN unnest(game_ids) AS g(game)
GROUP BY rule, predicate, value
ORDER BY games DESC, objects DESC, rule, predicate, value;

CREATE OR REPLACE VIEW kb_gap_status AS
SELECT status, count(*) AS games FROM kb_gap_games GROUP BY status ORDER BY games DESC, status;
