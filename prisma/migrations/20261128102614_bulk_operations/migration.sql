-- CreateTable
CREATE TABLE "operations" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "total" INTEGER NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "operations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "operation_items" (
    "operation_id" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "run_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "new_run_id" TEXT,
    "reason" TEXT,
    "message" TEXT,

    CONSTRAINT "operation_items_pkey" PRIMARY KEY ("operation_id","idx")
);

-- CreateIndex
CREATE INDEX "operations_workspace_id_created_at_id_idx" ON "operations"("workspace_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "operation_items_operation_id_status_idx_idx" ON "operation_items"("operation_id", "status", "idx");

-- AddForeignKey
ALTER TABLE "operations" ADD CONSTRAINT "operations_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "operation_items" ADD CONSTRAINT "operation_items_operation_id_fkey" FOREIGN KEY ("operation_id") REFERENCES "operations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

