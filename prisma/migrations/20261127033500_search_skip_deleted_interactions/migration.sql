-- Written by hand: a transcript deleted with its interaction (the cascade of a purge) no longer
-- has its interaction's search document recomputed - the interaction's own delete trigger removes
-- the document. Measured on a purge of 1,000,000 interactions: about 5% of its time went to
-- recomputing documents of interactions already gone (bench/results/2026-11-27-purge.md).
CREATE OR REPLACE FUNCTION "interaction_search_on_transcripts"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM "interaction_search_refresh"(ARRAY(
      SELECT o."interaction_id" FROM old_rows o WHERE EXISTS (SELECT 1 FROM "interactions" i WHERE i."id" = o."interaction_id")));
  ELSE
    PERFORM "interaction_search_refresh"(ARRAY(SELECT n."interaction_id" FROM new_rows n));
  END IF;
  RETURN NULL;
END
$function$;
