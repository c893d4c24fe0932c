-- DropTable
DROP TABLE "interaction_hours";

-- CreateTable
CREATE TABLE "interaction_day_hours" (
    "day" DATE NOT NULL,
    "ends" BIGINT[],

    CONSTRAINT "interaction_day_hours_pkey" PRIMARY KEY ("day")
);

-- =================================================================================================
-- Hand-written from here on. interaction_hours (one row per UTC hour) gives way to
-- interaction_day_hours: one row per UTC day holding the day's running totals at the end of each of
-- its hours (24 runs of the 10 sums of interaction_days; run 24 is the day's total). A series in a
-- time zone reads the running total at an edge inside a UTC day as one slice of that day's row
-- (plus at most two quarter hours for offsets such as +05:30 or +05:45) instead of up to 12 hour
-- rows, and an hourly series reads a year as 365 rows instead of 8,760
-- (src/rollups/zoned.ts). A write still updates one row per day it touches; the row is about 2 kB,
-- under the size at which PostgreSQL compresses or moves values out of line, so it stays one
-- in-place (HOT) update.
--
-- Same rules as the other levels: exact in the same transaction as every write (the fine levels'
-- statement triggers), keys in key order, rows that fall to zero kept, TRUNCATE empties it,
-- interaction_fine_levels_rebuild() recomputes it.
-- =================================================================================================

ALTER TABLE "interaction_day_hours" ALTER COLUMN "ends" SET NOT NULL,
  ADD CONSTRAINT "interaction_day_hours_ends_runs" CHECK (cardinality("ends") = 240);

CREATE OR REPLACE FUNCTION "interaction_fine_levels_apply"() RETURNS trigger
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
      SELECT date_bin('15 minutes', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS "quarter",
             "clinic_id", "channel", "type", "direction",
             sum(sign) AS "n",
             coalesce(sum(sign) FILTER (WHERE "outcome" IS NOT NULL), 0) AS "with_outcome",
             coalesce(sum(sign) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0) AS "successful",
             coalesce(sum(sign) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0) AS "booked",
             coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) AS "timed",
             coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) AS "duration"
      FROM (%s) AS changed
      GROUP BY 1, 2, 3, 4, 5
      HAVING sum(sign) <> 0
          OR coalesce(sum(sign) FILTER (WHERE "outcome" IS NOT NULL), 0) <> 0
          OR coalesce(sum(sign) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0) <> 0
          OR coalesce(sum(sign) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0) <> 0
          OR coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) <> 0
          OR coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) <> 0
    ),
    hour_totals AS (
      INSERT INTO "interaction_hour_totals" AS r
        ("hour", "clinic_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT date_bin('1 hour', "quarter", TIMESTAMPTZ '2000-01-01 00:00:00+00'), "clinic_id", "channel", "type", "direction",
             sum("n"), sum("with_outcome"), sum("successful"), sum("booked"), sum("timed"), sum("duration")
      FROM delta
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("hour", "clinic_id", "channel", "type", "direction") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "with_outcome" = r."with_outcome" + EXCLUDED."with_outcome",
          "successful"   = r."successful" + EXCLUDED."successful",
          "booked"       = r."booked" + EXCLUDED."booked",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    ),
    -- Each UTC day's change as 24 running totals (see the table's comment): the change of every
    -- hour h it touched counts towards the runs k > h. Element i (from 0) of the array is column
    -- (i modulo 10) + 1 of run i / 10 + 1.
    day_hours AS (
      SELECT ("quarter" AT TIME ZONE 'UTC')::date AS "day",
             extract(hour FROM "quarter" AT TIME ZONE 'UTC')::int AS "h",
             ARRAY[sum("n"),
                   coalesce(sum("n") FILTER (WHERE "channel" = 'voice'), 0),
                   coalesce(sum("n") FILTER (WHERE "channel" = 'whatsapp'), 0),
                   coalesce(sum("n") FILTER (WHERE "direction" = 'inbound'), 0),
                   coalesce(sum("n") FILTER (WHERE "direction" = 'outbound'), 0),
                   sum("with_outcome"), sum("successful"), sum("booked"), sum("timed"), sum("duration")]::bigint[] AS "v"
      FROM delta
      GROUP BY 1, 2
    ),
    day_ends AS (
      SELECT "day", array_agg("e" ORDER BY "i") AS "ends"
      FROM (
        SELECT x."day", i."i", coalesce(sum(x."v"[i."i" %% 10 + 1]) FILTER (WHERE x."h" <= i."i" / 10), 0)::bigint AS "e"
        FROM day_hours AS x CROSS JOIN generate_series(0, 239) AS i("i")
        GROUP BY x."day", i."i"
      ) AS runs
      GROUP BY "day"
    ),
    ends AS (
      INSERT INTO "interaction_day_hours" AS r ("day", "ends")
      SELECT "day", "ends" FROM day_ends
      ORDER BY "day"
      ON CONFLICT ("day") DO UPDATE
      SET "ends" = (SELECT array_agg(u."a" + u."b" ORDER BY u."i") FROM unnest(r."ends", EXCLUDED."ends") WITH ORDINALITY AS u("a", "b", "i"))
    )
    INSERT INTO "interaction_quarters" AS r
      ("quarter", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
    SELECT "quarter", sum("n"),
           coalesce(sum("n") FILTER (WHERE "channel" = 'voice'), 0),
           coalesce(sum("n") FILTER (WHERE "channel" = 'whatsapp'), 0),
           coalesce(sum("n") FILTER (WHERE "direction" = 'inbound'), 0),
           coalesce(sum("n") FILTER (WHERE "direction" = 'outbound'), 0),
           sum("with_outcome"), sum("successful"), sum("booked"), sum("timed"), sum("duration")
    FROM delta
    GROUP BY 1
    ORDER BY 1
    ON CONFLICT ("quarter") DO UPDATE
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
  $sql$, changed);
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION "interaction_fine_levels_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_hour_totals", "interaction_day_hours", "interaction_quarters";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION "interaction_fine_levels_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  written bigint := 0;
  level_rows bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_hour_totals";
  DELETE FROM "interaction_day_hours";
  DELETE FROM "interaction_quarters";

  INSERT INTO "interaction_quarters"
    ("quarter", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT date_bin('15 minutes', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), count(*),
         count(*) FILTER (WHERE "channel" = 'voice'),
         count(*) FILTER (WHERE "channel" = 'whatsapp'),
         count(*) FILTER (WHERE "direction" = 'inbound'),
         count(*) FILTER (WHERE "direction" = 'outbound'),
         count(*) FILTER (WHERE "outcome" IS NOT NULL),
         count(*) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')),
         count(*) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'),
         count(*) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL),
         coalesce(sum("duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0)
  FROM "interactions"
  GROUP BY 1;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_day_hours" ("day", "ends")
  SELECT "day", array_agg("e" ORDER BY "i")
  FROM (
    SELECT x."day", i."i", coalesce(sum(x."v"[i."i" % 10 + 1]) FILTER (WHERE x."h" <= i."i" / 10), 0)::bigint AS "e"
    FROM (
      SELECT ("quarter" AT TIME ZONE 'UTC')::date AS "day", extract(hour FROM "quarter" AT TIME ZONE 'UTC')::int AS "h",
             ARRAY[sum("interactions"), sum("calls"), sum("conversations"), sum("inbound"), sum("outbound"),
                   sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")]::bigint[] AS "v"
      FROM "interaction_quarters"
      GROUP BY 1, 2
    ) AS x CROSS JOIN generate_series(0, 239) AS i("i")
    GROUP BY x."day", i."i"
  ) AS runs
  GROUP BY "day";
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_hour_totals"
    ("hour", "clinic_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT date_bin('1 hour', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), "clinic_id", "channel", "type", "direction", count(*),
         count(*) FILTER (WHERE "outcome" IS NOT NULL),
         count(*) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')),
         count(*) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'),
         count(*) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL),
         coalesce(sum("duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0)
  FROM "interactions"
  GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  RETURN written + level_rows;
END
$function$;

-- The backfill, in the same transaction as the new function (the migration runs as one script).
SELECT "interaction_fine_levels_rebuild"();
ANALYZE "interaction_day_hours";
