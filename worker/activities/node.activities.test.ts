// The node activities on their own, in Temporal's mock activity context (attempt number, local or
// not, cancellation), over the test database: what each attempt returns and what it records.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, connect, type AddressInfo } from "node:net";
import { MockActivityEnvironment } from "@temporalio/testing";
import { DefaultLogger } from "@temporalio/worker";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { NodeActivityInput } from "../../core/contracts/run-flow.js";
import { recordRunStart } from "../../core/runs/records/run-records.js";
import { systemClock } from "../../lib/clock.js";
import { createPrismaClient } from "../../lib/db.js";
import { testConfig, testPrisma, testSeal, openedSteps } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { testRegistry } from "../../test/helpers/runs.js";
import { createActivities } from "./index.js";

const activities = createActivities({
  prisma: testPrisma(),
  clock: systemClock,
  nodes: testRegistry(),
  config: testConfig(),
});
// Without a key, run payloads are stored as they are: a value PostgreSQL refuses reaches it.
const keylessActivities = createActivities({
  prisma: testPrisma(),
  clock: systemClock,
  nodes: testRegistry(),
  config: testConfig({ SVC_ENCRYPTION_KEY: "" }),
});
type PerType = (input: NodeActivityInput) => Promise<Record<string, unknown>>;
const activity = (type: string, of: object = activities) => (of as unknown as Record<string, PerType>)[type]!;

let workspaceId: string;
beforeAll(async () => {
  workspaceId = (await createTestUser("node-activities")).workspace.workspaceId;
});

