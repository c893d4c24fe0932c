-- quarter totals: Quarter hours per clinic and campaign: the edges of a filtered or campaign's series in a time zone.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_quarter_totals_apply()
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

CREATE OR REPLACE FUNCTION interaction_quarter_totals_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  TRUNCATE "interaction_quarter_totals";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_quarter_totals_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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

CREATE OR REPLACE TRIGGER interaction_quarter_totals_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_quarter_totals_apply();

CREATE OR REPLACE TRIGGER interaction_quarter_totals_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_quarter_totals_apply();

CREATE OR REPLACE TRIGGER interaction_quarter_totals_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_quarter_totals_apply();

CREATE OR REPLACE TRIGGER interaction_quarter_totals_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_quarter_totals_after_truncate();
