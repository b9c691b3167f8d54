-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('running', 'success', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "StepStatus" AS ENUM ('running', 'success', 'failed', 'skipped');

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "flow_name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'running',
    "trigger" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "output" JSONB,
    "error" JSONB,
    "idempotency_key" TEXT,
    "retry_of" TEXT,
    "parent_run_id" TEXT,
    "created_by" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_steps" (
    "run_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "status" "StepStatus" NOT NULL,
    "branch" TEXT,
    "output" JSONB,
    "error" JSONB,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,

    CONSTRAINT "run_steps_pkey" PRIMARY KEY ("run_id","node_id","attempt")
);

-- CreateTable
CREATE TABLE "run_blobs" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "run_blobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "runs_workspace_id_started_at_id_idx" ON "runs"("workspace_id", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "runs_workspace_id_flow_id_started_at_idx" ON "runs"("workspace_id", "flow_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "runs_workspace_id_status_started_at_idx" ON "runs"("workspace_id", "status", "started_at" DESC);

-- CreateIndex
CREATE INDEX "runs_status_started_at_idx" ON "runs"("status", "started_at");

-- CreateIndex
CREATE UNIQUE INDEX "runs_workspace_id_idempotency_key_key" ON "runs"("workspace_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "run_blobs_run_id_idx" ON "run_blobs"("run_id");

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_steps" ADD CONSTRAINT "run_steps_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_blobs" ADD CONSTRAINT "run_blobs_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

