-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "rerun" JSONB,
ADD COLUMN     "rerun_from_node" TEXT,
ADD COLUMN     "rerun_of" TEXT;

