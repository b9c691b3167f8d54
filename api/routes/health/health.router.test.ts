import { randomUUID } from "node:crypto";
import { msToTs } from "@temporalio/common/lib/time.js";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { freePort, waitFor } from "../../../scripts/infra/process.js";
import { testDeps } from "../../../test/helpers/context.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { flow } from "../../../test/helpers/runs.js";
import { SEARCH_ATTRIBUTES } from "../../../core/contracts/run-flow.js";
import { createApp } from "../../app.js";
import { closeDeps, type AppDeps } from "../../deps.js";

/** A user of a new workspace with one active flow (manual → set), and a way to start it. */
async function userWithFlow(app: ReturnType<typeof createApp>, label: string) {
  const user = await createTestUser(label);
  const { cookie } = await login(app, user.email);
  const created = await request(app)
    .post("/api/flows")
    .set("Cookie", cookie)
    .send({
      name: label,
      definition: flow([{ id: "s", type: "set", config: { fields: { a: 1 } } }], [["start", "s"]]),
    });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const flowId = created.body.id as string;
  return {
    cookie,
    flowId,
    start: () => request(app).post(`/api/workflows/${flowId}/run`).set("Cookie", cookie).send({}),
  };
}

describe("health endpoints", () => {
  const opened: AppDeps[] = [];
  const appWith = (overrides: Record<string, string> = {}) => {
    const deps = testDeps(overrides);
    opened.push(deps);
    return createApp(deps);
  };
  afterAll(async () => {
    await Promise.all(opened.map(closeDeps));
  });

  it("GET /healthz answers while the process lives", async () => {
    const res = await request(appWith()).get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("GET /readyz is 200 when the database and Temporal answer", async () => {
    const res = await request(appWith()).get("/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready", checks: { database: "ok", temporal: "ok" } });
  });

  it("GET /readyz is 503 naming Temporal when it does not answer", async () => {
    const res = await request(appWith({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` })).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("not_ready");
    expect(res.body.error).toBe("Not ready: temporal unavailable");
    expect(res.body.checks.database).toBe("ok");
    expect(res.body.checks.temporal).toMatch(/^down: /);
  });

  it("GET /readyz is 503 naming a TLS handshake failure as such, not a silent Temporal", async () => {
    // TLS towards the test run's dev server, which speaks plain gRPC: the handshake cannot succeed.
    const res = await request(appWith({ TEMPORAL_TLS: "true" })).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("Not ready: temporal unavailable");
    expect(res.body.checks.temporal).toMatch(
      new RegExp(`^down: TLS handshake with ${inject("temporalAddress")} failed: .+ \\(TEMPORAL_TLS_\\* settings\\)$`),
    );
  });

  it("GET /readyz is 503 naming the database when it does not answer", async () => {
    const url = new URL(inject("databaseUrl"));
    url.port = String(await freePort());
    const res = await request(appWith({ DATABASE_URL: url.toString() })).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("Not ready: database unavailable");
    // The reason, not only the part: the server it cannot reach.
    expect(res.body.checks).toMatchObject({ temporal: "ok", database: expect.stringMatching(/^down: \S/) });
    expect(res.body.checks.database).toContain(`127.0.0.1:${url.port}`);
    // Prisma's reason, not its blank first line or "Invalid `prisma.$queryRaw()` invocation".
    expect(res.body.checks.database).toMatch(/^down: .*Can't reach database server/);
    expect(res.body.checks.database).not.toMatch(/invocation|\.ts:\d+/);
  });

  it("registers the runs' search attributes on a fresh namespace before it answers ready, worker or not", async () => {
    const namespace = `fresh-${randomUUID()}`;
    const deps = testDeps({ TEMPORAL_NAMESPACE: namespace });
    opened.push(deps);
    const app = createApp(deps);
    const { workflowService, operatorService } = deps.temporal.connection;
    await workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs("1 day") });
    const registered = async () => {
      const { customAttributes } = await operatorService.listSearchAttributes({ namespace });
      return Object.keys(customAttributes ?? {});
    };
    expect(await registered()).not.toContain(SEARCH_ATTRIBUTES.workspaceId);

    // The namespace becomes visible to the frontend within seconds; then /readyz registers.
    await waitFor("the API to become ready on the new namespace", async () => (await request(app).get("/readyz")).ok, {
      timeoutMs: 45_000,
      intervalMs: 500,
    });
    expect(await registered()).toEqual(expect.arrayContaining(Object.values(SEARCH_ATTRIBUTES)));

    // A run starts with no worker having run on the namespace (it stays running: no worker polls).
    const { start } = await userWithFlow(app, "fresh-namespace");
    const started = await start();
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await deps.temporal.workflow.getHandle(started.body.run_id).terminate("test over");
  });

  it("registers the search attributes before it saves a flow's schedule (Temporal refuses one without them)", async () => {
    const namespace = `fresh-schedule-${randomUUID()}`;
    const deps = testDeps({ TEMPORAL_NAMESPACE: namespace });
    opened.push(deps);
    const app = createApp(deps);
    const { workflowService, operatorService } = deps.temporal.connection;
    await workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs("1 day") });
    // Visible to the frontend within seconds; /readyz is not asked (it would register them).
    await waitFor("the new namespace", () => workflowService.describeNamespace({ namespace }).then(() => true), {
      timeoutMs: 45_000,
      intervalMs: 500,
    });
    const { customAttributes } = await operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(customAttributes ?? {})).not.toContain(SEARCH_ATTRIBUTES.workspaceId);

    const user = await createTestUser("fresh-schedule");
    const { cookie } = await login(app, user.email);
    const definition = flow([{ id: "s", type: "set", config: { fields: { a: 1 } } }], [["start", "s"]]);
    definition.nodes[0] = { id: "start", type: "schedule", config: { interval: "1h" } } as (typeof definition.nodes)[0];
    const created = await request(app).post("/api/flows").set("Cookie", cookie).send({ name: "hourly", definition });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const schedule = await deps.temporal.schedule.getHandle(`flow-${created.body.id}`).describe();
    expect(schedule.scheduleId).toBe(`flow-${created.body.id}`);
    await deps.temporal.schedule.getHandle(`flow-${created.body.id}`).delete();
  });

  it("answers a start Temporal refuses with 503 temporal_refused naming Temporal's cause, and fails the run", async () => {
    const namespace = `missing-${randomUUID()}`;
    const deps = testDeps({ TEMPORAL_NAMESPACE: namespace });
    opened.push(deps);
    const app = createApp(deps);
    const { cookie, flowId, start } = await userWithFlow(app, "missing-namespace");
    const started = await start();
    expect(started.status).toBe(503);
    expect(started.body).toMatchObject({
      code: "temporal_refused",
      error: expect.stringMatching(
        new RegExp(`^The run could not be started: Temporal refused it: NOT_FOUND: .*${namespace}`),
      ),
      run_id: expect.any(String),
    });
    const run = await request(app).get(`/api/runs/${started.body.run_id}`).set("Cookie", cookie);
    expect(run.body.run).toMatchObject({ status: "failed", error: { message: started.body.error } });

    const unreachable = testDeps({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    opened.push(unreachable);
    const down = await request(createApp(unreachable))
      .post(`/api/workflows/${flowId}/run`)
      .set("Cookie", cookie)
      .send({});
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      code: "temporal_unavailable",
      error: expect.stringMatching(/^The run could not be started: Temporal is unavailable \(/),
    });
  });

  it("sets security headers and hides the framework", async () => {
    const res = await request(appWith()).get("/healthz");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-powered-by"]).toBeUndefined();
  });
});
