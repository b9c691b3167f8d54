// The API app as the durability and chaos tests drive it (createApp over real dependencies, a
// logged-in editor) and the wait for a worker process to poll a task queue.
import request from "supertest";
import { expect } from "vitest";
import { createApp } from "../../api/app.js";
import { createDeps } from "../../api/deps.js";
import { newUserSchema } from "../../core/users/users.schema.js";
import { createUserWithWorkspace } from "../../core/users/users.service.js";
import { waitForPollers } from "../../scripts/infra/temporal.js";
import { createLogger } from "../../lib/logger.js";
import { testConfig } from "./context.js";
import { TEST_PASSWORD, login, uniqueEmail } from "./identity.js";
import { testRegistry } from "./runs.js";

/**
 * An app over `overrides` (a task queue of the test's own; another database or Temporal server
 * if the test has one), with a user created in that app's database and logged in.
 */
export async function appOn(overrides: Record<string, string>) {
  const config = testConfig(overrides);
  const deps = createDeps(config, createLogger(config, "durability"), { nodes: testRegistry() });
  const app = createApp(deps);
  const email = uniqueEmail("durable");
  await createUserWithWorkspace(
    deps.prisma,
    newUserSchema.parse({ email, password: TEST_PASSWORD, name: "Durable", workspace: "Durable" }),
    { iterations: 100_000 },
  );
  const { cookie } = await login(app, email);
  const api = {
    deps,
    app,
    cookie,
    async createFlow(definition: object) {
      const res = await request(app).post("/api/flows").set("Cookie", cookie).send({ name: "Durable", definition });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    },
    async start(flowId: string, input: object = { n: 1 }) {
      const res = await request(app).post(`/api/workflows/${flowId}/run`).set("Cookie", cookie).send({ input });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.run_id as string;
    },
    async run(runId: string) {
      return (await request(app).get(`/api/runs/${runId}`).set("Cookie", cookie)).body.run;
    },
    async stepStatus(runId: string, nodeId: string) {
      const { body } = await request(app).get(`/api/runs/${runId}/steps`).set("Cookie", cookie);
      return (body.items as Array<{ node_id: string; status: string }>).filter((s) => s.node_id === nodeId).at(-1)
        ?.status;
    },
  };
  return api;
}

/** Waits until some worker polls `taskQueue` for activities on the Temporal server at `address`. */
export const waitForPoller = (address: string, taskQueue: string) =>
  waitForPollers(address, taskQueue, { kind: "activity", timeoutMs: 60_000 });
