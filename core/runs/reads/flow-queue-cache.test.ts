// A flow's queue read from memory within FLOW_QUEUE_CACHE.ttlMs (cachedFlowQueue): on the dev
// server, with the reading's Temporal calls and SQL statements counted, a second reading within
// the window asks nothing, and a run queued meanwhile shows once the window has passed; then the
// cache's own rules (shared reading under way, failures not kept, per workspace, bounded).
import type { Client } from "@temporalio/client";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../../lib/clock.js";
import type { PrismaClient } from "../../../lib/db.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { sleeperFlow } from "../../../test/helpers/gates.js";
import { useRunHarness } from "../../../test/helpers/runs.js";
import { readGates } from "../../engine/gate-queues.js";
import { cachedFlowQueue, flowQueue, type FlowQueueView } from "./flow-queue.js";

const h = useRunHarness();
const TTL = 2_000;
const SHOWN = { timeout: 30_000, interval: 250 };

/** The Temporal client's calls a queue reading makes, counted. */
function countingTemporal(temporal: Client) {
  const calls = { list: 0, query: 0 };
  const counted = {
    connection: temporal.connection,
    workflow: {
      list: (...args: Parameters<Client["workflow"]["list"]>) => {
        calls.list++;
        return temporal.workflow.list(...args);
      },
      getHandle: (workflowId: string) => {
        const handle = temporal.workflow.getHandle(workflowId);
        return {
          query: (...args: Parameters<typeof handle.query>) => {
            calls.query++;
            return handle.query(...args);
          },
        };
      },
    },
  };
  return { calls, temporal: counted as unknown as Client };
}

/** The database statements a queue reading sends, counted. */
function countingPrisma() {
  const calls = { statements: 0 };
  const prisma = testPrisma().$extends({
    query: {
      async $allOperations({ args, query }) {
        calls.statements++;
        return query(args);
      },
    },
  });
  return { calls, prisma: prisma as unknown as PrismaClient };
}

const view = (queued: number): FlowQueueView => ({ queued, oldest_wait_seconds: 0, keys: [] });

describe("a flow's queue read from memory for a moment", () => {
  it("asks Temporal and the database once for two readings within the window, and again after it, showing a change", async () => {
    const flowId = await h.createFlow(sleeperFlow(60_000, { concurrency: { limit: 1, key: "{{ input.customer }}" } }));
    const clock = manualClock();
    const temporal = countingTemporal(h.deps.temporal);
    const db = countingPrisma();
    const deps = { temporal: temporal.temporal, prisma: db.prisma, clock, config: h.deps.config };
    const queue = cachedFlowQueue((workspaceId, id) => flowQueue(deps, workspaceId, id), clock);
    const gateDeps = { temporal: h.deps.temporal, prisma: testPrisma(), clock };
    const waiting = async () =>
      (await readGates(gateDeps, h.taskQueue, { flowId, workspaceId: h.workspaceId })).reduce(
        (sum, gate) => sum + gate.queued,
        0,
      );
    const runIds: string[] = [];
    const start = async (customer: string) => {
      const res = await h.startRun(flowId, { customer });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      runIds.push(res.body.run_id as string);
    };
    try {
      // Two keys, each with a run holding its slot and one waiting at its gate.
      for (const customer of ["acme", "acme", "globex", "globex"]) await start(customer);
      await expect.poll(waiting, SHOWN).toBe(2);

      const first = await queue(h.workspaceId, flowId);
      expect(first.queued).toBe(2);
      // One visibility list and one query per gate, and the database's reads.
      expect(temporal.calls).toEqual({ list: 1, query: 2 });
      const statements = db.calls.statements;
      expect(statements).toBeGreaterThan(0);

      // A third run of acme queues; within the window the reading answers as before and asks nothing.
      await start("acme");
      await expect.poll(waiting, SHOWN).toBe(3);
      clock.advance(TTL - 1);
      expect(await queue(h.workspaceId, flowId)).toEqual(first);
      expect(temporal.calls).toEqual({ list: 1, query: 2 });
      expect(db.calls.statements).toBe(statements);

      // Past the window: read again, with the new run.
      clock.advance(2);
      const after = await queue(h.workspaceId, flowId);
      expect(after.queued).toBe(3);
      expect(after.keys.find((key) => key.key === "acme")).toMatchObject({ queued: 2, running: 1, limit: 1 });
      expect(temporal.calls).toEqual({ list: 2, query: 4 });
      expect(db.calls.statements).toBe(2 * statements);
    } finally {
      for (const id of runIds) await request(h.app).post(`/api/runs/${id}/cancel`).set("Cookie", h.cookie);
    }
  });

  it("shares a reading under way, keeps no failure, reads per workspace and keeps at most maxFlows flows", async () => {
    const clock = manualClock();
    const asked: string[] = [];
    let answer = 1;
    let fail = false;
    let release: () => void = () => undefined;
    let held: Promise<void> | undefined;
    const queue = cachedFlowQueue(
      async (workspaceId, flowId) => {
        asked.push(`${workspaceId}/${flowId}`);
        if (held) await held;
        if (fail) throw new Error("gate query failed");
        return view(answer);
      },
      clock,
      { ttlMs: TTL, maxFlows: 2 },
    );

    // Two asks while the first reading is under way: one reading.
    held = new Promise((resolve) => (release = resolve));
    const both = Promise.all([queue("ws_a", "wf_1"), queue("ws_a", "wf_1")]);
    release();
    held = undefined;
    expect((await both).map((v) => v.queued)).toEqual([1, 1]);
    expect(asked).toEqual(["ws_a/wf_1"]);

    // Another workspace asking for the same flow reads for itself.
    answer = 2;
    expect((await queue("ws_b", "wf_1")).queued).toBe(2);
    expect(asked).toEqual(["ws_a/wf_1", "ws_b/wf_1"]);

    // A failed reading is not kept: the next ask reads again.
    clock.advance(TTL);
    fail = true;
    await expect(queue("ws_a", "wf_1")).rejects.toThrow("gate query failed");
    fail = false;
    expect((await queue("ws_a", "wf_1")).queued).toBe(2);
    expect(asked.filter((key) => key === "ws_a/wf_1")).toHaveLength(3);

    // At most two flows kept: a third drops the oldest reading, which is read again when asked.
    const bounded = cachedFlowQueue(
      async (workspaceId, flowId) => {
        asked.push(`${workspaceId}/${flowId}`);
        return view(answer);
      },
      clock,
      { ttlMs: TTL, maxFlows: 2 },
    );
    for (const flowId of ["wf_1", "wf_2", "wf_3"]) await bounded("ws_c", flowId);
    const before = asked.length;
    await bounded("ws_c", "wf_3");
    await bounded("ws_c", "wf_2");
    expect(asked.length).toBe(before);
    await bounded("ws_c", "wf_1");
    expect(asked.slice(before)).toEqual(["ws_c/wf_1"]);
  });
});
