-- AlterTable
ALTER TABLE "users" ADD COLUMN     "password_reset_required" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "password_resets" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "issued_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "password_resets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "password_resets_token_hash_key" ON "password_resets"("token_hash");

-- CreateIndex
CREATE INDEX "password_resets_user_id_idx" ON "password_resets"("user_id");

-- AddForeignKey
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_issued_by_fkey" FOREIGN KEY ("issued_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Accounts whose password someone else may have chosen (README: Password resets). Until now
-- POST /api/workspace/members created accounts with a password the inviting admin chose, and added
-- existing accounts to a workspace without asking them. No row records how an account or a
-- membership was made, so: a membership counts as the member's own when they made the workspace
-- (its first member, an owner, within a second of the workspace: POST /api/workspaces and the
-- operator's CLI make both in one transaction) or accepted an invite to it. An account must reset
-- its password when any membership it has (or it has none) is not its own, unless the operator's
-- CLI made it (the account made, then within a second its own workspace: the operator chose that
-- password). Their sessions end: login refuses the old password until a reset link sets a new one.
UPDATE "users" AS u
SET "password_reset_required" = true
WHERE NOT EXISTS (
    SELECT 1
    FROM "memberships" AS m
    JOIN "workspaces" AS w ON w."id" = m."workspace_id"
    WHERE m."user_id" = u."id"
      AND m."role" = 'owner'
      AND w."created_at" >= u."created_at"
      AND w."created_at" < u."created_at" + interval '1 second'
      AND m."created_at" >= w."created_at"
      AND m."created_at" < w."created_at" + interval '1 second'
      AND NOT EXISTS (
        SELECT 1 FROM "memberships" AS o WHERE o."workspace_id" = w."id" AND o."created_at" < m."created_at"
      )
  )
  AND (
    NOT EXISTS (SELECT 1 FROM "memberships" AS m WHERE m."user_id" = u."id")
    OR EXISTS (
      SELECT 1
      FROM "memberships" AS m
      JOIN "workspaces" AS w ON w."id" = m."workspace_id"
      WHERE m."user_id" = u."id"
        AND NOT (
          m."role" = 'owner'
          AND m."created_at" >= w."created_at"
          AND m."created_at" < w."created_at" + interval '1 second'
          AND NOT EXISTS (
            SELECT 1 FROM "memberships" AS o WHERE o."workspace_id" = w."id" AND o."created_at" < m."created_at"
          )
        )
        AND NOT EXISTS (
          SELECT 1
          FROM "invites" AS i
          WHERE i."workspace_id" = m."workspace_id" AND i."email" = u."email" AND i."accepted_at" IS NOT NULL
        )
    )
  );

DELETE FROM "sessions" AS s
USING "users" AS u
WHERE u."id" = s."user_id" AND u."password_reset_required";
