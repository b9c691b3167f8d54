import request from "supertest";
import { describe, expect, it } from "vitest";
import { newId } from "../../../lib/ids.js";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login, makeTestApps } from "../../../test/helpers/identity.js";

const appFor = makeTestApps();
const NOW = new Date("2026-11-22T12:00:00.000Z");
const clock = { now: () => new Date(NOW) };
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const MIN = 60_000;
const HOUR = 60 * MIN;

async function seedRun(
  workspaceId: string,
  flowId: string,
  status: "running" | "queued" | "success" | "failed" | "cancelled",
  startedAt: Date,
  durationMs: number | null,
  parentRunId: string | null = null,
) {
  await testPrisma().run.create({
    data: {
      id: newId("run"),
      workspaceId,
      flowId,
      flowName: `Flow ${flowId.slice(-4)}`,
      version: 1,
      status,
      trigger: "api",
      input: {},
      startedAt,
      parentRunId,
      finishedAt: durationMs === null ? null : new Date(startedAt.getTime() + durationMs),
      durationMs,
    },
  });
}

describe("GET /api/metrics", () => {
  it("counts the workspace's runs by status per window, with success rates, duration percentiles, flows and deliveries", async () => {
    const { app } = appFor({}, clock);
    const user = await createTestUser("metrics");
    const ws = user.workspace.workspaceId;
    const [flowA, flowB] = ["wf_aaaaaaaaaaaaaaaaaaaaaaaa", "wf_bbbbbbbbbbbbbbbbbbbbbbbb"];
    await seedRun(ws, flowA, "success", ago(10 * MIN), 100);
    await seedRun(ws, flowA, "success", ago(20 * MIN), 200);
    await seedRun(ws, flowA, "failed", ago(30 * MIN), 300);
    await seedRun(ws, flowA, "running", ago(1 * MIN), null);
    await seedRun(ws, flowA, "queued", ago(3 * MIN), null);
    await seedRun(ws, flowB, "success", ago(5 * HOUR), 400);
    await seedRun(ws, flowB, "cancelled", ago(6 * HOUR), 50);
    await seedRun(ws, flowB, "failed", ago(72 * HOUR), 1000);
    // Outside every window, a loop's child run, and another workspace's run: none count.
    await seedRun(ws, flowB, "success", ago(10 * 24 * HOUR), 5);
    await seedRun(ws, flowA, "success", ago(2 * MIN), 7, "run_000000000000000000000000");
    const other = await createTestUser("metrics-other");
    await seedRun(other.workspace.workspaceId, flowA, "failed", ago(MIN), 9);

    const endpoint = await testPrisma().webhookEndpoint.create({
      data: { id: newId("whe"), workspaceId: ws, url: "https://example.com/hook", events: ["run.completed"] },
    });
    for (const [status, count] of [
      ["succeeded", 3],
      ["failed", 1],
      ["pending", 1],
    ] as const) {
      for (let i = 0; i < count; i++) {
        await testPrisma().webhookDelivery.create({
          data: {
            id: newId("whd"),
            workspaceId: ws,
            endpointId: endpoint.id,
            event: "run.completed",
            body: "{}",
            status,
            createdAt: ago(HOUR),
            updatedAt: ago(HOUR),
          },
        });
      }
    }

    // Agent runs: three this week (one of them too old), tokens summed; another workspace's not counted.
    for (const [workspaceId, status, startedAt, input, output] of [
      [ws, "success", ago(HOUR), 100, 20],
      [ws, "failed", ago(2 * HOUR), 50, 5],
      [ws, "running", ago(MIN), 10, 0],
      [ws, "success", ago(9 * 24 * HOUR), 1000, 1000],
      [other.workspace.workspaceId, "success", ago(HOUR), 7, 7],
    ] as const) {
      await testPrisma().agentRun.create({
        data: {
          id: newId("agr"),
          workspaceId,
          agentId: "assistant",
          status,
          provider: "openai",
          model: "gpt-test",
          instructions: "x",
          tools: [],
          limits: {},
          inputTokens: input,
          outputTokens: output,
          startedAt,
        },
      });
    }

    const { cookie } = await login(app, user.email);
    const res = await request(app).get("/api/metrics").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      generated_at: NOW.toISOString(),
      runs: {
        last_hour: { total: 5, running: 1, queued: 1, success: 2, failed: 1, cancelled: 0, success_rate: 2 / 3 },
        last_day: { total: 7, running: 1, queued: 1, success: 3, failed: 1, cancelled: 1, success_rate: 3 / 4 },
        last_week: { total: 8, running: 1, queued: 1, success: 3, failed: 2, cancelled: 1, success_rate: 3 / 5 },
      },
      // Finished this week: 100, 200, 300, 400, 1000 ms; p95 interpolates between 400 and 1000.
      duration_ms: { window: "last_week", finished: 5, p50: 300, p95: 880 },
      runs_per_flow: [
        { flow_id: flowA, flow_name: "Flow aaaa", total: 5, success: 2, failed: 1 },
        { flow_id: flowB, flow_name: "Flow bbbb", total: 3, success: 1, failed: 1 },
      ],
      agents: {
        window: "last_week",
        runs: { total: 3, running: 1, queued: 0, success: 1, failed: 1, cancelled: 0, success_rate: 0.5 },
        tokens: { input: 160, output: 25, total: 185 },
      },
      webhook_deliveries: { window: "last_week", succeeded: 3, failed: 1, pending: 1, success_rate: 0.75 },
    });
  });

  it("answers zeros and nulls for an empty workspace, and 401 without a session", async () => {
    const { app } = appFor({}, clock);
    const user = await createTestUser("metrics-empty");
    const { cookie } = await login(app, user.email);
    const res = await request(app).get("/api/metrics").set("Cookie", cookie);
    expect(res.body.runs.last_week).toEqual({
      total: 0,
      running: 0,
      queued: 0,
      success: 0,
      failed: 0,
      cancelled: 0,
      success_rate: null,
    });
    expect(res.body.duration_ms).toEqual({ window: "last_week", finished: 0, p50: null, p95: null });
    expect(res.body.runs_per_flow).toEqual([]);
    expect(res.body.agents.tokens).toEqual({ input: 0, output: 0, total: 0 });
    expect((await request(app).get("/api/metrics")).status).toBe(401);
  });
});
