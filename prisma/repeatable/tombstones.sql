-- tombstones: Deleted interactions, for the change feed (/interactions/deleted) and mirrors.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_tombstones_on_delete()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  INSERT INTO "interaction_tombstones" ("id", "clinic_id")
  SELECT o."id", o."clinic_id" FROM old_rows o
  ON CONFLICT ("id") DO UPDATE SET "clinic_id" = EXCLUDED."clinic_id", "deleted_at" = EXCLUDED."deleted_at";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_tombstones_on_insert()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  DELETE FROM "interaction_tombstones" WHERE "id" = ANY (ARRAY(SELECT n."id" FROM new_rows n));
  RETURN NULL;
END
$function$;

CREATE OR REPLACE TRIGGER interaction_tombstones_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_tombstones_on_delete();

CREATE OR REPLACE TRIGGER interaction_tombstones_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_tombstones_on_insert();
