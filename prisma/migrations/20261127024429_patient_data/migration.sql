-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "unaccent";

-- CreateEnum
CREATE TYPE "ClinicEnvironment" AS ENUM ('live', 'sandbox');

-- AlterTable
ALTER TABLE "clinics" ADD COLUMN     "environment" "ClinicEnvironment" NOT NULL DEFAULT 'live',
ADD COLUMN     "language" TEXT;

-- CreateTable
CREATE TABLE "interaction_search_documents" (
    "interaction_id" TEXT NOT NULL,
    "clinic_id" UUID NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "document" tsvector NOT NULL,

    CONSTRAINT "interaction_search_documents_pkey" PRIMARY KEY ("interaction_id")
);

-- CreateTable
CREATE TABLE "interaction_tombstones" (
    "id" TEXT NOT NULL,
    "clinic_id" UUID NOT NULL,
    "deleted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT statement_timestamp(),

    CONSTRAINT "interaction_tombstones_pkey" PRIMARY KEY ("id")
);


-- CreateIndex
CREATE INDEX "interaction_tombstones_deleted_at_id_idx" ON "interaction_tombstones"("deleted_at", "id");

-- ---------------------------------------------------------------------------------------------
-- Written by hand (patient data: PHI scope, environments, full-text search, erasure)

-- Every key that existed before the `phi:read` scope keeps seeing what it saw.
UPDATE "api_keys" SET "scopes" = array_append("scopes", 'phi:read') WHERE NOT ('phi:read' = ANY("scopes"));

ALTER TABLE "clinics" ADD CONSTRAINT "clinics_language_check" CHECK ("language" ~ '^[a-z]{2}$');

-- Text search configurations: `clinic_simple`, and `clinic_<language>` for every language this
-- PostgreSQL stems (its snowball configurations): accents removed first (unaccent), then the
-- language's stemmer, which also drops its stop words. Documents and queries use the same one, so
-- "cancelación" finds "cancelacion" and "Cancelaciones".
DO $do$
DECLARE
  config record;
BEGIN
  CREATE TEXT SEARCH CONFIGURATION "clinic_simple" (COPY = pg_catalog.simple);
  ALTER TEXT SEARCH CONFIGURATION "clinic_simple" ALTER MAPPING FOR hword, hword_part, word WITH "unaccent", simple;
  FOR config IN
    SELECT c.cfgname FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace
    WHERE n.nspname = 'pg_catalog' AND EXISTS (SELECT 1 FROM pg_ts_dict d WHERE d.dictname = c.cfgname || '_stem')
  LOOP
    EXECUTE format('CREATE TEXT SEARCH CONFIGURATION %I (COPY = pg_catalog.%I)', 'clinic_' || config.cfgname, config.cfgname);
    EXECUTE format('ALTER TEXT SEARCH CONFIGURATION %I ALTER MAPPING FOR hword, hword_part, word WITH "unaccent", %I',
      'clinic_' || config.cfgname, config.cfgname || '_stem');
  END LOOP;
END
$do$;

-- How many documents of each clinic hold each word (lexeme): the exact total of a one-word search
-- is a sum over the visible clinics' rows, whatever the table size (counting the matches from the
-- GIN index visits every matching row: 85 ms for a word in 1% of 1,000,000 interactions, ten times
-- that at 10,000,000). Statement triggers on the documents append changes to
-- interaction_search_term_changes (no shared row: concurrent writers of one clinic never wait for
-- each other, as with clinic_data_changes), and interaction_search_terms_fold() moves them into the
-- counts; a count reads both.
CREATE TABLE "interaction_search_terms" (
    "clinic_id" UUID NOT NULL,
    "lexeme" TEXT NOT NULL,
    "documents" BIGINT NOT NULL,
    CONSTRAINT "interaction_search_terms_pkey" PRIMARY KEY ("lexeme", "clinic_id")
);
CREATE TABLE "interaction_search_term_changes" (
    "clinic_id" UUID NOT NULL,
    "lexeme" TEXT NOT NULL,
    "documents" BIGINT NOT NULL
);
CREATE INDEX "interaction_search_term_changes_lexeme_idx" ON "interaction_search_term_changes" ("lexeme");

CREATE OR REPLACE FUNCTION "interaction_search_terms_apply"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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

-- Moves the appended changes into the counts, in one transaction (rows appended meanwhile stay for
-- the next fold); returns how many change rows it moved.
CREATE OR REPLACE FUNCTION "interaction_search_terms_fold"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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

