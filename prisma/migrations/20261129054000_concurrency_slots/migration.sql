-- CreateTable
CREATE TABLE "concurrency_keys" (
    "flow_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "held" INTEGER NOT NULL DEFAULT 0,
    "gated" INTEGER NOT NULL DEFAULT 0,
    "took" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "concurrency_keys_pkey" PRIMARY KEY ("flow_id","key_hash")
);

-- CreateTable
CREATE TABLE "concurrency_slots" (
    "run_id" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "in_db" BOOLEAN NOT NULL,
    "taken_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "concurrency_slots_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE INDEX "concurrency_slots_flow_id_key_hash_idx" ON "concurrency_slots"("flow_id", "key_hash");
