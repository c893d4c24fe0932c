-- daily rollups: The finest exact counts per UTC day: what every daily level and the rates are summed from.
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_daily_rollups_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  INSERT INTO "interaction_daily_rollups" AS r
    ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
  SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction", coalesce("outcome", ''),
         count(*),
         count("duration_seconds") FILTER (WHERE "channel" = 'voice'),
         coalesce(sum("duration_seconds") FILTER (WHERE "channel" = 'voice'), 0)
  FROM new_rows
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("day", "clinic_id", "channel", "type", "direction", "outcome") DO UPDATE
  SET "interactions" = r."interactions" + EXCLUDED."interactions",
      "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
      "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_daily_rollups_after_update()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  days date[];
  clinics uuid[];
  channels "Channel"[];
  types "InteractionType"[];
  directions "Direction"[];
  outcomes text[];
BEGIN
  WITH applied AS (
    INSERT INTO "interaction_daily_rollups" AS r
      ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
    SELECT "day", "clinic_id", "channel", "type", "direction", "outcome", sum("n"), sum("timed"), sum("duration")::bigint
    FROM (
      SELECT ("started_at" AT TIME ZONE 'UTC')::date AS "day", "clinic_id", "channel", "type", "direction",
             coalesce("outcome", '') AS "outcome", 1 AS "n",
             ("channel" = 'voice' AND "duration_seconds" IS NOT NULL)::int AS "timed",
             CASE WHEN "channel" = 'voice' THEN coalesce("duration_seconds", 0) ELSE 0 END::bigint AS "duration"
      FROM new_rows
      UNION ALL
      SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction",
             coalesce("outcome", ''), -1,
             -("channel" = 'voice' AND "duration_seconds" IS NOT NULL)::int,
             -(CASE WHEN "channel" = 'voice' THEN coalesce("duration_seconds", 0) ELSE 0 END::bigint)
      FROM old_rows
    ) AS delta
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING sum("n") <> 0 OR sum("timed") <> 0 OR sum("duration") <> 0
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("day", "clinic_id", "channel", "type", "direction", "outcome") DO UPDATE
    SET "interactions" = r."interactions" + EXCLUDED."interactions",
        "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
        "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    RETURNING r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome", r."interactions"
  )
  SELECT array_agg("day"), array_agg("clinic_id"), array_agg("channel"), array_agg("type"), array_agg("direction"), array_agg("outcome")
  INTO days, clinics, channels, types, directions, outcomes
  FROM applied WHERE "interactions" = 0;

  IF days IS NOT NULL THEN
    DELETE FROM "interaction_daily_rollups" AS r
    USING unnest(days, clinics, channels, types, directions, outcomes) AS z("day", "clinic_id", "channel", "type", "direction", "outcome")
    WHERE (r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome")
        = (z."day", z."clinic_id", z."channel", z."type", z."direction", z."outcome")
      AND r."interactions" = 0;
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_daily_rollups_after_delete()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  days date[];
  clinics uuid[];
  channels "Channel"[];
  types "InteractionType"[];
  directions "Direction"[];
  outcomes text[];
BEGIN
  WITH applied AS (
    INSERT INTO "interaction_daily_rollups" AS r
      ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
    SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction", coalesce("outcome", ''),
           -count(*),
           -count("duration_seconds") FILTER (WHERE "channel" = 'voice'),
           -coalesce(sum("duration_seconds") FILTER (WHERE "channel" = 'voice'), 0)
    FROM old_rows
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("day", "clinic_id", "channel", "type", "direction", "outcome") DO UPDATE
    SET "interactions" = r."interactions" + EXCLUDED."interactions",
        "timed_calls"  = r."timed_calls" + EXCLUDED."timed_calls",
        "duration_sum" = r."duration_sum" + EXCLUDED."duration_sum"
    RETURNING r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome", r."interactions"
  )
  SELECT array_agg("day"), array_agg("clinic_id"), array_agg("channel"), array_agg("type"), array_agg("direction"), array_agg("outcome")
  INTO days, clinics, channels, types, directions, outcomes
  FROM applied WHERE "interactions" = 0;

  IF days IS NOT NULL THEN
    DELETE FROM "interaction_daily_rollups" AS r
    USING unnest(days, clinics, channels, types, directions, outcomes) AS z("day", "clinic_id", "channel", "type", "direction", "outcome")
    WHERE (r."day", r."clinic_id", r."channel", r."type", r."direction", r."outcome")
        = (z."day", z."clinic_id", z."channel", z."type", z."direction", z."outcome")
      AND r."interactions" = 0;
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_daily_rollups_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
BEGIN
  TRUNCATE "interaction_daily_rollups";
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION interaction_daily_rollups_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
DECLARE
  written bigint;
BEGIN
  LOCK TABLE "interactions" IN SHARE MODE;
  DELETE FROM "interaction_daily_rollups";
  INSERT INTO "interaction_daily_rollups"
    ("day", "clinic_id", "channel", "type", "direction", "outcome", "interactions", "timed_calls", "duration_sum")
  SELECT ("started_at" AT TIME ZONE 'UTC')::date, "clinic_id", "channel", "type", "direction", coalesce("outcome", ''),
         count(*),
         count("duration_seconds") FILTER (WHERE "channel" = 'voice'),
         coalesce(sum("duration_seconds") FILTER (WHERE "channel" = 'voice'), 0)
  FROM "interactions"
  GROUP BY 1, 2, 3, 4, 5, 6;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END
$function$;

CREATE OR REPLACE TRIGGER interaction_daily_rollups_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_daily_rollups_after_insert();

CREATE OR REPLACE TRIGGER interaction_daily_rollups_update AFTER UPDATE ON interactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_daily_rollups_after_update();

CREATE OR REPLACE TRIGGER interaction_daily_rollups_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION interaction_daily_rollups_after_delete();

CREATE OR REPLACE TRIGGER interaction_daily_rollups_truncate AFTER TRUNCATE ON interactions FOR EACH STATEMENT EXECUTE FUNCTION interaction_daily_rollups_after_truncate();