async function newRun() {
  const id = `run_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  await testPrisma().$transaction((tx) =>
    recordRunStart(
      tx,
      { clock: systemClock, seal: testSeal },
      {
        id,
        workspaceId,
        flowId: "wf_test",
        flowName: "Activities",
        version: 1,
        trigger: "api",
        input: {},
        startedAt: new Date(),
      },
    ),
  );
  return id;
}

function nodeInput(
  runId: string,
  nodeId: string,
  type: string,
  config: object,
  input: unknown = {},
): NodeActivityInput {
  return {
    runId,
    workspaceId,
    flowId: "wf_test",
    nodeId,
    type,
    handling: "activity",
    config: config as Record<string, unknown>,
    input,
    upstream: {},
    run: { id: runId, flow_id: "wf_test", version: 1, started_at: new Date().toISOString() },
  };
}

/** Temporal's mock activity context, its log quiet (failing attempts are expected here). */
const mockContext = (info: ConstructorParameters<typeof MockActivityEnvironment>[0]) =>
  new MockActivityEnvironment(info, { logger: new DefaultLogger("ERROR", () => undefined) });

/**
 * The test database behind a loopback proxy that drops every connection until `restore()`: an
 * outage as the API and worker see one ("Connection terminated unexpectedly"), then the database back.
 */
async function databaseOutage() {
  const target = new URL(inject("databaseUrl"));
  let restored = false;
  let dropped = 0;
  const server = createServer((socket) => {
    if (!restored) {
      dropped++;
      socket.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as AddressInfo).port);
  const prisma = createPrismaClient(url.toString(), { maxConnections: 2 });
  return {
    prisma,
    dropped: () => dropped,
    restore: () => {
      restored = true;
    },
    async close() {
      await prisma.$disconnect();
      server.close();
    },
  };
}

const stepsOf = openedSteps;

describe("node activities in a mock activity context", () => {
  it("records a failed attempt with its number, then the success of the next one", async () => {
    const runId = await newRun();
    const input = nodeInput(runId, "flaky", "test_fail", { failures: 1 });

    const first = mockContext({ attempt: 1 });
    await expect(first.run(activity("test_fail"), input)).rejects.toMatchObject({
      message: "planned failure 1 of 1",
      nonRetryable: false,
    });
    const second = mockContext({ attempt: 2 });
    const result = (await second.run(activity("test_fail"), input)) as Record<string, unknown>;
    expect(result).toMatchObject({ output: { attempt: 2 }, step: { attempt: 2 } });
    expect(result.unwritten).toBeUndefined();

    await expect
      .poll(async () => (await stepsOf(runId)).map((s) => [s.attempt, s.status]))
      .toEqual([
        [1, "failed"],
        [2, "success"],
      ]);
    const [failed] = await stepsOf(runId);
    expect(failed!.error).toMatchObject({ message: "planned failure 1 of 1" });
  });

  it("marks a non-retryable node failure as such, for Temporal not to retry it", async () => {
    const runId = await newRun();
    const env = mockContext({ attempt: 1 });
    await expect(
      env.run(activity("test_fail"), nodeInput(runId, "fatal", "test_fail", { failures: 3, fatal: true })),
    ).rejects.toMatchObject({ nonRetryable: true });
  });

  it("leaves a local node's success unwritten, for the workflow to hand to the next write", async () => {
    const runId = await newRun();
    const env = mockContext({ attempt: 1, isLocal: true });
    const result = await env.run(
      activity("set"),
      nodeInput(runId, "shape", "set", { fields: { total: "{{ input.n }}" } }, { n: 3 }),
    );
    expect(result).toMatchObject({ output: { total: 3 }, unwritten: true, step: { attempt: 1 } });
    expect(await stepsOf(runId)).toEqual([]);
  });

  it("decides a condition's branch from its rendered config", async () => {
    const runId = await newRun();
    const env = mockContext({ attempt: 1, isLocal: true });
    const input = { ...nodeInput(runId, "big", "condition", {}, { amount: 120 }), handling: "condition" as const };
    const decide = (config: object) => env.run(activity("condition"), { ...input, config: config as never });
    expect(await decide({ left: "{{ input.amount }}", operator: "greater_than", right: 100 })).toMatchObject({
      output: { amount: 120 },
      branch: "true",
    });
    expect(await decide({ left: "{{ input.amount }}", operator: "less_than", right: 100 })).toMatchObject({
      branch: "false",
    });
  });

  it("fails a node whose templates name a big value past the render's budget: a config error, not retried, recorded", async () => {
    const runId = await newRun();
    const env = mockContext({ attempt: 1, isLocal: true });
    // 1 MB of input named 100 times: the set node's output would be 100 MB for the run to write.
    const fields = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`copy${i}`, "{{ input }}"]));
    const failure = await env
      .run(activity("set"), nodeInput(runId, "copies", "set", { fields }, { text: "x".repeat(1024 * 1024) }))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      type: "NodeConfigError",
      nonRetryable: true,
      message:
        'Invalid config of node "copies": its templates render to more than 32 MB of data (each use of a value counts its whole size)',
    });
    expect((await stepsOf(runId)).map((s) => [s.nodeId, s.status])).toEqual([["copies", "failed"]]);
  });

  it("evaluates a transform's expression in a sandbox process, with $run bound", async () => {
    const runId = await newRun();
    const env = mockContext({ attempt: 1, isLocal: true });
    const result = await env.run(
      activity("transform"),
      nodeInput(runId, "shape", "transform", { expression: '{ "n": n * 2, "run": $run.id }' }, { n: 21 }),
    );
    expect(result).toMatchObject({ output: { n: 42, run: runId } });
  });

  it("starts a delay: the running step is recorded and the wait comes from the rendered duration", async () => {
    const runId = await newRun();
    const env = mockContext({ attempt: 1 });
    const input = { ...nodeInput(runId, "wait", "delay", { duration: "{{ input.wait }}" }, { wait: "90s" }) };
    expect(await env.run(activity("delay"), { ...input, handling: "delay" as const })).toEqual({
      attempt: 1,
      durationMs: 90_000,
    });
    expect((await stepsOf(runId)).map((s) => [s.nodeId, s.status])).toEqual([["wait", "running"]]);
  });

  it("waits out a database outage in a log node's entry instead of failing the attempt", async () => {
    const runId = await newRun();
    const outage = await databaseOutage();
    try {
      const during = createActivities({
        prisma: outage.prisma,
        clock: systemClock,
        nodes: testRegistry(),
        config: testConfig(),
      }) as unknown as Record<string, PerType>;
      const env = mockContext({
        attempt: 1,
        isLocal: true,
        startToCloseTimeoutMs: 60_000,
        currentAttemptScheduledTimestampMs: Date.now(),
      });
      const logged = env.run(during.log!, nodeInput(runId, "note", "log", { message: "written after the outage" }));
      // Bounded: the entry's writes are refused a few times (the attempt still running), then the database is back.
      for (let polls = 0; outage.dropped() < 3 && polls < 200; polls++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(outage.dropped()).toBeGreaterThanOrEqual(3);
      outage.restore();

      expect(await logged).toMatchObject({ output: {} });
      const entries = await testPrisma().logEntry.findMany({ where: { runId } });
      expect(entries.map((entry) => [entry.nodeId, testSeal.openText(entry.message)])).toEqual([
        ["note", "written after the outage"],
      ]);
      // The attempt succeeded: no failure was recorded for it.
      expect((await stepsOf(runId)).filter((step) => step.status === "failed")).toEqual([]);
    } finally {
      await outage.close();
    }
  });

  it("shows a database error of a node as its reason, without Prisma's call site or our source paths", async () => {
    const runId = await newRun();
    let deep: unknown = "leaf";
    for (let i = 0; i < 200; i++) deep = { nested: deep };
    const env = mockContext({ attempt: 1, isLocal: true });
    const failure = await env
      .run(activity("log", keylessActivities), nodeInput(runId, "deep", "log", { message: "deep data", data: deep }))
      .catch((error: Error) => error);
    expect(failure).toMatchObject({
      message: "Database error: the value is nested too deeply to be stored",
      type: "DatabaseError",
    });
    const [step] = await stepsOf(runId);
    expect(step?.error).toMatchObject({ message: "Database error: the value is nested too deeply to be stored" });
    expect(JSON.stringify(step?.error)).not.toMatch(/invocation|\.ts:\d+|node_modules|prisma\./);
  });

  it("ends an attempt cancelled while it runs as failed with the cancellation, not as a success", async () => {
    const runId = await newRun();
    const env = mockContext({ attempt: 1 });
    const running = env.run(activity("test_sleep"), nodeInput(runId, "nap", "test_sleep", { ms: 30_000 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    env.cancel();
    await expect(running).rejects.toBeDefined();
    const steps = await stepsOf(runId);
    expect(steps.map((s) => s.status)).not.toContain("success");
    expect(steps.at(-1)?.status).toMatch(/failed|cancelled/);
  });
});
