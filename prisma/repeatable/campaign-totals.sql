-- campaign totals: Every metric filtered by a campaign, breakdowns by campaign and a Campaign's metrics.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_campaign_totals_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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
    WITH delta AS MATERIALIZED (
      SELECT ("started_at" AT TIME ZONE 'UTC')::date AS "day", "clinic_id", coalesce("campaign_id", '') AS "campaign_id",
             "channel", "type", "direction",
             sum(sign) AS "n",
             coalesce(sum(sign) FILTER (WHERE "outcome" IS NOT NULL), 0) AS "with_outcome",
             coalesce(sum(sign) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')), 0) AS "successful",
             coalesce(sum(sign) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'), 0) AS "booked",
             coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) AS "timed",
             coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) AS "duration"
      FROM (%s) AS changed
      GROUP BY 1, 2, 3, 4, 5, 6
    ),
    nonzero AS MATERIALIZED (
      SELECT * FROM delta
      WHERE "n" <> 0 OR "with_outcome" <> 0 OR "successful" <> 0 OR "booked" <> 0 OR "timed" <> 0 OR "duration" <> 0
    ),
    days AS (
      INSERT INTO "interaction_campaign_day_totals" AS r
        ("day", "clinic_id", "campaign_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
      SELECT "day", "clinic_id", "campaign_id", "channel", "type", "direction", "n", "with_outcome", "successful", "booked", "timed", "duration"
      FROM nonzero
      ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ("day", "clinic_id", "campaign_id", "channel", "type", "direction") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "with_outcome" = r."with_outcome" + EXCLUDED."with_outcome",
          "successful"   = r."successful" + EXCLUDED."successful",
          "booked"       = r."booked" + EXCLUDED."booked",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    )
    INSERT INTO "interaction_campaign_month_totals" AS r
      ("month", "clinic_id", "campaign_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
    SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "campaign_id", "channel", "type", "direction",
           sum("n"), sum("with_outcome"), sum("successful"), sum("booked"), sum("timed"), sum("duration")
    FROM nonzero
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("month", "clinic_id", "campaign_id", "channel", "type", "direction") DO UPDATE
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

CREATE OR REPLACE FUNCTION interaction_campaign_totals_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  TRUNCATE "interaction_campaign_day_totals", "interaction_campaign_month_totals";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_campaign_totals_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  day_rows bigint;
  month_rows bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_campaign_day_totals";
  DELETE FROM "interaction_campaign_month_totals";
  INSERT INTO "interaction_campaign_day_totals"
    ("day", "clinic_id", "campaign_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", coalesce("campaign_id", ''), "channel", "type", "direction",
         count(*),
         count(*) FILTER (WHERE "outcome" IS NOT NULL),
         count(*) FILTER (WHERE "outcome" IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')),
         count(*) FILTER (WHERE "outcome" = 'APPOINTMENT_BOOKED'),
         count(*) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL),
         coalesce(sum("duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0)
  FROM "interactions"
  GROUP BY 1, 2, 3, 4, 5, 6;
  GET DIAGNOSTICS day_rows = ROW_COUNT;
  INSERT INTO "interaction_campaign_month_totals"
    ("month", "clinic_id", "campaign_id", "channel", "type", "direction", "interactions", "with_outcome", "successful", "booked", "timed_calls", "duration_sum")
  SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "campaign_id", "channel", "type", "direction",
         sum("interactions"), sum("with_outcome"), sum("successful"), sum("booked"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_campaign_day_totals"
  GROUP BY 1, 2, 3, 4, 5, 6;
  GET DIAGNOSTICS month_rows = ROW_COUNT;
  RETURN day_rows + month_rows;
END
$function$;

CREATE OR REPLACE TRIGGER interaction_campaign_totals_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_campaign_totals_apply();

CREATE OR REPLACE TRIGGER interaction_campaign_totals_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_campaign_totals_apply();

CREATE OR REPLACE TRIGGER interaction_campaign_totals_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_campaign_totals_apply();

CREATE OR REPLACE TRIGGER interaction_campaign_totals_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_campaign_totals_after_truncate();
