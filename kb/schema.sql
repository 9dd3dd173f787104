-- kari KB schema (DuckDB). Run by kari.kb.store.open_db on every writable open; idempotent.
--
-- edges: one row per distinct edge (its content: node1, relation, node2, source, a NULL source as ''). No key is
--   stored: a load leaves out edges already in the KB by a digest of their content made as it runs, and
--   compares the edges of one file with each other exactly.
--   id                  VARCHAR   KGTK edge id from the file, else node1-relation-node2[-source]
--   node1, relation, node2 VARCHAR decoded values (KGTK escapes and quotes resolved; '|' lists in node2 are
--                                 split into one edge per value)
--   node1_label, node2_label, relation_label VARCHAR  the KGTK label field exactly as in the file (a '|' list
--                                 of KGTK values; NULL when the file has none). Readable labels for queries:
--                                 kari_node_label(node1, node1_label) (macros.sql) derives one from the id
--                                 when the file gives none (/c/en/knife/n -> knife, /r/UsedFor -> used for)
--   relation_dimension  VARCHAR   KGTK relation;dimension
--   source              VARCHAR   data source (CSKG datasource/source column: CN, VG, WN...; 'aristo')
--   sentence            VARCHAR   KGTK sentence or the Aristo tuple sentence
--   weight              DOUBLE    CSKG weight, Aristo Score, triples weight
--   qstrength, quantifier, score, tuple_provenance     the Aristo Tuple KB fields (NULL elsewhere)
--   file, line          VARCHAR, BIGINT  provenance: the loaded file (absolute path) and its 1-based line
--   load_id             BIGINT    loads.load_id of the load that added the edge
-- loads: one row per committed file load (load_id, file, format, edges_read, edges_added, loaded_at).
-- kari_meta(key, value): 'sql_sha256' = hash of schema.sql, macros.sql, views.sql as installed;
--   'maps_sha256' = hash of the relation_map and value_lexicon rows as loaded.
-- relation_map(relation, role): kb/relation_map.tsv; value_lexicon(raw, predicate, value): kb/value_lexicon.tsv.
--   Both are refreshed from their TSV files by a writable open when these changed (views.sql reads them).

CREATE SEQUENCE IF NOT EXISTS kari_load_seq START 1;

CREATE TABLE IF NOT EXISTS edges (
    id                 VARCHAR,
    node1              VARCHAR NOT NULL,
    relation           VARCHAR NOT NULL,
    node2              VARCHAR NOT NULL,
    node1_label        VARCHAR,
    node2_label        VARCHAR,
    relation_label     VARCHAR,
    relation_dimension VARCHAR,
    source             VARCHAR,
    sentence           VARCHAR,
    weight             DOUBLE,
    qstrength          DOUBLE,
    quantifier         VARCHAR,
    score              DOUBLE,
    tuple_provenance   VARCHAR,
    file               VARCHAR NOT NULL,
    line               BIGINT NOT NULL,
    load_id            BIGINT NOT NULL
);
-- a KB made before the content key was dropped (it stored md5_number of the content as edge_key)
ALTER TABLE edges DROP COLUMN IF EXISTS edge_key;

CREATE TABLE IF NOT EXISTS loads (
    load_id     BIGINT PRIMARY KEY,
    file        VARCHAR NOT NULL,
    format      VARCHAR NOT NULL,
    edges_read  BIGINT NOT NULL,
    edges_added BIGINT NOT NULL,
    loaded_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE IF NOT EXISTS relation_map (relation VARCHAR NOT NULL, role VARCHAR NOT NULL);

CREATE TABLE IF NOT EXISTS value_lexicon (raw VARCHAR NOT NULL, predicate VARCHAR NOT NULL, value VARCHAR NOT NULL);
