-- A clinic's list filtered by channel and type, read in order (every list of a clinic-restricted key
-- carries its clinic). Without it such a page walked the (channel, type) index across every clinic's
-- rows: about 20 rows read per row kept for the bench's filtered clinic, over 10,000 for a small clinic
-- and a rare outcome at 10,000,000 rows.
--
-- Built inside the migration's transaction: writes to interactions wait while it builds (reads go
-- on), about half a minute at 10,000,000 rows on 2 cores. IF NOT EXISTS lets an operator build it
-- beforehand without blocking writes, then deploy:
--   CREATE INDEX CONCURRENTLY "interactions_clinic_id_channel_type_started_at_id_idx"
--     ON "interactions"("clinic_id", "channel", "type", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX IF NOT EXISTS "interactions_clinic_id_channel_type_started_at_id_idx" ON "interactions"("clinic_id", "channel", "type", "started_at" DESC, "id" DESC);
