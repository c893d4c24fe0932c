-- rollup levels: Days and months, per clinic and over every clinic, with or without the outcome: metrics read whole months and days from them.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_rollup_levels_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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
    ),
    day_totals_all_clinics AS (
      INSERT INTO "interaction_day_totals_all_clinics" AS r
        ("day", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT "day", "channel", "type", "direction", sum("n"),
             coalesce(sum("n") FILTER (WHERE "outcome" <> ''), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0),
             sum("timed"), sum("duration")
      FROM delta
      GROUP BY 1, 2, 3, 4
      ORDER BY 1, 2, 3, 4
      ON CONFLICT ("day", "channel", "type", "direction") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "with_outcome" = r."with_outcome" + EXCLUDED."with_outcome",
          "successful"   = r."successful" + EXCLUDED."successful",
          "booked"       = r."booked" + EXCLUDED."booked",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    ),
    day_outcomes_all_clinics AS (
      INSERT INTO "interaction_day_outcomes_all_clinics" AS r
        ("day", "channel", "type", "direction", "outcome", "interactions")
      SELECT "day", "channel", "type", "direction", "outcome", sum("n")
      FROM delta
      GROUP BY 1, 2, 3, 4, 5
      HAVING sum("n") <> 0
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("day", "channel", "type", "direction", "outcome") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions"
    ),
    month_totals_all_clinics AS (
      INSERT INTO "interaction_month_totals_all_clinics" AS r
        ("month", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT date_trunc('month', "day"::timestamp)::date, "channel", "type", "direction", sum("n"),
             coalesce(sum("n") FILTER (WHERE "outcome" <> ''), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0),
             sum("timed"), sum("duration")
      FROM delta
      GROUP BY 1, 2, 3, 4
      ORDER BY 1, 2, 3, 4
      ON CONFLICT ("month", "channel", "type", "direction") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "with_outcome" = r."with_outcome" + EXCLUDED."with_outcome",
          "successful"   = r."successful" + EXCLUDED."successful",
          "booked"       = r."booked" + EXCLUDED."booked",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    ),
    month_outcomes_all_clinics AS (
      INSERT INTO "interaction_month_outcomes_all_clinics" AS r
        ("month", "channel", "type", "direction", "outcome", "interactions")
      SELECT date_trunc('month', "day"::timestamp)::date, "channel", "type", "direction", "outcome", sum("n")
      FROM delta
      GROUP BY 1, 2, 3, 4, 5
      HAVING sum("n") <> 0
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("month", "channel", "type", "direction", "outcome") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions"
    ),
    days AS (
      INSERT INTO "interaction_days" AS r
        ("day", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT "day", sum("n"),
             coalesce(sum("n") FILTER (WHERE "channel" = 'voice'), 0),
             coalesce(sum("n") FILTER (WHERE "channel" = 'whatsapp'), 0),
             coalesce(sum("n") FILTER (WHERE "direction" = 'inbound'), 0),
             coalesce(sum("n") FILTER (WHERE "direction" = 'outbound'), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" <> ''), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0),
             coalesce(sum("n") FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0),
             sum("timed"), sum("duration")
      FROM delta
      GROUP BY 1
      ORDER BY 1
      ON CONFLICT ("day") DO UPDATE
      SET "interactions"  = r."interactions" + EXCLUDED."interactions",
          "calls"         = r."calls" + EXCLUDED."calls",
          "conversations" = r."conversations" + EXCLUDED."conversations",
          "inbound"       = r."inbound" + EXCLUDED."inbound",
          "outbound"      = r."outbound" + EXCLUDED."outbound",
          "with_outcome"  = r."with_outcome" + EXCLUDED."with_outcome",
          "successful"    = r."successful" + EXCLUDED."successful",
          "booked"        = r."booked" + EXCLUDED."booked",
          "timed_calls"   = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum"  = r."duration_sum" + EXCLUDED."duration_sum"
    )
    SELECT
  $sql$, changed);
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_rollup_levels_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  TRUNCATE "interaction_day_totals", "interaction_month_totals", "interaction_month_outcomes",
           "interaction_day_totals_all_clinics", "interaction_day_outcomes_all_clinics",
           "interaction_month_totals_all_clinics", "interaction_month_outcomes_all_clinics",
           "interaction_days";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_rollup_levels_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  written bigint := 0;
  level_rows bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_day_totals";
  DELETE FROM "interaction_month_totals";
  DELETE FROM "interaction_month_outcomes";
  DELETE FROM "interaction_day_totals_all_clinics";
  DELETE FROM "interaction_day_outcomes_all_clinics";
  DELETE FROM "interaction_month_totals_all_clinics";
  DELETE FROM "interaction_month_outcomes_all_clinics";
  DELETE FROM "interaction_days";

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
  written := written + level_rows;

  INSERT INTO "interaction_day_totals_all_clinics"
    ("day", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT "day", "channel", "type", "direction", sum("interactions"),
         sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_day_totals"
  GROUP BY 1, 2, 3, 4;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_day_outcomes_all_clinics"
    ("day", "channel", "type", "direction", "outcome", "interactions")
  SELECT "day", "channel", "type", "direction", "outcome", sum("interactions")
  FROM "interaction_daily_rollups"
  GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_month_totals_all_clinics"
    ("month", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT "month", "channel", "type", "direction", sum("interactions"),
         sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_month_totals"
  GROUP BY 1, 2, 3, 4;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_month_outcomes_all_clinics"
    ("month", "channel", "type", "direction", "outcome", "interactions")
  SELECT "month", "channel", "type", "direction", "outcome", sum("interactions")
  FROM "interaction_month_outcomes"
  GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_days"
    ("day", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT "day", sum("interactions"),
         coalesce(sum("interactions") FILTER (WHERE "channel" = 'voice'), 0),
         coalesce(sum("interactions") FILTER (WHERE "channel" = 'whatsapp'), 0),
         coalesce(sum("interactions") FILTER (WHERE "direction" = 'inbound'), 0),
         coalesce(sum("interactions") FILTER (WHERE "direction" = 'outbound'), 0),
         sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_day_totals_all_clinics"
  GROUP BY 1;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  RETURN written + level_rows;
END
$function$;

CREATE OR REPLACE TRIGGER interaction_rollup_levels_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_rollup_levels_apply();

CREATE OR REPLACE TRIGGER interaction_rollup_levels_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_rollup_levels_apply();

CREATE OR REPLACE TRIGGER interaction_rollup_levels_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_rollup_levels_apply();

CREATE OR REPLACE TRIGGER interaction_rollup_levels_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_rollup_levels_after_truncate();
