-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateEnum
CREATE TYPE "Channel" AS ENUM ('voice', 'whatsapp');

-- CreateEnum
CREATE TYPE "InteractionType" AS ENUM ('INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK', 'APPOINTMENT_REMINDER');

-- CreateEnum
CREATE TYPE "Direction" AS ENUM ('inbound', 'outbound');

-- CreateEnum
CREATE TYPE "CampaignType" AS ENUM ('no_show_recovery', 'reactivation', 'appointment_reminder', 'follow_up', 'recall', 'custom');

-- CreateEnum
CREATE TYPE "CampaignChannel" AS ENUM ('voice', 'whatsapp', 'multi');

-- CreateEnum
CREATE TYPE "CampaignStatus" AS ENUM ('active', 'paused', 'completed');

-- CreateEnum
CREATE TYPE "KeyEnvironment" AS ENUM ('live', 'test');

-- CreateEnum
CREATE TYPE "KeyTier" AS ENUM ('standard', 'premium', 'unlimited');

-- CreateTable
CREATE TABLE "clinics" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "clinics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaigns" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "type" "CampaignType" NOT NULL,
    "channel" "CampaignChannel" NOT NULL,
    "status" "CampaignStatus" NOT NULL,
    "clinic_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settings" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "campaigns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "interactions" (
    "id" TEXT NOT NULL,
    "channel" "Channel" NOT NULL,
    "type" "InteractionType" NOT NULL,
    "direction" "Direction" NOT NULL,
    "phone_number" TEXT NOT NULL,
    "clinic_id" UUID NOT NULL,
    "campaign_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "duration_seconds" INTEGER,
    "outcome" TEXT,
    "summary" TEXT,
    "recording_url" TEXT,

    CONSTRAINT "interactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "interaction_transcripts" (
    "interaction_id" TEXT NOT NULL,
    "entries" JSONB NOT NULL,

    CONSTRAINT "interaction_transcripts_pkey" PRIMARY KEY ("interaction_id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "environment" "KeyEnvironment" NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "tier" "KeyTier" NOT NULL DEFAULT 'standard',
    "clinic_ids" UUID[],
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "clinics_name_id_idx" ON "clinics"("name", "id");

-- CreateIndex
CREATE INDEX "campaigns_created_at_id_idx" ON "campaigns"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "campaigns_clinic_id_created_at_id_idx" ON "campaigns"("clinic_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "campaigns_status_created_at_id_idx" ON "campaigns"("status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "campaigns_id_clinic_id_key" ON "campaigns"("id", "clinic_id");

-- CreateIndex
CREATE INDEX "interactions_started_at_id_idx" ON "interactions"("started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "interactions_clinic_id_started_at_id_idx" ON "interactions"("clinic_id", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "interactions_channel_type_started_at_id_idx" ON "interactions"("channel", "type", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "interactions_type_started_at_id_idx" ON "interactions"("type", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "interactions_outcome_started_at_id_idx" ON "interactions"("outcome", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "interactions_campaign_id_started_at_id_idx" ON "interactions"("campaign_id", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "interactions_phone_number_trgm_idx" ON "interactions" USING GIN ("phone_number" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- AddForeignKey
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_clinic_id_fkey" FOREIGN KEY ("clinic_id") REFERENCES "clinics"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_clinic_id_fkey" FOREIGN KEY ("clinic_id") REFERENCES "clinics"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_campaign_id_clinic_id_fkey" FOREIGN KEY ("campaign_id", "clinic_id") REFERENCES "campaigns"("id", "clinic_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "interaction_transcripts" ADD CONSTRAINT "interaction_transcripts_interaction_id_fkey" FOREIGN KEY ("interaction_id") REFERENCES "interactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
