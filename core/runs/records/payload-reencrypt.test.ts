import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newKeyRingEntry, parseKeyRing, type RingKey } from "../../../lib/crypto/key-ring.js";
import { createJsonSeal, isSealedJson, plainJson } from "../../../lib/crypto/sealed-json.js";
import { Prisma } from "../../../lib/db.js";
import { newId } from "../../../lib/ids.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser } from "../../../test/helpers/identity.js";
import { reencryptRunPayloads } from "./payload-reencrypt.js";

const ring = (text: string) => createJsonSeal(parseKeyRing(text) as RingKey[]);

describe("re-encrypting run payloads", () => {
  it("seals plain rows and rows under an older key under the current key, once, and names rows that do not open", async () => {
    const prisma = testPrisma();
    const user = await createTestUser("reseal");
    const oldKey = newKeyRingEntry("old", randomBytes(32));
    const newKey = newKeyRingEntry("new", randomBytes(32));
    const before = ring(oldKey);
    const after = ring(`${newKey},${oldKey}`);
    const lost = ring(newKeyRingEntry("lost", randomBytes(32)));
    const [runId, otherRunId] = [newId("run"), newId("run")];
    const run = (id: string, input: unknown) => ({
      id,
      workspaceId: user.workspace.workspaceId,
      flowId: "wf_cccccccccccccccccccccccc",
      flowName: "Reseal",
      version: 1,
      trigger: "api",
      status: "success" as const,
      input: input as object,
      startedAt: new Date(),
    });
    // Written before payloads were sealed (plain), under the old key, and one under a key now lost.
    await prisma.run.create({ data: { ...run(runId, { order: "plain-input" }), output: { total: 3 } } });
    await prisma.run.create({ data: run(otherRunId, { untouched: true }) });
    await prisma.runStep.createMany({
      data: [
        { runId, nodeId: "a", attempt: 1, type: "set", status: "success", output: before.seal({ a: 1 }) as object },
        {
          runId,
          nodeId: "b",
          attempt: 1,
          type: "set",
          status: "failed",
          error: { ...(before.seal({ message: "boom" }) as object), handled: "continue" },
        },
        { runId, nodeId: "c", attempt: 1, type: "set", status: "success", output: lost.seal({ c: 3 }) as object },
        { runId, nodeId: "d", attempt: 1, type: "set", status: "running" },
      ],
    });
    await prisma.logEntry.create({
      data: { workspaceId: user.workspace.workspaceId, runId, level: "info", message: "plain note", data: { n: 1 } },
    });
    // An item of a node run per item, under the old key.
    await prisma.runItem.create({
      data: {
        runId,
        nodeId: "e",
        index: 0,
        status: "success",
        result: before.seal({ item: 1 }) as object,
        attempt: 1,
        finishedAt: new Date(),
      },
    });

    // An agent run recorded plain, still running (no answer yet).
    const agentRunId = newId("agr");
    await prisma.agentRun.create({
      data: {
        id: agentRunId,
        workspaceId: user.workspace.workspaceId,
        agentId: "reseal",
        provider: "openai",
        model: "gpt-test",
        instructions: "plain instructions",
        tools: [],
        limits: {},
        startedAt: new Date(),
      },
    });
    const agentResult = await reencryptRunPayloads(prisma, after, { runIds: [agentRunId] });
    expect(agentResult).toEqual({ resealed: 1, unreadable: [] });
    const agentRun = await prisma.agentRun.findUniqueOrThrow({ where: { id: agentRunId } });
    expect(agentRun.instructions.startsWith("$sealed:v1:new:")).toBe(true);
    expect([ring(newKey).openText(agentRun.instructions), agentRun.answer]).toEqual(["plain instructions", null]);

    // A failed run recorded plain, its output JSON null: its input is sealed, its output left null.
    const failedRunId = newId("run");
    await prisma.run.create({
      data: { ...run(failedRunId, { order: "failed-input" }), status: "failed", output: Prisma.JsonNull },
    });
    expect(await reencryptRunPayloads(prisma, after, { runIds: [failedRunId] })).toEqual({
      resealed: 1,
      unreadable: [],
    });
    const failed = await prisma.run.findUniqueOrThrow({ where: { id: failedRunId } });
    expect([ring(newKey).open(failed.input), failed.output]).toEqual([{ order: "failed-input" }, null]);

    const result = await reencryptRunPayloads(prisma, after, { runIds: [runId], batchSize: 2 });
    // input and output of the run, two step values, the item's result, the log entry's message and data (one row).
    expect(result.resealed).toBe(5);
    expect(result.unreadable).toEqual([
      { table: "run_steps", key: `${runId}/c/1`, reason: expect.stringMatching(/"lost"/) },
    ]);

    const stored = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
    const steps = await prisma.runStep.findMany({ where: { runId }, orderBy: { nodeId: "asc" } });
    const entry = await prisma.logEntry.findFirstOrThrow({ where: { runId } });
    for (const value of [stored.input, stored.output, steps[0]!.output, steps[1]!.error, entry.data]) {
      expect(isSealedJson(value) && value.key).toBe("new");
    }
    expect(entry.message.startsWith("$sealed:v1:new:")).toBe(true);
    const onlyNew = ring(newKey);
    expect([stored.input, stored.output, steps[0]!.output, steps[1]!.error, entry.data].map(onlyNew.open)).toEqual([
      { order: "plain-input" },
      { total: 3 },
      { a: 1 },
      { message: "boom", handled: "continue" },
      { n: 1 },
    ]);
    expect(onlyNew.openText(entry.message)).toBe("plain note");
    const item = await prisma.runItem.findFirstOrThrow({ where: { runId } });
    expect(onlyNew.open(item.result)).toEqual({ item: 1 });
    expect(steps[3]!.output).toBeNull();
    // Another run (not named) is left as it was; a second pass has nothing left to do.
    expect((await prisma.run.findUniqueOrThrow({ where: { id: otherRunId } })).input).toEqual({ untouched: true });
    expect((await reencryptRunPayloads(prisma, after, { runIds: [runId] })).resealed).toBe(0);
    await expect(reencryptRunPayloads(prisma, plainJson, { runIds: [runId] })).rejects.toThrow(/SVC_ENCRYPTION_KEY/);
  });
});
