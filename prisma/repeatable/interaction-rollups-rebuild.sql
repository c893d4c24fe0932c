-- interaction_rollups_rebuild: every structure above but the search documents and tombstones, in one call
--
-- The current text of its functions and triggers. The migration runner (src/db/migrate.ts) applies
-- this file after the versioned migrations whenever its checksum changes; edit it here, never in
-- a versioned migration. What the structure is: src/db/derived.ts and docs/architecture.md.

CREATE OR REPLACE FUNCTION interaction_rollups_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO '$user', 'public'
AS $function$
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
