-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "task_queue" TEXT;

