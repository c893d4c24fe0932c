-- CreateTable
CREATE TABLE "interaction_phone_fragments" (
    "fragment" TEXT NOT NULL,
    "clinic_id" UUID NOT NULL,
    "interactions" BIGINT NOT NULL,

    CONSTRAINT "interaction_phone_fragments_pkey" PRIMARY KEY ("fragment","clinic_id")
);

-- CreateTable
CREATE TABLE "interaction_phone_changes" (
    "clinic_id" UUID NOT NULL,
    "phone_number" TEXT NOT NULL,
    "delta" BIGINT NOT NULL
);

-- =================================================================================================
-- Hand-written from here on. Prisma models the tables above (prisma/schema.prisma), not the
-- functions below.
--
-- interaction_phone_fragments holds, per (fragment, clinic_id), the number of interactions of the
-- clinic whose phone number contains the fragment, for every fragment of 1 to 3 characters, as of
-- the last fold; interaction_phone_changes holds the per-number changes since. A search that short
-- matches a large share of the numbers (a common 3-digit fragment is in about 9% of them), and
-- summing interaction_phones over those numbers grows with the data (263,000 numbers at 10,000,000
-- interactions), while this is one row per clinic at any size plus the few changes not yet folded
-- (src/interactions/phone-search.ts).
--
-- Why two tables. Keeping the fragment rows exact in every write statement (tried first) made writes
-- 5.5x slower: the rows are few and shared (every number of a clinic has the fragment "+" or "1"),
-- so every statement updated most of its clinic's ~1,700 rows (3.2 million row versions per million
-- inserts; bench/results/2026-11-23-phone-fragments-write-cost.md). Now a write appends one narrow
-- row per changed number to interaction_phone_changes (no index, no row updated), and
-- interaction_phone_changes_fold() moves the changes into the fragments in one transaction: the
-- service calls it every few seconds, the importer and the seeder after loading. A total read in
-- one snapshot (fragments plus matching changes) is exact whenever the fold runs: a fold deletes
-- the changes it adds to the fragments in the same transaction, and leaves changes committed after
-- its snapshot for the next one.
--
-- A fragment is a DISTINCT substring of lower(phone_number): ILIKE compares lower() of both sides in
-- a multibyte encoding such as UTF8, under the column's collation, so a search's total is the row of
-- lower(search). Assumed: lower() maps each character to one character (true of the C and libc
-- collations, which the embedded cluster and the tests use), so a search of 1 to 3 characters is a
-- fragment of 1 to 3 characters. LIKE's `%`, `_` and `\` are plain characters here. A number with a
-- fragment twice ("55" in "555") counts once per interaction.
-- =================================================================================================

-- The distinct fragments of 1 to 3 characters of a number, case-folded as ILIKE folds. A substring
-- is kept at its first position only (strpos), which makes them distinct without sorting each
-- number's substrings. One SQL statement, so the planner inlines it where it is called.
CREATE FUNCTION "interaction_phone_fragments_of"(phone text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $function$
  SELECT substr(lower(phone), i, n)
  FROM generate_series(1, 3) AS n, generate_series(1, char_length(lower(phone)) - n + 1) AS i
  WHERE strpos(lower(phone), substr(lower(phone), i, n)) = i
$function$;

-- Replacing the trigger function takes no lock on "interactions": writers are locked out first
-- (readers go on) until the backfill below commits with it. Writers waiting here then run the new
-- function.
LOCK TABLE "interactions" IN SHARE MODE;

CREATE OR REPLACE FUNCTION "interaction_phones_apply"() RETURNS trigger
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

-- Moves at most max_rows changes (all when null) into the fragments; returns the number of change
-- rows folded (0 also when another fold is running: it folds them, or the next one does). A bounded
-- fold keeps each call short (the service's statement timeout); callers repeat while a call folds
-- max_rows. One fold at a time (a transaction advisory lock; the key is this function's and nobody
-- else's); writers are never waited for.
CREATE FUNCTION "interaction_phone_changes_fold"(max_rows bigint DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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

-- TRUNCATE interactions (CASCADE, as interaction_transcripts refers to it) empties all three.
CREATE OR REPLACE FUNCTION "interaction_phones_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_phones", "interaction_phone_fragments", "interaction_phone_changes";
  RETURN NULL;
END
$function$;

-- Recomputes the fragments from "interactions" (not from interaction_phones, which it may be
-- rebuilding alongside) and drops the pending changes, which the result already holds. Waits for
-- a running fold (its lock), then writers of "interactions" wait until the caller's transaction
-- ends; readers keep reading the previous rows until then. Returns the rows written.
CREATE FUNCTION "interaction_phone_fragments_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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

-- What operators run after writes with the triggers disabled: now these tables too.
CREATE OR REPLACE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  RETURN "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"() + "interaction_phones_rebuild"()
    + "interaction_phone_fragments_rebuild"();
END
$function$;

-- Backfill, in the transaction that replaced interaction_phones_apply (the migration runs as one
-- script), with writers locked out by the LOCK above: no write falls between the backfill and the
-- new function, and no change is pending yet. It sums interaction_phones, which its triggers kept
-- exact up to here. Measured on 2 cores: about 4 s at 100,000 interactions, 24 s at 1,000,000 and
-- 2 minutes at 10,000,000 (writers wait meanwhile; reads go on).
INSERT INTO "interaction_phone_fragments" ("fragment", "clinic_id", "interactions")
SELECT o.fragment, p."clinic_id", sum(p."interactions")
FROM "interaction_phones" AS p
CROSS JOIN LATERAL "interaction_phone_fragments_of"(p."phone_number") AS o(fragment)
GROUP BY 1, 2;

ANALYZE "interaction_phone_fragments";
