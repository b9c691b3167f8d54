-- AlterTable
ALTER TABLE "operations" ADD COLUMN     "idempotency_key" TEXT,
ADD COLUMN     "request_fingerprint" TEXT,
ADD COLUMN     "task_queue" TEXT;

-- CreateIndex
CREATE INDEX "operations_status_created_at_idx" ON "operations"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "operations_workspace_id_idempotency_key_key" ON "operations"("workspace_id", "idempotency_key");

