// A hook's test address against the real database: captured once, then 404 as an unknown, used or
// expired token; another workspace's flow is not found; a new listen closes the flow's earlier one;
// only the token's hash is stored; the capture is sealed at rest; listens go with their flow and
// long-expired ones are purged.
import { describe, expect, it } from "vitest";
import { FlowNotFound } from "../errors.js";
import { newId } from "../../lib/ids.js";
import { testPrisma, testSeal } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { createTestListens, NoHookTrigger, TEST_LISTEN_MS, TestListenNotFound } from "./test-listens.js";

async function flowOf(definition: object) {
  const prisma = testPrisma();
  const user = await createTestUser("test-listen");
  const workspaceId = user.workspace.workspaceId;
  const flowId = newId("wf");
  const now = new Date();
  await prisma.flow.create({
    data: { id: flowId, workspaceId, name: "Hooked", status: "active", definition, createdAt: now, updatedAt: now },
  });
  return { prisma, workspaceId, flowId, listens: createTestListens({ prisma, seal: testSeal }) };
}

const hooked = { nodes: [{ id: "hook", type: "http_trigger", config: {} }], edges: [] };
const input = {
  method: "POST",
  headers: { "content-type": "application/json" },
  query: {},
  body: { amount: 120, note: "plain-capture-marker" },
};

describe("hook test listens", () => {
  it("captures the next request once; a second call, an unknown token and an expired one are not found", async () => {
    const { prisma, workspaceId, flowId, listens } = await flowOf(hooked);
    const opened = await listens.open(workspaceId, flowId, null);
    expect((await listens.view(workspaceId, flowId, opened.id)).status).toBe("listening");
    // Only the token's hash is stored.
    const stored = await prisma.hookTestListen.findUniqueOrThrow({ where: { id: opened.id } });
    expect(JSON.stringify(stored)).not.toContain(opened.token);

    // Two calls at once: exactly one captures.
    const both = await Promise.allSettled([listens.capture(opened.token, input), listens.capture(opened.token, input)]);
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(both.filter((r) => r.status === "rejected" && r.reason instanceof TestListenNotFound)).toHaveLength(1);
    const view = await listens.view(workspaceId, flowId, opened.id);
    expect(view.status).toBe("captured");
    expect(view.captured).toEqual(input);
    // Sealed at rest: the row holds no part of the request in clear.
    const captured = await prisma.hookTestListen.findUniqueOrThrow({ where: { id: opened.id } });
    expect(JSON.stringify(captured.captured)).not.toContain("plain-capture-marker");
    expect(testSeal.isCurrent(captured.captured)).toBe(true);
    await expect(listens.capture(opened.token, input)).rejects.toBeInstanceOf(TestListenNotFound);
    await expect(listens.capture("x".repeat(43), input)).rejects.toBeInstanceOf(TestListenNotFound);
    await expect(listens.capture("not a token", input)).rejects.toBeInstanceOf(TestListenNotFound);

    const late = await listens.open(workspaceId, flowId, null);
    const after = new Date(Date.now() + TEST_LISTEN_MS + 1_000);
    await expect(listens.capture(late.token, input, after)).rejects.toBeInstanceOf(TestListenNotFound);
    expect((await listens.view(workspaceId, flowId, late.id, after)).status).toBe("expired");
  });

  it("closes the flow's earlier listen when a new one opens", async () => {
    const { workspaceId, flowId, listens } = await flowOf(hooked);
    const first = await listens.open(workspaceId, flowId, null);
    const second = await listens.open(workspaceId, flowId, null);
    await expect(listens.capture(first.token, input)).rejects.toBeInstanceOf(TestListenNotFound);
    expect(await listens.capture(second.token, input)).toBe(second.id);
  });

  it("refuses another workspace's flow and a flow without a hook trigger", async () => {
    const { flowId, listens } = await flowOf(hooked);
    const other = await createTestUser("test-listen-other");
    await expect(listens.open(other.workspace.workspaceId, flowId, null)).rejects.toBeInstanceOf(FlowNotFound);
    const mine = await flowOf(hooked);
    const opened = await mine.listens.open(mine.workspaceId, mine.flowId, null);
    await expect(listens.view(other.workspace.workspaceId, mine.flowId, opened.id)).rejects.toBeInstanceOf(
      TestListenNotFound,
    );
    const manual = await flowOf({ nodes: [{ id: "start", type: "manual" }], edges: [] });
    await expect(manual.listens.open(manual.workspaceId, manual.flowId, null)).rejects.toBeInstanceOf(NoHookTrigger);
  });

  it("deletes a flow's listens with the flow, and purges listens a day past their expiry", async () => {
    const { prisma, workspaceId, flowId, listens } = await flowOf(hooked);
    const opened = await listens.open(workspaceId, flowId, null);
    await listens.capture(opened.token, input);
    await prisma.flow.delete({ where: { id: flowId } });
    expect(await prisma.hookTestListen.count({ where: { id: opened.id } })).toBe(0);

    const other = await flowOf(hooked);
    // Two listens that expired two days ago (written as such: a purge at a later "now" would reach
    // other test files' rows in the shared database).
    const longAgo = new Date(Date.now() - 2 * 24 * 3_600_000);
    const oldIds = [newId("htl"), newId("htl")];
    await prisma.hookTestListen.createMany({
      data: oldIds.map((id) => ({
        id,
        workspaceId: other.workspaceId,
        flowId: other.flowId,
        tokenHash: `old-${id}`,
        expiresAt: longAgo,
      })),
    });
    const newest = await other.listens.open(other.workspaceId, other.flowId, null);
    const left = await prisma.hookTestListen.findMany({ where: { flowId: other.flowId }, select: { id: true } });
    expect(left.map((row) => row.id)).toEqual([newest.id]);
  });
});
