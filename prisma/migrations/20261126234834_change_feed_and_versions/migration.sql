-- AlterTable
ALTER TABLE "interactions" ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT statement_timestamp();

-- CreateTable
CREATE TABLE "clinic_data_versions" (
    "clinic_id" UUID NOT NULL,
    "version" BIGINT NOT NULL,

    CONSTRAINT "clinic_data_versions_pkey" PRIMARY KEY ("clinic_id")
);

-- CreateTable
CREATE TABLE "service_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "service_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "interactions_updated_at_id_idx" ON "interactions"("updated_at", "id");

-- Data versions (model ClinicDataVersion): one sequence, so the largest version over any set of
-- clinics grows whenever any of them changes. Statement triggers, like the rollups: one upsert per
-- statement whatever its size, the clinics in key order (two writers lock shared rows in the same
-- order, as the rollup levels do).
CREATE SEQUENCE "clinic_data_version_seq";

CREATE OR REPLACE FUNCTION "clinic_data_versions_bump"(clinic_ids uuid[]) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $function$
  INSERT INTO "clinic_data_versions" ("clinic_id", "version")
  SELECT id, nextval('clinic_data_version_seq') FROM (SELECT DISTINCT unnest(clinic_ids) AS id) AS ids
  WHERE id IS NOT NULL
  ORDER BY id
  ON CONFLICT ("clinic_id") DO UPDATE SET "version" = EXCLUDED."version";
$function$;

-- For interactions and campaigns (the column is clinic_id) and clinics (the column is id).
CREATE OR REPLACE FUNCTION "clinic_data_versions_apply"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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
  RETURN NULL;
END
$function$;

-- Every clinic's version moves: after a TRUNCATE, or after the rollups were rebuilt (the only way
-- rows written with triggers disabled - replica mode - become visible to the versions too).
CREATE OR REPLACE FUNCTION "clinic_data_versions_bump_all"() RETURNS bigint
LANGUAGE sql SET search_path FROM CURRENT AS $function$
  SELECT count(*) FROM (
    SELECT "clinic_data_versions_bump"(array_agg(id)) FROM (SELECT id FROM "clinics" UNION SELECT "clinic_id" FROM "clinic_data_versions") AS every
  ) AS bumped;
$function$;

CREATE OR REPLACE FUNCTION "clinic_data_versions_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  PERFORM "clinic_data_versions_bump_all"();
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  rebuilt bigint;
BEGIN
  rebuilt := "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"() + "interaction_phones_rebuild"()
    + "interaction_phone_fragments_rebuild"() + "interaction_fine_levels_rebuild"() + "interaction_dimension_levels_rebuild"()
    + "interaction_campaign_totals_rebuild"();
  PERFORM "clinic_data_versions_bump_all"();
  RETURN rebuilt;
END
$function$;

CREATE TRIGGER "interaction_data_versions_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "interaction_data_versions_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "interaction_data_versions_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "interaction_data_versions_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_after_truncate"();

-- A transcript is part of the interaction's representation (lists of conversations, exports).
CREATE OR REPLACE FUNCTION "transcript_data_versions_apply"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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

CREATE TRIGGER "transcript_data_versions_insert" AFTER INSERT ON "interaction_transcripts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "transcript_data_versions_apply"();
CREATE TRIGGER "transcript_data_versions_update" AFTER UPDATE ON "interaction_transcripts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "transcript_data_versions_apply"();
CREATE TRIGGER "transcript_data_versions_delete" AFTER DELETE ON "interaction_transcripts"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "transcript_data_versions_apply"();
CREATE TRIGGER "transcript_data_versions_truncate" AFTER TRUNCATE ON "interaction_transcripts"
  FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_after_truncate"();

CREATE TRIGGER "campaign_data_versions_insert" AFTER INSERT ON "campaigns"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "campaign_data_versions_update" AFTER UPDATE ON "campaigns"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "campaign_data_versions_delete" AFTER DELETE ON "campaigns"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "campaign_data_versions_truncate" AFTER TRUNCATE ON "campaigns"
  FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_after_truncate"();

CREATE TRIGGER "clinic_data_versions_insert" AFTER INSERT ON "clinics"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "clinic_data_versions_update" AFTER UPDATE ON "clinics"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "clinic_data_versions_delete" AFTER DELETE ON "clinics"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_apply"();
CREATE TRIGGER "clinic_data_versions_truncate" AFTER TRUNCATE ON "clinics"
  FOR EACH STATEMENT EXECUTE FUNCTION "clinic_data_versions_after_truncate"();

-- Every clinic starts with a version.
SELECT "clinic_data_versions_bump_all"();

-- The key that signs paging cursors: 244 random bits from PostgreSQL's strong random source
-- (gen_random_uuid), generated once per database so that every instance and restart agrees.
INSERT INTO "service_secrets" ("name", "value")
SELECT 'cursor_hmac', encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex');
