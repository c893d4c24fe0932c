-- Search documents carry their interaction's channel, type, outcome and campaign: a search with
-- these filters checks them on the document instead of reading each match's interaction by id
-- (one clinic's calls with a word in 1% at 10m read 8,000 interactions at random per request,
-- which under concurrent requests outgrew PostgreSQL's shared buffers).
ALTER TABLE "interaction_search_documents" ADD COLUMN "campaign_id" TEXT,
ADD COLUMN "channel" "Channel",
ADD COLUMN "outcome" TEXT,
ADD COLUMN "type" "InteractionType";

-- Filled with the documents' triggers off: the words do not change, so neither do the word counts.
ALTER TABLE "interaction_search_documents" DISABLE TRIGGER USER;
UPDATE "interaction_search_documents" d
SET "channel" = i."channel", "type" = i."type", "outcome" = i."outcome", "campaign_id" = i."campaign_id"
FROM "interactions" i WHERE i."id" = d."interaction_id";
ALTER TABLE "interaction_search_documents" ENABLE TRIGGER USER;
ALTER TABLE "interaction_search_documents" ALTER COLUMN "channel" SET NOT NULL, ALTER COLUMN "type" SET NOT NULL;

CREATE OR REPLACE FUNCTION "interaction_search_refresh"(ids text[]) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $function$
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

CREATE OR REPLACE FUNCTION "interaction_search_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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

CREATE OR REPLACE FUNCTION "interaction_search_on_interactions"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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
