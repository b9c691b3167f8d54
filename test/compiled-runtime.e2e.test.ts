// The compiled runtime production runs: `npm run build` into a scratch folder, then the API and the
// worker from its JavaScript alone (plain node, no tsx), in production mode, against the test
// run's database and Temporal, running one flow through a code node (its sandbox thread) and a
// custom node written in TypeScript to the end.
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { projectRoot } from "../scripts/infra/paths.js";
import { freePort, run, stopChild, waitFor } from "../scripts/infra/process.js";
import { TEST_ENCRYPTION_KEY } from "./helpers/context.js";
import { createTestUser, TEST_PASSWORD } from "./helpers/identity.js";
import { cleanEnv, loginOverHttp, spawnNode, type Spawned } from "./helpers/processes.js";
import { flow } from "./helpers/runs.js";

const outDir = path.join(projectRoot, ".scratch", `compiled-${randomUUID()}`);
const relative = path.relative(projectRoot, outDir);
const spawned: Spawned[] = [];

/** The `node dist/…` files a production file starts (Dockerfile, docker-compose.yml, package.json). */
function distEntries(file: string): string[] {
  return [...readFileSync(path.join(projectRoot, file), "utf8").matchAll(/\bdist\/[\w/.-]+\.js\b/g)].map(
    ([entry]) => entry,
  );
}

beforeAll(async () => {
  // Only inside the repository do the compiled modules find node_modules (and web/, prisma/).
  await run(process.execPath, ["--import", "tsx", "scripts/build.ts", "--out-dir", relative], {
    cwd: projectRoot,
    timeoutMs: 8 * 60_000,
  });
}, 9 * 60_000);

afterAll(async () => {
  await Promise.all(spawned.map(({ child }) => stopChild(child, 15_000)));
  rmSync(outDir, { recursive: true, force: true });
});

describe("the compiled runtime", () => {
  it("builds every file the Dockerfile, compose and the prod scripts start, with the workflow bundle", () => {
    const entries = new Set(["Dockerfile", "docker-compose.yml", "package.json"].flatMap(distEntries));
    expect([...entries]).toEqual(
      expect.arrayContaining(["dist/api/server.js", "dist/worker/main.js", "dist/scripts/db-migrate.js"]),
    );
    for (const entry of entries) expect(existsSync(path.join(outDir, entry.slice("dist/".length))), entry).toBe(true);
    expect(existsSync(path.join(outDir, "worker", "workflows.bundle.js"))).toBe(true);
    expect(existsSync(path.join(outDir, "core", "engine", "failure-converter.cjs"))).toBe(true);
  });

  it("runs the API and the worker from JavaScript alone, and a flow through them to its end", async () => {
    const port = await freePort();
    const env = cleanEnv({
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: `compiled-${randomUUID()}`,
      SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      PASSWORD_HASH_ITERATIONS: "100000",
      LOG_LEVEL: "info",
      CUSTOM_NODES_DIR: path.join(projectRoot, "examples", "custom-nodes"),
    });
    // The build's own bundle is what this run proves, not the test run's.
    delete env.WORKFLOW_BUNDLE;
    const worker = spawnNode([path.join(outDir, "worker", "main.js")], env);
    const api = spawnNode([path.join(outDir, "api", "server.js")], env);
    spawned.push(worker, api);
    const base = `http://127.0.0.1:${port}`;
    await worker.waitForOutput(/"worker started"/, 120_000);
    await waitFor(
      "the compiled API to be ready",
      async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok,
      {
        timeoutMs: 60_000,
        abort: () => (api.child.exitCode !== null ? `the API exited:\n${api.output()}` : undefined),
      },
    );

    const user = await createTestUser("compiled");
    const cookie = await loginOverHttp(base, user.email, TEST_PASSWORD);
    const headers = { "Content-Type": "application/json", Cookie: cookie };
    const definition = flow(
      [
        { id: "double", type: "code", config: { code: "return { doubled: input.n * 2 };" } },
        // A custom node written in TypeScript (CUSTOM_NODES_DIR), which plain node cannot load alone.
        { id: "shout", type: "text_case", config: { text: "answer {{ input.doubled }}", mode: "upper" } },
      ],
      [
        ["start", "double"],
        ["double", "shout"],
      ],
    );
    const created = await fetch(`${base}/api/flows`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "compiled", definition }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const started = await fetch(`${base}/api/workflows/${id}/run`, {
      method: "POST",
      headers,
      body: JSON.stringify({ input: { n: 21 } }),
    });
    expect(started.status).toBe(201);
    const { run_id: runId } = (await started.json()) as { run_id: string };
    let ended: { status: string; output: unknown } | undefined;
    await waitFor(
      "the run to end",
      async () => {
        const { run } = (await (await fetch(`${base}/api/runs/${runId}`, { headers })).json()) as {
          run: { status: string; output: unknown };
        };
        ended = run.status === "running" ? undefined : run;
        return ended !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(ended).toMatchObject({ status: "success", output: { text: "ANSWER 42" } });
    // The worker loaded the bundle the build made: it bundled nothing at its start.
    expect(worker.output()).not.toContain("Workflow bundle created");
  });
});
