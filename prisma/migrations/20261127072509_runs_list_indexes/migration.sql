-- CreateIndex
CREATE INDEX "runs_workspace_id_flow_id_status_started_at_id_idx" ON "runs"("workspace_id", "flow_id", "status", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "runs_workspace_id_trigger_started_at_id_idx" ON "runs"("workspace_id", "trigger", "started_at" DESC, "id" DESC);

