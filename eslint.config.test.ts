// The import rules of eslint.config.js, each proved by a planted import: the lint must refuse it
// (and let its lawful twin pass), whatever the depth of the file and whether the import is
// static or dynamic.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The planted files do not exist, so the type-aware rules (which need a TypeScript program) are
// off; every rule about imports works on the text alone.
const eslint = new ESLint({
  cwd: import.meta.dirname,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
  },
});

/** The rules that refuse `code` placed at `file`, with their messages. */
async function refusals(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file });
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

const valueImport = (source: string) => `import { planted } from "${source}";\nexport const used = planted;\n`;
const typeImport = (source: string) => `import type { Planted } from "${source}";\nexport type Used = Planted;\n`;
const dynamicImport = (source: string) => `export const load = () => import("${source}");\n`;

interface Plant {
  what: string;
  file: string;
  code: string;
  /** A part of the refusal's rule and message. */
  refusedBy: string;
}

const refused: Plant[] = [
  // The rooms (README, "Layout").
  { what: "lib/ importing core/", file: "lib/planted.ts", code: valueImport("../core/errors.js"), refusedBy: "room" },
  {
    what: "core/ importing api/, dynamically",
    file: "core/runs/planted.ts",
    code: dynamicImport("../../api/app.js"),
    refusedBy: "no-restricted-syntax",
  },
  {
    what: "api/ importing worker/",
    file: "api/http/planted.ts",
    code: valueImport("../../worker/worker.js"),
    refusedBy: "room",
  },
  {
    what: "scripts/ importing api/ beyond its two files",
    file: "scripts/planted.ts",
    code: valueImport("../api/app.js"),
    refusedBy: "room",
  },
  // api/ speaks HTTP: the database and the Temporal client in its composition root only.
  {
    what: "an API router importing the database client",
    file: "api/routes/flows/planted.ts",
    code: valueImport("../../../lib/db.js"),
    refusedBy: "api/ speaks HTTP",
  },
  {
    what: "an API module importing the database client as a type",
    file: "api/http/planted.ts",
    code: typeImport("../../lib/db.js"),
    refusedBy: "api/ speaks HTTP",
  },
  {
    what: "an API module importing Prisma",
    file: "api/routes/runs/planted.ts",
    code: valueImport("@prisma/client"),
    refusedBy: "api/ speaks HTTP",
  },
  {
    what: "an API module importing the Temporal client, dynamically",
    file: "api/routes/runs/planted.ts",
    code: dynamicImport("@temporalio/client"),
    refusedBy: "api/ speaks HTTP",
  },
  {
    what: "an API module importing the Temporal client",
    file: "api/planted.ts",
    code: valueImport("@temporalio/client"),
    refusedBy: "api/ speaks HTTP",
  },
  // core/'s floors (docs/engine.md, "core/ inside").
  {
    what: "a core room importing a floor above",
    file: "core/flows/planted.ts",
    code: valueImport("../runs/start/launch.js"),
    refusedBy: "core/flows stands below",
  },
  {
    what: "a core room importing a floor above, dynamically",
    file: "core/flows/planted.ts",
    code: dynamicImport("../agents/agents.service.js"),
    refusedBy: "core/flows stands below",
  },
  {
    what: "a core room in a sub-folder importing a floor above, dynamically",
    file: "core/credentials/deeper/planted.ts",
    code: dynamicImport("../../runs/start/launch.js"),
    refusedBy: "core/credentials stands below",
  },
  {
    what: "readiness, on the ground floor, importing the contracts",
    file: "core/health/planted.ts",
    code: valueImport("../contracts/run-flow.js"),
    refusedBy: "core/health stands below",
  },
  {
    what: "the rate limiter importing the engine above it",
    file: "core/rate-limiter.ts",
    code: valueImport("./engine/temporal-start.js"),
    refusedBy: "core/rate-limiter.ts stands below",
  },
  {
    what: "outgoing webhooks importing the runs above them",
    file: "core/webhooks/planted.ts",
    code: valueImport("../runs/start/launch.js"),
    refusedBy: "core/webhooks stands below",
  },
  {
    what: "the runs' records importing their starts above them",
    file: "core/runs/records/planted.ts",
    code: valueImport("../start/launch.js"),
    refusedBy: "core/runs/records stands below",
  },
  {
    what: "a run start importing the runs service above it, dynamically",
    file: "core/runs/start/planted.ts",
    code: dynamicImport("../runs.service.js"),
    refusedBy: "core/runs/start stands below",
  },
  {
    what: "a node type importing a floor above, dynamically",
    file: "core/nodes/set/planted.ts",
    code: dynamicImport("../../flows/flows.service.js"),
    refusedBy: "core/nodes stands below",
  },
  // Nodes keep the edge-worker contract.
  {
    what: "a node importing a Node built-in",
    file: "core/nodes/set/planted.ts",
    code: valueImport("node:fs"),
    refusedBy: "no Node built-ins",
  },
  {
    what: "a node importing a Node built-in, dynamically",
    file: "core/nodes/set/planted.ts",
    code: dynamicImport("node:child_process"),
    refusedBy: "no Node built-ins",
  },
  {
    what: "a node importing the database, dynamically",
    file: "core/nodes/set/planted.ts",
    code: dynamicImport("../../../lib/db.js"),
    refusedBy: "Nodes reach data through env",
  },
  {
    what: "a node reading process",
    file: "core/nodes/set/planted.ts",
    code: "export const home = process.env.HOME;\n",
    refusedBy: "no process environment",
  },
  // Workflows: only what Temporal can replay, at any depth and through any module they import.
  {
    what: "a workflow importing activities' values, one folder down",
    file: "worker/workflows/run-flow/planted.ts",
    code: valueImport("../../activities/node.activities.js"),
    refusedBy: "workflow/imports",
  },
  {
    what: "a workflow importing a module that does I/O",
    file: "worker/workflows/planted.ts",
    code: valueImport("../../core/runs/start/launch.js"),
    refusedBy: "workflow/imports",
  },
  {
    what: "a workflow importing a module that does I/O, dynamically",
    file: "worker/workflows/agent-run/planted.ts",
    code: dynamicImport("../../../core/runs/start/launch.js"),
    refusedBy: "workflow/imports",
  },
  {
    what: "a module workflows import, importing one that does I/O",
    file: "core/flows/template.ts",
    code: valueImport("../credentials/credentials.service.js"),
    refusedBy: "workflow/imports",
  },
  {
    what: "a contract workflows import, importing the Temporal client",
    file: "core/contracts/run-flow.ts",
    code: valueImport("@temporalio/client"),
    refusedBy: "workflow/imports",
  },
  {
    what: "a workflow importing a Node built-in",
    file: "worker/workflows/planted.ts",
    code: valueImport("node:crypto"),
    refusedBy: "workflow/imports",
  },
  {
    what: "a workflow re-exporting the database client",
    file: "worker/workflows/planted.ts",
    code: 'export { PrismaClient } from "../../lib/db.js";\n',
    refusedBy: "workflow/imports",
  },
  // The dashboard speaks HTTP only.
  {
    what: "the dashboard importing server code",
    file: "web/src/runs/planted.ts",
    code: valueImport("../../../core/errors.js"),
    refusedBy: "The dashboard imports nothing from outside web/src",
  },
  {
    what: "the editor's model importing server code, two folders down",
    file: "web/src/flows/model/planted.ts",
    code: valueImport("../../../../core/errors.js"),
    refusedBy: "The dashboard imports nothing from outside web/src",
  },
  // Pages (web/src/<feature>/*-page.tsx) are routes: only app.tsx imports them.
  {
    what: "a dashboard part importing another feature's page",
    file: "web/src/runs/planted.ts",
    code: valueImport("../flows/flows-page"),
    refusedBy: "Only app.tsx imports pages",
  },
  {
    what: "a dashboard part importing its own feature's page, dynamically",
    file: "web/src/runs/planted.ts",
    code: dynamicImport("./runs-page"),
    refusedBy: "Only app.tsx imports pages",
  },
  {
    what: "the editor's model importing the editor's page",
    file: "web/src/flows/model/planted.ts",
    code: valueImport("../editor-page.js"),
    refusedBy: "Only app.tsx imports pages",
  },
  {
    what: "a shared widget importing a folder of pages",
    file: "web/src/ui/planted.ts",
    code: valueImport("../pages/runs"),
    refusedBy: "Only app.tsx imports pages",
  },
  {
    what: "the dashboard importing server code, dynamically",
    file: "web/src/planted.ts",
    code: dynamicImport("../../api/app.js"),
    refusedBy: "The dashboard imports nothing from outside web/src",
  },
];

