import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../api/openapi-document.js";
import { configSchema, startConfigSchema } from "../lib/config.js";
import { projectRoot } from "./infra/paths.js";
import {
  CONFIGURATION_PAGE,
  readEnvExample,
  renderApiReference,
  renderGeneratedPages,
  type ApiDocument,
} from "./docs-generate.js";

describe("the generated docs pages", () => {
  it("are what `npm run docs:generate` writes now (docs/api.md from the OpenAPI document, docs/configuration.md from .env.example)", async () => {
    for (const { file, text } of await renderGeneratedPages()) {
      const name = path.relative(projectRoot, file);
      // A changed route or setting changes the page: run `npm run docs:generate` and commit it.
      expect(readFileSync(file, "utf8") === text, `${name} is stale: npm run docs:generate`).toBe(true);
    }
  });

  it("list every operation of the OpenAPI document, with its answers", async () => {
    const document = (await buildOpenApiDocument()) as unknown as ApiDocument;
    const reference = renderApiReference(document);
    const operations = Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
    );
    expect(operations.length).toBeGreaterThan(50);
    for (const operation of operations) expect(reference).toContain(`\`${operation}`);
    expect(reference).toContain(
      "`POST /api/runs/{id}/cancel`: Cancel a running run; it ends as cancelled. API token scope: run. Answers: 202 Cancellation requested;",
    );
    expect(reference).toContain("`POST /api/workspace/tokens`: Create an API token");
    expect(reference).toMatch(/`POST \/api\/workspace\/tokens`: [^\n]*Sessions only \(no API token\)/);
    expect(reference).toContain("409 The run is not running");
  });

  it("list every setting the configuration reads, with its comment from .env.example", () => {
    const page = readFileSync(CONFIGURATION_PAGE, "utf8");
    const keys = [...Object.keys(configSchema.shape), ...Object.keys(startConfigSchema.shape)];
    const missing = keys.filter((key) => !page.includes(`\`${key}`));
    expect(missing, "add these keys to .env.example with a comment, then npm run docs:generate").toEqual([]);
    expect(page).toMatch(/`LOG_FORMAT`: json or pretty/);
  });
});

describe("readEnvExample", () => {
  it("groups the keys under one comment and keeps the file's sections", () => {
    const groups = readEnvExample(
      [
        "# --- Runtime ---",
        "# Ceilings",
        "# of calls",
        "A=1",
        "B=",
        "",
        "# Alone",
        "C=x",
        "# --- Tests only ---",
        "D=",
      ].join("\n"),
    );
    expect(groups).toEqual([
      {
        section: "Runtime",
        comment: ["Ceilings", "of calls"],
        settings: [
          { key: "A", value: "1" },
          { key: "B", value: "" },
        ],
      },
      { section: "Runtime", comment: ["Alone"], settings: [{ key: "C", value: "x" }] },
      { section: "Tests only", comment: [], settings: [{ key: "D", value: "" }] },
    ]);
  });
});
