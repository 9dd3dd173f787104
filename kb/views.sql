-- kari KB views (DuckDB): object properties, parts and affordance evidence, derived from `edges` through
-- `relation_map` (KB relation -> role) and `value_lexicon` (raw term -> predicate, canonical value).
--
-- Objects and parts are named by the snake_case readable label of their node (kari_node_label), so
-- /c/en/knife, /c/en/knife/n and the Aristo 'knife' are one object `knife`.
-- Part encoding: a part is named by `X HasA P` or `P PartOf X` (Aristo: `X have P`), or by an `X/P` subject
-- (below). Properties of a part are the properties of the part's OWN node, ConceptNet style:
-- `blade HasProperty sharp` gives SHAPE sharp_edge on part `blade` of every object with a blade (and the
-- node `blade` is an object of its own with that property on `whole`). A subject label of the form
-- `object/part` (e.g. `knife/blade HasProperty sharp`) states an object-specific part property: it holds
-- for that object's part only, and declares the part. Whole-object properties: `X HasProperty v`,
-- `X MadeOf m` give part `whole`. Relations are matched exactly against relation_map (case-sensitive).
--
-- kb_roles(edge_id, role, relation, node1, node2, subject, subject_part, target, target_label,
--          source, weight, file, line)
--     edges whose relation is in relation_map; subject = snake_case label of node1 (part before '/'),
--     subject_part = 'whole' or the snake_case part after '/', target = snake_case label of node2.
-- nodes(node, label)                       every node id with its first readable label
-- object_parts(object, part, relation, edge_id, source, file, line)
-- object_facts(kb_roles columns..., predicate, value)
--     the made_of / has_property edges of kb_roles with the lexicon's typing (a made_of edge the lexicon does not
--     type is MADE_OF with its own word; a has_property edge it does not type has predicate NULL)
-- object_property(object, part, predicate, value, raw, role, relation, edge_id, part_edge_id, source, weight,
--                 file, line)
--     one row per (object, part, predicate, value, provenance); part is 'whole' or a part name; predicate is
--     MADE_OF / SHAPE / SIZE / SURFACE, or NULL for a HasProperty term the lexicon does not know (value = raw then).
-- affordance_evidence(verb, object, polarity, raw, relation, edge_id, source, weight, file, line)
--     polarity 'positive' (roles affordance_pos: UsedFor, CapableOf, ReceivesAction, Aristo 'use for')
--     or 'negative' (affordance_neg: NotCapableOf, NotUsedFor); verb is snake_case of node2's label.

CREATE OR REPLACE VIEW kb_roles AS
SELECT edge_id, role, relation, node1, node2,
       kari_snake(split_part(subject_label, '/', 1)) AS subject,
       CASE WHEN contains(subject_label, '/') THEN kari_snake(split_part(subject_label, '/', 2))
            ELSE 'whole' END AS subject_part,
       kari_snake(target_label) AS target, target_label, source, weight, file, line
FROM (SELECT e.id AS edge_id, m.role, e.relation, e.node1, e.node2,
             kari_node_label(e.node1, e.node1_label) AS subject_label,
             kari_node_label(e.node2, e.node2_label) AS target_label,
             e.source, e.weight, e.file, e.line
      FROM edges e
      JOIN relation_map m ON m.relation = e.relation);

CREATE OR REPLACE VIEW nodes AS
SELECT node, kari_node_label(node, min(labels)) AS label
FROM (SELECT node1 AS node, node1_label AS labels FROM edges
      UNION ALL
      SELECT node2, node2_label FROM edges)
GROUP BY node;

CREATE OR REPLACE VIEW object_parts AS
-- X HasA P
SELECT subject AS object, target AS part, relation, edge_id, source, file, line
FROM kb_roles WHERE role = 'has_part' AND subject_part = 'whole'
UNION ALL
-- P PartOf X
SELECT target, subject, relation, edge_id, source, file, line
FROM kb_roles WHERE role = 'part_of' AND subject_part = 'whole'
UNION ALL
-- X/P <any kari relation> ...: the subject names a part of X
SELECT subject, subject_part, relation, edge_id, source, file, line
FROM kb_roles WHERE subject_part <> 'whole';

CREATE OR REPLACE VIEW object_facts AS  -- property facts of a node (subject_part 'whole') or of an object's part (X/P)
-- a MadeOf word the lexicon does not know is still a MADE_OF fact (the relation says so): its word is read into
-- the vocabulary as a new material; a HasProperty word it does not know has no predicate (NULL)
SELECT r.*, coalesce(l.predicate, CASE WHEN r.role = 'made_of' THEN 'MADE_OF' END) AS predicate,
       coalesce(l.value, r.target) AS value
FROM kb_roles r
LEFT JOIN value_lexicon l
       ON l.raw = r.target AND (r.role = 'has_property' OR l.predicate = 'MADE_OF')
WHERE r.role IN ('made_of', 'has_property');

CREATE OR REPLACE VIEW object_property AS
WITH facts AS (SELECT * FROM object_facts),
parts AS (                -- one row per (object, part) with one witness edge
    SELECT object, part, min(edge_id) AS part_edge_id FROM object_parts GROUP BY object, part
)
SELECT subject AS object, subject_part AS part, predicate, value, target AS raw, role, relation,
       edge_id, NULL::VARCHAR AS part_edge_id, source, weight, file, line
FROM facts
UNION ALL
-- a part's own node's properties hold on that part of every object that has it
SELECT p.object, p.part, f.predicate, f.value, f.target, f.role, f.relation,
       f.edge_id, p.part_edge_id, f.source, f.weight, f.file, f.line
FROM parts p
JOIN facts f ON f.subject = p.part AND f.subject_part = 'whole';

CREATE OR REPLACE VIEW affordance_evidence AS
SELECT kari_snake(regexp_replace(lower(trim(target_label)), '^(to|be) ', '')) AS verb,
       subject AS object,
       CASE role WHEN 'affordance_pos' THEN 'positive' ELSE 'negative' END AS polarity,
       target_label AS raw, relation, edge_id, source, weight, file, line
FROM kb_roles
WHERE role IN ('affordance_pos', 'affordance_neg');
