-- campaign and duration levels: Breakdowns by campaign and outcome, and the histogram of voice-call durations (/metrics/durations).
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_dimension_levels_apply()
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
    WITH changed AS MATERIALIZED (%s),
    delta AS (
      SELECT ("started_at" AT TIME ZONE 'UTC')::date AS "day", "clinic_id", coalesce("campaign_id", '') AS "campaign_id",
             "channel", "type", "direction", coalesce("outcome", '') AS "outcome",
             sum(sign) AS "n",
             coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) AS "timed",
             coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) AS "duration"
      FROM changed
      GROUP BY 1, 2, 3, 4, 5, 6, 7
      HAVING sum(sign) <> 0
          OR coalesce(sum(sign) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL), 0) <> 0
          OR coalesce(sum(sign * "duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0) <> 0
    ),
    calls AS (
      SELECT ("started_at" AT TIME ZONE 'UTC')::date AS "day", "clinic_id", coalesce("campaign_id", '') AS "campaign_id", "type",
             interaction_duration_bucket("duration_seconds") AS "bucket", sum(sign) AS "n"
      FROM changed
      WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5
      HAVING sum(sign) <> 0
    ),
    campaign_days AS (
      INSERT INTO "interaction_campaign_days" AS r
        ("day", "clinic_id", "campaign_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
      SELECT "day", "clinic_id", "campaign_id", "channel", "type", "direction", "outcome", "n", "timed", "duration"
      FROM delta
      ORDER BY 1, 2, 3, 4, 5, 6, 7
      ON CONFLICT ("day", "clinic_id", "campaign_id", "channel", "type", "direction", "outcome") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    ),
    campaign_months AS (
      INSERT INTO "interaction_campaign_months" AS r
        ("month", "clinic_id", "campaign_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
      SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "campaign_id", "channel", "type", "direction", "outcome",
             sum("n"), sum("timed"), sum("duration")
      FROM delta
      GROUP BY 1, 2, 3, 4, 5, 6, 7
      ORDER BY 1, 2, 3, 4, 5, 6, 7
      ON CONFLICT ("month", "clinic_id", "campaign_id", "channel", "type", "direction", "outcome") DO UPDATE
      SET "interactions" = r."interactions" + EXCLUDED."interactions",
          "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
          "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    ),
    duration_days AS (
      INSERT INTO "interaction_duration_days" AS r ("day", "clinic_id", "campaign_id", "type", "bucket", "calls")
      SELECT "day", "clinic_id", "campaign_id", "type", "bucket", "n"
      FROM calls
      ORDER BY "clinic_id", "day", "campaign_id", "type", "bucket"
      ON CONFLICT ("clinic_id", "day", "campaign_id", "type", "bucket") DO UPDATE SET "calls" = r."calls" + EXCLUDED."calls"
    ),
    duration_months AS (
      INSERT INTO "interaction_duration_months" AS r ("month", "clinic_id", "campaign_id", "type", "bucket", "calls")
      SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "campaign_id", "type", "bucket", sum("n")
      FROM calls
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 2, 1, 3, 4, 5
      ON CONFLICT ("clinic_id", "month", "campaign_id", "type", "bucket") DO UPDATE SET "calls" = r."calls" + EXCLUDED."calls"
    ),
    duration_days_all AS (
      INSERT INTO "interaction_duration_days_all_clinics" AS r ("day", "type", "bucket", "calls")
      SELECT "day", "type", "bucket", sum("n")
      FROM calls
      GROUP BY 1, 2, 3
      ORDER BY 1, 2, 3
      ON CONFLICT ("day", "type", "bucket") DO UPDATE SET "calls" = r."calls" + EXCLUDED."calls"
    )
    INSERT INTO "interaction_duration_months_all_clinics" AS r ("month", "type", "bucket", "calls")
    SELECT date_trunc('month', "day"::timestamp)::date, "type", "bucket", sum("n")
    FROM calls
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
    ON CONFLICT ("month", "type", "bucket") DO UPDATE SET "calls" = r."calls" + EXCLUDED."calls"
  $sql$, changed);
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_dimension_levels_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  TRUNCATE "interaction_campaign_days", "interaction_campaign_months", "interaction_duration_days", "interaction_duration_months",
    "interaction_duration_days_all_clinics", "interaction_duration_months_all_clinics";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_dimension_levels_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  written bigint := 0;
  level_rows bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_campaign_days";
  DELETE FROM "interaction_campaign_months";
  DELETE FROM "interaction_duration_days";
  DELETE FROM "interaction_duration_months";
  DELETE FROM "interaction_duration_days_all_clinics";
  DELETE FROM "interaction_duration_months_all_clinics";

  INSERT INTO "interaction_campaign_days"
    ("day", "clinic_id", "campaign_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
  SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", coalesce("campaign_id", ''), "channel", "type", "direction", coalesce("outcome", ''),
         count(*),
         count(*) FILTER (WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL),
         coalesce(sum("duration_seconds"::bigint) FILTER (WHERE "channel" = 'voice'), 0)
  FROM "interactions"
  GROUP BY 1, 2, 3, 4, 5, 6, 7;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_campaign_months"
    ("month", "clinic_id", "campaign_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
  SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "campaign_id", "channel", "type", "direction", "outcome",
         sum("interactions"), sum("timed_calls"), sum("duration_sum")
  FROM "interaction_campaign_days"
  GROUP BY 1, 2, 3, 4, 5, 6, 7;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_duration_days" ("day", "clinic_id", "campaign_id", "type", "bucket", "calls")
  SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", coalesce("campaign_id", ''), "type", interaction_duration_bucket("duration_seconds"), count(*)
  FROM "interactions"
  WHERE "channel" = 'voice' AND "duration_seconds" IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_duration_months" ("month", "clinic_id", "campaign_id", "type", "bucket", "calls")
  SELECT date_trunc('month', "day"::timestamp)::date, "clinic_id", "campaign_id", "type", "bucket", sum("calls")
  FROM "interaction_duration_days"
  GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_duration_days_all_clinics" ("day", "type", "bucket", "calls")
  SELECT "day", "type", "bucket", sum("calls")
  FROM "interaction_duration_days"
  GROUP BY 1, 2, 3;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  written := written + level_rows;

  INSERT INTO "interaction_duration_months_all_clinics" ("month", "type", "bucket", "calls")
  SELECT "month", "type", "bucket", sum("calls")
  FROM "interaction_duration_months"
  GROUP BY 1, 2, 3;
  GET DIAGNOSTICS level_rows = ROW_COUNT;
  RETURN written + level_rows;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_duration_bucket(seconds integer)
 RETURNS smallint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT (CASE WHEN seconds < 600 THEN seconds / 10 WHEN seconds < 3600 THEN 60 + (seconds - 600) / 60 ELSE 110 END)::smallint
$function$;

CREATE OR REPLACE TRIGGER interaction_dimension_levels_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_dimension_levels_apply();

CREATE OR REPLACE TRIGGER interaction_dimension_levels_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_dimension_levels_apply();

CREATE OR REPLACE TRIGGER interaction_dimension_levels_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_dimension_levels_apply();

CREATE OR REPLACE TRIGGER interaction_dimension_levels_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_dimension_levels_after_truncate();
