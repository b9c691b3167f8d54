-- CreateTable
CREATE TABLE "kv_entries" (
    "workspace_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "kv_entries_pkey" PRIMARY KEY ("workspace_id","key")
);

-- CreateTable
CREATE TABLE "data_rows" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "table_name" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "seq" BIGSERIAL NOT NULL,

    CONSTRAINT "data_rows_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stored_objects" (
    "workspace_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "etag" TEXT NOT NULL,
    "body" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stored_objects_pkey" PRIMARY KEY ("workspace_id","key")
);

-- CreateIndex
CREATE INDEX "kv_entries_expires_at_idx" ON "kv_entries"("expires_at");

-- CreateIndex
CREATE INDEX "data_rows_workspace_id_table_name_created_at_seq_idx" ON "data_rows"("workspace_id", "table_name", "created_at", "seq");

-- CreateIndex
CREATE INDEX "data_rows_data_idx" ON "data_rows" USING GIN ("data" jsonb_path_ops);

-- AddForeignKey
ALTER TABLE "kv_entries" ADD CONSTRAINT "kv_entries_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "data_rows" ADD CONSTRAINT "data_rows_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "stored_objects" ADD CONSTRAINT "stored_objects_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

