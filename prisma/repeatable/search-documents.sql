-- search documents: Full-text search (q, text): each interaction's summary and transcript as a document in its clinic's language, and word counts for the planner's choice.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_search_on_interactions()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- The transcript arrives after its interaction (a later statement refreshes it again).
    PERFORM "interaction_search_refresh"(ARRAY(SELECT n."id" FROM new_rows n WHERE n."summary" IS NOT NULL));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM "interaction_search_refresh"(ARRAY(
      SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
      WHERE (n."summary", n."clinic_id", n."started_at", n."channel", n."type", n."outcome", n."campaign_id")
        IS DISTINCT FROM (o."summary", o."clinic_id", o."started_at", o."channel", o."type", o."outcome", o."campaign_id")));
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM "interaction_search_documents" d USING old_rows o WHERE d."interaction_id" = o."id";
  ELSE
    TRUNCATE "interaction_search_documents", "interaction_search_terms", "interaction_search_term_changes";
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_search_on_transcripts()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM "interaction_search_refresh"(ARRAY(
      SELECT o."interaction_id" FROM old_rows o WHERE EXISTS (SELECT 1 FROM "interactions" i WHERE i."id" = o."interaction_id")));
  ELSE
    PERFORM "interaction_search_refresh"(ARRAY(SELECT n."interaction_id" FROM new_rows n));
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_search_on_clinics()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  PERFORM "interaction_search_refresh"(ARRAY(
    SELECT i."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id" JOIN "interactions" i ON i."clinic_id" = n."id"
    WHERE n."language" IS DISTINCT FROM o."language"));
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_search_refresh(ids text[])
 RETURNS void
 LANGUAGE sql
 SET search_path TO '$user', 'public'
AS $function$
  WITH wanted AS (
    SELECT DISTINCT x.id FROM unnest(ids) AS x(id)
  ), configs AS (
    SELECT c."id", "interaction_search_config"(c."language") AS config FROM "clinics" c
  ), docs AS (
    SELECT i."id", i."clinic_id", i."started_at", i."channel", i."type", i."outcome", i."campaign_id",
      strip(to_tsvector(k.config, "interaction_search_text"(i."summary", t."entries"))) AS document
    FROM wanted w
    JOIN "interactions" i ON i."id" = w.id
    JOIN configs k ON k."id" = i."clinic_id"
    LEFT JOIN "interaction_transcripts" t ON t."interaction_id" = i."id"
  ), gone AS (
    DELETE FROM "interaction_search_documents" d
    USING wanted w
    WHERE d."interaction_id" = w.id AND NOT EXISTS (SELECT 1 FROM docs WHERE docs."id" = w.id AND docs.document <> ''::tsvector)
  )
  INSERT INTO "interaction_search_documents" ("interaction_id", "clinic_id", "started_at", "channel", "type", "outcome", "campaign_id", "document")
  SELECT "id", "clinic_id", "started_at", "channel", "type", "outcome", "campaign_id", document FROM docs WHERE document <> ''::tsvector
  ON CONFLICT ("interaction_id") DO UPDATE
    SET "clinic_id" = EXCLUDED."clinic_id", "started_at" = EXCLUDED."started_at", "channel" = EXCLUDED."channel", "type" = EXCLUDED."type",
      "outcome" = EXCLUDED."outcome", "campaign_id" = EXCLUDED."campaign_id", "document" = EXCLUDED."document"
    WHERE ("interaction_search_documents"."clinic_id", "interaction_search_documents"."started_at", "interaction_search_documents"."channel",
        "interaction_search_documents"."type", "interaction_search_documents"."outcome", "interaction_search_documents"."campaign_id",
        "interaction_search_documents"."document")
      IS DISTINCT FROM (EXCLUDED."clinic_id", EXCLUDED."started_at", EXCLUDED."channel", EXCLUDED."type", EXCLUDED."outcome",
        EXCLUDED."campaign_id", EXCLUDED."document");
$function$;

