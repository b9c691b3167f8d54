-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "rerun" JSONB,
ADD COLUMN     "rerun_from_node" TEXT,
ADD COLUMN     "rerun_of" TEXT;


-- CreateIndex
CREATE INDEX "runs_rerun_of_status_idx" ON "runs"("rerun_of", "status");
