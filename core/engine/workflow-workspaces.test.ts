import { describe, expect, it } from "vitest";
import { newId } from "../../lib/ids.js";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { workspacesOfWorkflows } from "./workflow-workspaces.js";

describe("the workspace of a workflow", () => {
  it("is its run's, or its flow's for a schedule's fires; other ids have none", async () => {
    const prisma = testPrisma();
    const { workspace } = await createTestUser("workflow-owner");
    const now = new Date();
    const flowId = newId("wf");
    await prisma.flow.create({
      data: {
        id: flowId,
        workspaceId: workspace.workspaceId,
        name: "Nightly",
        status: "active",
        version: 1,
        definition: {},
        hookToken: `hk_${flowId}`,
        createdAt: now,
        updatedAt: now,
      },
    });
    const runId = newId("run");
    await prisma.run.create({
      data: {
        id: runId,
        workspaceId: workspace.workspaceId,
        flowId,
        flowName: "Nightly",
        version: 1,
        trigger: "api",
        input: {},
        startedAt: now,
      },
    });
    const fire = `scheduled-${flowId}-2026-11-25T10:00:00Z`;

    const found = await workspacesOfWorkflows(prisma, [
      runId,
      `scheduled-${flowId}`,
      fire,
      fire,
      newId("run"),
      newId("agr"),
      "probe-123",
      `scheduled-${newId("wf")}`,
    ]);
    expect(Object.fromEntries(found)).toEqual({
      [runId]: workspace.workspaceId,
      [`scheduled-${flowId}`]: workspace.workspaceId,
      [fire]: workspace.workspaceId,
    });
    expect((await workspacesOfWorkflows(prisma, [])).size).toBe(0);
  });
});
