-- CreateTable
CREATE TABLE "interaction_hours" (
    "hour" TIMESTAMPTZ(0) NOT NULL,
    "interactions" BIGINT NOT NULL,
    "calls" BIGINT NOT NULL,
    "conversations" BIGINT NOT NULL,
    "inbound" BIGINT NOT NULL,
    "outbound" BIGINT NOT NULL,
    "with_outcome" BIGINT NOT NULL,
    "successful" BIGINT NOT NULL,
    "booked" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_hours_pkey" PRIMARY KEY ("hour")
);

-- CreateTable
CREATE TABLE "interaction_day_prefixes" (
    "until" TIMESTAMPTZ(0) NOT NULL,
    "slot" SMALLINT NOT NULL,
    "interactions" BIGINT NOT NULL,
    "calls" BIGINT NOT NULL,
    "conversations" BIGINT NOT NULL,
    "inbound" BIGINT NOT NULL,
    "outbound" BIGINT NOT NULL,
    "with_outcome" BIGINT NOT NULL,
    "successful" BIGINT NOT NULL,
    "booked" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_day_prefixes_pkey" PRIMARY KEY ("until")
);

-- CreateTable
CREATE TABLE "interaction_hour_totals" (
    "hour" TIMESTAMPTZ(0) NOT NULL,
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

    CONSTRAINT "interaction_hour_totals_pkey" PRIMARY KEY ("hour","clinic_id","channel","type","direction")
);

-- CreateIndex
CREATE INDEX "interaction_day_prefixes_slot_until_idx" ON "interaction_day_prefixes"("slot", "until");

-- CreateIndex
CREATE INDEX "interaction_hour_totals_clinic_id_hour_idx" ON "interaction_hour_totals"("clinic_id", "hour");

