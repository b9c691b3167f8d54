-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "test" BOOLEAN NOT NULL DEFAULT false;

