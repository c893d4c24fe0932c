-- CreateTable
CREATE TABLE "interaction_daily_rollups" (
    "day" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "outcome" TEXT NOT NULL,
    "interactions" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_daily_rollups_pkey" PRIMARY KEY ("day","clinic_id","channel","type","direction","outcome")
);

-- CreateIndex
CREATE INDEX "interaction_daily_rollups_clinic_id_day_idx" ON "interaction_daily_rollups"("clinic_id", "day");

-- =================================================================================================
-- Hand-written from here on. Prisma models the table above (prisma/schema.prisma), not the
-- constraints, functions and triggers below, which exist only in this migration.
--
-- interaction_daily_rollups is kept exact BY THE DATABASE. Statement-level AFTER triggers on
-- "interactions", with transition tables, aggregate each statement's changed rows per key and add
-- the deltas in the same transaction, so every snapshot sees the raw table and its rollup agree.
--   key       (day, clinic_id, channel, type, direction, outcome), where day is
--             (started_at AT TIME ZONE 'UTC')::date and outcome is coalesce(outcome, '')
--   measures  interactions = count(*)
--             timed_calls  = count(duration_seconds) FILTER (WHERE channel = 'voice')
--             duration_sum = sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0 when none
-- The measures are the ones src/metrics/sql.ts computes for the raw rows at a window's edges:
-- change both together. Deltas are upserted in key order (INSERT ... ORDER BY ... ON CONFLICT DO
-- UPDATE), so two statements touching the same keys lock them in the same order, and a row whose
-- count reaches 0 is deleted. A statement's rows are aggregated once: a bulk INSERT of N rows costs
-- one GROUP BY and one upsert per distinct key, not N row-level trigger calls.
--
-- Not covered (the rollup would drift): writes while the triggers are disabled (ALTER TABLE ...
-- DISABLE TRIGGER, session_replication_role = replica). After such a load, run
--   SELECT interaction_daily_rollups_rebuild()
-- which recomputes the table from "interactions" (writers wait meanwhile, readers do not).
--
-- WHY THE <semicolon> TOKENS: the offline migrator (npm run cli -- migrate) applies a migration
-- through @prisma/adapter-pg's executeScript, which cuts the file at EVERY semicolon character,
-- inside function bodies, strings and comments too, and runs the pieces one by one outside a
-- transaction. So everything below is one statement, the argument of a temporary helper that turns
-- each <semicolon> into a real one and EXECUTEs the lot: it applies atomically (the backfill and the
-- triggers cannot miss a concurrent write), with this migrator and with the Prisma CLI alike.
-- This file must contain no semicolon character except at the end of top-level statements.
-- =================================================================================================

CREATE FUNCTION "interaction_daily_rollups_migration_exec"(script text) RETURNS void
LANGUAGE plpgsql AS E'BEGIN EXECUTE replace(script, ''<semicolon>'', chr(59))\073 END';

SELECT "interaction_daily_rollups_migration_exec"($migration$

-- '' is the rollup's "no outcome": an interaction's outcome may be NULL but never ''.
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_outcome_not_empty" CHECK ("outcome" <> '')<semicolon>

-- Room on every page for the new versions of a row, so the triggers' frequent updates stay HOT (no
-- index writes): measured on 1M interactions, bulk writes spread over many days cost about half as
-- much as with full pages, for about 15% more time on a year's read.
ALTER TABLE "interaction_daily_rollups" SET (fillfactor = 70)<semicolon>

-- INSERT (also the inserted rows of INSERT ... ON CONFLICT DO UPDATE, and COPY).
CREATE FUNCTION "interaction_daily_rollups_after_insert"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO "interaction_daily_rollups" AS r
    ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
  SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction", coalesce("outcome", ''),
         count(*),
         count("duration_seconds") FILTER (WHERE "channel" = 'voice'),
         coalesce(sum("duration_seconds") FILTER (WHERE "channel" = 'voice'), 0)
  FROM new_rows
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("day", "clinic_id", "channel", "type", "direction", "outcome") DO UPDATE
  SET "interactions" = r."interactions" + EXCLUDED."interactions",
      "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
      "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"<semicolon>
  RETURN NULL<semicolon>
END
$$<semicolon>

-- UPDATE (also the updated rows of INSERT ... ON CONFLICT DO UPDATE): plus the new versions, minus
-- the old ones, netted per key. Keys whose deltas are all 0 (no key column or duration changed)
-- are not written at all. The upsert returns the rows it brought to 0, which it has locked, and
-- those are deleted.
CREATE FUNCTION "interaction_daily_rollups_after_update"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  days date[]<semicolon>
  clinics uuid[]<semicolon>
  channels "Channel"[]<semicolon>
  types "InteractionType"[]<semicolon>
  directions "Direction"[]<semicolon>
  outcomes text[]<semicolon>
