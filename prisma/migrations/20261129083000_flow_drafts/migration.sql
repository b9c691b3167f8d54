-- AlterTable
ALTER TABLE "flows" ADD COLUMN     "draft_version" INTEGER;
