-- kari CreativityBench tables (DuckDB): the part-level affordance KB and tool-choice tasks, written by
-- `kari creativity load` (kari.creativity.store). An entity is (entity, scenario): CreativityBench's entity lookup
-- keys entities by scenario and name. A reload of an entity or task replaces its rows.
--
-- cb_entities(entity, scenario, file, line)                  one row per entity (CreativityBench entity_name)
-- cb_parts(entity, scenario, part, connected_to, connection) its non-overlapping parts; connected_to VARCHAR[]
-- cb_part_attributes(entity, scenario, part, kind, attribute, raw)   free-text attributes as written; kind
--     'physical' (shape, size, thickness, local_features, material, rigidity, durability, elasticity, surface,
--     weight, others, summary) or 'state' (visibility, availability, moisture, temperature, internal, others,
--     summary)
-- cb_part_atoms(entity, scenario, part, attribute, predicate, value, raw, how, score)
--     the KARI atoms read from them: predicate MADE_OF / SHAPE / SIZE / SURFACE, value canonical, raw the words
--     read, how 'lexicon' | 'phrase' | 'embedding' (score: the cosine), see kari.creativity.attributes
-- cb_part_affordances(entity, scenario, part, n, action, kind, level, typicality, use_condition,
--     environment_condition, recipient_condition, example_recipient, failure_case, level_text)
--     kind 'normal' (typicality 6) or 'emergency' (level 1-5 = typicality); level_text the level as written
-- cb_affordance_attributes(entity, scenario, part, n, position, statement, kind, modality, explanation)
--     the enabling attributes of affordance n, as CreativityBench lists them: kind 'physical' | 'state',
--     modality 'visual' (an image shows it) | 'text' (only words do), the annotator's explanation ('' if none)
-- cb_tasks(task_id, scenario, task, environment, entity_count, gold_entity, gold_part, gold_action, record,
--     file, line)                                             record: the whole task as JSON
-- cb_task_entities(task_id, entity, position, parts, judge_parts)   the scene: the entities, the parts each
--     offers (its description's, then any judge_output key it lacks) and the judge_output keys the benchmark's
--     judge snaps a predicted part to (the gold entity's omit the gold part in CreativityBench's files)
-- Views:
-- cb_part_state(entity, scenario, part, visibility, availability, moisture, temperature, internal)  per part
-- cb_part_summary(entity, scenario, part, atoms, affordances, best_typicality)                counts per part
-- cb_task_candidates(task_id, entity, part, in_kb, atoms)     every (entity, part) a task offers, with KB facts
--     (the atoms of the task's scenario's rows when the KB has the entity there, else of its other rows)

CREATE TABLE IF NOT EXISTS cb_entities (entity VARCHAR NOT NULL, scenario VARCHAR, file VARCHAR, line BIGINT);
CREATE TABLE IF NOT EXISTS cb_parts (entity VARCHAR NOT NULL, scenario VARCHAR, part VARCHAR NOT NULL,
                                     connected_to VARCHAR[], connection VARCHAR);
CREATE TABLE IF NOT EXISTS cb_part_attributes (entity VARCHAR NOT NULL, scenario VARCHAR, part VARCHAR NOT NULL,
                                               kind VARCHAR NOT NULL, attribute VARCHAR NOT NULL, raw VARCHAR);
CREATE TABLE IF NOT EXISTS cb_part_atoms (entity VARCHAR NOT NULL, scenario VARCHAR, part VARCHAR NOT NULL,
                                          attribute VARCHAR, predicate VARCHAR NOT NULL, value VARCHAR NOT NULL,
                                          raw VARCHAR, how VARCHAR NOT NULL, score DOUBLE);
CREATE TABLE IF NOT EXISTS cb_part_affordances (entity VARCHAR NOT NULL, scenario VARCHAR, part VARCHAR NOT NULL,
                                                n INTEGER NOT NULL, action VARCHAR NOT NULL, kind VARCHAR NOT NULL,
                                                level INTEGER, typicality INTEGER NOT NULL, use_condition VARCHAR,
                                                environment_condition VARCHAR, recipient_condition VARCHAR,
                                                example_recipient VARCHAR, failure_case VARCHAR, level_text VARCHAR);
CREATE TABLE IF NOT EXISTS cb_affordance_attributes (entity VARCHAR NOT NULL, scenario VARCHAR,
                                                     part VARCHAR NOT NULL, n INTEGER NOT NULL,
                                                     position INTEGER NOT NULL, statement VARCHAR, kind VARCHAR,
                                                     modality VARCHAR, explanation VARCHAR);
CREATE TABLE IF NOT EXISTS cb_tasks (task_id VARCHAR NOT NULL, scenario VARCHAR, task VARCHAR, environment VARCHAR,
                                     entity_count INTEGER, gold_entity VARCHAR, gold_part VARCHAR,
                                     gold_action VARCHAR, record VARCHAR, file VARCHAR, line BIGINT);
CREATE TABLE IF NOT EXISTS cb_task_entities (task_id VARCHAR NOT NULL, entity VARCHAR NOT NULL,
                                             position INTEGER NOT NULL, parts VARCHAR[], judge_parts VARCHAR[]);

CREATE OR REPLACE VIEW cb_part_state AS
SELECT p.entity, p.scenario, p.part,
       max(a.raw) FILTER (WHERE a.attribute = 'visibility') AS visibility,
       max(a.raw) FILTER (WHERE a.attribute = 'availability') AS availability,
       max(a.raw) FILTER (WHERE a.attribute = 'moisture') AS moisture,
       max(a.raw) FILTER (WHERE a.attribute = 'temperature') AS temperature,
       max(a.raw) FILTER (WHERE a.attribute = 'internal') AS internal
FROM cb_parts p
LEFT JOIN cb_part_attributes a ON a.entity = p.entity AND a.scenario IS NOT DISTINCT FROM p.scenario
                               AND a.part = p.part AND a.kind = 'state'
GROUP BY p.entity, p.scenario, p.part;

CREATE OR REPLACE VIEW cb_part_summary AS
SELECT p.entity, p.scenario, p.part,
       (SELECT count(*) FROM cb_part_atoms t WHERE t.entity = p.entity AND t.scenario IS NOT DISTINCT FROM p.scenario
                                             AND t.part = p.part) AS atoms,
       (SELECT count(*) FROM cb_part_affordances f WHERE f.entity = p.entity
                                                   AND f.scenario IS NOT DISTINCT FROM p.scenario
                                                   AND f.part = p.part) AS affordances,
       (SELECT max(typicality) FROM cb_part_affordances f WHERE f.entity = p.entity
                                                          AND f.scenario IS NOT DISTINCT FROM p.scenario
                                                          AND f.part = p.part) AS best_typicality
FROM cb_parts p;

CREATE OR REPLACE VIEW cb_task_candidates AS
SELECT e.task_id, e.entity, u.part, count(s.part) > 0 AS in_kb,
       coalesce(max(s.atoms) FILTER (WHERE s.scenario IS NOT DISTINCT FROM t.scenario), max(s.atoms), 0) AS atoms
FROM cb_task_entities e
JOIN cb_tasks t ON t.task_id = e.task_id,
     unnest(e.parts) AS u(part)
LEFT JOIN cb_part_summary s ON s.entity = e.entity AND s.part = u.part
GROUP BY e.task_id, e.entity, u.part;
