-- AlterEnum
ALTER TYPE "RunStatus" ADD VALUE 'queued';