BEGIN
  WITH applied AS (
    INSERT INTO "interaction_daily_rollups" AS r
      ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
    SELECT "day", "clinic_id", "channel", "type", "direction", "outcome", sum("n"), sum("timed"), sum("duration")::bigint
    FROM (
      SELECT ("started_at" AT TIME ZONE 'UTC')::date AS "day", "clinic_id", "channel", "type", "direction",
             coalesce("outcome", '') AS "outcome", 1 AS "n",
             ("channel" = 'voice' AND "duration_seconds" IS NOT NULL)::int AS "timed",
             CASE WHEN "channel" = 'voice' THEN coalesce("duration_seconds", 0) ELSE 0 END::bigint AS "duration"
      FROM new_rows
      UNION ALL
      SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction",
             coalesce("outcome", ''), -1,
             -("channel" = 'voice' AND "duration_seconds" IS NOT NULL)::int,
             -(CASE WHEN "channel" = 'voice' THEN coalesce("duration_seconds", 0) ELSE 0 END::bigint)
      FROM old_rows
    ) AS delta
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING sum("n") <> 0 OR sum("timed") <> 0 OR sum("duration") <> 0
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("day", "clinic_id", "channel", "type", "direction", "outcome") DO UPDATE
    SET "interactions" = r."interactions" + EXCLUDED."interactions",
        "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
        "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    RETURNING r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome", r."interactions"
  )
  SELECT array_agg("day"), array_agg("clinic_id"), array_agg("channel"), array_agg("type"), array_agg("direction"), array_agg("outcome")
  INTO days, clinics, channels, types, directions, outcomes
  FROM applied WHERE "interactions" = 0<semicolon>

  IF days IS NOT NULL THEN
    DELETE FROM "interaction_daily_rollups" AS r
    USING unnest(days, clinics, channels, types, directions, outcomes) AS z("day", "clinic_id", "channel", "type", "direction", "outcome")
    WHERE (r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome")
        = (z."day", z."clinic_id", z."channel", z."type", z."direction", z."outcome")
      AND r."interactions" = 0<semicolon>
  END IF<semicolon>
  RETURN NULL<semicolon>
END
$$<semicolon>

-- DELETE: minus the deleted rows, and the rows brought to 0 are deleted (as for UPDATE).
CREATE FUNCTION "interaction_daily_rollups_after_delete"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  days date[]<semicolon>
  clinics uuid[]<semicolon>
  channels "Channel"[]<semicolon>
  types "InteractionType"[]<semicolon>
  directions "Direction"[]<semicolon>
  outcomes text[]<semicolon>
BEGIN
  WITH applied AS (
    INSERT INTO "interaction_daily_rollups" AS r
      ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
    SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction", coalesce("outcome", ''),
           -count(*),
           -count("duration_seconds") FILTER (WHERE "channel" = 'voice'),
           -coalesce(sum("duration_seconds") FILTER (WHERE "channel" = 'voice'), 0)
    FROM old_rows
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("day", "clinic_id", "channel", "type", "direction", "outcome") DO UPDATE
    SET "interactions" = r."interactions" + EXCLUDED."interactions",
        "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
        "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    RETURNING r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome", r."interactions"
  )
  SELECT array_agg("day"), array_agg("clinic_id"), array_agg("channel"), array_agg("type"), array_agg("direction"), array_agg("outcome")
  INTO days, clinics, channels, types, directions, outcomes
  FROM applied WHERE "interactions" = 0<semicolon>

  IF days IS NOT NULL THEN
    DELETE FROM "interaction_daily_rollups" AS r
    USING unnest(days, clinics, channels, types, directions, outcomes) AS z("day", "clinic_id", "channel", "type", "direction", "outcome")
    WHERE (r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome")
        = (z."day", z."clinic_id", z."channel", z."type", z."direction", z."outcome")
      AND r."interactions" = 0<semicolon>
  END IF<semicolon>
  RETURN NULL<semicolon>
END
$$<semicolon>

-- TRUNCATE interactions (CASCADE, as interaction_transcripts refers to it) empties the rollup.
CREATE FUNCTION "interaction_daily_rollups_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  TRUNCATE "interaction_daily_rollups"<semicolon>
  RETURN NULL<semicolon>
END
$$<semicolon>

-- Recomputes the whole rollup from "interactions": the backfill below, and for operators after a
-- load with the triggers disabled. Writers of "interactions" wait until the caller's transaction
-- ends, readers keep reading the previous rows until then. Returns the number of rollup rows.
CREATE FUNCTION "interaction_daily_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  written bigint<semicolon>
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE<semicolon>
  DELETE FROM "interaction_daily_rollups"<semicolon>
  INSERT INTO "interaction_daily_rollups"
    ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
  SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction", coalesce("outcome", ''),
         count(*),
         count("duration_seconds") FILTER (WHERE "channel" = 'voice'),
         coalesce(sum("duration_seconds") FILTER (WHERE "channel" = 'voice'), 0)
  FROM "interactions"
  GROUP BY 1, 2, 3, 4, 5, 6<semicolon>
  GET DIAGNOSTICS written = ROW_COUNT<semicolon>
  RETURN written<semicolon>
END
$$<semicolon>

-- One trigger per event: PostgreSQL allows transition tables only on single-event triggers.
CREATE TRIGGER "interaction_daily_rollups_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_daily_rollups_after_insert"()<semicolon>
CREATE TRIGGER "interaction_daily_rollups_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_daily_rollups_after_update"()<semicolon>
CREATE TRIGGER "interaction_daily_rollups_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_daily_rollups_after_delete"()<semicolon>
CREATE TRIGGER "interaction_daily_rollups_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_daily_rollups_after_truncate"()<semicolon>

-- Backfill, in the same transaction as the triggers: CREATE TRIGGER has locked writers out.
SELECT "interaction_daily_rollups_rebuild"()<semicolon>
ANALYZE "interaction_daily_rollups"

$migration$);

DROP FUNCTION "interaction_daily_rollups_migration_exec"(text);
