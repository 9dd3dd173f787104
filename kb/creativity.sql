-- kari CreativityBench tables (DuckDB): the part-level affordance KB and tool-choice tasks, written by
-- `kari creativity load` (kari.creativity.store). A reload of an entity or task replaces its rows.
--
-- cb_entities(entity, scenario, file, line)                  one row per entity (CreativityBench entity_name)
-- cb_parts(entity, part, connected_to, connection)           its non-overlapping parts; connected_to VARCHAR[]
-- cb_part_attributes(entity, part, kind, attribute, raw)     free-text attributes as written; kind 'physical'
--     (shape, size, thickness, local_features, material, rigidity, durability, elasticity, surface, weight,
--     others, summary) or 'state' (visibility, availability, moisture, temperature, internal, others, summary)
-- cb_part_atoms(entity, part, attribute, predicate, value, raw, how, score)
--     the KARI atoms read from them: predicate MADE_OF / SHAPE / SIZE / SURFACE, value canonical, raw the words
--     read, how 'lexicon' | 'phrase' | 'embedding' (score: the cosine), see kari.creativity.attributes
-- cb_part_affordances(entity, part, n, action, kind, level, typicality, use_condition, environment_condition,
--     recipient_condition, example_recipient, failure_case)   kind 'normal' (typicality 6) or 'emergency'
--     (level 1-5 = typicality)
-- cb_affordance_attributes(entity, part, n, statement, kind)  the enabling attributes of affordance n
-- cb_tasks(task_id, scenario, task, environment, entity_count, gold_entity, gold_part, gold_action, record,
--     file, line)                                             record: the whole task as JSON
-- cb_task_entities(task_id, entity, position, parts)          the scene: entities and the part names scored
-- Views:
-- cb_part_state(entity, part, visibility, availability, moisture, temperature, internal)  one row per part
-- cb_part_summary(entity, part, atoms, affordances, best_typicality)                     counts per part
-- cb_task_candidates(task_id, entity, part, in_kb, atoms)     every (entity, part) a task offers, with KB facts

CREATE TABLE IF NOT EXISTS cb_entities (entity VARCHAR NOT NULL, scenario VARCHAR, file VARCHAR, line BIGINT);
CREATE TABLE IF NOT EXISTS cb_parts (entity VARCHAR NOT NULL, part VARCHAR NOT NULL, connected_to VARCHAR[],
                                     connection VARCHAR);
CREATE TABLE IF NOT EXISTS cb_part_attributes (entity VARCHAR NOT NULL, part VARCHAR NOT NULL, kind VARCHAR NOT NULL,
                                               attribute VARCHAR NOT NULL, raw VARCHAR);
CREATE TABLE IF NOT EXISTS cb_part_atoms (entity VARCHAR NOT NULL, part VARCHAR NOT NULL, attribute VARCHAR,
                                          predicate VARCHAR NOT NULL, value VARCHAR NOT NULL, raw VARCHAR,
                                          how VARCHAR NOT NULL, score DOUBLE);
CREATE TABLE IF NOT EXISTS cb_part_affordances (entity VARCHAR NOT NULL, part VARCHAR NOT NULL, n INTEGER NOT NULL,
                                                action VARCHAR NOT NULL, kind VARCHAR NOT NULL, level INTEGER,
                                                typicality INTEGER NOT NULL, use_condition VARCHAR,
                                                environment_condition VARCHAR, recipient_condition VARCHAR,
                                                example_recipient VARCHAR, failure_case VARCHAR);
CREATE TABLE IF NOT EXISTS cb_affordance_attributes (entity VARCHAR NOT NULL, part VARCHAR NOT NULL,
                                                     n INTEGER NOT NULL, statement VARCHAR, kind VARCHAR);
CREATE TABLE IF NOT EXISTS cb_tasks (task_id VARCHAR NOT NULL, scenario VARCHAR, task VARCHAR, environment VARCHAR,
                                     entity_count INTEGER, gold_entity VARCHAR, gold_part VARCHAR,
                                     gold_action VARCHAR, record VARCHAR, file VARCHAR, line BIGINT);
CREATE TABLE IF NOT EXISTS cb_task_entities (task_id VARCHAR NOT NULL, entity VARCHAR NOT NULL,
                                             position INTEGER NOT NULL, parts VARCHAR[]);

CREATE OR REPLACE VIEW cb_part_state AS
SELECT p.entity, p.part,
       max(a.raw) FILTER (WHERE a.attribute = 'visibility') AS visibility,
       max(a.raw) FILTER (WHERE a.attribute = 'availability') AS availability,
       max(a.raw) FILTER (WHERE a.attribute = 'moisture') AS moisture,
       max(a.raw) FILTER (WHERE a.attribute = 'temperature') AS temperature,
       max(a.raw) FILTER (WHERE a.attribute = 'internal') AS internal
FROM cb_parts p
LEFT JOIN cb_part_attributes a ON a.entity = p.entity AND a.part = p.part AND a.kind = 'state'
GROUP BY p.entity, p.part;

CREATE OR REPLACE VIEW cb_part_summary AS
SELECT p.entity, p.part,
       (SELECT count(*) FROM cb_part_atoms t WHERE t.entity = p.entity AND t.part = p.part) AS atoms,
       (SELECT count(*) FROM cb_part_affordances f WHERE f.entity = p.entity AND f.part = p.part) AS affordances,
       (SELECT max(typicality) FROM cb_part_affordances f WHERE f.entity = p.entity AND f.part = p.part)
           AS best_typicality
FROM cb_parts p;

CREATE OR REPLACE VIEW cb_task_candidates AS
SELECT e.task_id, e.entity, u.part, s.part IS NOT NULL AS in_kb, coalesce(s.atoms, 0) AS atoms
FROM cb_task_entities e, unnest(e.parts) AS u(part)
LEFT JOIN cb_part_summary s ON s.entity = e.entity AND s.part = u.part;
