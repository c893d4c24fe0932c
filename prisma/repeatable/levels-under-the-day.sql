-- levels under the day: Hours and quarter hours, for metrics in a time zone whose days do not start at a UTC midnight.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_fine_levels_apply()
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
    -- hour h it touched counts towards the runs after it. Cumulative sums over the day's 24 hours,
    -- gathered into the 24 x 10 array by array_agg of the runs (no element-by-element work: summing
    -- a cross join of the hours with the 240 elements took 100 ms for a batch spread over 680 days).
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
      SELECT c."day", array_agg(c."run" ORDER BY c."h") AS "ends"
      FROM (
        SELECT d."day", g."h", ARRAY[sum(coalesce(x."v"[1], 0)) OVER w, sum(coalesce(x."v"[2], 0)) OVER w, sum(coalesce(x."v"[3], 0)) OVER w, sum(coalesce(x."v"[4], 0)) OVER w, sum(coalesce(x."v"[5], 0)) OVER w, sum(coalesce(x."v"[6], 0)) OVER w, sum(coalesce(x."v"[7], 0)) OVER w, sum(coalesce(x."v"[8], 0)) OVER w, sum(coalesce(x."v"[9], 0)) OVER w, sum(coalesce(x."v"[10], 0)) OVER w]::bigint[] AS "run"
        FROM (SELECT DISTINCT "day" FROM day_hours) AS d
        CROSS JOIN generate_series(0, 23) AS g("h")
        LEFT JOIN day_hours AS x ON x."day" = d."day" AND x."h" = g."h"
        WINDOW w AS (PARTITION BY d."day" ORDER BY g."h")
      ) AS c
      GROUP BY c."day"
    ),
    ends AS (
      INSERT INTO "interaction_day_hours" AS r ("day", "ends")
      SELECT "day", "ends" FROM day_ends
      ORDER BY "day"
      ON CONFLICT ("day") DO UPDATE
      SET "ends" = (SELECT array_agg(ARRAY[r."ends"[k."k"][1] + EXCLUDED."ends"[k."k"][1], r."ends"[k."k"][2] + EXCLUDED."ends"[k."k"][2], r."ends"[k."k"][3] + EXCLUDED."ends"[k."k"][3], r."ends"[k."k"][4] + EXCLUDED."ends"[k."k"][4], r."ends"[k."k"][5] + EXCLUDED."ends"[k."k"][5], r."ends"[k."k"][6] + EXCLUDED."ends"[k."k"][6], r."ends"[k."k"][7] + EXCLUDED."ends"[k."k"][7], r."ends"[k."k"][8] + EXCLUDED."ends"[k."k"][8], r."ends"[k."k"][9] + EXCLUDED."ends"[k."k"][9], r."ends"[k."k"][10] + EXCLUDED."ends"[k."k"][10]] ORDER BY k."k") FROM generate_series(1, 24) AS k("k"))
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

CREATE OR REPLACE FUNCTION interaction_fine_levels_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  TRUNCATE "interaction_hour_totals", "interaction_day_hours", "interaction_quarters";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_fine_levels_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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
  SELECT c."day", array_agg(c."run" ORDER BY c."h")
  FROM (
    SELECT d."day", g."h", ARRAY[sum(coalesce(x."v"[1], 0)) OVER w, sum(coalesce(x."v"[2], 0)) OVER w, sum(coalesce(x."v"[3], 0)) OVER w, sum(coalesce(x."v"[4], 0)) OVER w, sum(coalesce(x."v"[5], 0)) OVER w, sum(coalesce(x."v"[6], 0)) OVER w, sum(coalesce(x."v"[7], 0)) OVER w, sum(coalesce(x."v"[8], 0)) OVER w, sum(coalesce(x."v"[9], 0)) OVER w, sum(coalesce(x."v"[10], 0)) OVER w]::bigint[] AS "run"
    FROM (SELECT DISTINCT ("quarter" AT TIME ZONE 'UTC')::date AS "day" FROM "interaction_quarters") AS d
    CROSS JOIN generate_series(0, 23) AS g("h")
    LEFT JOIN (
      SELECT ("quarter" AT TIME ZONE 'UTC')::date AS "day", extract(hour FROM "quarter" AT TIME ZONE 'UTC')::int AS "h",
             ARRAY[sum("interactions"), sum("calls"), sum("conversations"), sum("inbound"), sum("outbound"),
                   sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")]::bigint[] AS "v"
      FROM "interaction_quarters"
      GROUP BY 1, 2
    ) AS x ON x."day" = d."day" AND x."h" = g."h"
    WINDOW w AS (PARTITION BY d."day" ORDER BY g."h")
  ) AS c
  GROUP BY c."day";
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

CREATE OR REPLACE TRIGGER interaction_fine_levels_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_fine_levels_apply();

CREATE OR REPLACE TRIGGER interaction_fine_levels_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_fine_levels_apply();

CREATE OR REPLACE TRIGGER interaction_fine_levels_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_fine_levels_apply();

CREATE OR REPLACE TRIGGER interaction_fine_levels_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_fine_levels_after_truncate();
