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
-- kari_snake(t)      VARCHAR    lower-case snake_case key: 'Bread Knife' -> bread_knife (each run of characters
--                               outside kari_word_class() becomes one '_', then lower case, no '_' at the ends)
-- kari_word_class()  VARCHAR    the letters and digits of a key, as an RE2 character class body

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

-- The letters and digits of kari's keys: Unicode 14.0's general categories L* and N*, as RE2 ranges. Python's
-- normalise_term reads this same class from this file, so both agree on every code point whatever Unicode
-- tables Python or DuckDB carry. Regenerate with: python -m kari.core.terms
CREATE OR REPLACE MACRO kari_word_class() AS
    '\x{30}-\x{39}\x{41}-\x{5A}\x{61}-\x{7A}\x{AA}\x{B2}-\x{B3}\x{B5}\x{B9}-\x{BA}\x{BC}-\x{BE}'
    '\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{2C1}\x{2C6}-\x{2D1}\x{2E0}-\x{2E4}\x{2EC}\x{2EE}\x{370}-\x{374}'
    '\x{376}-\x{377}\x{37A}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}'
    '\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{559}\x{560}-\x{588}\x{5D0}-\x{5EA}\x{5EF}-\x{5F2}'
    '\x{620}-\x{64A}\x{660}-\x{669}\x{66E}-\x{66F}\x{671}-\x{6D3}\x{6D5}\x{6E5}-\x{6E6}\x{6EE}-\x{6FC}'
    '\x{6FF}\x{710}\x{712}-\x{72F}\x{74D}-\x{7A5}\x{7B1}\x{7C0}-\x{7EA}\x{7F4}-\x{7F5}\x{7FA}'
    '\x{800}-\x{815}\x{81A}\x{824}\x{828}\x{840}-\x{858}\x{860}-\x{86A}\x{870}-\x{887}\x{889}-\x{88E}'
    '\x{8A0}-\x{8C9}\x{904}-\x{939}\x{93D}\x{950}\x{958}-\x{961}\x{966}-\x{96F}\x{971}-\x{980}'
    '\x{985}-\x{98C}\x{98F}-\x{990}\x{993}-\x{9A8}\x{9AA}-\x{9B0}\x{9B2}\x{9B6}-\x{9B9}\x{9BD}\x{9CE}'
    '\x{9DC}-\x{9DD}\x{9DF}-\x{9E1}\x{9E6}-\x{9F1}\x{9F4}-\x{9F9}\x{9FC}\x{A05}-\x{A0A}\x{A0F}-\x{A10}'
    '\x{A13}-\x{A28}\x{A2A}-\x{A30}\x{A32}-\x{A33}\x{A35}-\x{A36}\x{A38}-\x{A39}\x{A59}-\x{A5C}\x{A5E}'
    '\x{A66}-\x{A6F}\x{A72}-\x{A74}\x{A85}-\x{A8D}\x{A8F}-\x{A91}\x{A93}-\x{AA8}\x{AAA}-\x{AB0}'
    '\x{AB2}-\x{AB3}\x{AB5}-\x{AB9}\x{ABD}\x{AD0}\x{AE0}-\x{AE1}\x{AE6}-\x{AEF}\x{AF9}\x{B05}-\x{B0C}'
    '\x{B0F}-\x{B10}\x{B13}-\x{B28}\x{B2A}-\x{B30}\x{B32}-\x{B33}\x{B35}-\x{B39}\x{B3D}\x{B5C}-\x{B5D}'
    '\x{B5F}-\x{B61}\x{B66}-\x{B6F}\x{B71}-\x{B77}\x{B83}\x{B85}-\x{B8A}\x{B8E}-\x{B90}\x{B92}-\x{B95}'
    '\x{B99}-\x{B9A}\x{B9C}\x{B9E}-\x{B9F}\x{BA3}-\x{BA4}\x{BA8}-\x{BAA}\x{BAE}-\x{BB9}\x{BD0}'
    '\x{BE6}-\x{BF2}\x{C05}-\x{C0C}\x{C0E}-\x{C10}\x{C12}-\x{C28}\x{C2A}-\x{C39}\x{C3D}\x{C58}-\x{C5A}'
    '\x{C5D}\x{C60}-\x{C61}\x{C66}-\x{C6F}\x{C78}-\x{C7E}\x{C80}\x{C85}-\x{C8C}\x{C8E}-\x{C90}'
    '\x{C92}-\x{CA8}\x{CAA}-\x{CB3}\x{CB5}-\x{CB9}\x{CBD}\x{CDD}-\x{CDE}\x{CE0}-\x{CE1}\x{CE6}-\x{CEF}'
    '\x{CF1}-\x{CF2}\x{D04}-\x{D0C}\x{D0E}-\x{D10}\x{D12}-\x{D3A}\x{D3D}\x{D4E}\x{D54}-\x{D56}'
    '\x{D58}-\x{D61}\x{D66}-\x{D78}\x{D7A}-\x{D7F}\x{D85}-\x{D96}\x{D9A}-\x{DB1}\x{DB3}-\x{DBB}\x{DBD}'
    '\x{DC0}-\x{DC6}\x{DE6}-\x{DEF}\x{E01}-\x{E30}\x{E32}-\x{E33}\x{E40}-\x{E46}\x{E50}-\x{E59}'
    '\x{E81}-\x{E82}\x{E84}\x{E86}-\x{E8A}\x{E8C}-\x{EA3}\x{EA5}\x{EA7}-\x{EB0}\x{EB2}-\x{EB3}\x{EBD}'
    '\x{EC0}-\x{EC4}\x{EC6}\x{ED0}-\x{ED9}\x{EDC}-\x{EDF}\x{F00}\x{F20}-\x{F33}\x{F40}-\x{F47}'
    '\x{F49}-\x{F6C}\x{F88}-\x{F8C}\x{1000}-\x{102A}\x{103F}-\x{1049}\x{1050}-\x{1055}\x{105A}-\x{105D}'
    '\x{1061}\x{1065}-\x{1066}\x{106E}-\x{1070}\x{1075}-\x{1081}\x{108E}\x{1090}-\x{1099}'
    '\x{10A0}-\x{10C5}\x{10C7}\x{10CD}\x{10D0}-\x{10FA}\x{10FC}-\x{1248}\x{124A}-\x{124D}'
    '\x{1250}-\x{1256}\x{1258}\x{125A}-\x{125D}\x{1260}-\x{1288}\x{128A}-\x{128D}\x{1290}-\x{12B0}'
    '\x{12B2}-\x{12B5}\x{12B8}-\x{12BE}\x{12C0}\x{12C2}-\x{12C5}\x{12C8}-\x{12D6}\x{12D8}-\x{1310}'
    '\x{1312}-\x{1315}\x{1318}-\x{135A}\x{1369}-\x{137C}\x{1380}-\x{138F}\x{13A0}-\x{13F5}'
    '\x{13F8}-\x{13FD}\x{1401}-\x{166C}\x{166F}-\x{167F}\x{1681}-\x{169A}\x{16A0}-\x{16EA}'
    '\x{16EE}-\x{16F8}\x{1700}-\x{1711}\x{171F}-\x{1731}\x{1740}-\x{1751}\x{1760}-\x{176C}'
    '\x{176E}-\x{1770}\x{1780}-\x{17B3}\x{17D7}\x{17DC}\x{17E0}-\x{17E9}\x{17F0}-\x{17F9}'
    '\x{1810}-\x{1819}\x{1820}-\x{1878}\x{1880}-\x{1884}\x{1887}-\x{18A8}\x{18AA}\x{18B0}-\x{18F5}'
    '\x{1900}-\x{191E}\x{1946}-\x{196D}\x{1970}-\x{1974}\x{1980}-\x{19AB}\x{19B0}-\x{19C9}'
    '\x{19D0}-\x{19DA}\x{1A00}-\x{1A16}\x{1A20}-\x{1A54}\x{1A80}-\x{1A89}\x{1A90}-\x{1A99}\x{1AA7}'
    '\x{1B05}-\x{1B33}\x{1B45}-\x{1B4C}\x{1B50}-\x{1B59}\x{1B83}-\x{1BA0}\x{1BAE}-\x{1BE5}'
    '\x{1C00}-\x{1C23}\x{1C40}-\x{1C49}\x{1C4D}-\x{1C7D}\x{1C80}-\x{1C88}\x{1C90}-\x{1CBA}'
    '\x{1CBD}-\x{1CBF}\x{1CE9}-\x{1CEC}\x{1CEE}-\x{1CF3}\x{1CF5}-\x{1CF6}\x{1CFA}\x{1D00}-\x{1DBF}'
    '\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}'
    '\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}'
    '\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}'
    '\x{1FF6}-\x{1FFC}\x{2070}-\x{2071}\x{2074}-\x{2079}\x{207F}-\x{2089}\x{2090}-\x{209C}\x{2102}'
    '\x{2107}\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}'
    '\x{212F}-\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2150}-\x{2189}\x{2460}-\x{249B}'
    '\x{24EA}-\x{24FF}\x{2776}-\x{2793}\x{2C00}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}-\x{2CF3}\x{2CFD}'
    '\x{2D00}-\x{2D25}\x{2D27}\x{2D2D}\x{2D30}-\x{2D67}\x{2D6F}\x{2D80}-\x{2D96}\x{2DA0}-\x{2DA6}'
    '\x{2DA8}-\x{2DAE}\x{2DB0}-\x{2DB6}\x{2DB8}-\x{2DBE}\x{2DC0}-\x{2DC6}\x{2DC8}-\x{2DCE}'
    '\x{2DD0}-\x{2DD6}\x{2DD8}-\x{2DDE}\x{2E2F}\x{3005}-\x{3007}\x{3021}-\x{3029}\x{3031}-\x{3035}'
    '\x{3038}-\x{303C}\x{3041}-\x{3096}\x{309D}-\x{309F}\x{30A1}-\x{30FA}\x{30FC}-\x{30FF}'
    '\x{3105}-\x{312F}\x{3131}-\x{318E}\x{3192}-\x{3195}\x{31A0}-\x{31BF}\x{31F0}-\x{31FF}'
    '\x{3220}-\x{3229}\x{3248}-\x{324F}\x{3251}-\x{325F}\x{3280}-\x{3289}\x{32B1}-\x{32BF}'
    '\x{3400}-\x{4DBF}\x{4E00}-\x{A48C}\x{A4D0}-\x{A4FD}\x{A500}-\x{A60C}\x{A610}-\x{A62B}'
    '\x{A640}-\x{A66E}\x{A67F}-\x{A69D}\x{A6A0}-\x{A6EF}\x{A717}-\x{A71F}\x{A722}-\x{A788}'
    '\x{A78B}-\x{A7CA}\x{A7D0}-\x{A7D1}\x{A7D3}\x{A7D5}-\x{A7D9}\x{A7F2}-\x{A801}\x{A803}-\x{A805}'
    '\x{A807}-\x{A80A}\x{A80C}-\x{A822}\x{A830}-\x{A835}\x{A840}-\x{A873}\x{A882}-\x{A8B3}'
    '\x{A8D0}-\x{A8D9}\x{A8F2}-\x{A8F7}\x{A8FB}\x{A8FD}-\x{A8FE}\x{A900}-\x{A925}\x{A930}-\x{A946}'
    '\x{A960}-\x{A97C}\x{A984}-\x{A9B2}\x{A9CF}-\x{A9D9}\x{A9E0}-\x{A9E4}\x{A9E6}-\x{A9FE}'
    '\x{AA00}-\x{AA28}\x{AA40}-\x{AA42}\x{AA44}-\x{AA4B}\x{AA50}-\x{AA59}\x{AA60}-\x{AA76}\x{AA7A}'
    '\x{AA7E}-\x{AAAF}\x{AAB1}\x{AAB5}-\x{AAB6}\x{AAB9}-\x{AABD}\x{AAC0}\x{AAC2}\x{AADB}-\x{AADD}'
    '\x{AAE0}-\x{AAEA}\x{AAF2}-\x{AAF4}\x{AB01}-\x{AB06}\x{AB09}-\x{AB0E}\x{AB11}-\x{AB16}'
    '\x{AB20}-\x{AB26}\x{AB28}-\x{AB2E}\x{AB30}-\x{AB5A}\x{AB5C}-\x{AB69}\x{AB70}-\x{ABE2}'
    '\x{ABF0}-\x{ABF9}\x{AC00}-\x{D7A3}\x{D7B0}-\x{D7C6}\x{D7CB}-\x{D7FB}\x{F900}-\x{FA6D}'
    '\x{FA70}-\x{FAD9}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FB1D}\x{FB1F}-\x{FB28}\x{FB2A}-\x{FB36}'
    '\x{FB38}-\x{FB3C}\x{FB3E}\x{FB40}-\x{FB41}\x{FB43}-\x{FB44}\x{FB46}-\x{FBB1}\x{FBD3}-\x{FD3D}'
    '\x{FD50}-\x{FD8F}\x{FD92}-\x{FDC7}\x{FDF0}-\x{FDFB}\x{FE70}-\x{FE74}\x{FE76}-\x{FEFC}'
    '\x{FF10}-\x{FF19}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{FF66}-\x{FFBE}\x{FFC2}-\x{FFC7}'
    '\x{FFCA}-\x{FFCF}\x{FFD2}-\x{FFD7}\x{FFDA}-\x{FFDC}\x{10000}-\x{1000B}\x{1000D}-\x{10026}'
    '\x{10028}-\x{1003A}\x{1003C}-\x{1003D}\x{1003F}-\x{1004D}\x{10050}-\x{1005D}\x{10080}-\x{100FA}'
    '\x{10107}-\x{10133}\x{10140}-\x{10178}\x{1018A}-\x{1018B}\x{10280}-\x{1029C}\x{102A0}-\x{102D0}'
    '\x{102E1}-\x{102FB}\x{10300}-\x{10323}\x{1032D}-\x{1034A}\x{10350}-\x{10375}\x{10380}-\x{1039D}'
    '\x{103A0}-\x{103C3}\x{103C8}-\x{103CF}\x{103D1}-\x{103D5}\x{10400}-\x{1049D}\x{104A0}-\x{104A9}'
    '\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10500}-\x{10527}\x{10530}-\x{10563}\x{10570}-\x{1057A}'
    '\x{1057C}-\x{1058A}\x{1058C}-\x{10592}\x{10594}-\x{10595}\x{10597}-\x{105A1}\x{105A3}-\x{105B1}'
    '\x{105B3}-\x{105B9}\x{105BB}-\x{105BC}\x{10600}-\x{10736}\x{10740}-\x{10755}\x{10760}-\x{10767}'
    '\x{10780}-\x{10785}\x{10787}-\x{107B0}\x{107B2}-\x{107BA}\x{10800}-\x{10805}\x{10808}'
    '\x{1080A}-\x{10835}\x{10837}-\x{10838}\x{1083C}\x{1083F}-\x{10855}\x{10858}-\x{10876}'
    '\x{10879}-\x{1089E}\x{108A7}-\x{108AF}\x{108E0}-\x{108F2}\x{108F4}-\x{108F5}\x{108FB}-\x{1091B}'
    '\x{10920}-\x{10939}\x{10980}-\x{109B7}\x{109BC}-\x{109CF}\x{109D2}-\x{10A00}\x{10A10}-\x{10A13}'
    '\x{10A15}-\x{10A17}\x{10A19}-\x{10A35}\x{10A40}-\x{10A48}\x{10A60}-\x{10A7E}\x{10A80}-\x{10A9F}'
    '\x{10AC0}-\x{10AC7}\x{10AC9}-\x{10AE4}\x{10AEB}-\x{10AEF}\x{10B00}-\x{10B35}\x{10B40}-\x{10B55}'
    '\x{10B58}-\x{10B72}\x{10B78}-\x{10B91}\x{10BA9}-\x{10BAF}\x{10C00}-\x{10C48}\x{10C80}-\x{10CB2}'
    '\x{10CC0}-\x{10CF2}\x{10CFA}-\x{10D23}\x{10D30}-\x{10D39}\x{10E60}-\x{10E7E}\x{10E80}-\x{10EA9}'
    '\x{10EB0}-\x{10EB1}\x{10F00}-\x{10F27}\x{10F30}-\x{10F45}\x{10F51}-\x{10F54}\x{10F70}-\x{10F81}'
    '\x{10FB0}-\x{10FCB}\x{10FE0}-\x{10FF6}\x{11003}-\x{11037}\x{11052}-\x{1106F}\x{11071}-\x{11072}'
    '\x{11075}\x{11083}-\x{110AF}\x{110D0}-\x{110E8}\x{110F0}-\x{110F9}\x{11103}-\x{11126}'
    '\x{11136}-\x{1113F}\x{11144}\x{11147}\x{11150}-\x{11172}\x{11176}\x{11183}-\x{111B2}'
    '\x{111C1}-\x{111C4}\x{111D0}-\x{111DA}\x{111DC}\x{111E1}-\x{111F4}\x{11200}-\x{11211}'
    '\x{11213}-\x{1122B}\x{11280}-\x{11286}\x{11288}\x{1128A}-\x{1128D}\x{1128F}-\x{1129D}'
    '\x{1129F}-\x{112A8}\x{112B0}-\x{112DE}\x{112F0}-\x{112F9}\x{11305}-\x{1130C}\x{1130F}-\x{11310}'
    '\x{11313}-\x{11328}\x{1132A}-\x{11330}\x{11332}-\x{11333}\x{11335}-\x{11339}\x{1133D}\x{11350}'
    '\x{1135D}-\x{11361}\x{11400}-\x{11434}\x{11447}-\x{1144A}\x{11450}-\x{11459}\x{1145F}-\x{11461}'
    '\x{11480}-\x{114AF}\x{114C4}-\x{114C5}\x{114C7}\x{114D0}-\x{114D9}\x{11580}-\x{115AE}'
    '\x{115D8}-\x{115DB}\x{11600}-\x{1162F}\x{11644}\x{11650}-\x{11659}\x{11680}-\x{116AA}\x{116B8}'
    '\x{116C0}-\x{116C9}\x{11700}-\x{1171A}\x{11730}-\x{1173B}\x{11740}-\x{11746}\x{11800}-\x{1182B}'
    '\x{118A0}-\x{118F2}\x{118FF}-\x{11906}\x{11909}\x{1190C}-\x{11913}\x{11915}-\x{11916}'
    '\x{11918}-\x{1192F}\x{1193F}\x{11941}\x{11950}-\x{11959}\x{119A0}-\x{119A7}\x{119AA}-\x{119D0}'
    '\x{119E1}\x{119E3}\x{11A00}\x{11A0B}-\x{11A32}\x{11A3A}\x{11A50}\x{11A5C}-\x{11A89}\x{11A9D}'
    '\x{11AB0}-\x{11AF8}\x{11C00}-\x{11C08}\x{11C0A}-\x{11C2E}\x{11C40}\x{11C50}-\x{11C6C}'
    '\x{11C72}-\x{11C8F}\x{11D00}-\x{11D06}\x{11D08}-\x{11D09}\x{11D0B}-\x{11D30}\x{11D46}'
    '\x{11D50}-\x{11D59}\x{11D60}-\x{11D65}\x{11D67}-\x{11D68}\x{11D6A}-\x{11D89}\x{11D98}'
    '\x{11DA0}-\x{11DA9}\x{11EE0}-\x{11EF2}\x{11FB0}\x{11FC0}-\x{11FD4}\x{12000}-\x{12399}'
    '\x{12400}-\x{1246E}\x{12480}-\x{12543}\x{12F90}-\x{12FF0}\x{13000}-\x{1342E}\x{14400}-\x{14646}'
    '\x{16800}-\x{16A38}\x{16A40}-\x{16A5E}\x{16A60}-\x{16A69}\x{16A70}-\x{16ABE}\x{16AC0}-\x{16AC9}'
    '\x{16AD0}-\x{16AED}\x{16B00}-\x{16B2F}\x{16B40}-\x{16B43}\x{16B50}-\x{16B59}\x{16B5B}-\x{16B61}'
    '\x{16B63}-\x{16B77}\x{16B7D}-\x{16B8F}\x{16E40}-\x{16E96}\x{16F00}-\x{16F4A}\x{16F50}'
    '\x{16F93}-\x{16F9F}\x{16FE0}-\x{16FE1}\x{16FE3}\x{17000}-\x{187F7}\x{18800}-\x{18CD5}'
    '\x{18D00}-\x{18D08}\x{1AFF0}-\x{1AFF3}\x{1AFF5}-\x{1AFFB}\x{1AFFD}-\x{1AFFE}\x{1B000}-\x{1B122}'
    '\x{1B150}-\x{1B152}\x{1B164}-\x{1B167}\x{1B170}-\x{1B2FB}\x{1BC00}-\x{1BC6A}\x{1BC70}-\x{1BC7C}'
    '\x{1BC80}-\x{1BC88}\x{1BC90}-\x{1BC99}\x{1D2E0}-\x{1D2F3}\x{1D360}-\x{1D378}\x{1D400}-\x{1D454}'
    '\x{1D456}-\x{1D49C}\x{1D49E}-\x{1D49F}\x{1D4A2}\x{1D4A5}-\x{1D4A6}\x{1D4A9}-\x{1D4AC}'
    '\x{1D4AE}-\x{1D4B9}\x{1D4BB}\x{1D4BD}-\x{1D4C3}\x{1D4C5}-\x{1D505}\x{1D507}-\x{1D50A}'
    '\x{1D50D}-\x{1D514}\x{1D516}-\x{1D51C}\x{1D51E}-\x{1D539}\x{1D53B}-\x{1D53E}\x{1D540}-\x{1D544}'
    '\x{1D546}\x{1D54A}-\x{1D550}\x{1D552}-\x{1D6A5}\x{1D6A8}-\x{1D6C0}\x{1D6C2}-\x{1D6DA}'
    '\x{1D6DC}-\x{1D6FA}\x{1D6FC}-\x{1D714}\x{1D716}-\x{1D734}\x{1D736}-\x{1D74E}\x{1D750}-\x{1D76E}'
    '\x{1D770}-\x{1D788}\x{1D78A}-\x{1D7A8}\x{1D7AA}-\x{1D7C2}\x{1D7C4}-\x{1D7CB}\x{1D7CE}-\x{1D7FF}'
    '\x{1DF00}-\x{1DF1E}\x{1E100}-\x{1E12C}\x{1E137}-\x{1E13D}\x{1E140}-\x{1E149}\x{1E14E}'
    '\x{1E290}-\x{1E2AD}\x{1E2C0}-\x{1E2EB}\x{1E2F0}-\x{1E2F9}\x{1E7E0}-\x{1E7E6}\x{1E7E8}-\x{1E7EB}'
    '\x{1E7ED}-\x{1E7EE}\x{1E7F0}-\x{1E7FE}\x{1E800}-\x{1E8C4}\x{1E8C7}-\x{1E8CF}\x{1E900}-\x{1E943}'
    '\x{1E94B}\x{1E950}-\x{1E959}\x{1EC71}-\x{1ECAB}\x{1ECAD}-\x{1ECAF}\x{1ECB1}-\x{1ECB4}'
    '\x{1ED01}-\x{1ED2D}\x{1ED2F}-\x{1ED3D}\x{1EE00}-\x{1EE03}\x{1EE05}-\x{1EE1F}\x{1EE21}-\x{1EE22}'
    '\x{1EE24}\x{1EE27}\x{1EE29}-\x{1EE32}\x{1EE34}-\x{1EE37}\x{1EE39}\x{1EE3B}\x{1EE42}\x{1EE47}'
    '\x{1EE49}\x{1EE4B}\x{1EE4D}-\x{1EE4F}\x{1EE51}-\x{1EE52}\x{1EE54}\x{1EE57}\x{1EE59}\x{1EE5B}'
    '\x{1EE5D}\x{1EE5F}\x{1EE61}-\x{1EE62}\x{1EE64}\x{1EE67}-\x{1EE6A}\x{1EE6C}-\x{1EE72}'
    '\x{1EE74}-\x{1EE77}\x{1EE79}-\x{1EE7C}\x{1EE7E}\x{1EE80}-\x{1EE89}\x{1EE8B}-\x{1EE9B}'
    '\x{1EEA1}-\x{1EEA3}\x{1EEA5}-\x{1EEA9}\x{1EEAB}-\x{1EEBB}\x{1F100}-\x{1F10C}\x{1FBF0}-\x{1FBF9}'
    '\x{20000}-\x{2A6DF}\x{2A700}-\x{2B738}\x{2B740}-\x{2B81D}\x{2B820}-\x{2CEA1}\x{2CEB0}-\x{2EBE0}'
    '\x{2F800}-\x{2FA1D}\x{30000}-\x{3134A}';

CREATE OR REPLACE MACRO kari_snake(t) AS
    CASE WHEN regexp_full_match(t, '[a-z0-9]+(_[a-z0-9]+)*') THEN t
         WHEN regexp_full_match(t, '[a-z0-9]+( [a-z0-9]+)*') THEN replace(t, ' ', '_')
         ELSE trim(lower(regexp_replace(t, '[^' || kari_word_class() || ']+', '_', 'g')), '_')
    END;

CREATE OR REPLACE MACRO kari_node_label(id, labels) AS
    CASE WHEN labels IS NULL THEN kari_label(id)
         WHEN NOT (contains(labels, '|') OR contains(labels, '\') OR contains(labels, '"') OR contains(labels, ''''))
              THEN labels          -- one plain label (nearly every row): itself
         ELSE coalesce(kgtk_text(kgtk_split(labels)[1]), kari_label(id))
    END;
