-- CreateTable
CREATE TABLE "interaction_phones" (
    "clinic_id" UUID NOT NULL,
    "phone_number" TEXT NOT NULL,
    "interactions" BIGINT NOT NULL,

    CONSTRAINT "interaction_phones_pkey" PRIMARY KEY ("clinic_id","phone_number")
);

-- =================================================================================================
-- Hand-written from here on. Prisma models the table above (prisma/schema.prisma), not the
-- function and triggers below.
--
-- interaction_phones holds, per (clinic_id, phone_number) of "interactions", the exact number of
-- interactions, so that the total of a phone search (a case-insensitive substring of the number,
-- with the key's clinic restriction and clinic_id) is a sum over the matching distinct numbers
-- (src/interactions/phone-search.ts): at 1,000,000 interactions 354,000 narrow rows instead of a
-- million wide ones, and a common fragment's total no longer rechecks a heap row per interaction.
--
-- Kept exact BY THE DATABASE as the rollups are: one statement-level AFTER trigger per event with
-- transition tables nets each statement's changed rows per key (+1 new version, -1 old version) and
-- upserts the non-zero deltas in key order (concurrent writers lock shared keys in the same order and
-- wait for each other's commit: no lost update), in the same transaction as the write. An UPDATE
-- that changes neither clinic_id nor phone_number (an importer's re-import) nets to nothing and
-- writes nothing. A row whose count reaches 0 is deleted (as in interaction_daily_rollups: numbers
-- that are corrected or deleted would otherwise pile up as zero rows that every search rechecks).
--
-- After writes with the triggers disabled, SELECT interaction_rollups_rebuild() (replaced below)
-- recomputes this table with every rollup level.
-- =================================================================================================

CREATE FUNCTION "interaction_phones_apply"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  changed text;
  emptied_clinics uuid[];
  emptied_phones text[];
BEGIN
  changed := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT clinic_id, phone_number, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT clinic_id, phone_number, -1 AS sign FROM old_rows'
    ELSE 'SELECT clinic_id, phone_number, 1 AS sign FROM new_rows UNION ALL SELECT clinic_id, phone_number, -1 FROM old_rows'
  END;
  EXECUTE format($sql$
    WITH applied AS (
      INSERT INTO "interaction_phones" AS p ("clinic_id", "phone_number", "interactions")
      SELECT "clinic_id", "phone_number", sum(sign) FROM (%s) AS changed
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      ORDER BY 1, 2
      ON CONFLICT ("clinic_id", "phone_number") DO UPDATE
      SET "interactions" = p."interactions" + EXCLUDED."interactions"
      RETURNING p."clinic_id", p."phone_number", p."interactions"
    )
    SELECT array_agg("clinic_id"), array_agg("phone_number") FROM applied WHERE "interactions" = 0
  $sql$, changed) INTO emptied_clinics, emptied_phones;

  -- The rows brought to 0 are locked by this transaction's upsert: nobody can change them before
  -- they are deleted (a concurrent writer of the same number waits, then inserts it anew).
  IF emptied_clinics IS NOT NULL THEN
    DELETE FROM "interaction_phones" AS p
    USING unnest(emptied_clinics, emptied_phones) AS z("clinic_id", "phone_number")
    WHERE (p."clinic_id", p."phone_number") = (z."clinic_id", z."phone_number") AND p."interactions" = 0;
  END IF;
  RETURN NULL;
END
$function$;

-- TRUNCATE interactions (CASCADE, as interaction_transcripts refers to it) empties the table.
CREATE FUNCTION "interaction_phones_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_phones";
  RETURN NULL;
END
$function$;

-- Recomputes the table from "interactions". Writers of "interactions" wait until the caller's
-- transaction ends; readers keep reading the previous rows until then. Returns the rows written.
CREATE FUNCTION "interaction_phones_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  written bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_phones";
  INSERT INTO "interaction_phones" ("clinic_id", "phone_number", "interactions")
  SELECT "clinic_id", "phone_number", count(*) FROM "interactions" GROUP BY 1, 2;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END
$function$;

-- What operators run after writes with the triggers disabled: now this table too.
CREATE OR REPLACE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  RETURN "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"() + "interaction_phones_rebuild"();
END
$function$;

CREATE TRIGGER "interaction_phones_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_phones_apply"();
CREATE TRIGGER "interaction_phones_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_phones_apply"();
CREATE TRIGGER "interaction_phones_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_phones_apply"();
CREATE TRIGGER "interaction_phones_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_phones_after_truncate"();

-- Backfill in the same transaction as the triggers (the migration runs as one script): CREATE
-- TRIGGER has locked writers out, so no write can fall between the backfill and the triggers.
-- The trigram index is built after the backfill (one sorted build instead of a GIN insertion per
-- row). On a large database this is the upgrade's cost, with writers waiting meanwhile (reads go
-- on): measured with the bench's datasets on 2 cores, about 5 s at 1,000,000 interactions (354,000
-- numbers) and under a minute at 10,000,000 (3.5 million numbers: table 237 MB, index 310 MB).
SELECT "interaction_phones_rebuild"();

-- CreateIndex
CREATE INDEX "interaction_phones_phone_number_trgm_idx" ON "interaction_phones" USING GIN ("phone_number" gin_trgm_ops);

ANALYZE "interaction_phones";