CREATE OR REPLACE FUNCTION interaction_search_text(summary text, entries jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT concat_ws(' ', summary, (
    SELECT string_agg(e ->> 'content', ' ') FROM jsonb_array_elements(CASE jsonb_typeof(entries) WHEN 'array' THEN entries ELSE '[]'::jsonb END) AS e
  ));
$function$;

CREATE OR REPLACE FUNCTION interaction_search_config(language text)
 RETURNS regconfig
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
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

CREATE OR REPLACE FUNCTION interaction_search_terms_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "interaction_search_term_changes" ("clinic_id", "lexeme", "documents")
    SELECT n."clinic_id", w.lexeme, count(*) FROM new_rows n, unnest(tsvector_to_array(n."document")) AS w(lexeme) GROUP BY 1, 2;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "interaction_search_term_changes" ("clinic_id", "lexeme", "documents")
    SELECT o."clinic_id", w.lexeme, -count(*) FROM old_rows o, unnest(tsvector_to_array(o."document")) AS w(lexeme) GROUP BY 1, 2;
  ELSE
    INSERT INTO "interaction_search_term_changes" ("clinic_id", "lexeme", "documents")
    SELECT "clinic_id", lexeme, sum(n) FROM (
      SELECT n."clinic_id", w.lexeme, 1 AS n FROM new_rows n, unnest(tsvector_to_array(n."document")) AS w(lexeme)
      UNION ALL
      SELECT o."clinic_id", w.lexeme, -1 FROM old_rows o, unnest(tsvector_to_array(o."document")) AS w(lexeme)
    ) AS changed GROUP BY 1, 2 HAVING sum(n) <> 0;
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_search_terms_fold()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  moved bigint;
BEGIN
  WITH taken AS (
    DELETE FROM "interaction_search_term_changes" RETURNING "clinic_id", "lexeme", "documents"
  ), summed AS (
    SELECT "clinic_id", "lexeme", sum("documents") AS documents, count(*) AS rows FROM taken GROUP BY 1, 2
  ), written AS (
    INSERT INTO "interaction_search_terms" ("clinic_id", "lexeme", "documents")
    SELECT "clinic_id", "lexeme", documents FROM summed WHERE documents <> 0
    ON CONFLICT ("lexeme", "clinic_id") DO UPDATE SET "documents" = "interaction_search_terms"."documents" + EXCLUDED."documents"
  )
  SELECT coalesce(sum(rows), 0) INTO moved FROM summed;
  DELETE FROM "interaction_search_terms" WHERE "documents" = 0;
  RETURN moved;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_search_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  written bigint;
BEGIN
  TRUNCATE "interaction_search_documents", "interaction_search_terms", "interaction_search_term_changes";
  -- The word counts are computed once below, not appended per row by the documents' triggers.
  ALTER TABLE "interaction_search_documents" DISABLE TRIGGER USER;
  INSERT INTO "interaction_search_documents" ("interaction_id", "clinic_id", "started_at", "channel", "type", "outcome", "campaign_id", "document")
  SELECT d."id", d."clinic_id", d."started_at", d."channel", d."type", d."outcome", d."campaign_id", d.document FROM (
    SELECT i."id", i."clinic_id", i."started_at", i."channel", i."type", i."outcome", i."campaign_id",
      strip(to_tsvector(k.config, "interaction_search_text"(i."summary", t."entries"))) AS document
    FROM "interactions" i
    JOIN (SELECT c."id", "interaction_search_config"(c."language") AS config FROM "clinics" c) k ON k."id" = i."clinic_id"
    LEFT JOIN "interaction_transcripts" t ON t."interaction_id" = i."id"
  ) AS d WHERE d.document <> ''::tsvector;
  GET DIAGNOSTICS written = ROW_COUNT;
  ALTER TABLE "interaction_search_documents" ENABLE TRIGGER USER;
  INSERT INTO "interaction_search_terms" ("clinic_id", "lexeme", "documents")
  SELECT d."clinic_id", w.lexeme, count(*) FROM "interaction_search_documents" d, unnest(tsvector_to_array(d."document")) AS w(lexeme)
  GROUP BY 1, 2;
  RETURN written;
END
$function$;

CREATE OR REPLACE TRIGGER interaction_search_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_interactions();

CREATE OR REPLACE TRIGGER interaction_search_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_interactions();

CREATE OR REPLACE TRIGGER interaction_search_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_interactions();

CREATE OR REPLACE TRIGGER interaction_search_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_interactions();

CREATE OR REPLACE TRIGGER transcript_search_insert AFTER INSERT ON interaction_transcripts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_transcripts();

CREATE OR REPLACE TRIGGER transcript_search_update AFTER UPDATE ON interaction_transcripts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_transcripts();

CREATE OR REPLACE TRIGGER transcript_search_delete AFTER DELETE ON interaction_transcripts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_transcripts();

CREATE OR REPLACE TRIGGER clinic_search_update AFTER UPDATE ON clinics REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_on_clinics();

CREATE OR REPLACE TRIGGER interaction_search_terms_insert AFTER INSERT ON interaction_search_documents REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_terms_apply();

CREATE OR REPLACE TRIGGER interaction_search_terms_update AFTER UPDATE ON interaction_search_documents REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_terms_apply();

CREATE OR REPLACE TRIGGER interaction_search_terms_delete AFTER DELETE ON interaction_search_documents REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_search_terms_apply();