-- The configuration of a clinic's language (ISO 639-1): its stemmer where this PostgreSQL has one,
-- else clinic_simple (words matched whole, still without accents).
CREATE OR REPLACE FUNCTION "interaction_search_config"(language text) RETURNS regconfig
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $function$
  SELECT coalesce(
    (SELECT c.oid::regconfig FROM pg_ts_config c WHERE c.cfgname = 'clinic_' || CASE language
      WHEN 'ar' THEN 'arabic' WHEN 'hy' THEN 'armenian' WHEN 'eu' THEN 'basque' WHEN 'ca' THEN 'catalan'
      WHEN 'da' THEN 'danish' WHEN 'nl' THEN 'dutch' WHEN 'en' THEN 'english' WHEN 'fi' THEN 'finnish'
      WHEN 'fr' THEN 'french' WHEN 'de' THEN 'german' WHEN 'el' THEN 'greek' WHEN 'hi' THEN 'hindi'
      WHEN 'hu' THEN 'hungarian' WHEN 'id' THEN 'indonesian' WHEN 'ga' THEN 'irish' WHEN 'it' THEN 'italian'
      WHEN 'lt' THEN 'lithuanian' WHEN 'ne' THEN 'nepali' WHEN 'no' THEN 'norwegian' WHEN 'nb' THEN 'norwegian'
      WHEN 'nn' THEN 'norwegian' WHEN 'pt' THEN 'portuguese' WHEN 'ro' THEN 'romanian' WHEN 'ru' THEN 'russian'
      WHEN 'sr' THEN 'serbian' WHEN 'es' THEN 'spanish' WHEN 'sv' THEN 'swedish' WHEN 'ta' THEN 'tamil'
      WHEN 'tr' THEN 'turkish' WHEN 'yi' THEN 'yiddish' END
      AND c.cfgnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())),
    'clinic_simple'::regconfig);
$function$;

