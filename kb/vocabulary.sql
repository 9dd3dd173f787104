-- kari vocabulary table (DuckDB): the one vocabulary of a KB database, shipped values plus every word a loader,
-- a benchmark or the Auditor added (kari.vocab.vocabulary.Vocabulary.to_db replaces its rows).
--
-- vocabulary(kind, predicate, term, value, provenance)
--   kind 'value'     : term = value = a canonical value of predicate; provenance 'shipped' or where it was added
--                      (FILE:LINE of the benchmark or KB line, or induce:<affordance>:round<n> for the Auditor)
--   kind 'synonym'   : term is read as the canonical value of predicate
--   kind 'isa'       : term is-a value (both canonical values of predicate)
--   kind 'banned'    : term may never be a value; value = 'dynamic' or 'affordance_adjective'; predicate NULL
--   kind 'exclusive' : term belongs to the mutually exclusive group named by value (small / medium / large)
--   kind 'part'      : term = value = a SHAPE value read from a part's name (a part noun such as 'opening' or
--                      'cover': a shape, never the affordance verb it resembles); predicate 'SHAPE'
CREATE TABLE IF NOT EXISTS vocabulary (
    kind       VARCHAR NOT NULL,
    predicate  VARCHAR,
    term       VARCHAR NOT NULL,
    value      VARCHAR NOT NULL,
    provenance VARCHAR
);
