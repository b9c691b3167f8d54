import { describe, expect, it } from "vitest";
import { newId } from "../lib/ids.js";
import { testPrisma } from "../test/helpers/context.js";
import { createTestUser, makeTestApps } from "../test/helpers/identity.js";
import { purgeAuditEvents } from "./audit/audit-retention.js";
import { purgeExpired } from "./maintenance.js";

const appFor = makeTestApps();
const DAY = 86_400_000;

describe("purgeExpired", () => {
  it("deletes events dispatched longer ago than EVENT_RETENTION, and never an undispatched one", async () => {
    // Real time: other test files' events, dispatched minutes ago, stay out of reach.
    const now = new Date();
    const { deps } = appFor({ EVENT_RETENTION: "7d" });
    const { workspace } = await createTestUser("outbox");
    const at = (days: number) => new Date(now.getTime() - days * DAY);
    const seed = (createdAt: Date, dispatchedAt: Date | null) =>
      testPrisma().event.create({
        data: {
          id: newId("evt"),
          workspaceId: workspace.workspaceId,
          type: "run.completed",
          payload: {},
          createdAt,
          dispatchedAt,
        },
      });
    const old = await seed(at(10), at(10));
    const recent = await seed(at(2), at(2));
    const pending = await seed(at(30), null);

    const { events } = await purgeExpired(deps);
    expect(events).toBeGreaterThanOrEqual(1);
    const left = await testPrisma().event.findMany({ where: { workspaceId: workspace.workspaceId } });
    expect(left.map((event) => event.id).sort()).toEqual([recent.id, pending.id].sort());
    expect(left.map((event) => event.id)).not.toContain(old.id);
  });

  describe("audit log retention", () => {
    const seedAudit = (workspaceId: string, at: Date) =>
      testPrisma().auditEvent.create({
        data: { id: newId("aud"), workspaceId, at, actorKind: "system", action: "flow.created" },
      });

    it("deletes audit rows older than AUDIT_RETENTION_DAYS, and none with 0", async () => {
      const now = new Date();
      const at = (days: number) => new Date(now.getTime() - days * DAY);
      const { workspace } = await createTestUser("audit-retention");
      const old = await seedAudit(workspace.workspaceId, at(400));
      const recent = await seedAudit(workspace.workspaceId, at(300));
      const ids = async () =>
        (await testPrisma().auditEvent.findMany({ where: { workspaceId: workspace.workspaceId } }))
          .map((row) => row.id)
          .sort();

      const forever = await purgeExpired(appFor({ AUDIT_RETENTION_DAYS: "0" }).deps);
      expect(forever.auditEvents).toBe(0);
      expect(await ids()).toEqual([old.id, recent.id].sort());

      const { auditEvents } = await purgeExpired(appFor({ AUDIT_RETENTION_DAYS: "365" }).deps);
      expect(auditEvents).toBeGreaterThanOrEqual(1);
      expect(await ids()).toEqual([recent.id]);
    });

    it("deletes in bounded batches, oldest first, leaving the rest to the next pass", async () => {
      const { workspace } = await createTestUser("audit-batches");
      const base = Date.now() - 5000 * DAY;
      for (let i = 0; i < 5; i++) await seedAudit(workspace.workspaceId, new Date(base + i * 1000));
      const cutoff = new Date(base + 10 * DAY);
      expect(await purgeAuditEvents(testPrisma(), cutoff, { batch: 2, batches: 2 })).toBe(4);
      const left = await testPrisma().auditEvent.findMany({ where: { workspaceId: workspace.workspaceId } });
      expect(left.map((row) => row.at.getTime())).toEqual([base + 4000]);
      expect(await purgeAuditEvents(testPrisma(), cutoff, { batch: 2, batches: 2 })).toBe(1);
      expect(await testPrisma().auditEvent.count({ where: { workspaceId: workspace.workspaceId } })).toBe(0);
    });
  });
});
