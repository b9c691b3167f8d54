-- CreateTable
CREATE TABLE "debounce_windows" (
    "flow_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "last_start_at" TIMESTAMPTZ(3) NOT NULL,
    "starts" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "debounce_windows_pkey" PRIMARY KEY ("flow_id","key_hash")
);

-- CreateTable
CREATE TABLE "debounced_starts" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "debounced_starts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "debounce_windows_run_id_idx" ON "debounce_windows"("run_id");

-- CreateIndex
CREATE INDEX "debounced_starts_run_id_at_idx" ON "debounced_starts"("run_id", "at");