const allowed: Array<Omit<Plant, "refusedBy">> = [
  {
    what: "a workflow importing activities as types",
    file: "worker/workflows/run-flow/planted.ts",
    code: typeImport("../../activities/node.activities.js"),
  },
  {
    what: "a workflow importing a contract and the SDK",
    file: "worker/workflows/run-flow/planted.ts",
    code: `${valueImport("../../../core/contracts/run-flow.js")}import { sleep } from "@temporalio/workflow";\nexport const wait = sleep;\n`,
  },
  {
    what: "a node importing pure durations",
    file: "core/nodes/set/planted.ts",
    code: dynamicImport("../../../lib/duration.js"),
  },
  {
    what: "a core room importing a floor below",
    file: "core/runs/planted.ts",
    code: dynamicImport("../flows/graph.js"),
  },
  {
    what: "a run's cancel importing the starts and records below it",
    file: "core/runs/cancel/planted.ts",
    code: `${valueImport("../start/child-runs.js")}export { endRunsCancelled } from "../records/run-ends.js";\n`,
  },
  {
    what: "the API's composition root importing the database and the Temporal client",
    file: "api/deps.ts",
    code: `${valueImport("../lib/db.js")}import { Client } from "@temporalio/client";\nexport const client = Client;\n`,
  },
  {
    what: "the API's error handler telling a database outage (no database client)",
    file: "api/http/planted.ts",
    code: valueImport("../../lib/db-outage.js"),
  },
  {
    what: "the dashboard's router importing its pages, lazily too",
    file: "web/src/app.tsx",
    code: `${valueImport("./runs/runs-page")}${dynamicImport("./home/home-page")}`,
  },
  {
    what: "a dashboard part importing the shared cursor pages",
    file: "web/src/runs/planted.ts",
    code: valueImport("../ui/cursor-pages"),
  },
  {
    what: "the editor's model importing the template engine it shares with the worker",
    file: "web/src/flows/model/planted.ts",
    code: valueImport("../../../../core/flows/template"),
  },
  {
    what: "scripts/ importing the dashboard's build folder",
    file: "scripts/planted.ts",
    code: valueImport("../api/http/dashboard-dist.js"),
  },
];

describe("the import rules of eslint.config.js", () => {
  it.each(refused)("refuses $what", async ({ file, code, refusedBy }) => {
    const found = await refusals(file, code);
    expect(
      found.some((refusal) => refusal.includes(refusedBy)),
      found.join("\n") || "no refusal",
    ).toBe(true);
  });

  it.each(allowed)("allows $what", async ({ file, code }) => {
    expect(await refusals(file, code)).toEqual([]);
  });
});
