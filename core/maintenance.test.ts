import { describe, expect, it } from "vitest";
import { newId } from "../lib/ids.js";
import { testPrisma } from "../test/helpers/context.js";
import { createTestUser, makeTestApps } from "../test/helpers/identity.js";
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
});
