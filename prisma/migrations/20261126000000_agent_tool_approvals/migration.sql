-- AlterTable
ALTER TABLE "agent_runs" ADD COLUMN     "approval_tools" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "waits" ADD COLUMN     "agent_run_id" TEXT,
ADD COLUMN     "tool_arguments" TEXT,
ADD COLUMN     "tool_name" TEXT,
ALTER COLUMN "run_id" DROP NOT NULL,
ALTER COLUMN "node_id" DROP NOT NULL;

-- A wait belongs to a flow run (a wait node's) or to an agent run (a tool call's approval), never both.
ALTER TABLE "waits" ADD CONSTRAINT "waits_one_owner" CHECK (("run_id" IS NULL) <> ("agent_run_id" IS NULL));

-- CreateIndex
CREATE INDEX "waits_agent_run_id_idx" ON "waits"("agent_run_id");

-- AddForeignKey
ALTER TABLE "waits" ADD CONSTRAINT "waits_agent_run_id_fkey" FOREIGN KEY ("agent_run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
