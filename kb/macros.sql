-- kari KB macros (DuckDB): decoding of KGTK / CSKG values and readable labels. One line of comment per macro.
-- Used by the loader (kari.kb.formats) and by views.sql; persistent in the database file.
--
-- kgtk_split(v)      VARCHAR[]  elements of a KGTK multi-value field ('|'-separated; '\|' and '\\' protected)
-- kgtk_unescape(s)   VARCHAR    s with the KGTK escapes \\ \t \n \r \" \' \| resolved
-- kgtk_text(e)       VARCHAR    text of one KGTK value: "string", 'string'@lang, or a symbol / number
-- kgtk_problem(e)    VARCHAR    why one KGTK value is malformed, or NULL
-- kgtk_list_problem(v) VARCHAR  the first problem of any element of a multi-value field, or NULL
-- kgtk_encode(t)     VARCHAR    t written as a KGTK value (plain symbol when safe, else a "string")
-- csv_unquote(v), csv_quote_problem(v)  early CSKG files quote like CSV ("a ""b"""): decode / check
-- kari_main_id(id)   VARCHAR    the /c/en/ component of a merged CSKG id (a+b+c), else its first component
-- kari_id_label(c)   VARCHAR    readable label of one id: /c/en/knife/n -> knife, wn:volt.n.01 -> volt, at:x_y -> x y
-- kari_label(id)     VARCHAR    readable label of any node id; plain text (Aristo, triples) stays as it is
-- kari_relation_label(r) VARCHAR /r/UsedFor -> used for, at:xWant -> x want
-- kari_node_label(id, labels)   VARCHAR  first label of a KGTK label field, else kari_label(id)
-- kari_snake(t)      VARCHAR    lower-case snake_case key: 'Bread Knife' -> bread_knife

CREATE OR REPLACE MACRO kgtk_split(v) AS
    list_transform(string_split(replace(replace(v, '\\', chr(1)), '\|', chr(2)), '|'),
                   lambda x: replace(replace(x, chr(2), '\|'), chr(1), '\\'));

CREATE OR REPLACE MACRO kgtk_unescape(s) AS
    CASE WHEN NOT contains(s, '\') THEN s
         ELSE replace(replace(replace(replace(replace(replace(replace(replace(
                  s, '\\', chr(1)), '\t', chr(9)), '\n', chr(10)), '\r', chr(13)),
                  '\"', '"'), '\''', ''''), '\|', '|'), chr(1), '\')
    END;

CREATE OR REPLACE MACRO kgtk_text(e) AS
    CASE WHEN starts_with(e, '"') THEN kgtk_unescape(e[2:-2])
         WHEN starts_with(e, '''') THEN kgtk_unescape(regexp_extract(e, '^''(.*)''@[A-Za-z0-9-]+$', 1))
         ELSE kgtk_unescape(e)
    END;

CREATE OR REPLACE MACRO kgtk_problem(e) AS
    CASE WHEN NOT (contains(e, '\') OR contains(e, '"') OR contains(e, '''')) THEN NULL
         WHEN regexp_matches(replace(e, '\\', ''), '\\([^tnr"''|]|$)') THEN 'bad backslash escape'
         WHEN regexp_full_match(e, '"([^"\\]|\\.)*"@[A-Za-z0-9-]+')
              THEN 'a "string" takes no language tag (KGTK writes a language-qualified string as ''text''@lang)'
         WHEN starts_with(e, '"') AND NOT regexp_full_match(e, '"([^"\\]|\\.)*"')
              THEN 'unterminated or malformed "string" (a value starting with " must end with " and escape inner quotes)'
         WHEN starts_with(e, '''') AND NOT regexp_full_match(e, '''([^''\\]|\\.)*''@[A-Za-z]{2,3}(-[A-Za-z0-9]+)*')
              THEN 'malformed language-qualified string (expected ''text''@lang)'
    END;

CREATE OR REPLACE MACRO kgtk_list_problem(v) AS
    CASE WHEN NOT (contains(v, '\') OR contains(v, '"') OR contains(v, '''')) THEN NULL
         ELSE list_filter(list_transform(kgtk_split(v), lambda x: kgtk_problem(x)), lambda p: p IS NOT NULL)[1]
    END;

CREATE OR REPLACE MACRO kgtk_encode(t) AS
    CASE WHEN t IS NULL THEN NULL
         WHEN t = '' THEN '""'
         WHEN NOT regexp_matches(t, '[\s|\\"'']') THEN t
         ELSE '"' || replace(replace(replace(replace(replace(replace(
                  t, '\', '\\'), '"', '\"'), '|', '\|'), chr(9), '\t'), chr(10), '\n'), chr(13), '\r') || '"'
    END;

CREATE OR REPLACE MACRO csv_unquote(v) AS
    CASE WHEN starts_with(v, '"') THEN replace(v[2:-2], '""', '"') ELSE v END;

CREATE OR REPLACE MACRO csv_quote_problem(v) AS
    CASE WHEN starts_with(v, '"') AND NOT regexp_full_match(v, '"([^"]|"")*"')
         THEN 'unterminated or malformed "quoted" value (inner quotes must be doubled)' END;

CREATE OR REPLACE MACRO kari_pick_id(parts) AS
    coalesce(list_filter(parts, lambda x: starts_with(x, '/c/en/'))[1], parts[1]);

CREATE OR REPLACE MACRO kari_main_id(id) AS
    CASE WHEN NOT contains(id, '+') THEN id
         ELSE kari_pick_id(string_split(regexp_replace(id, '\+(/c/|[a-z]+:)', chr(31) || '\1', 'g'), chr(31)))
    END;

CREATE OR REPLACE MACRO kari_id_label(c) AS
    CASE WHEN starts_with(c, '/c/') THEN replace(split_part(c, '/', 4), '_', ' ')
         WHEN starts_with(c, '/r/') THEN c[4:]
         WHEN starts_with(c, 'wn:') THEN replace(regexp_replace(c[4:], '\.[a-z]\.[0-9]+$', ''), '_', ' ')
         WHEN regexp_matches(c, '^[A-Za-z]+:[^\s:]') THEN replace(regexp_extract(c, '([^:]*)$', 1), '_', ' ')
         ELSE c
    END;

CREATE OR REPLACE MACRO kari_label(id) AS kari_id_label(kari_main_id(id));

CREATE OR REPLACE MACRO kari_relation_label(r) AS
    lower(regexp_replace(kari_id_label(r), '([a-z])([A-Z])', '\1 \2', 'g'));

CREATE OR REPLACE MACRO kari_snake(t) AS
    trim(regexp_replace(lower(trim(t)), '[^\pL\pN]+', '_', 'g'), '_');

CREATE OR REPLACE MACRO kari_node_label(id, labels) AS
    coalesce(kgtk_text(kgtk_split(labels)[1]), kari_label(id));
