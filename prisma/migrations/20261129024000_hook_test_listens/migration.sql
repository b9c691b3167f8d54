-- CreateTable
CREATE TABLE "hook_test_listens" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "captured_at" TIMESTAMPTZ(3),
    "captured" JSONB,

    CONSTRAINT "hook_test_listens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "hook_test_listens_token_hash_key" ON "hook_test_listens"("token_hash");

-- CreateIndex
CREATE INDEX "hook_test_listens_workspace_id_flow_id_created_at_idx" ON "hook_test_listens"("workspace_id", "flow_id", "created_at");

-- CreateIndex
CREATE INDEX "hook_test_listens_expires_at_idx" ON "hook_test_listens"("expires_at");

