// Budgets against PostgreSQL: what a period has spent comes from the usage rows, a call written
// twice (a retried attempt) counts once, a flow's budget counts only its flow's calls, and the
// month's budget counts what the day's does not.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { reachedBudget, setBudget } from "./budgets.js";
import { recordModelUsage } from "./usage-records.js";

const now = new Date("2026-11-15T12:00:00Z");
const clock = { now: () => now };

describe("budgets", () => {
  it("count a retried call once, a flow's calls under its flow only, and earlier days in the month", async () => {
    const prisma = testPrisma();
    const owner = await createTestUser("budget-owner");
    const workspaceId = owner.workspace.workspaceId;
    const flow = await prisma.flow.create({
      data: {
        id: `wf_budget${randomUUID().slice(0, 8)}`,
        workspaceId,
        name: "Budgeted",
        definition: {},
        createdAt: now,
        updatedAt: now,
      },
    });
    const run = randomUUID().slice(0, 8);
    const call = (id: string, at: Date, flowId: string | null, tokens: number) =>
      recordModelUsage(prisma, {
        id: `${id}_${run}`,
        workspaceId,
        flowId,
        provider: "openai",
        model: "gpt-4o-mini",
        usage: { input_tokens: tokens, output_tokens: 0 },
        at,
      });
    const deps = { prisma, clock };
    await setBudget(deps, workspaceId, owner.user.id, { metric: "tokens", period: "day", limit: 100 });
    await setBudget(deps, workspaceId, owner.user.id, { metric: "tokens", period: "month", limit: 150 });
    await setBudget(deps, workspaceId, owner.user.id, { flow_id: flow.id, metric: "tokens", period: "day", limit: 50 });

    expect(await call("use_budget_a", now, null, 60)).toMatchObject({ recorded: true });
    // The same call again (a retry after its row was written): nothing more is counted.
    expect(await call("use_budget_a", now, null, 60)).toMatchObject({ recorded: false });
    expect(await reachedBudget(prisma, { workspaceId }, now)).toBeUndefined();
    // The flow's budget does not count calls outside the flow.
    expect(await reachedBudget(prisma, { workspaceId, flowId: flow.id }, now)).toBeUndefined();

    await call("use_budget_b", now, flow.id, 50);
    expect(await reachedBudget(prisma, { workspaceId }, now)).toMatchObject({
      metric: "tokens",
      period: "day",
      spent: 110,
    });
    // From inside the flow, its own budget is reached too (workspace budgets come first).
    expect(await reachedBudget(prisma, { workspaceId, flowId: flow.id }, now)).toMatchObject({
      flowId: null,
      period: "day",
    });

    // The next day: the day's budget starts again, the month's counts both days.
    const tomorrow = new Date("2026-11-16T01:00:00Z");
    expect(await reachedBudget(prisma, { workspaceId }, tomorrow)).toBeUndefined();
    await call("use_budget_c", tomorrow, null, 40);
    expect(await reachedBudget(prisma, { workspaceId }, tomorrow)).toMatchObject({ period: "month", spent: 150 });
  });
});
