-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "btree_gin";

-- DropIndex
DROP INDEX "interaction_search_documents_document_idx";

-- CreateIndex
CREATE INDEX "interaction_search_documents_clinic_id_document_idx" ON "interaction_search_documents" USING GIN ("clinic_id" uuid_ops, "document");
