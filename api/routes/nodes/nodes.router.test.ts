import request from "supertest";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createTestUser, login, makeTestApps } from "../../../test/helpers/identity.js";
import { NODE_CATEGORIES } from "../../../core/nodes/define-node.js";
import { builtinNodes } from "../../../core/nodes/index.js";

const appFor = makeTestApps();

// The spec's "Node catalog entry" and "ConfigField" tables.
const configFieldSchema = z.looseObject({
  type: z.enum(["string", "number", "boolean", "json", "code"]),
  label: z.string().min(1),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
  placeholder: z.string().optional(),
});
const catalogEntrySchema = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  name: z.string().min(1),
  category: z.enum(["ai", "integration", "data", "logic", "trigger", "utility"]),
  description: z.string().min(1),
  official: z.boolean(),
  config_schema: z.record(z.string(), configFieldSchema).optional(),
});

async function session() {
  const { app } = appFor();
  const user = await createTestUser("catalog");
  return { app, cookie: (await login(app, user.email)).cookie };
}

describe("GET /api/nodes", () => {
  it("lists every built-in node in the shape of the spec's catalog entry", async () => {
    const { app, cookie } = await session();
    const res = await request(app).get("/api/nodes").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.body.items.map((entry: { id: string }) => entry.id)).toEqual(builtinNodes.map((node) => node.type));
    for (const entry of res.body.items) {
      expect(catalogEntrySchema.safeParse(entry).error).toBeUndefined();
      expect(entry.type).toBe(entry.id);
      expect(entry.official).toBe(true);
    }
  });

  it("generates config_schema from the node's declaration", async () => {
    const { app, cookie } = await session();
    const { body } = await request(app).get("/api/nodes").set("Cookie", cookie);
    const byId = Object.fromEntries(body.items.map((entry: { id: string }) => [entry.id, entry]));
    expect(byId.delay.config_schema).toEqual({
      duration: { type: "string", label: "Duration", required: true, placeholder: "30s" },
    });
    expect(byId.log.config_schema.level).toEqual({
      type: "string",
      label: "Level",
      default: "info",
      options: ["debug", "info", "warn", "error"],
    });
    expect(byId.loop.config_schema.concurrency).toEqual({ type: "number", label: "Concurrency", default: 5 });
    expect(byId.condition.config_schema.left.type).toBe("json");
    expect(byId.manual.config_schema).toEqual({});
    expect(byId.kv.config_schema.operation).toEqual({
      type: "string",
      label: "Operation",
      required: true,
      options: ["get", "set", "delete"],
    });
    expect(byId.data_table.config_schema.where).toEqual({
      type: "json",
      label: "Where (query, update, delete)",
      placeholder: '{ "status": "open" }',
      map: true,
    });
    // A record is a map of named entries (the editor adds a reference as an entry); any value is not.
    expect(byId.set.config_schema.fields.map).toBe(true);
    expect(byId.http_request.config_schema.headers.map).toBe(true);
    expect(byId.condition.config_schema.left.map).toBeUndefined();
    expect(byId.http_request.config_schema.body.map).toBeUndefined();
    expect(Object.keys(byId.object_storage.config_schema)).toEqual([
      "operation",
      "key",
      "content",
      "encoding",
      "content_type",
      "prefix",
      "limit",
      "after",
    ]);
    // A credential field: a picker of the workspace's credentials of these types.
    expect(byId.http_request.config_schema.credential_id).toEqual({
      type: "string",
      label: "Credential",
      credential_types: ["bearer", "basic", "api_key", "headers", "oauth2_client_credentials"],
    });
    expect(byId["ai.prompt"].config_schema.credential_id.credential_types).toEqual(["ai_provider"]);
  });

  it("lists the settings every node takes beside its config, with its type's defaults", async () => {
    const { app, cookie } = await session();
    const { body } = await request(app).get("/api/nodes").set("Cookie", cookie);
    const byId = Object.fromEntries(body.items.map((entry: { id: string }) => [entry.id, entry]));
    for (const entry of body.items) {
      expect(z.record(z.string(), configFieldSchema).safeParse(entry.settings_schema).error).toBeUndefined();
    }
    expect(byId.http_request.settings_schema).toEqual({
      timeout_ms: { type: "number", label: "Timeout (ms)", default: 300_000 },
      "retry.max_attempts": { type: "number", label: "Attempts", default: 5 },
      "retry.initial_interval_ms": { type: "number", label: "First retry after (ms)", default: 1000 },
      "retry.backoff_coefficient": { type: "number", label: "Backoff", default: 2 },
      "retry.max_interval_ms": { type: "number", label: "Longest wait between retries (ms)", default: 60_000 },
      on_error: { type: "string", label: "On error", default: "stop", options: ["stop", "continue", "branch"] },
      "items.from": { type: "string", label: "Run once per item of", placeholder: "{{ input.rows }}" },
      "items.concurrency": { type: "number", label: "Items at once", default: 10 },
      "items.rate_per_second": { type: "number", label: "Items started per second at most" },
      "items.on_error": {
        type: "string",
        label: "An item's failure",
        default: "stop",
        options: ["stop", "skip", "collect"],
      },
    });
    // Control nodes run in the workflow: none runs per item.
    expect(byId.condition.settings_schema).not.toHaveProperty(["items.from"]);
    expect(byId.log.settings_schema.timeout_ms.default).toBe(60_000);
    expect(byId.condition.settings_schema["retry.max_interval_ms"].default).toBe(10_000);
  });

  it("filters by category, and refuses an unknown one", async () => {
    const { app, cookie } = await session();
    for (const category of NODE_CATEGORIES) {
      const { body } = await request(app).get(`/api/nodes?category=${category}`).set("Cookie", cookie);
      expect(body.items.every((entry: { category: string }) => entry.category === category)).toBe(true);
    }
    const logic = await request(app).get("/api/nodes?category=logic").set("Cookie", cookie);
    expect(logic.body.items.map((entry: { id: string }) => entry.id).sort()).toEqual([
      "branch",
      "condition",
      "flow.call",
      "loop",
      "merge",
      "wait",
    ]);
    const data = await request(app).get("/api/nodes?category=data").set("Cookie", cookie);
    expect(data.body.items.map((entry: { id: string }) => entry.id)).toEqual([
      "transform",
      "set",
      "code",
      "kv",
      "data_table",
      "object_storage",
    ]);
    const integration = await request(app).get("/api/nodes?category=integration").set("Cookie", cookie);
    expect(integration.body.items.map((entry: { id: string }) => entry.id)).toEqual(["http_request", "send_webhook"]);
    expect((await request(app).get("/api/nodes?category=magic").set("Cookie", cookie)).status).toBe(400);
  });
});

describe("GET /api/agents", () => {
  it("lists agent presets and the tools they may use", async () => {
    const { app, cookie } = await session();
    const { body } = await request(app).get("/api/agent/catalog").set("Cookie", cookie);
    expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "http.call",
      "flow.run",
      "log.write",
      "memory.read",
      "memory.write",
    ]);
    expect(body.items.length).toBeGreaterThan(0);
    for (const preset of body.items) {
      expect(preset).toMatchObject({ id: expect.any(String), name: expect.any(String), tools: expect.any(Array) });
      for (const tool of preset.tools) expect(body.tools.map((t: { name: string }) => t.name)).toContain(tool);
    }
  });
});
