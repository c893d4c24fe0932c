-- CreateTable
CREATE TABLE "interaction_campaign_days" (
    "day" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "outcome" TEXT NOT NULL,
    "interactions" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_campaign_days_pkey" PRIMARY KEY ("day","clinic_id","campaign_id","channel","type","direction","outcome")
);

-- CreateTable
CREATE TABLE "interaction_campaign_months" (
    "month" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "outcome" TEXT NOT NULL,
    "interactions" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_sum" BIGINT NOT NULL,

    CONSTRAINT "interaction_campaign_months_pkey" PRIMARY KEY ("month","clinic_id","campaign_id","channel","type","direction","outcome")
);

-- CreateTable
CREATE TABLE "interaction_duration_days" (
    "day" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "type" "InteractionType" NOT NULL,
    "bucket" SMALLINT NOT NULL,
    "calls" BIGINT NOT NULL,

    CONSTRAINT "interaction_duration_days_pkey" PRIMARY KEY ("clinic_id","day","campaign_id","type","bucket")
);

-- CreateTable
CREATE TABLE "interaction_duration_months" (
    "month" DATE NOT NULL,
    "clinic_id" UUID NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "type" "InteractionType" NOT NULL,
    "bucket" SMALLINT NOT NULL,
    "calls" BIGINT NOT NULL,

    CONSTRAINT "interaction_duration_months_pkey" PRIMARY KEY ("clinic_id","month","campaign_id","type","bucket")
);

-- CreateTable
CREATE TABLE "interaction_duration_days_all_clinics" (
    "day" DATE NOT NULL,
    "type" "InteractionType" NOT NULL,
    "bucket" SMALLINT NOT NULL,
    "calls" BIGINT NOT NULL,

    CONSTRAINT "interaction_duration_days_all_clinics_pkey" PRIMARY KEY ("day","type","bucket")
);

-- CreateTable
CREATE TABLE "interaction_duration_months_all_clinics" (
    "month" DATE NOT NULL,
    "type" "InteractionType" NOT NULL,
    "bucket" SMALLINT NOT NULL,
    "calls" BIGINT NOT NULL,

    CONSTRAINT "interaction_duration_months_all_clinics_pkey" PRIMARY KEY ("month","type","bucket")
);

-- CreateIndex
CREATE INDEX "interaction_campaign_days_clinic_id_day_idx" ON "interaction_campaign_days"("clinic_id", "day");

-- CreateIndex
CREATE INDEX "interaction_campaign_days_campaign_id_day_idx" ON "interaction_campaign_days"("campaign_id", "day");

-- CreateIndex
CREATE INDEX "interaction_campaign_months_clinic_id_month_idx" ON "interaction_campaign_months"("clinic_id", "month");

-- CreateIndex
CREATE INDEX "interaction_campaign_months_campaign_id_month_idx" ON "interaction_campaign_months"("campaign_id", "month");

-- CreateIndex
CREATE INDEX "interaction_duration_days_campaign_id_day_idx" ON "interaction_duration_days"("campaign_id", "day");

-- CreateIndex
CREATE INDEX "interaction_duration_months_campaign_id_month_idx" ON "interaction_duration_months"("campaign_id", "month");

-- =================================================================================================
-- Hand-written from here on. Two families of levels, kept exact in the same transaction as every
-- write by statement triggers on "interactions" like the other levels (transition tables; keys
-- upserted in key order so concurrent writers take row locks in the same order; rows whose counts
-- fall to 0 are kept; TRUNCATE empties them; interaction_rollups_rebuild() recomputes them):
--
--   interaction_campaign_days / _months: the outcome grain of interaction_daily_rollups with the
--     campaign as one more key ('' for none). Breakdowns by campaign and every metric filtered by a
--     campaign read them (src/rollups/counted.ts).
--   interaction_duration_days / _months (+ _all_clinics twins): a histogram of voice-call
--     durations, calls per (clinic, campaign, type, bucket), for the percentiles and histogram of
--     /metrics/durations (src/analytics/durations.ts). Bucket widths: interaction_duration_bucket().
-- =================================================================================================

-- '' is the levels' "no campaign": an interaction's campaign may be NULL but never ''.
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_campaign_not_empty" CHECK ("campaign_id" <> '');
-- A duration is a length of time: the histogram has no bucket below 0 (the importer refuses them too).
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_duration_not_negative" CHECK ("duration_seconds" >= 0);

-- 10-second buckets below 10 minutes (0-59), minute buckets below an hour (60-109), then one open
-- bucket (110). src/analytics/durations.ts holds the same bounds (a test compares them).
CREATE FUNCTION "interaction_duration_bucket"(seconds integer) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$
  SELECT (CASE WHEN seconds < 600 THEN seconds / 10 WHEN seconds < 3600 THEN 60 + (seconds - 600) / 60 ELSE 110 END)::smallint
$function$;

-- The calls of the open bucket are read from the raw table when a percentile falls among them:
-- rare rows, so a small index.
CREATE INDEX "interactions_long_calls_idx" ON "interactions" ("started_at") WHERE "channel" = 'voice' AND "duration_seconds" >= 3600;

CREATE FUNCTION "interaction_dimension_levels_apply"() RETURNS trigger
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

CREATE FUNCTION "interaction_dimension_levels_after_truncate"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  TRUNCATE "interaction_campaign_days", "interaction_campaign_months", "interaction_duration_days", "interaction_duration_months",
    "interaction_duration_days_all_clinics", "interaction_duration_months_all_clinics";
  RETURN NULL;
END
$function$;

CREATE FUNCTION "interaction_dimension_levels_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
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

-- What operators run after writes with the triggers disabled: now these levels too.
CREATE OR REPLACE FUNCTION "interaction_rollups_rebuild"() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  RETURN "interaction_daily_rollups_rebuild"() + "interaction_rollup_levels_rebuild"() + "interaction_phones_rebuild"()
    + "interaction_phone_fragments_rebuild"() + "interaction_fine_levels_rebuild"() + "interaction_dimension_levels_rebuild"();
END
$function$;

CREATE TRIGGER "interaction_dimension_levels_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_dimension_levels_apply"();
CREATE TRIGGER "interaction_dimension_levels_update" AFTER UPDATE ON "interactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_dimension_levels_apply"();
CREATE TRIGGER "interaction_dimension_levels_delete" AFTER DELETE ON "interactions"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_dimension_levels_apply"();
CREATE TRIGGER "interaction_dimension_levels_truncate" AFTER TRUNCATE ON "interactions"
  FOR EACH STATEMENT EXECUTE FUNCTION "interaction_dimension_levels_after_truncate"();

-- Backfill in the same transaction as the triggers (the migration runs as one script).
SELECT "interaction_dimension_levels_rebuild"();
ANALYZE "interaction_campaign_days";
ANALYZE "interaction_campaign_months";
ANALYZE "interaction_duration_days";
ANALYZE "interaction_duration_months";
ANALYZE "interaction_duration_days_all_clinics";
ANALYZE "interaction_duration_months_all_clinics";
