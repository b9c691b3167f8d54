-- CreateTable
CREATE TABLE "login_throttles" (
    "account" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "last_failure_at" TIMESTAMPTZ(3) NOT NULL,
    "blocked_until" TIMESTAMPTZ(3),

    CONSTRAINT "login_throttles_pkey" PRIMARY KEY ("account","source")
);

-- CreateIndex
CREATE INDEX "login_throttles_last_failure_at_idx" ON "login_throttles"("last_failure_at");


-- The per-account failure counters this table replaces (an account locked for everyone).
DELETE FROM "rate_limit_buckets" WHERE "key" LIKE 'login:account:%';
