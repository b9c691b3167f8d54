-- CreateEnum
CREATE TYPE "ItemStatus" AS ENUM ('success', 'failed');

-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "items_max_bytes" INTEGER,
ADD COLUMN     "items_max_count" INTEGER;

-- CreateTable
CREATE TABLE "run_items" (
    "run_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "status" "ItemStatus" NOT NULL,
    "result" JSONB,
    "error" JSONB,
    "attempt" INTEGER NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "run_items_pkey" PRIMARY KEY ("run_id","node_id","idx")
);

-- CreateTable
CREATE TABLE "run_item_sets" (
    "run_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "done" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "run_item_sets_pkey" PRIMARY KEY ("run_id","node_id")
);

-- AddForeignKey
ALTER TABLE "run_items" ADD CONSTRAINT "run_items_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_item_sets" ADD CONSTRAINT "run_item_sets_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

