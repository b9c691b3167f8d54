-- CreateEnum
CREATE TYPE "WaitMode" AS ENUM ('approval', 'resume');

-- CreateEnum
CREATE TYPE "WaitStatus" AS ENUM ('pending', 'decided', 'expired', 'cancelled');

-- CreateTable
CREATE TABLE "waits" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "node_name" TEXT,
    "attempt" INTEGER NOT NULL,
    "mode" "WaitMode" NOT NULL,
    "message" TEXT,
    "approver_user_id" TEXT,
    "min_role" "Role" NOT NULL DEFAULT 'editor',
    "token_hash" TEXT,
    "status" "WaitStatus" NOT NULL DEFAULT 'pending',
    "decision" TEXT,
    "comment" TEXT,
    "decided_by" TEXT,
    "decided_by_name" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),

    CONSTRAINT "waits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "waits_token_hash_key" ON "waits"("token_hash");

-- CreateIndex
CREATE INDEX "waits_workspace_id_status_created_at_id_idx" ON "waits"("workspace_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "waits_run_id_idx" ON "waits"("run_id");

-- AddForeignKey
ALTER TABLE "waits" ADD CONSTRAINT "waits_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "waits" ADD CONSTRAINT "waits_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

