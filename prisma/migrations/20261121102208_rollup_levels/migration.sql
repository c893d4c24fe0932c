-- CreateTable
CREATE TABLE "interaction_day_totals" (
    "day" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "interactions" BIGINT NOT NULL,
    "with_outcome" BIGINT NOT NULL,
    "successful" BIGINT NOT NULL,
    "booked" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_day_totals_pkey" PRIMARY KEY ("day","clinic_id","channel","type","direction")
);

-- CreateTable
CREATE TABLE "interaction_month_totals" (
    "month" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "interactions" BIGINT NOT NULL,
    "with_outcome" BIGINT NOT NULL,
    "successful" BIGINT NOT NULL,
    "booked" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_month_totals_pkey" PRIMARY KEY ("month","clinic_id","channel","type","direction")
);

-- CreateTable
CREATE TABLE "interaction_month_outcomes" (
    "month" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "outcome" TEXT NOT NULL,
    "interactions" BIGINT NOT NULL,

    CONSTRAINT "interaction_month_outcomes_pkey" PRIMARY KEY ("month","clinic_id","channel","type","direction","outcome")
);

-- CreateIndex
CREATE INDEX "interaction_day_totals_clinic_id_day_idx" ON "interaction_day_totals"("clinic_id", "day");

-- CreateIndex
CREATE INDEX "interaction_month_totals_clinic_id_month_idx" ON "interaction_month_totals"("clinic_id", "month");

-- CreateIndex
CREATE INDEX "interaction_month_outcomes_clinic_id_month_idx" ON "interaction_month_outcomes"("clinic_id", "month");

-- =================================================================================================
-- Hand-written from here on: Prisma models the tables above (prisma/schema.prisma), not the
-- function and triggers below.
--
-- Three coarser levels of the daily rollup (interaction_daily_rollups, previous migration), kept
-- exact by the database in the same way: statement-level AFTER triggers on "interactions" with
-- transition tables add each statement's deltas in the same transaction.
--   interaction_day_totals     (day, clinic_id, channel, type, direction), the outcome folded into
--                              with_outcome / successful / booked: ~70 rows a day at most
--   interaction_month_totals   the same per UTC month (month = its first day)
--   interaction_month_outcomes (month, clinic_id, channel, type, direction, outcome) -> interactions
-- Readers: src/metrics/sql.ts (full months from the month tables, other full days from the day
-- tables, partial days raw).
--
-- successful and booked bake in the metrics' definitions (decisions.md section 4): successful =
-- APPOINTMENT_BOOKED, APPOINTMENT_MODIFIED or APPOINTMENT_CANCELLED, booked = APPOINTMENT_BOOKED.
-- src/domain/values.ts holds the same lists (test/metrics/rollup-support.ts compares the tables
-- with a GROUP BY built from them). Changing a definition needs a migration that replaces this
-- function and calls interaction_rollups_rebuild().
--
-- Unlike interaction_daily_rollups, rows whose counts fall to 0 are kept: they add nothing to any
-- sum, and not deleting them keeps the trigger to one statement. Keys are upserted in key order,
-- table after table in a fixed order, so concurrent writers lock rows in the same order.
-- After writes with the triggers disabled, SELECT interaction_rollups_rebuild() recomputes every
-- rollup level from "interactions".
-- =================================================================================================

-- One function for INSERT, UPDATE and DELETE: the statement's changed rows, signed (+1 new version,
-- -1 old version), netted per daily key, then summed into each level. The transition tables differ
-- per event (a DELETE trigger has no new_rows), so the source is chosen by TG_OP and run with
-- EXECUTE, which sees the transition tables like static SQL does.
CREATE FUNCTION "interaction_rollup_levels_apply"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  columns constant text := 'started_at, clinic_id, channel, type, direction, outcome, duration_seconds';
  changed text;
