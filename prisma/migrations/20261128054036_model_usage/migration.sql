-- AlterTable
ALTER TABLE "agent_runs" ADD COLUMN     "flow_id" TEXT,
ADD COLUMN     "parent_node_id" TEXT;

-- CreateTable
CREATE TABLE "model_prices" (
    "workspace_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "input_per_mtok" DECIMAL(14,6) NOT NULL,
    "output_per_mtok" DECIMAL(14,6) NOT NULL,
    "updated_by" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "model_prices_pkey" PRIMARY KEY ("workspace_id","provider","model")
);

-- CreateTable
CREATE TABLE "model_usage" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "flow_id" TEXT,
    "run_id" TEXT,
    "node_id" TEXT,
    "agent_run_id" TEXT,
    "agent_step" INTEGER,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "input_tokens" INTEGER NOT NULL,
    "output_tokens" INTEGER NOT NULL,
    "input_per_mtok" DECIMAL(14,6),
    "output_per_mtok" DECIMAL(14,6),
    "cost" DECIMAL(20,10),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "model_usage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "model_usage_workspace_id_created_at_idx" ON "model_usage"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "model_usage_workspace_id_flow_id_created_at_idx" ON "model_usage"("workspace_id", "flow_id", "created_at");

-- CreateIndex
CREATE INDEX "model_usage_run_id_idx" ON "model_usage"("run_id");

-- CreateIndex
CREATE INDEX "model_usage_agent_run_id_idx" ON "model_usage"("agent_run_id");

-- AddForeignKey
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "model_usage" ADD CONSTRAINT "model_usage_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

