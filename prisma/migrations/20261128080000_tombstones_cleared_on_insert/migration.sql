-- Written by hand: an interaction stored again loses its tombstone.
--
-- A mirroring client applies the change feed, then deletes the ids tombstoned since its last sync.
-- A tombstone that outlived the id's return (purge, then the same ids imported again) made it delete
-- rows the API still served, at every later sync. Now a tombstone lists only an id that is gone: the
-- statement that stores the id again deletes its tombstone, in the writer's transaction (so a reader
-- sees both changes or neither, and the feed's horizon holds the tombstone back while the writer is
-- open). The row itself is stamped updated_at by that later statement, so the feed lists it after
-- the tombstone a mirror may already have applied, and the mirror gets it back. A statement trigger
-- fires for every way rows arrive: INSERT, the importer's upsert (its INSERT transition table holds
-- the rows inserted, not those updated) and COPY.
--
-- The ids are looked up one by one in the primary key (`= ANY(ARRAY(...))`): the cost follows the
-- statement's rows, never the tombstones', which only grow. A join let the planner hash every
-- tombstone for each statement (25 ms per 2,000-row import batch at 100,000 tombstones, against
-- 4 ms by the index; and a semi-join's de-duplication of 500,000 ids spilled to disk).
CREATE FUNCTION "interaction_tombstones_on_insert"() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $function$
BEGIN
  DELETE FROM "interaction_tombstones" WHERE "id" = ANY (ARRAY(SELECT n."id" FROM new_rows n));
  RETURN NULL;
END
$function$;

-- Ids already stored again before this migration: their tombstones go, and the rows are stamped
-- now, so that the feed lists them to every mirror that deleted them. clock_timestamp(), not
-- statement_timestamp(): this file may reach the server as one message, received before the
-- transaction held an id (change-feed.ts); the function above has written the catalog by now.
WITH "cleared" AS (
  DELETE FROM "interaction_tombstones" t USING "interactions" i WHERE i."id" = t."id" RETURNING t."id"
)
UPDATE "interactions" i SET "updated_at" = clock_timestamp() FROM "cleared" c WHERE i."id" = c."id";

CREATE TRIGGER "interaction_tombstones_insert" AFTER INSERT ON "interactions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "interaction_tombstones_on_insert"();
