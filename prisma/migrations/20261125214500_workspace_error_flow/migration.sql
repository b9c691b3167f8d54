-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "error_flow_id" TEXT;
