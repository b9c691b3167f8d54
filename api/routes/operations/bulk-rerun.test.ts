// POST /api/runs/rerun and /api/operations against the real API, worker, Temporal and PostgreSQL:
// 50 runs that failed on a renamed field, rerun on the fixed version as one operation while the
// worker is restarted, each exactly once, the upstream API (a local server) never called again.
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { exportedHistory } from "../../../test/helpers/histories.js";
import { createTestUser, joinWorkspace, login } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const upstream = { calls: 0, server: undefined as Server | undefined, url: "" };
beforeAll(async () => {
  upstream.server = createServer((_req, res) => {
    upstream.calls++;
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ amount_cents: 120 }));
  });
  await new Promise<void>((resolve) => upstream.server!.listen(0, "127.0.0.1", resolve));
  upstream.url = `http://127.0.0.1:${(upstream.server!.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => upstream.server?.close(() => resolve())));

const h = useRunHarness({
  config: { EGRESS_ALLOWLIST: "127.0.0.1", BULK_RERUN_PER_SECOND: "5", BULK_RERUN_MAX_RUNS: "60" },
});

const orderFlow = (field: string) =>
  flow(
    [
      { id: "fetch", type: "http_request", config: { url: `${upstream.url}/orders/{{ input.n }}` } },
      {
        id: "compute",
        type: "code",
        config: {
          code: `if (input.body.${field} === undefined) throw new Error("no ${field}"); return { total: input.body.${field} };`,
        },
      },
    ],
    [
      ["start", "fetch"],
      ["fetch", "compute"],
    ],
  );

type Operation = {
  status: string;
  total: number;
  counts: Record<string, number>;
  skipped_reasons: Record<string, number>;
  skipped: Array<{ run_id: string; reason: string }>;
};

async function readOperation(id: string, cookie = h.cookie): Promise<Operation> {
  const res = await request(h.app).get(`/api/operations/${id}`).set("Cookie", cookie);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Operation;
}

/** Polls the operation until `done` holds (at most `timeoutMs`). */
async function operationUntil(id: string, done: (operation: Operation) => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const operation = await readOperation(id);
    if (done(operation)) return operation;
    if (Date.now() > deadline) throw new Error(`operation ${id} still ${JSON.stringify(operation)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function runMany(flowId: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, (_, j) => h.runToEnd(flowId, { n: i + j })),
    );
    ids.push(...batch.map((run: { id: string }) => run.id));
  }
  return ids;
}

const bulk = (body: object, cookie = h.cookie) =>
  request(h.app).post("/api/runs/rerun").set("Cookie", cookie).send(body);

