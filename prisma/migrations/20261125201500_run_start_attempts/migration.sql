-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "start_attempted_at" TIMESTAMPTZ(3);
