-- DropForeignKey
ALTER TABLE "password_resets" DROP CONSTRAINT "password_resets_issued_by_fkey";

-- AlterTable
ALTER TABLE "password_resets" ADD COLUMN     "issued_against" JSONB,
ADD COLUMN     "revoked_at" TIMESTAMPTZ(3);

-- AddForeignKey
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_issued_by_fkey" FOREIGN KEY ("issued_by") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A reset link is now checked again when used against the account as it was when the link was
-- issued (issue 47). Links issued before carry no such record: the account as it is now is written
-- in, and every unused link a member issued is revoked (its issuer's authority cannot be checked
-- against memberships nobody recorded: the member issues it again). The operator's unused links
-- stay: they stand whatever the account's workspaces.
UPDATE "password_resets" AS r
SET "issued_against" = jsonb_build_object(
      'email', u."email",
      'password_changed_at', to_char(u."password_changed_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'memberships', COALESCE(
        (SELECT jsonb_agg(jsonb_build_object('workspace_id', m."workspace_id", 'role', m."role") ORDER BY m."workspace_id")
         FROM "memberships" AS m WHERE m."user_id" = r."user_id"),
        '[]'::jsonb))
FROM "users" AS u
WHERE u."id" = r."user_id";

UPDATE "password_resets"
SET "revoked_at" = now()
WHERE "used_at" IS NULL AND "issued_by" IS NOT NULL;

ALTER TABLE "password_resets" ALTER COLUMN "issued_against" SET NOT NULL;