describe("bulk rerun", () => {
  it("reruns 50 failed runs on the fixed version from their failed node, each once, through a worker restart", async () => {
    const flowId = await h.createFlow(orderFlow("amount"), "Orders");
    const failed = await runMany(flowId, 50);
    const runs = await testPrisma().run.findMany({ where: { id: { in: failed } } });
    expect(runs.every((run) => run.status === "failed")).toBe(true);
    expect(upstream.calls).toBe(50);

    // Grouped by the node that failed and its error: one group of 50.
    const failures = async () => {
      const res = await request(h.app).get(`/api/runs/failures?flow_id=${flowId}`).set("Cookie", h.cookie);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const before = await failures();
    expect(before).toMatchObject({ runs: 50, truncated: false });
    expect(before.groups).toHaveLength(1);
    expect(before.groups[0]).toMatchObject({ node_id: "compute", count: 50, versions: [1] });
    expect(before.groups[0].error).toContain("no amount");
    expect(new Set(before.groups[0].run_ids)).toEqual(new Set(failed));

    const current = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    const saved = await request(h.app)
      .put(`/api/flows/${flowId}`)
      .set("Cookie", h.cookie)
      .send({ version: current.body.version, definition: orderFlow("amount_cents") });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const asked = await bulk({ flow_id: flowId, status: "failed", from_failed: true });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ status: "running", total: 50 });
    expect(asked.headers.location).toBe(`/api/operations/${asked.body.operation_id}`);
    const id = asked.body.operation_id as string;

    // At 5 reruns a second the operation takes about 10 s: the worker is stopped and started in it.
    await operationUntil(id, (operation) => operation.counts.started! >= 5);
    await h.restartWorker();
    const done = await operationUntil(
      id,
      (operation) => operation.status === "completed" && operation.counts.succeeded === 50,
    );
    expect(done.counts).toMatchObject({ pending: 0, started: 50, skipped: 0, failed: 0, running: 0 });

    // Each failed run was rerun exactly once, on version 2, and the upstream API was never called again.
    const reruns = await testPrisma().run.findMany({ where: { rerunOf: { in: failed } } });
    expect(reruns).toHaveLength(50);
    expect(new Set(reruns.map((run) => run.rerunOf)).size).toBe(50);
    expect(reruns.every((run) => run.status === "success" && run.version === 2 && run.trigger === "rerun")).toBe(true);
    expect(upstream.calls).toBe(50);
    // Failures rerun to success are no longer listed.
    expect(await failures()).toEqual({ groups: [], runs: 0, truncated: false });
    const rerun = await request(h.app).get(`/api/runs/${reruns[0]!.id}`).set("Cookie", h.cookie);
    expect(rerun.body.run.rerun).toMatchObject({ from: "failed", version: "latest", operation_id: id });

    // Asked again by ids (one named twice): each named run is rerun once by this operation.
    const again = await bulk({ ids: [failed[0], failed[0], failed[1]], from_failed: true, version: "run" });
    expect(again.status).toBe(202);
    expect(again.body.total).toBe(2);
    const second = await operationUntil(again.body.operation_id, (operation) => operation.status === "completed");
    expect(second.counts.started).toBe(2);
  }, 150_000);

  it("skips runs that cannot be rerun, naming why, and cancels what it has not reached", async () => {
    const slow = await h.createFlow(
      flow([{ id: "wait", type: "delay", config: { duration: "1h" } }], [["start", "wait"]]),
    );
    const running = (await h.startRun(slow)).body.run_id as string;
    const quick = await h.createFlow(
      flow([{ id: "echo", type: "test_echo", config: { value: 1 } }], [["start", "echo"]]),
    );
    const done = await runMany(quick, 20);

    const asked = await bulk({ ids: [running, ...done] });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const first = await operationUntil(asked.body.operation_id, (operation) => operation.counts.pending! < 21);
    const cancelled = await request(h.app)
      .post(`/api/operations/${asked.body.operation_id}/cancel`)
      .set("Cookie", h.cookie);
    expect(cancelled.status).toBe(202);
    const end = await operationUntil(asked.body.operation_id, (operation) => operation.status === "cancelled");
    expect(end.counts.pending).toBe(0);
    expect(end.counts.started! + end.counts.skipped!).toBe(21);
    expect(end.skipped_reasons.cancelled).toBeGreaterThan(0);
    // The running run came first (it started first): skipped as not ended.
    expect(first.total).toBe(21);
    expect(end.skipped[0]).toMatchObject({ run_id: running, reason: "run_not_ended" });
    const again = await request(h.app)
      .post(`/api/operations/${asked.body.operation_id}/cancel`)
      .set("Cookie", h.cookie);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("operation_not_running");
    await request(h.app).post(`/api/runs/${running}/cancel`).set("Cookie", h.cookie);
    // One operation.cancelled row (the refused second cancel wrote none), naming who cancelled it.
    const session = await request(h.app).get("/api/auth/session").set("Cookie", h.cookie);
    const rows = await testPrisma().auditEvent.findMany({
      where: { objectId: asked.body.operation_id, action: "operation.cancelled" },
    });
    expect(rows).toEqual([
      expect.objectContaining({
        workspaceId: h.workspaceId,
        actorKind: "person",
        actorId: session.body.user.id,
        objectKind: "operation",
        details: { kind: "rerun", total: 21 },
      }),
    ]);
    // Set RECORD_HISTORY=1 to record it again, after a change that earlier histories must not see.
    if (process.env.RECORD_HISTORY === "1") {
      const fixture = new URL(
        "../../../worker/workflows/histories/bulk-rerun.bulkRerun.cancelled.json",
        import.meta.url,
      );
      const checkout = fileURLToPath(new URL("../../../", import.meta.url));
      const json = JSON.stringify(JSON.parse(await exportedHistory(h.deps.temporal, asked.body.operation_id)), null, 2);
      writeFileSync(fixture, `${json.replaceAll(checkout, "/app/")}\n`);
    }
  });

  it("does not take a run that grabbed an item's idempotency key for that item's rerun", async () => {
    const quick = await h.createFlow(
      flow([{ id: "echo", type: "test_echo", config: { value: 1 } }], [["start", "echo"]]),
    );
    const done = await runMany(quick, 12);
    const asked = await bulk({ ids: done });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const id = asked.body.operation_id as string;
    // A member who read the operation's id starts an unrelated run under its last item's key
    // (at 5 reruns a second, that item comes about 2 s later).
    const grabbed = await h.startRun(quick, { n: "grabbed" }, { "Idempotency-Key": `bulk-rerun:${id}:12` });
    expect(grabbed.status, JSON.stringify(grabbed.body)).toBe(201);
    const end = await operationUntil(id, (operation) => operation.status === "completed");
    expect(end.counts).toMatchObject({ started: 11, skipped: 1 });
    const item = await testPrisma().operationItem.findFirstOrThrow({ where: { operationId: id, idx: 12 } });
    expect(end.skipped).toEqual([{ run_id: item.runId, reason: "idempotency_conflict", message: expect.any(String) }]);
    expect(item.newRunId).toBeNull();
  });

  it("answers clear errors: the selection's shape, nothing or too much selected, roles and workspaces", async () => {
    expect((await bulk({ from_failed: true })).status).toBe(400);
    expect((await bulk({ ids: ["run_000000000000000000000000"], status: "failed" })).status).toBe(400);
    expect((await bulk({ ids: ["run_000000000000000000000000"], from_node: "a", from_failed: true })).status).toBe(400);
    const empty = await bulk({ ids: ["run_000000000000000000000000"] });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe("selection_empty");
    // Every run of the workspace so far: more than BULK_RERUN_MAX_RUNS (60).
    const tooMany = await bulk({ started_after: "2000-01-01T00:00:00Z" });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body).toMatchObject({ code: "selection_too_large", max: 60 });
    expect(await testPrisma().operation.count({ where: { workspaceId: h.workspaceId, status: "running" } })).toBe(0);

    const viewer = await joinWorkspace(h.app, h.cookie, await createTestUser("bulk-viewer"), "viewer");
    expect((await bulk({ started_after: "2000-01-01T00:00:00Z" }, viewer.cookie)).status).toBe(403);
    const stranger = await createTestUser("bulk-stranger");
    const { cookie } = await login(h.app, stranger.email);
    const operation = await testPrisma().operation.findFirst({ where: { workspaceId: h.workspaceId } });
    expect((await request(h.app).get(`/api/operations/${operation!.id}`).set("Cookie", cookie)).status).toBe(404);
    expect((await request(h.app).post(`/api/operations/${operation!.id}/cancel`).set("Cookie", cookie)).status).toBe(
      404,
    );
    // Another workspace's runs are never selected.
    const ours = await testPrisma().run.findFirst({ where: { workspaceId: h.workspaceId } });
    const strangerBulk = await bulk({ ids: [ours!.id] }, cookie);
    expect(strangerBulk.status).toBe(400);
    expect(strangerBulk.body.code).toBe("selection_empty");
  });
});
