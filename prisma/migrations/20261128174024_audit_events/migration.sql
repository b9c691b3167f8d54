-- CreateTable
CREATE TABLE "audit_events" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "actor_kind" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_label" TEXT,
    "source_ip" TEXT,
    "user_agent" TEXT,
    "action" TEXT NOT NULL,
    "object_kind" TEXT,
    "object_id" TEXT,
    "details" JSONB,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_events_workspace_id_at_id_idx" ON "audit_events"("workspace_id", "at", "id");

-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at");


-- Append-only: an UPDATE of a row changes nothing (deleting stays possible for the retention pass).
CREATE RULE audit_events_append_only AS ON UPDATE TO "audit_events" DO INSTEAD NOTHING;
