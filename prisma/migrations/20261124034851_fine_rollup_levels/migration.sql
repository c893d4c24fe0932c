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
CREATE TABLE "interaction_quarters" (
    "quarter" TIMESTAMPTZ(0) NOT NULL,
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

    CONSTRAINT "interaction_quarters_pkey" PRIMARY KEY ("quarter")
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
CREATE INDEX "interaction_hour_totals_clinic_id_hour_idx" ON "interaction_hour_totals"("clinic_id", "hour");

-- =================================================================================================
-- Hand-written from here on. Levels under the UTC day, for analytics in a local time zone: a local
-- day, week or month starts at a UTC instant that is rarely a UTC midnight, so a zoned series reads
-- its UTC days from the daily levels and corrects each edge by the hours (and, for offsets that are
-- not whole hours, the quarter hours) between the edge and the nearest UTC midnight
-- (src/rollups/zoned.ts). Every offset in use today is a multiple of 15 minutes.
--
-- Kept exact in the same transaction as every write, by statement triggers like the other levels
-- (transition tables; keys upserted in key order so concurrent writers take row locks in the same
-- order; rows whose counts fall to 0 are kept, as a key that comes back is likely). TRUNCATE empties
-- them; interaction_rollups_rebuild() recomputes them with the others.
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
      SELECT date_bin('1 hour', "quarter", TIMESTAMPTZ '2000-01-01 00:00:00+00'), sum("n"),
             coalesce(sum("n") FILTER (WHERE "channel" = 'voice'), 0),
             coalesce(sum("n") FILTER (WHERE "channel" = 'whatsapp'), 0),
             coalesce(sum("n") FILTER (WHERE "direction" = 'inbound'), 0),
             coalesce(sum("n") FILTER (WHERE "direction" = 'outbound'), 0),
             sum("with_outcome"), sum("successful"), sum("booked"), sum("timed"), sum("duration")
      FROM delta
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

CREATE FUNCTION "interaction_fine_levels_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_hour_totals", "interaction_hours", "interaction_quarters";
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

  INSERT INTO "interaction_hours"
    ("hour", "interactions", "calls", "conversations", "inbound", "outbound", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT date_bin('1 hour', "quarter", TIMESTAMPTZ '2000-01-01 00:00:00+00'), sum("interactions"), sum("calls"), sum("conversations"),
         sum("inbound"), sum("outbound"), sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_quarters"
  GROUP BY 1;
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
ANALYZE "interaction_quarters";
ANALYZE "interaction_hour_totals";
