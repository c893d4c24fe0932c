-- phone numbers: Exact totals of a phone-number search without counting its matches: per number, and per fragment of 1 to 3 characters.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_phones_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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
  -- The same per-number deltas go to interaction_phones (upserted in key order, as before) and are
  -- appended to interaction_phone_changes (a data-modifying CTE runs whether or not it is read).
  EXECUTE format($sql$
    WITH deltas AS MATERIALIZED (
      SELECT "clinic_id", "phone_number", sum(sign) AS delta FROM (%s) AS changed
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
    ),
    pending AS (
      INSERT INTO "interaction_phone_changes" ("clinic_id", "phone_number", "delta")
      SELECT "clinic_id", "phone_number", delta FROM deltas
    ),
    applied AS (
      INSERT INTO "interaction_phones" AS p ("clinic_id", "phone_number", "interactions")
      SELECT "clinic_id", "phone_number", delta FROM deltas
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

CREATE OR REPLACE FUNCTION interaction_phones_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  TRUNCATE "interaction_phones", "interaction_phone_fragments", "interaction_phone_changes";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_phones_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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

CREATE OR REPLACE FUNCTION interaction_phone_fragments_of(phone text)
 RETURNS SETOF text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT substr(lower(phone), i, n)
  FROM generate_series(1, 3) AS n, generate_series(1, char_length(lower(phone)) - n + 1) AS i
  WHERE strpos(lower(phone), substr(lower(phone), i, n)) = i
$function$;

CREATE OR REPLACE FUNCTION interaction_phone_changes_fold(max_rows bigint DEFAULT NULL::bigint)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  folded bigint;
  emptied_fragments text[];
  emptied_clinics uuid[];
BEGIN
  IF NOT pg_try_advisory_xact_lock(7259063371) THEN
    RETURN 0;
  END IF;
  WITH moved AS (
    DELETE FROM "interaction_phone_changes"
    WHERE max_rows IS NULL OR ctid = ANY (ARRAY(SELECT ctid FROM "interaction_phone_changes" LIMIT max_rows))
    RETURNING "clinic_id", "phone_number", "delta"
  ),
  numbers AS (
    SELECT "clinic_id", "phone_number", sum("delta") AS delta FROM moved GROUP BY 1, 2 HAVING sum("delta") <> 0
  ),
  applied AS (
    INSERT INTO "interaction_phone_fragments" AS f ("fragment", "clinic_id", "interactions")
    SELECT o.fragment, n."clinic_id", sum(n.delta)
    FROM numbers AS n
    CROSS JOIN LATERAL "interaction_phone_fragments_of"(n."phone_number") AS o(fragment)
    GROUP BY 1, 2
    HAVING sum(n.delta) <> 0
    ORDER BY 1, 2
    ON CONFLICT ("fragment", "clinic_id") DO UPDATE
    SET "interactions" = f."interactions" + EXCLUDED."interactions"
    RETURNING f."fragment", f."clinic_id", f."interactions"
  )
  SELECT (SELECT count(*) FROM moved),
         array_agg("fragment") FILTER (WHERE "interactions" = 0),
         array_agg("clinic_id") FILTER (WHERE "interactions" = 0)
  FROM applied
  INTO folded, emptied_fragments, emptied_clinics;

  IF emptied_fragments IS NOT NULL THEN
    DELETE FROM "interaction_phone_fragments" AS f
    USING unnest(emptied_fragments, emptied_clinics) AS z("fragment", "clinic_id")
    WHERE (f."fragment", f."clinic_id") = (z."fragment", z."clinic_id") AND f."interactions" = 0;
  END IF;
  RETURN folded;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_phone_fragments_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  written bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(7259063371);
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_phone_changes";
  DELETE FROM "interaction_phone_fragments";
  INSERT INTO "interaction_phone_fragments" ("fragment", "clinic_id", "interactions")
  SELECT o.fragment, n."clinic_id", sum(n.interactions)
  FROM (SELECT "clinic_id", "phone_number", count(*) AS interactions FROM "interactions" GROUP BY 1, 2) AS n
  CROSS JOIN LATERAL "interaction_phone_fragments_of"(n."phone_number") AS o(fragment)
  GROUP BY 1, 2;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END
$function$;

CREATE OR REPLACE TRIGGER interaction_phones_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_phones_apply();

CREATE OR REPLACE TRIGGER interaction_phones_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_phones_apply();

CREATE OR REPLACE TRIGGER interaction_phones_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_phones_apply();

CREATE OR REPLACE TRIGGER interaction_phones_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_phones_after_truncate();
