-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "request_fingerprint" TEXT;

