-- CreateIndex
CREATE INDEX "interaction_month_outcomes_clinic_id_channel_type_outcome_m_idx" ON "interaction_month_outcomes"("clinic_id", "channel", "type", "outcome", "month");
