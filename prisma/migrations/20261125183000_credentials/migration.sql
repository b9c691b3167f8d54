-- CreateTable
CREATE TABLE "credentials" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "fields" JSONB NOT NULL,
    "key_id" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "last4" TEXT,
    "default_for" TEXT,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "credentials_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "credentials_workspace_id_created_at_id_idx" ON "credentials"("workspace_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "credentials_key_id_idx" ON "credentials"("key_id");

-- CreateIndex
CREATE UNIQUE INDEX "credentials_workspace_id_name_key" ON "credentials"("workspace_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "credentials_workspace_id_default_for_key" ON "credentials"("workspace_id", "default_for");

-- AddForeignKey
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Workspaces' provider keys become ai_provider credentials, the workspace's default for their
-- provider. Their ciphertext stays as AI_KEYS_SECRET sealed it (key_id says so) until
-- `npm run credentials:reencrypt` seals it again under SVC_ENCRYPTION_KEY.
INSERT INTO "credentials" ("id", "workspace_id", "name", "type", "fields", "key_id", "ciphertext", "last4",
                           "default_for", "created_by", "created_at", "updated_by", "updated_at")
SELECT 'cred_' || substr(md5("workspace_id" || ':' || "provider" || ':' || random()::text), 1, 24),
       "workspace_id",
       CASE "provider" WHEN 'openai' THEN 'OpenAI' WHEN 'anthropic' THEN 'Anthropic' ELSE "provider" END || ' (workspace key)',
       'ai_provider', jsonb_build_object('provider', "provider"), 'AI_KEYS_SECRET', "ciphertext", "last4",
       "provider", "updated_by", "updated_at", "updated_by", "updated_at"
FROM "workspace_ai_keys";

-- DropForeignKey
ALTER TABLE "workspace_ai_keys" DROP CONSTRAINT "workspace_ai_keys_workspace_id_fkey";

-- DropTable
DROP TABLE "workspace_ai_keys";
