// What a failed Temporal call tells the client, and what a start whose outcome is unknown leaves:
// a connection cut mid-start (`UNKNOWN: transport error`) after Temporal took it must not end the
// run failed and free its key, since the run's workflow runs.
import { randomUUID } from "node:crypto";
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from "@temporalio/client";
import request from "supertest";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../../api/app.js";
import { closeDeps } from "../../api/deps.js";
import { testDeps, testPrisma } from "../../test/helpers/context.js";
import { startGrpcProxy } from "../../test/helpers/grpc-proxy.js";
import { flow, useRunHarness } from "../../test/helpers/runs.js";
import { temporalRefusal } from "./temporal-start.js";

/** An error as the Temporal clients report a gRPC status. */
const grpcError = (code: number, details: string) =>
  Object.assign(new Error("Failed to start Workflow"), {
    cause: Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} }),
  });

describe("temporalRefusal", () => {
  it("calls a failure a refusal only when Temporal definitely did nothing; any other leaves the outcome unknown", () => {
    const codeOf = (code: number, details = "x") =>
      temporalRefusal("The run could not be started", grpcError(code, details));
    const refusals = [3, 5, 6, 7, 9, 11, 12, 16];
    const unknown = [1, 2, 4, 8, 10, 13, 14, 15];
    expect(refusals.map((code) => codeOf(code).code)).toEqual(refusals.map(() => "temporal_refused"));
    expect(unknown.map((code) => codeOf(code).code)).toEqual(unknown.map(() => "temporal_unavailable"));
    const cut = codeOf(2, "transport error");
    expect([cut.refused, cut.message]).toEqual([
      false,
      "The run could not be started: Temporal is unavailable (UNKNOWN: transport error)",
    ]);
    expect(codeOf(5, "namespace missing not found").message).toBe(
      "The run could not be started: Temporal refused it: NOT_FOUND: namespace missing not found",
    );
    // No gRPC status at all (a client-side error): unknown too.
    expect(temporalRefusal("The run could not be started", new Error("socket hang up")).code).toBe(
      "temporal_unavailable",
    );
  });
});

describe("a start cut off after Temporal took it", () => {
  const h = useRunHarness();
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it("answers 503 temporal_unavailable, keeps the run running and its key, and the run then runs once", async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "a", type: "set", config: { fields: { a: 1 } } },
          { id: "b", type: "set", config: { fields: { b: 2 } } },
        ],
        [
          ["start", "a"],
          ["a", "b"],
        ],
      ),
    );
    const proxy = await startGrpcProxy(inject("temporalAddress"));
    closers.push(() => proxy.close());
    const deps = testDeps({ TEMPORAL_TASK_QUEUE: h.taskQueue });
    closers.push(() => closeDeps(deps));
    // Through the proxy, its own retries used up at once (as after a real outage's retries).
    const connection = await Connection.connect({
      address: proxy.address,
      interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 1 }))],
    });
    closers.push(() => connection.close());
    const app = createApp({ ...deps, temporal: new Client({ connection, dataConverter: deps.dataConverter }) });
    const key = `cut-${randomUUID()}`;
    const start = (through: typeof app) =>
      request(through)
        .post(`/api/workflows/${flowId}/run`)
        .set("Cookie", h.cookie)
        .set("Idempotency-Key", key)
        .send({ input: { key } });

    proxy.breakNextStart();
    const cut = await start(app);
    expect(proxy.broke()).toBe(true);
    expect(cut.status, JSON.stringify(cut.body)).toBe(503);
    expect(cut.body).toMatchObject({
      code: "temporal_unavailable",
      error: "The run could not be started: Temporal is unavailable (UNKNOWN: transport error)",
      run_id: expect.stringMatching(/^run_/),
    });
    const runId = cut.body.run_id as string;
    // Not failed, its key kept: the start's outcome is unknown (here: its workflow runs).
    expect(
      await testPrisma().run.findUniqueOrThrow({
        where: { id: runId },
        select: { status: true, idempotencyKey: true },
      }),
    ).toEqual({ status: "running", idempotencyKey: key });
    proxy.restore();

    expect((await h.waitForEnd(runId)).status).toBe("success");
    expect((await h.steps(runId)).map((step) => `${step.node_id}:${step.status}`).sort()).toEqual([
      "a:success",
      "b:success",
      "start:success",
    ]);
    // The client's repeat answers that run and starts nothing new.
    const repeated = await start(h.app);
    expect([repeated.status, repeated.body.run_id]).toEqual([200, runId]);
    expect(await testPrisma().run.count({ where: { flowId } })).toBe(1);
  }, 60_000);
});
