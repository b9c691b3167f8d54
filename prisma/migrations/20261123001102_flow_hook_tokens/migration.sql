-- AlterTable
ALTER TABLE "flows" ADD COLUMN     "hook_token" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "flows_hook_token_key" ON "flows"("hook_token");

