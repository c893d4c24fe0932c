-- CreateTable
CREATE TABLE "interaction_phone_fragments" (
    "fragment" TEXT NOT NULL,
    "clinic_id" UUID NOT NULL,
    "interactions" BIGINT NOT NULL,

    CONSTRAINT "interaction_phone_fragments_pkey" PRIMARY KEY ("fragment","clinic_id")
);

-- =================================================================================================
-- Hand-written from here on. Prisma models the table above (prisma/schema.prisma), not the
-- functions below.
--
-- interaction_phone_fragments holds, per (fragment, clinic_id), the exact number of interactions of
-- the clinic whose phone number contains the fragment, for every fragment of 1 to 3 characters: a
-- search that short matches a large share of the numbers (a common 3-digit fragment is in about 9%
-- of them), and summing interaction_phones over those numbers grows with the data (263,000 numbers
-- at 10,000,000 interactions), while this is one row per clinic at any size.
--
-- A fragment is a DISTINCT substring of lower(phone_number): ILIKE compares lower() of both sides in
-- a multibyte encoding such as UTF8, under the column's collation, so a search's total is the row of
-- lower(search) (src/interactions/phone-search.ts). Assumed: lower() maps each character to one
-- character (true of the C and libc collations, which the embedded cluster and the tests use), so a
-- search of 1 to 3 characters is a fragment of 1 to 3 characters. LIKE's `%`, `_` and `\` are
-- plain characters here. A number with a fragment twice ("55" in "555") counts once per interaction.
--
-- Kept exact by interaction_phones' own triggers: interaction_phones_apply (replaced below) nets
-- each statement's changes per (clinic_id, phone_number) once, upserts those deltas into
-- interaction_phones in key order, then the fragments' deltas computed from the same per-number
-- deltas into this table, in (fragment, clinic_id) order; a row brought to 0 is deleted. Every
-- writer locks the rows of its numbers before those of its fragments, each in one order: two
-- statements cannot wait for each other. What writers now wait on: the fragment rows are few and
-- shared (every number of a clinic has the fragment "+" or "1"), so two transactions that write
-- interactions of the same clinic (a changed number or clinic, an insert, a delete) wait for each
-- other's commit; before, only transactions writing the same number did. The importer holds an
-- advisory lock for its whole run, so imports already ran one at a time.
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
  emptied_fragments text[];
  emptied_fragment_clinics uuid[];
BEGIN
  changed := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT clinic_id, phone_number, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT clinic_id, phone_number, -1 AS sign FROM old_rows'
    ELSE 'SELECT clinic_id, phone_number, 1 AS sign FROM new_rows UNION ALL SELECT clinic_id, phone_number, -1 FROM old_rows'
  END;
  -- `fragments` reads the numbers `phones` upserted (joined back to their deltas), so every number's
  -- row is locked before any fragment's: the aggregate below consumes all of `phones` first.
  EXECUTE format($sql$
    WITH deltas AS MATERIALIZED (
      SELECT "clinic_id", "phone_number", sum(sign) AS delta FROM (%s) AS changed
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
    ),
    phones AS (
      INSERT INTO "interaction_phones" AS p ("clinic_id", "phone_number", "interactions")
      SELECT "clinic_id", "phone_number", delta FROM deltas
      ORDER BY 1, 2
      ON CONFLICT ("clinic_id", "phone_number") DO UPDATE
      SET "interactions" = p."interactions" + EXCLUDED."interactions"
      RETURNING p."clinic_id", p."phone_number", p."interactions"
    ),
    fragments AS (
      INSERT INTO "interaction_phone_fragments" AS f ("fragment", "clinic_id", "interactions")
      SELECT o.fragment, d."clinic_id", sum(d.delta)
      FROM phones JOIN deltas AS d USING ("clinic_id", "phone_number")
      CROSS JOIN LATERAL "interaction_phone_fragments_of"(d."phone_number") AS o(fragment)
      GROUP BY 1, 2
      HAVING sum(d.delta) <> 0
      ORDER BY 1, 2
      ON CONFLICT ("fragment", "clinic_id") DO UPDATE
      SET "interactions" = f."interactions" + EXCLUDED."interactions"
      RETURNING f."fragment", f."clinic_id", f."interactions"
    )
    SELECT p.clinics, p.phones, f.fragments, f.clinics
    FROM (SELECT array_agg("clinic_id") AS clinics, array_agg("phone_number") AS phones FROM phones WHERE "interactions" = 0) AS p,
         (SELECT array_agg("fragment") AS fragments, array_agg("clinic_id") AS clinics FROM fragments WHERE "interactions" = 0) AS f
  $sql$, changed) INTO emptied_clinics, emptied_phones, emptied_fragments, emptied_fragment_clinics;

  -- The rows brought to 0 are locked by this transaction's upserts: nobody can change them before
  -- they are deleted (a concurrent writer of the same key waits, then inserts it anew).
  IF emptied_clinics IS NOT NULL THEN
    DELETE FROM "interaction_phones" AS p
    USING unnest(emptied_clinics, emptied_phones) AS z("clinic_id", "phone_number")
    WHERE (p."clinic_id", p."phone_number") = (z."clinic_id", z."phone_number") AND p."interactions" = 0;
  END IF;
  IF emptied_fragments IS NOT NULL THEN
    DELETE FROM "interaction_phone_fragments" AS f
    USING unnest(emptied_fragments, emptied_fragment_clinics) AS z("fragment", "clinic_id")
    WHERE (f."fragment", f."clinic_id") = (z."fragment", z."clinic_id") AND f."interactions" = 0;
  END IF;
  RETURN NULL;
END
$function$;

-- TRUNCATE interactions (CASCADE, as interaction_transcripts refers to it) empties both tables.
CREATE OR REPLACE FUNCTION "interaction_phones_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_phones", "interaction_phone_fragments";
  RETURN NULL;
END
$function$;

-- Recomputes the table from "interactions" (not from interaction_phones, which it may be rebuilding
-- alongside). Writers of "interactions" wait until the caller's transaction ends; readers keep
-- reading the previous rows until then. Returns the rows written.
CREATE FUNCTION "interaction_phone_fragments_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  written bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
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

-- What operators run after writes with the triggers disabled: now this table too.
CREATE OR REPLACE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  RETURN "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"() + "interaction_phones_rebuild"()
    + "interaction_phone_fragments_rebuild"();
END
$function$;

-- Backfill, in the transaction that replaced interaction_phones_apply (the migration runs as one
-- script), with writers locked out by the LOCK above: no write falls between the backfill and the
-- new function. It sums interaction_phones, which its triggers kept exact up to here (the result of
-- rebuild(), without grouping every interaction again).
INSERT INTO "interaction_phone_fragments" ("fragment", "clinic_id", "interactions")
SELECT o.fragment, p."clinic_id", sum(p."interactions")
FROM "interaction_phones" AS p
CROSS JOIN LATERAL "interaction_phone_fragments_of"(p."phone_number") AS o(fragment)
GROUP BY 1, 2;

ANALYZE "interaction_phone_fragments";