BEGIN
  changed := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %s, 1 AS sign FROM new_rows', columns)
    WHEN 'DELETE' THEN format('SELECT %s, -1 AS sign FROM old_rows', columns)
    ELSE format('SELECT %1$s, 1 AS sign FROM new_rows UNION ALL SELECT %1$s, -1 FROM old_rows', columns)
  END;
  EXECUTE format($sql$
    WITH delta AS (
      SELECT ("started_at" AT TIME ZONE 'UTC')::date AS "day", "clinic_id", "channel", "type", "direction",
             coalesce("outcome", '') AS "outcome",
             sum(sign) AS "n",
             coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) AS "timed",
             coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) AS "duration"
      FROM (%s) AS changed
      GROUP BY 1, 2, 3, 4, 5, 6
      HAVING sum(sign) <> 0
          OR coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) <> 0
          OR coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) <> 0
    ),
    day_totals AS (
      INSERT INTO "interaction_day_totals" AS r
        ("day", "clinic_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT "day", "clinic_id", "channel", "type", "direction", sum("n"),
             coalesce(sum("n") FILTER (WHERE "outcome" <> ''), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0),
             sum("timed"), sum("duration")
      FROM delta
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("day", "clinic_id", "channel", "type", "direction") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "with_outcome" = r."with_outcome" + EXCLUDED."with_outcome",
          "successful"   = r."successful" + EXCLUDED."successful",
          "booked"       = r."booked" + EXCLUDED."booked",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    ),
    month_totals AS (
      INSERT INTO "interaction_month_totals" AS r
        ("month", "clinic_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "channel", "type", "direction", sum("n"),
             coalesce(sum("n") FILTER (WHERE "outcome" <> ''), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0),
             sum("timed"), sum("duration")
      FROM delta
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("month", "clinic_id", "channel", "type", "direction") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "with_outcome" = r."with_outcome" + EXCLUDED."with_outcome",
          "successful"   = r."successful" + EXCLUDED."successful",
          "booked"       = r."booked" + EXCLUDED."booked",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    ),
    month_outcomes AS (
      INSERT INTO "interaction_month_outcomes" AS r
        ("month", "clinic_id", "channel", "type", "direction", "outcome", "interactions")
      SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "channel", "type", "direction", "outcome", sum("n")
      FROM delta
      GROUP BY 1, 2, 3, 4, 5, 6
      HAVING sum("n") <> 0
      ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ("month", "clinic_id", "channel", "type", "direction", "outcome") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions"
    )
    SELECT
  $sql$, changed);
  RETURN NULL;
END
$function$;

CREATE FUNCTION "interaction_rollup_levels_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_day_totals", "interaction_month_totals", "interaction_month_outcomes";
  RETURN NULL;
END
$function$;

-- Recomputes the coarser levels from the daily rollup, which holds every measure they need.
-- Writers of "interactions" wait until the caller's transaction ends. Returns the rows written.
CREATE FUNCTION "interaction_rollup_levels_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  written bigint := 0;
  level_rows bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_day_totals";
  DELETE FROM "interaction_month_totals";
  DELETE FROM "interaction_month_outcomes";

  INSERT INTO "interaction_day_totals"
    ("day", "clinic_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT "day", "clinic_id", "channel", "type", "direction", sum("interactions"),
         coalesce(sum("interactions") FILTER (WHERE "outcome" <> ''), 0),
         coalesce(sum("interactions") FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0),
         coalesce(sum("interactions") FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0),
         sum("timed_calls"), sum("duration_sum")
  FROM "interaction_daily_rollups"
  GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_month_totals"
    ("month", "clinic_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "channel", "type", "direction", sum("interactions"),
         sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_day_totals"
  GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_month_outcomes"
    ("month", "clinic_id", "channel", "type", "direction", "outcome", "interactions")
  SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "channel", "type", "direction", "outcome", sum("interactions")
  FROM "interaction_daily_rollups"
  GROUP BY 1, 2, 3, 4, 5, 6;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  RETURN written + level_rows;
END
$function$;

-- What operators run after writes with the triggers disabled: every rollup level recomputed, the
-- daily rollup from "interactions", then the coarser levels from it. Returns the rows written.
CREATE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  RETURN "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"();
END
$function$;

CREATE TRIGGER "interaction_rollup_levels_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_rollup_levels_apply"();
CREATE TRIGGER "interaction_rollup_levels_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_rollup_levels_apply"();
CREATE TRIGGER "interaction_rollup_levels_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_rollup_levels_apply"();
CREATE TRIGGER "interaction_rollup_levels_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_rollup_levels_after_truncate"();

-- Backfill in the same transaction as the triggers (the migration runs as one script): CREATE
-- TRIGGER has locked writers out, so no write can fall between the backfill and the triggers.
SELECT "interaction_rollup_levels_rebuild"();
ANALYZE "interaction_day_totals", "interaction_month_totals", "interaction_month_outcomes";