-- The text of an interaction that search reads: its summary and every transcript entry's content.
CREATE OR REPLACE FUNCTION "interaction_search_text"(summary text, entries jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$
  SELECT concat_ws(' ', summary, (
    SELECT string_agg(e ->> 'content', ' ') FROM jsonb_array_elements(CASE jsonb_typeof(entries) WHEN 'array' THEN entries ELSE '[]'::jsonb END) AS e
  ));
$function$;

-- Recomputes the documents of these interactions (an interaction that no longer exists, or has no
-- words, has none).
CREATE OR REPLACE FUNCTION "interaction_search_refresh"(ids text[]) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $function$
  WITH wanted AS (
    SELECT DISTINCT x.id FROM unnest(ids) AS x(id)
  ), configs AS (
    SELECT c."id", "interaction_search_config"(c."language") AS config FROM "clinics" c
  ), docs AS (
    SELECT i."id", i."clinic_id", i."started_at", strip(to_tsvector(k.config, "interaction_search_text"(i."summary", t."entries"))) AS document
    FROM wanted w
    JOIN "interactions" i ON i."id" = w.id
    JOIN configs k ON k."id" = i."clinic_id"
    LEFT JOIN "interaction_transcripts" t ON t."interaction_id" = i."id"
  ), gone AS (
    DELETE FROM "interaction_search_documents" d
    USING wanted w
    WHERE d."interaction_id" = w.id AND NOT EXISTS (SELECT 1 FROM docs WHERE docs."id" = w.id AND docs.document <> ''::tsvector)
  )
  INSERT INTO "interaction_search_documents" ("interaction_id", "clinic_id", "started_at", "document")
  SELECT "id", "clinic_id", "started_at", document FROM docs WHERE document <> ''::tsvector
  ON CONFLICT ("interaction_id") DO UPDATE
    SET "clinic_id" = EXCLUDED."clinic_id", "started_at" = EXCLUDED."started_at", "document" = EXCLUDED."document"
    WHERE ("interaction_search_documents"."clinic_id", "interaction_search_documents"."started_at", "interaction_search_documents"."document")
      IS DISTINCT FROM (EXCLUDED."clinic_id", EXCLUDED."started_at", EXCLUDED."document");
$function$;

CREATE OR REPLACE FUNCTION "interaction_search_on_interactions"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- The transcript arrives after its interaction (a later statement refreshes it again).
    PERFORM "interaction_search_refresh"(ARRAY(SELECT n."id" FROM new_rows n WHERE n."summary" IS NOT NULL));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM "interaction_search_refresh"(ARRAY(
      SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
      WHERE n."summary" IS DISTINCT FROM o."summary" OR n."clinic_id" <> o."clinic_id" OR n."started_at" <> o."started_at"));
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM "interaction_search_documents" d USING old_rows o WHERE d."interaction_id" = o."id";
  ELSE
    TRUNCATE "interaction_search_documents", "interaction_search_terms", "interaction_search_term_changes";
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION "interaction_search_on_transcripts"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM "interaction_search_refresh"(ARRAY(SELECT o."interaction_id" FROM old_rows o));
  ELSE
    PERFORM "interaction_search_refresh"(ARRAY(SELECT n."interaction_id" FROM new_rows n));
  END IF;
  RETURN NULL;
END
$function$;

-- A clinic whose language changes has its documents stemmed again, in the same transaction.
CREATE OR REPLACE FUNCTION "interaction_search_on_clinics"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  PERFORM "interaction_search_refresh"(ARRAY(
    SELECT i."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id" JOIN "interactions" i ON i."clinic_id" = n."id"
    WHERE n."language" IS DISTINCT FROM o."language"));
  RETURN NULL;
END
$function$;

-- Every document again, from the tables (an operator's repair; not part of interaction_rollups_rebuild,
-- which stays fast).
CREATE OR REPLACE FUNCTION "interaction_search_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  written bigint;
BEGIN
  TRUNCATE "interaction_search_documents", "interaction_search_terms", "interaction_search_term_changes";
  -- The word counts are computed once below, not appended per row by the documents' triggers.
  ALTER TABLE "interaction_search_documents" DISABLE TRIGGER USER;
  INSERT INTO "interaction_search_documents" ("interaction_id", "clinic_id", "started_at", "document")
  SELECT d."id", d."clinic_id", d."started_at", d.document FROM (
    SELECT i."id", i."clinic_id", i."started_at", strip(to_tsvector(k.config, "interaction_search_text"(i."summary", t."entries"))) AS document
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

-- Tombstones: every deleted interaction leaves its id, clinic and when (no patient data). A
-- purged id imported again and purged again gets the later time.
CREATE OR REPLACE FUNCTION "interaction_tombstones_on_delete"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  INSERT INTO "interaction_tombstones" ("id", "clinic_id")
  SELECT o."id", o."clinic_id" FROM old_rows o
  ON CONFLICT ("id") DO UPDATE SET "clinic_id" = EXCLUDED."clinic_id", "deleted_at" = EXCLUDED."deleted_at";
  RETURN NULL;
END
$function$;

-- Backfill before the index (one sort-based GIN build instead of ten million insertions) and the
-- triggers (CREATE TRIGGER locks writers out until this migration commits).
SELECT "interaction_search_rebuild"();

CREATE INDEX "interaction_search_documents_document_idx" ON "interaction_search_documents" USING GIN ("document");
CREATE INDEX "interaction_search_documents_started_at_interaction_id_idx" ON "interaction_search_documents"("started_at" DESC, "interaction_id" DESC);
CREATE INDEX "interaction_search_documents_clinic_id_started_at_interacti_idx" ON "interaction_search_documents"("clinic_id", "started_at" DESC, "interaction_id" DESC);

CREATE TRIGGER "interaction_search_terms_insert" AFTER INSERT ON "interaction_search_documents"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_terms_apply"();
CREATE TRIGGER "interaction_search_terms_update" AFTER UPDATE ON "interaction_search_documents"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_terms_apply"();
CREATE TRIGGER "interaction_search_terms_delete" AFTER DELETE ON "interaction_search_documents"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_terms_apply"();

CREATE TRIGGER "interaction_search_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_interactions"();
CREATE TRIGGER "interaction_search_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_interactions"();
CREATE TRIGGER "interaction_search_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_interactions"();
CREATE TRIGGER "interaction_search_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_interactions"();
CREATE TRIGGER "transcript_search_insert" AFTER INSERT ON "interaction_transcripts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_transcripts"();
CREATE TRIGGER "transcript_search_update" AFTER UPDATE ON "interaction_transcripts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_transcripts"();
CREATE TRIGGER "transcript_search_delete" AFTER DELETE ON "interaction_transcripts"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_transcripts"();
CREATE TRIGGER "clinic_search_update" AFTER UPDATE ON "clinics"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_search_on_clinics"();
CREATE TRIGGER "interaction_tombstones_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_tombstones_on_delete"();
