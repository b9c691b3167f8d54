-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "run_tree_max_depth" INTEGER,
ADD COLUMN     "run_tree_max_runs" INTEGER;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "depth" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "in_error_flow" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "parent_agent_run_id" TEXT,
ADD COLUMN     "root_run_id" TEXT;

-- AlterTable
ALTER TABLE "agent_runs" ADD COLUMN     "depth" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "in_error_flow" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "root_run_id" TEXT;

-- CreateIndex
CREATE INDEX "runs_root_run_id_status_idx" ON "runs"("root_run_id", "status");

-- CreateIndex
CREATE INDEX "runs_parent_run_id_status_idx" ON "runs"("parent_run_id", "status");

-- CreateIndex
CREATE INDEX "agent_runs_root_run_id_status_idx" ON "agent_runs"("root_run_id", "status");


-- Runs of error flows start none of their own (core/runs/error-flows.ts).
UPDATE "runs" SET "in_error_flow" = true WHERE "trigger" = 'error_flow';
