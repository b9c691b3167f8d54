import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp } from "../api/app.js";
import { closeDeps, createDeps } from "../api/deps.js";
import { projectRoot } from "../scripts/infra/paths.js";
import { createLogger } from "../lib/logger.js";
import { testConfig } from "../test/helpers/context.js";
import { createTestUser, login } from "../test/helpers/identity.js";
import { loadCustomNodes, loadNodeRegistry } from "./custom-nodes.js";
import type { NodeEnv } from "./nodes/define-node.js";

const examples = path.join(projectRoot, "examples", "custom-nodes");

describe("custom nodes", () => {
  it("loads the example from a directory as an unofficial node that executes", async () => {
    const [textCase] = await loadCustomNodes(examples);
    expect(textCase).toMatchObject({ type: "text_case", official: false, category: "data", kind: "activity" });
    const config = textCase!.config.parse({ text: "hello big world", mode: "title" });
    expect(await textCase!.execute!({}, config, {} as NodeEnv)).toEqual({ text: "Hello Big World" });
  });

  it("appears in the catalog and can be used in a flow", async () => {
    const config = testConfig({ CUSTOM_NODES_DIR: examples });
    const deps = createDeps(config, createLogger(config, "test"), {
      nodes: await loadNodeRegistry(config.CUSTOM_NODES_DIR),
    });
    try {
      const app = createApp(deps);
      const user = await createTestUser("custom");
      const { cookie } = await login(app, user.email);

      const { body } = await request(app).get("/api/nodes?category=data").set("Cookie", cookie);
      expect(body.items).toContainEqual({
        id: "text_case",
        type: "text_case",
        name: "Text case",
        category: "data",
        description: expect.any(String),
        official: false,
        version: 1,
        // Custom nodes may reach outside unless they declare otherwise: a replay takes their recorded output.
        reaches_outside: true,
        config_schema: {
          text: { type: "string", label: "Text", required: true, placeholder: "{{ input.title }}" },
          mode: { type: "string", label: "Case", default: "upper", options: ["upper", "lower", "title"] },
        },
        // A custom node takes the same settings as any other, with its category's defaults.
        settings_schema: expect.objectContaining({
          timeout_ms: { type: "number", label: "Timeout (ms)", default: 120_000 },
          on_error: expect.objectContaining({ default: "stop" }),
        }),
      });

      const flow = await request(app)
        .post("/api/flows")
        .set("Cookie", cookie)
        .send({
          name: "Shout",
          definition: {
            nodes: [
              { id: "start", type: "manual" },
              { id: "shout", type: "text_case", config: { text: "{{ input.title }}" } },
            ],
            edges: [{ from: "start", to: "shout" }],
          },
        });
      expect(flow.status).toBe(201);
    } finally {
      await closeDeps(deps);
    }
  });

  it("refuses a module that does not declare a node, and a type clashing with a built-in", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "svc-custom-"));
    try {
      writeFileSync(path.join(dir, "bad.node.mjs"), "export default { type: 'bad' };\n");
      await expect(loadCustomNodes(dir)).rejects.toThrow(/Custom node bad\.node\.mjs: .*category/);
      rmSync(path.join(dir, "bad.node.mjs"));
      writeFileSync(
        path.join(dir, "log.node.mjs"),
        "import { z } from 'zod';\nexport default { type: 'log', version: 1, name: 'Mine', category: 'utility', description: 'x', kind: 'activity', config: z.object({}), execute: async () => null };\n",
      );
      await expect(loadNodeRegistry(dir)).rejects.toThrow('Node type "log" is registered twice');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
