import { randomUUID } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  exportedHistory,
  payloadsOfHistory,
  searchableText,
  type JsonPayload,
} from "../../../test/helpers/histories.js";
import { createTestUser, login, TEST_PASSWORD, uniqueEmail } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";
import { testDeps } from "../../../test/helpers/context.js";
import { createApp } from "../../app.js";
import { closeDeps, type AppDeps } from "../../deps.js";

const TEMPORAL_UI = "http://127.0.0.1:8233";
const text = (payloads: JsonPayload[]) =>
  payloads.map((p) => Buffer.from(p.data ?? "", "base64").toString("utf8")).join("\n");
const metadataOf = (payload: JsonPayload, key: string) =>
  payload.metadata[key] === undefined ? undefined : Buffer.from(payload.metadata[key]!, "base64").toString("utf8");

describe("the Temporal UI's codec endpoint", () => {
  const h = useRunHarness({ config: { TEMPORAL_UI_URL: TEMPORAL_UI } });
  const marker = `MARKER-${randomUUID()}`;
  let runId: string;
  let exported: string;
  let payloads: JsonPayload[];
  const decode = (cookie: string | undefined, body: object, headers: Record<string, string> = {}) => {
    const req = request(h.app)
      .post("/api/temporal-codec/decode")
      .set({ Origin: TEMPORAL_UI, "X-Namespace": "default", ...headers });
    return (cookie ? req.set("Cookie", cookie) : req).send(body);
  };

  beforeAll(async () => {
    const flowId = await h.createFlow(
      flow(
        [
          { id: "shape", type: "set", config: { fields: { copy: "{{ input.secret }}" } } },
          { id: "compute", type: "code", config: { code: 'return { computed: input.copy + "-computed" };' } },
        ],
        [
          ["start", "shape"],
          ["shape", "compute"],
        ],
      ),
      "Codec flow",
    );
    const run = await h.runToEnd(flowId, { secret: marker });
    expect(run).toMatchObject({ status: "success", output: { computed: `${marker}-computed` } });
    runId = run.id;
    exported = await exportedHistory(h.deps.temporal, runId);
    payloads = payloadsOfHistory(exported);
  });

  it("finds the run's input and node outputs in Temporal's history only sealed", () => {
    expect(payloads.length).toBeGreaterThan(5);
    expect(searchableText(exported)).not.toContain(marker);
    const sealed = payloads.filter((p) => metadataOf(p, "encoding") === "binary/encrypted");
    expect(sealed.length).toBeGreaterThanOrEqual(5);
    expect(new Set(sealed.map((p) => metadataOf(p, "svc-workflow-id")))).toEqual(new Set([runId]));
    // The summary stays readable for operators.
    expect(text(payloads)).toContain("Codec flow v1 · api");
  });

  it("decodes them for a member of the run's workspace, for the Temporal UI's origin, with credentials", async () => {
    const res = await decode(h.cookie, { payloads });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(TEMPORAL_UI);
    expect(res.headers["access-control-allow-credentials"]).toBe("true");
    expect(res.headers["cache-control"]).toBe("no-store");
    const decoded = res.body.payloads as JsonPayload[];
    expect(decoded).toHaveLength(payloads.length);
    expect(decoded.every((p) => metadataOf(p, "encoding") !== "binary/encrypted")).toBe(true);
    expect(text(decoded)).toContain(`"secret":"${marker}"`);
    expect(text(decoded)).toContain(`"computed":"${marker}-computed"`);
    // Payloads that were not sealed come back as they were sent.
    const plain = payloads.findIndex((p) => metadataOf(p, "encoding") === "json/plain");
    expect(plain).toBeGreaterThanOrEqual(0);
    expect(decoded[plain]).toEqual(payloads[plain]);
  });

  it("answers 401 without a session, with the CORS headers the UI needs to read it", async () => {
    const res = await decode(undefined, { payloads });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthorized");
    expect(res.headers["access-control-allow-origin"]).toBe(TEMPORAL_UI);
    expect(JSON.stringify(res.body)).not.toContain(marker);
  });

  it("refuses a member of another workspace, until they join the run's", async () => {
    const outsider = await createTestUser("outsider");
    const { cookie } = await login(h.app, outsider.email);
    const refused = await decode(cookie, { payloads });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("forbidden");
    expect(JSON.stringify(refused.body)).not.toContain(marker);

    const added = await request(h.app)
      .post("/api/workspace/members")
      .set("Cookie", h.cookie)
      .send({ email: outsider.email, role: "viewer" });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    // Still logged in to their own workspace: membership of the run's is what counts.
    const allowed = await decode(cookie, { payloads });
    expect(allowed.status).toBe(200);
    expect(text(allowed.body.payloads as JsonPayload[])).toContain(marker);
  });

  it("answers the Temporal UI's preflight, and no other origin", async () => {
    const preflight = (origin: string) =>
      request(h.app).options("/api/temporal-codec/decode").set({
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-namespace",
      });
    const ui = await preflight(TEMPORAL_UI);
    expect(ui.status).toBe(204);
    expect(ui.headers["access-control-allow-origin"]).toBe(TEMPORAL_UI);
    expect(ui.headers["access-control-allow-credentials"]).toBe("true");
    expect(ui.headers["access-control-allow-headers"]).toMatch(/X-Namespace/);
    expect(ui.headers["access-control-allow-methods"]).toMatch(/POST/);

    expect((await preflight("https://evil.example.com")).status).toBe(403);
    // The dashboard's own origins are not the Temporal UI's.
    const other = await decode(h.cookie, { payloads }, { Origin: "http://127.0.0.1:5999" });
    expect(other.status).toBe(403);
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("refuses another namespace, and bodies that are not the codec protocol's", async () => {
    const namespace = await decode(h.cookie, { payloads }, { "X-Namespace": "other" });
    expect([namespace.status, namespace.body.code]).toEqual([400, "namespace_mismatch"]);
    const malformed = await decode(h.cookie, { payloads: [{ metadata: { encoding: "not base64!" } }] });
    expect(malformed.status).toBe(400);
  });

  it("answers 422 for a sealed payload that was altered", async () => {
    const sealed = payloads.find((p) => metadataOf(p, "encoding") === "binary/encrypted")!;
    const data = Buffer.from(sealed.data!, "base64");
    data[data.length - 1]! ^= 1;
    const res = await decode(h.cookie, { payloads: [{ ...sealed, data: data.toString("base64") }] });
    expect([res.status, res.body.code]).toEqual([422, "payload_undecodable"]);
  });

  it("seals what an editor writes in the UI for their workspace; viewers may not", async () => {
    const input = {
      metadata: { encoding: Buffer.from("json/plain").toString("base64") },
      data: Buffer.from(`{"note":"${marker}"}`).toString("base64"),
    };
    const encoded = await request(h.app)
      .post("/api/temporal-codec/encode")
      .set({ Origin: TEMPORAL_UI, "X-Namespace": "default", Cookie: h.cookie })
      .send({ payloads: [input] });
    expect(encoded.status, JSON.stringify(encoded.body)).toBe(200);
    const [sealed] = encoded.body.payloads as JsonPayload[];
    expect(metadataOf(sealed!, "encoding")).toBe("binary/encrypted");
    expect(metadataOf(sealed!, "svc-workspace-id")).toBe(h.workspaceId);
    expect(text([sealed!])).not.toContain(marker);
    const back = await decode(h.cookie, { payloads: [sealed] });
    expect(back.body.payloads).toEqual([input]);

    const viewerEmail = uniqueEmail("viewer");
    const added = await request(h.app)
      .post("/api/workspace/members")
      .set("Cookie", h.cookie)
      .send({ email: viewerEmail, role: "viewer", name: "Viewer", password: TEST_PASSWORD });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const { cookie } = await login(h.app, viewerEmail);
    const refused = await request(h.app)
      .post("/api/temporal-codec/encode")
      .set({ Origin: TEMPORAL_UI, Cookie: cookie })
      .send({ payloads: [input] });
    expect(refused.status).toBe(403);
  });
});

describe("a Temporal UI that is not the dev server's", () => {
  const opened: AppDeps[] = [];
  const appWith = (config: Record<string, string>) => {
    const deps = testDeps(config);
    opened.push(deps);
    return { app: createApp(deps), deps };
  };
  afterAll(async () => {
    await Promise.all(opened.map(closeDeps));
  });
  const preflight = (app: ReturnType<typeof createApp>, origin: string, headers = "content-type,x-namespace") =>
    request(app).options("/api/temporal-codec/decode").set({
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": headers,
    });

  it("links runs under a self-hosted UI's path and answers the codec calls of its origin", async () => {
    const { app, deps } = appWith({ TEMPORAL_UI_URL: "https://ops.example.com/temporal/" });
    const allowed = await preflight(app, "https://ops.example.com");
    expect([allowed.status, allowed.headers["access-control-allow-origin"]]).toEqual([204, "https://ops.example.com"]);
    expect((await preflight(app, "https://example.com")).status).toBe(403);

    const user = await createTestUser("ui-path");
    const { cookie } = await login(app, user.email);
    const created = await request(app)
      .post("/api/flows")
      .set("Cookie", cookie)
      .send({ name: "linked", definition: flow([{ id: "s", type: "set", config: { fields: {} } }], [["start", "s"]]) });
    const started = await request(app).post(`/api/workflows/${created.body.id}/run`).set("Cookie", cookie).send({});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const run = await request(app).get(`/api/runs/${started.body.run_id}`).set("Cookie", cookie);
    expect(run.body.run.temporal_url).toBe(
      `https://ops.example.com/temporal/namespaces/default/workflows/${started.body.run_id}`,
    );
    // No worker polls this test's queue: the run would wait for ever.
    await deps.temporal.workflow.getHandle(started.body.run_id).terminate("test over");
  });

  it("answers Temporal Cloud's UI, which may send its own access token, with the session deciding", async () => {
    const cloud = "https://cloud.temporal.io";
    const { app } = appWith({ TEMPORAL_UI_URL: cloud, TEMPORAL_CODEC_ORIGINS: `${cloud}, https://ops.example.com` });
    const answered = await preflight(app, cloud, "authorization,content-type,x-namespace");
    expect(answered.status).toBe(204);
    expect(answered.headers["access-control-allow-origin"]).toBe(cloud);
    expect(answered.headers["access-control-allow-headers"]).toMatch(/Authorization/);
    expect((await preflight(app, "https://ops.example.com")).status).toBe(204);

    const user = await createTestUser("ui-cloud");
    const { cookie } = await login(app, user.email);
    const headers = { Origin: cloud, "X-Namespace": "default", Authorization: "Bearer cloud-user-token" };
    const decoded = await request(app)
      .post("/api/temporal-codec/decode")
      .set({ ...headers, Cookie: cookie })
      .send({ payloads: [] });
    expect([decoded.status, decoded.headers["access-control-allow-origin"]]).toEqual([200, cloud]);
    // The UI's token alone opens nothing.
    const tokenOnly = await request(app).post("/api/temporal-codec/decode").set(headers).send({ payloads: [] });
    expect(tokenOnly.status).toBe(401);
  });
});
