-- Written by hand: interaction_search_config(language) as a plain expression that PostgreSQL
-- inlines into each statement. The first version looked the configuration up in pg_ts_config
-- under a SET search_path, which PostgreSQL cannot inline: every call ran as a function call of
-- its own (about 0.4 ms each), and a search calls it once per clinic in each statement.

-- Every language of the mapping gets its configuration: a PostgreSQL without that language's
-- stemmer (older versions lack some) gets a copy of clinic_simple under the name, so the mapping
-- below never names a configuration that does not exist.
DO $do$
DECLARE
  language text;
BEGIN
  FOREACH language IN ARRAY ARRAY['arabic', 'armenian', 'basque', 'catalan', 'danish', 'dutch', 'english', 'finnish', 'french',
    'german', 'greek', 'hindi', 'hungarian', 'indonesian', 'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese',
    'romanian', 'russian', 'serbian', 'spanish', 'swedish', 'tamil', 'turkish', 'yiddish']
  LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'clinic_' || language AND cfgnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())) THEN
      EXECUTE format('CREATE TEXT SEARCH CONFIGURATION %I (COPY = "clinic_simple")', 'clinic_' || language);
    END IF;
  END LOOP;
END
$do$;

CREATE OR REPLACE FUNCTION "interaction_search_config"(language text) RETURNS regconfig
LANGUAGE sql STABLE PARALLEL SAFE AS $function$
  SELECT (CASE language
    WHEN 'ar' THEN 'clinic_arabic' WHEN 'hy' THEN 'clinic_armenian' WHEN 'eu' THEN 'clinic_basque' WHEN 'ca' THEN 'clinic_catalan'
    WHEN 'da' THEN 'clinic_danish' WHEN 'nl' THEN 'clinic_dutch' WHEN 'en' THEN 'clinic_english' WHEN 'fi' THEN 'clinic_finnish'
    WHEN 'fr' THEN 'clinic_french' WHEN 'de' THEN 'clinic_german' WHEN 'el' THEN 'clinic_greek' WHEN 'hi' THEN 'clinic_hindi'
    WHEN 'hu' THEN 'clinic_hungarian' WHEN 'id' THEN 'clinic_indonesian' WHEN 'ga' THEN 'clinic_irish' WHEN 'it' THEN 'clinic_italian'
    WHEN 'lt' THEN 'clinic_lithuanian' WHEN 'ne' THEN 'clinic_nepali' WHEN 'no' THEN 'clinic_norwegian' WHEN 'nb' THEN 'clinic_norwegian'
    WHEN 'nn' THEN 'clinic_norwegian' WHEN 'pt' THEN 'clinic_portuguese' WHEN 'ro' THEN 'clinic_romanian' WHEN 'ru' THEN 'clinic_russian'
    WHEN 'sr' THEN 'clinic_serbian' WHEN 'es' THEN 'clinic_spanish' WHEN 'sv' THEN 'clinic_swedish' WHEN 'ta' THEN 'clinic_tamil'
    WHEN 'tr' THEN 'clinic_turkish' WHEN 'yi' THEN 'clinic_yiddish' ELSE 'clinic_simple' END)::regconfig;
$function$;
