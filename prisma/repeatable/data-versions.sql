-- data versions: Each clinic's data version: the ETags of metrics and lists change exactly when a write touches the clinic.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION clinic_data_versions_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  ids uuid[];
  key text := CASE WHEN TG_TABLE_NAME = 'clinics' THEN 'id' ELSE 'clinic_id' END;
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format('SELECT array_agg(DISTINCT %I) FROM new_rows', key) INTO ids;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE format('SELECT array_agg(DISTINCT c) FROM (SELECT %1$I AS c FROM old_rows UNION SELECT %1$I FROM new_rows) AS changed', key) INTO ids;
  ELSE
    EXECUTE format('SELECT array_agg(DISTINCT %I) FROM old_rows', key) INTO ids;
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM "clinic_data_versions_bump"(ids);
  END IF;
  -- Services keep clinics and campaigns in memory (src/db/client.ts, CatalogCache) until told they
  -- changed; delivered when this transaction commits, never for one that rolls back.
  IF TG_TABLE_NAME IN ('clinics', 'campaigns') THEN
    PERFORM pg_notify('catalog_changed', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION transcript_data_versions_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  ids uuid[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT i."clinic_id") INTO ids FROM old_rows o JOIN "interactions" i ON i."id" = o."interaction_id";
  ELSE
    SELECT array_agg(DISTINCT i."clinic_id") INTO ids FROM new_rows n JOIN "interactions" i ON i."id" = n."interaction_id";
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM "clinic_data_versions_bump"(ids);
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION clinic_data_versions_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  PERFORM "clinic_data_versions_bump_all"();
  IF TG_TABLE_NAME IN ('clinics', 'campaigns') THEN
    PERFORM pg_notify('catalog_changed', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION clinic_data_versions_bump(clinic_ids uuid[])
 RETURNS void
 LANGUAGE sql
 SET search_path TO '$user', 'public'
AS $function$
  INSERT INTO "clinic_data_changes" ("clinic_id")
  SELECT DISTINCT id FROM unnest(clinic_ids) AS id WHERE id IS NOT NULL;
$function$;

CREATE OR REPLACE FUNCTION clinic_data_versions_bump_all()
 RETURNS bigint
 LANGUAGE sql
 SET search_path TO '$user', 'public'
AS $function$
  SELECT count(*) FROM (
    SELECT "clinic_data_versions_bump"(array_agg(id)) FROM (SELECT id FROM "clinics" UNION SELECT "clinic_id" FROM "clinic_data_versions") AS every
  ) AS bumped;
$function$;

CREATE OR REPLACE FUNCTION clinic_data_changes_fold()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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

CREATE OR REPLACE TRIGGER clinic_data_versions_insert AFTER INSERT ON clinics REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER clinic_data_versions_update AFTER UPDATE ON clinics REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER clinic_data_versions_delete AFTER DELETE ON clinics REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER clinic_data_versions_truncate AFTER TRUNCATE ON clinics FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_after_truncate();

CREATE OR REPLACE TRIGGER campaign_data_versions_insert AFTER INSERT ON campaigns REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER campaign_data_versions_update AFTER UPDATE ON campaigns REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER campaign_data_versions_delete AFTER DELETE ON campaigns REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER campaign_data_versions_truncate AFTER TRUNCATE ON campaigns FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_after_truncate();

CREATE OR REPLACE TRIGGER interaction_data_versions_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER interaction_data_versions_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER interaction_data_versions_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_apply();

CREATE OR REPLACE TRIGGER interaction_data_versions_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_after_truncate();

CREATE OR REPLACE TRIGGER transcript_data_versions_insert AFTER INSERT ON interaction_transcripts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transcript_data_versions_apply();

CREATE OR REPLACE TRIGGER transcript_data_versions_update AFTER UPDATE ON interaction_transcripts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transcript_data_versions_apply();

CREATE OR REPLACE TRIGGER transcript_data_versions_delete AFTER DELETE ON interaction_transcripts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION transcript_data_versions_apply();

CREATE OR REPLACE TRIGGER transcript_data_versions_truncate AFTER TRUNCATE ON interaction_transcripts FOR EACH STATEMENT EXECUTE FUNCTION clinic_data_versions_after_truncate();
