-- CreateTable
CREATE TABLE "clinic_data_changes" (
    "clinic_id" UUID NOT NULL
);

-- Writers no longer update a version row per clinic (which made two transactions writing one
-- clinic wait for each other, and, with versions from a sequence, let a transaction that took its
-- version early and committed late leave the largest version unchanged): they append one change
-- per clinic and statement; the count of changes grows in commit order.
CREATE OR REPLACE FUNCTION "clinic_data_versions_bump"(clinic_ids uuid[]) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $function$
  INSERT INTO "clinic_data_changes" ("clinic_id")
  SELECT DISTINCT id FROM unnest(clinic_ids) AS id WHERE id IS NOT NULL;
$function$;

-- Moves the pending changes into the counts, in one transaction (a reader sees them before or
-- after, never both or neither). Concurrent folds: each row is deleted, and counted, by one of them.
CREATE OR REPLACE FUNCTION "clinic_data_changes_fold"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  folded bigint;
BEGIN
  WITH moved AS (
    DELETE FROM "clinic_data_changes" RETURNING "clinic_id"
  ), counted AS (
    SELECT "clinic_id", count(*) AS n FROM moved GROUP BY "clinic_id"
  )
  INSERT INTO "clinic_data_versions" ("clinic_id", "version")
  SELECT "clinic_id", n FROM counted ORDER BY "clinic_id"
  ON CONFLICT ("clinic_id") DO UPDATE SET "version" = "clinic_data_versions"."version" + EXCLUDED."version";
  GET DIAGNOSTICS folded = ROW_COUNT;
  RETURN folded;
END
$function$;

DROP SEQUENCE "clinic_data_version_seq";