-- =================================================================================================
-- Hand-written from here on. Levels under the UTC day, for analytics in a local time zone
-- (src/rollups/zoned.ts). A local day, week or month starts at an instant that is rarely a UTC
-- midnight, so a bucket's sums are read as differences of running totals at its edges: the running
-- total at an edge t is the UTC days before t's UTC day (interaction_days), plus the sums from that
-- midnight up to the quarter hour at or before t (ONE row of interaction_day_prefixes, found by its
-- quarter of the day: a year of local days in one offset is one range of the (slot, until) index), plus the raw
-- rows of the last partial quarter (only for offsets that are not multiples of 15 minutes: local
-- mean time before a zone's standard time). A year of local days in any zone thus reads 365 day rows
-- and one prefix row per day, whatever the table's size.
--   interaction_hours: per UTC hour (all clinics), the buckets of an hourly series;
--   interaction_hour_totals: per UTC hour, clinic, channel, type and direction, the same edges for
--     queries restricted to clinics, a channel or a type (raw rows below the hour there).
--
-- Kept exact in the same transaction as every write, by statement triggers like the other levels
-- (transition tables; keys upserted in key order so concurrent writers take row locks in the same
-- order; rows whose counts fall to 0 are kept, as a key that comes back is likely). A write to a
-- quarter changes the prefixes of every later quarter of its UTC day: up to 95 rows for a single
-- insert, at most 95 per UTC day a statement touches. TRUNCATE empties them;
-- interaction_rollups_rebuild() recomputes them with the others.
--
-- Buckets are date_bin() of started_at on a UTC origin: arithmetic on the instant, independent of
-- the session's TimeZone (date_trunc on a timestamptz is not).
-- =================================================================================================

CREATE FUNCTION "interaction_fine_levels_apply"() RETURNS trigger
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
    quarters AS (
      SELECT "quarter", sum("n") AS "n",
             coalesce(sum("n") FILTER (WHERE "channel" = 'voice'), 0) AS "calls",
             coalesce(sum("n") FILTER (WHERE "channel" = 'whatsapp'), 0) AS "conversations",
             coalesce(sum("n") FILTER (WHERE "direction" = 'inbound'), 0) AS "inbound",
             coalesce(sum("n") FILTER (WHERE "direction" = 'outbound'), 0) AS "outbound",
             sum("with_outcome") AS "with_outcome", sum("successful") AS "successful", sum("booked") AS "booked",
             sum("timed") AS "timed", sum("duration") AS "duration"
      FROM delta
      GROUP BY 1
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
    hours AS (
      INSERT INTO "interaction_hours" AS r
        ("hour", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT date_bin('1 hour', "quarter", TIMESTAMPTZ '2000-01-01 00:00:00+00'), sum("n"), sum("calls"), sum("conversations"),
             sum("inbound"), sum("outbound"), sum("with_outcome"), sum("successful"), sum("booked"), sum("timed"), sum("duration")
      FROM quarters
      GROUP BY 1
      ORDER BY 1
      ON CONFLICT ("hour") DO UPDATE
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
    ),
    -- The prefixes a quarter's change moves: every later quarter boundary of its UTC day. Each
    -- changed day's 95 boundaries, with the running sum of that day's quarter deltas before them.
    prefixes AS (
      SELECT b."until", b."slot",
             sum(coalesce(q."n", 0)) OVER w AS "n",
             sum(coalesce(q."calls", 0)) OVER w AS "calls",
             sum(coalesce(q."conversations", 0)) OVER w AS "conversations",
             sum(coalesce(q."inbound", 0)) OVER w AS "inbound",
             sum(coalesce(q."outbound", 0)) OVER w AS "outbound",
             sum(coalesce(q."with_outcome", 0)) OVER w AS "with_outcome",
             sum(coalesce(q."successful", 0)) OVER w AS "successful",
             sum(coalesce(q."booked", 0)) OVER w AS "booked",
             sum(coalesce(q."timed", 0)) OVER w AS "timed",
             sum(coalesce(q."duration", 0)) OVER w AS "duration"
      FROM (SELECT DISTINCT date_bin('24 hours', "quarter", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS "day" FROM quarters) AS d
      CROSS JOIN LATERAL generate_series(d."day" + interval '15 minutes', d."day" + interval '1425 minutes', interval '15 minutes')
        WITH ORDINALITY AS b("until", "slot")
      LEFT JOIN quarters AS q ON q."quarter" = b."until" - interval '15 minutes'
      WINDOW w AS (PARTITION BY d."day" ORDER BY b."until")
    )
    INSERT INTO "interaction_day_prefixes" AS r
      ("until", "slot", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
    SELECT "until", "slot", "n", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed", "duration"
    FROM prefixes
    WHERE "n" <> 0 OR "with_outcome" <> 0 OR "successful" <> 0 OR "booked" <> 0 OR "timed" <> 0 OR "duration" <> 0
       OR "calls" <> 0 OR "inbound" <> 0
    ORDER BY 1
    ON CONFLICT ("until") DO UPDATE
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

CREATE FUNCTION "interaction_fine_levels_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_hour_totals", "interaction_hours", "interaction_day_prefixes";
  RETURN NULL;
END
$function$;

CREATE FUNCTION "interaction_fine_levels_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  written bigint := 0;
  level_rows bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_hour_totals";
  DELETE FROM "interaction_hours";
  DELETE FROM "interaction_day_prefixes";

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
  written := written + level_rows;

  INSERT INTO "interaction_hours"
    ("hour", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT "hour", sum("interactions"),
         coalesce(sum("interactions") FILTER (WHERE "channel" = 'voice'), 0),
         coalesce(sum("interactions") FILTER (WHERE "channel" = 'whatsapp'), 0),
         coalesce(sum("interactions") FILTER (WHERE "direction" = 'inbound'), 0),
         coalesce(sum("interactions") FILTER (WHERE "direction" = 'outbound'), 0),
         sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_hour_totals"
  GROUP BY 1;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  -- Running sums within each UTC day of the quarters' sums, at every quarter boundary after the
  -- day's first quarter with interactions.
  INSERT INTO "interaction_day_prefixes"
    ("until", "slot", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT "until", "slot", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum"
  FROM (
    SELECT b."until", b."slot",
           sum(coalesce(q."interactions", 0)) OVER w AS "interactions",
           sum(coalesce(q."calls", 0)) OVER w AS "calls",
           sum(coalesce(q."conversations", 0)) OVER w AS "conversations",
           sum(coalesce(q."inbound", 0)) OVER w AS "inbound",
           sum(coalesce(q."outbound", 0)) OVER w AS "outbound",
           sum(coalesce(q."with_outcome", 0)) OVER w AS "with_outcome",
           sum(coalesce(q."successful", 0)) OVER w AS "successful",
           sum(coalesce(q."booked", 0)) OVER w AS "booked",
           sum(coalesce(q."timed_calls", 0)) OVER w AS "timed_calls",
           sum(coalesce(q."duration_sum", 0)) OVER w AS "duration_sum"
    FROM (SELECT DISTINCT date_bin('24 hours', "hour", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS "day" FROM "interaction_hours") AS d
    CROSS JOIN LATERAL generate_series(d."day" + interval '15 minutes', d."day" + interval '1425 minutes', interval '15 minutes')
      WITH ORDINALITY AS b("until", "slot")
    LEFT JOIN (
      SELECT date_bin('15 minutes', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS "quarter", count(*) AS "interactions",
             count(*) FILTER (WHERE "channel" = 'voice') AS "calls",
             count(*) FILTER (WHERE "channel" = 'whatsapp') AS "conversations",
             count(*) FILTER (WHERE "direction" = 'inbound') AS "inbound",
             count(*) FILTER (WHERE "direction" = 'outbound') AS "outbound",
             count(*) FILTER (WHERE "outcome" IS NOT NULL) AS "with_outcome",
             count(*) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')) AS "successful",
             count(*) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED') AS "booked",
             count(*) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL) AS "timed_calls",
             coalesce(sum("duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) AS "duration_sum"
      FROM "interactions"
      GROUP BY 1
    ) AS q ON q."quarter" = b."until" - interval '15 minutes'
    WINDOW w AS (PARTITION BY d."day" ORDER BY b."until")
  ) AS running
  WHERE "interactions" <> 0;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  RETURN written + level_rows;
END
$function$;

-- What operators run after writes with the triggers disabled: now these levels too.
CREATE OR REPLACE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  RETURN "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"() + "interaction_phones_rebuild"()
    + "interaction_phone_fragments_rebuild"() + "interaction_fine_levels_rebuild"();
END
$function$;

CREATE TRIGGER "interaction_fine_levels_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_fine_levels_apply"();
CREATE TRIGGER "interaction_fine_levels_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_fine_levels_apply"();
CREATE TRIGGER "interaction_fine_levels_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_fine_levels_apply"();
CREATE TRIGGER "interaction_fine_levels_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_fine_levels_after_truncate"();

-- Backfill in the same transaction as the triggers (the migration runs as one script): CREATE
-- TRIGGER has locked writers out, so no write falls between the backfill and the triggers.
SELECT "interaction_fine_levels_rebuild"();
ANALYZE "interaction_hours";
ANALYZE "interaction_day_prefixes";
ANALYZE "interaction_hour_totals";
