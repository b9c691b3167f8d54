-- DropForeignKey
ALTER TABLE "sessions" DROP CONSTRAINT "sessions_user_id_fkey";

-- DropForeignKey
ALTER TABLE "sessions" DROP CONSTRAINT "sessions_workspace_id_fkey";

-- AlterTable
ALTER TABLE "sessions" ALTER COLUMN "created_at" DROP DEFAULT,
ALTER COLUMN "last_seen_at" DROP DEFAULT;

-- CreateTable
CREATE TABLE "rate_limit_buckets" (
    "key" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_buckets_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "rate_limit_buckets_window_start_idx" ON "rate_limit_buckets"("window_start");

-- CreateIndex
CREATE INDEX "sessions_user_id_workspace_id_idx" ON "sessions"("user_id", "workspace_id");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_workspace_id_fkey" FOREIGN KEY ("user_id", "workspace_id") REFERENCES "memberships"("user_id", "workspace_id") ON DELETE CASCADE ON UPDATE CASCADE;

