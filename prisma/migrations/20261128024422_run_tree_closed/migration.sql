-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "tree_closed_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "agent_runs" ADD COLUMN     "tree_closed_at" TIMESTAMPTZ(3);

