-- CreateTable
CREATE TABLE "interaction_quarter_totals" (
    "quarter" TIMESTAMPTZ(0) NOT NULL,
    "clinic_id" UUID NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "interactions" BIGINT NOT NULL,
    "with_outcome" BIGINT NOT NULL,
    "successful" BIGINT NOT NULL,
    "booked" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_quarter_totals_pkey" PRIMARY KEY ("quarter","clinic_id","campaign_id","channel","type","direction")
);

-- CreateIndex
CREATE INDEX "interaction_quarter_totals_campaign_id_quarter_idx" ON "interaction_quarter_totals"("campaign_id", "quarter");

-- =================================================================================================
-- Hand-written from here on. interaction_quarter_totals: the totals grain (clinic, campaign, channel,
-- type, direction) per UTC quarter hour. A series in a zone whose offset is not a whole number of
-- hours (Asia/Kathmandu +05:45, Asia/Kolkata +05:30, America/St_Johns -03:30, Australia/Adelaide,
-- Pacific/Chatham) has bucket edges at quarter hours; without this level a query restricted to
-- clinics, a channel, a type or a campaign read the part of each edge finer than an hour from the
-- raw table (a year of hours in Kathmandu with channel=voice took 16 s at 100,000 interactions). A
-- campaign had no level under the UTC day at all, so its edges read up to 12 hours of raw rows in
-- any zone. src/rollups/zoned.ts reads it.
--
-- Its own statement triggers and functions (the other levels' functions are left as they are):
-- exact in the same transaction as every write, keys in key order, rows that fall to zero kept,
-- TRUNCATE empties it, interaction_quarter_totals_rebuild() recomputes it and
-- interaction_rollups_rebuild() calls that too. The campaign is a key ('' for none) rather than a
-- second table: one more upsert per written statement instead of two.
-- =================================================================================================

CREATE OR REPLACE FUNCTION "interaction_quarter_totals_apply"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  columns constant text := 'started_at, clinic_id, campaign_id, channel, type, direction, outcome, duration_seconds';
  changed text;
BEGIN
  changed := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %s, 1 AS sign FROM new_rows', columns)
    WHEN 'DELETE' THEN format('SELECT %s, -1 AS sign FROM old_rows', columns)
    ELSE format('SELECT %1$s, 1 AS sign FROM new_rows UNION ALL SELECT %1$s, -1 FROM old_rows', columns)
  END;
  EXECUTE format($sql$
    INSERT INTO "interaction_quarter_totals" AS r
      ("quarter", "clinic_id", "campaign_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
    SELECT date_bin('15 minutes', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'),
           "clinic_id", coalesce("campaign_id", ''), "channel", "type", "direction",
           sum(sign),
           coalesce(sum(sign) FILTER (WHERE "outcome" IS NOT NULL), 0),
           coalesce(sum(sign) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0),
           coalesce(sum(sign) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0),
           coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0),
           coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0)
    FROM (%s) AS changed
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING sum(sign) <> 0
        OR coalesce(sum(sign) FILTER (WHERE "outcome" IS NOT NULL), 0) <> 0
        OR coalesce(sum(sign) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0) <> 0
        OR coalesce(sum(sign) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0) <> 0
        OR coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) <> 0
        OR coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("quarter", "clinic_id", "campaign_id", "channel", "type", "direction") DO UPDATE
    SET "interactions" = r."interactions" + EXCLUDED."interactions",
        "with_outcome" = r."with_outcome" + EXCLUDED."with_outcome",
        "successful"   = r."successful" + EXCLUDED."successful",
        "booked"       = r."booked" + EXCLUDED."booked",
        "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
        "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
  $sql$, changed);
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION "interaction_quarter_totals_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_quarter_totals";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION "interaction_quarter_totals_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  written bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_quarter_totals";
  INSERT INTO "interaction_quarter_totals"
    ("quarter", "clinic_id", "campaign_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT date_bin('15 minutes', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'),
         "clinic_id", coalesce("campaign_id", ''), "channel", "type", "direction", count(*),
         count(*) FILTER (WHERE "outcome" IS NOT NULL),
         count(*) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')),
         count(*) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'),
         count(*) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL),
         coalesce(sum("duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0)
  FROM "interactions"
  GROUP BY 1, 2, 3, 4, 5, 6
  -- In key order, so that a quarter hour's rows share heap pages: a year of hourly edges reads one
  -- quarter hour per edge, and rows in hash order cost one page read per row (5x slower at 1m).
  ORDER BY 1, 2, 3, 4, 5, 6;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END
$function$;

CREATE OR REPLACE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
DECLARE
  rebuilt bigint;
BEGIN
  rebuilt := "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"() + "interaction_phones_rebuild"()
    + "interaction_phone_fragments_rebuild"() + "interaction_fine_levels_rebuild"() + "interaction_dimension_levels_rebuild"()
    + "interaction_campaign_totals_rebuild"() + "interaction_quarter_totals_rebuild"();
  PERFORM "clinic_data_versions_bump_all"();
  RETURN rebuilt;
END
$function$;

CREATE TRIGGER "interaction_quarter_totals_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_quarter_totals_apply"();
CREATE TRIGGER "interaction_quarter_totals_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_quarter_totals_apply"();
CREATE TRIGGER "interaction_quarter_totals_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_quarter_totals_apply"();
CREATE TRIGGER "interaction_quarter_totals_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_quarter_totals_after_truncate"();

-- Backfill in the same transaction as the triggers (the migration runs as one script): CREATE
-- TRIGGER has locked writers out, so no write falls between the backfill and the triggers.
SELECT "interaction_quarter_totals_rebuild"();
ANALYZE "interaction_quarter_totals";
