-- AlterTable
ALTER TABLE "flows" ADD COLUMN     "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "flow_versions" ADD COLUMN     "note" TEXT;

-- CreateIndex
CREATE INDEX "flows_tags_idx" ON "flows" USING GIN ("tags");

