// `npm start` from an empty data directory: embedded PostgreSQL and Temporal dev server, API and
// worker; a user and a workflow survive a stop and a second start.
import { once } from "node:events";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, Connection } from "@temporalio/client";
import { afterAll, describe, expect, it } from "vitest";
import type { ServiceFile } from "../scripts/infra/local-service.js";
import { freePort, isPortInUse } from "../scripts/infra/process.js";
import { probe } from "../worker/workflows/probe.workflow.js";
import { cleanEnv, runEntry, spawnEntry, type Spawned } from "./helpers/processes.js";

const READY = /press Ctrl-C to stop/;

describe("npm start", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-start-"));
  chmodSync(dataDir, 0o711); // the PostgreSQL cluster inside may belong to another OS user
  let running: Spawned | undefined;

  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill("SIGTERM");
      await running.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("brings everything up, stops cleanly, and keeps users and workflow history across a restart", async () => {
    const [port, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
    const [apiMetricsPort, workerMetricsPort, sdkMetricsPort] = [await freePort(), await freePort(), await freePort()];
    const env = cleanEnv({
      SVC_DATA_DIR: dataDir,
      PORT: String(port),
      TEMPORAL_DEV_PORT: String(temporalPort),
      TEMPORAL_DEV_UI_PORT: String(uiPort),
      API_METRICS_PORT: String(apiMetricsPort),
      WORKER_METRICS_PORT: String(workerMetricsPort),
      TEMPORAL_METRICS_PORT: String(sdkMetricsPort),
      LOG_LEVEL: "warn",
    });
    const serviceFile = path.join(dataDir, "service.json");

    // First start.
    running = spawnEntry("scripts/start.ts", [], env);
    await running.waitForOutput(READY, 180_000);
    expect(running.output()).toContain(`API:         http://127.0.0.1:${port}`);
    expect(running.output()).toContain(`Temporal UI: http://127.0.0.1:${uiPort}`);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${uiPort}/`)).status).toBe(200);
    const service = JSON.parse(readFileSync(serviceFile, "utf8")) as ServiceFile;
    const postgresPort = Number(new URL(service.databaseUrl).port);

    const email = `owner-${Date.now()}@example.com`;
    const created = await runEntry(
      "scripts/user-create.ts",
      ["--email", email, "--password", "correct-horse", "--name", "Owner", "--workspace", "Acme"],
      env,
    );
    expect(created.code).toBe(0);
    const createdJson = JSON.parse(created.output.slice(created.output.indexOf("{")));
    expect(createdJson).toMatchObject({
      user: { id: expect.stringMatching(/^usr_/), email, name: "Owner" },
      workspace: { workspaceId: expect.stringMatching(/^ws_/), name: "Acme", role: "owner" },
    });

    // A crashed worker or API is restarted while the rest keeps serving.
    const pidOf = (name: string) => Number(new RegExp(`\\b${name} \\(pid (\\d+)\\)`).exec(running!.output())?.[1]);
    const workerPid = pidOf("worker");
    expect(workerPid).toBeGreaterThan(0);
    process.kill(workerPid, "SIGKILL");
    await running.waitForOutput(/worker exited unexpectedly \(SIGKILL\) after [\d.]+s; restarting it in 1\.0s/, 30_000);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    await running.waitForOutput(/worker restarted \(pid \d+, restart 1\)/, 30_000);
    process.kill(pidOf("api"), "SIGKILL");
    await running.waitForOutput(/api exited unexpectedly \(SIGKILL\)/, 30_000);
    await running.waitForOutput(/api restarted \(pid \d+, restart 1\)/, 30_000);
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status, {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(200);
    expect(running.child.exitCode).toBeNull();

    // The workflow below runs on the restarted worker.
    const workflowId = `probe-start-e2e-${Date.now()}`;
    const connection = await Connection.connect({ address: service.temporalAddress });
    try {
      const client = new Client({ connection });
      const result = await client.workflow.execute(probe, {
        taskQueue: "svc-flows",
        workflowId,
        args: [{ message: "through npm start" }],
      });
      expect(result.logEntryId).toMatch(/^\d+$/);
    } finally {
      await connection.close();
    }

    // Operator metrics: on their own ports, not on the API's.
    const scrape = async (metricsPort: number) => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(await scrape(apiMetricsPort)).toMatch(
      /svc_http_request_duration_seconds_count\{method="GET",route="\/readyz",status="200"\} [1-9]/,
    );
    expect(await scrape(workerMetricsPort)).toMatch(/svc_worker_process_cpu_user_seconds_total \d/);
    await expect.poll(() => scrape(sdkMetricsPort), { timeout: 20_000 }).toMatch(/temporal_\w+/);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);

    // Stop: every process and port goes away.
    running.child.kill("SIGTERM");
    expect((await running.exited).code).toBe(0);
    for (const closedPort of [port, temporalPort, uiPort, postgresPort, apiMetricsPort, workerMetricsPort]) {
      expect(await isPortInUse(closedPort)).toBe(false);
    }
    expect(existsSync(serviceFile)).toBe(false);

    // A port setting that is taken is named: the API's port, an explicit metrics port.
    const holder = createServer().listen(0, "127.0.0.1");
    await once(holder, "listening");
    const taken = (holder.address() as AddressInfo).port;
    try {
      for (const [setting, listener, extra] of [
        ["PORT", "API", { PORT: String(taken) }],
        ["API_METRICS_PORT", "API metrics", { API_METRICS_PORT: String(taken) }],
        ["TEMPORAL_DEV_PORT", "The Temporal dev server", { TEMPORAL_DEV_PORT: String(taken) }],
      ] as const) {
        const refused = await runEntry("scripts/start.ts", [], { ...env, ...extra });
        expect(refused.code, refused.output).toBe(1);
        // The same line as a process that cannot listen writes (test/processes.test.ts).
        expect(refused.output).toContain(
          `${listener} cannot listen on 127.0.0.1:${taken}: port ${taken} is already in use (set ${setting} to a free port`,
        );
      }
    } finally {
      holder.close();
    }

    // Second start over the same data directory, with two workers, and metrics ports left to
    // their defaults: a default that is taken (here by us, if nothing else holds it) is replaced.
    const defaultHolder = createServer().listen(9464, "127.0.0.1");
    await new Promise((resolve) => defaultHolder.once("listening", resolve).once("error", resolve));
    const second: NodeJS.ProcessEnv = { ...env, WORKERS: "2" };
    for (const key of ["API_METRICS_PORT", "WORKER_METRICS_PORT", "TEMPORAL_METRICS_PORT"]) delete second[key];
    running = spawnEntry("scripts/start.ts", [], second);
    try {
      await running.waitForOutput(READY, 180_000);
    } finally {
      defaultHolder.close();
    }
    expect(running.output()).toMatch(/API_METRICS_PORT 9464 is in use on 127\.0\.0\.1: using \d+ instead/);
    const apiMetrics = /Metrics: +API http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(running.output());
    expect(Number(apiMetrics?.[1])).not.toBe(9464);
    expect((await fetch(`http://127.0.0.1:${apiMetrics?.[1]}/metrics`)).status).toBe(200);
    expect(running.output()).toMatch(/Processes: +worker-1 \(pid \d+\), worker-2 \(pid \d+\), api \(pid \d+\)/);

    const again = await runEntry(
      "scripts/user-create.ts",
      ["--email", email, "--password", "correct-horse", "--name", "Owner", "--workspace", "Acme"],
      env,
    );
    expect(again.code).toBe(1);
    expect(again.output).toContain(`A user with e-mail ${email} already exists`);

    const reconnected = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      const description = await new Client({ connection: reconnected }).workflow.getHandle(workflowId).describe();
      expect(description.status.name).toBe("COMPLETED");
    } finally {
      await reconnected.close();
    }

    running.child.kill("SIGINT");
    expect((await running.exited).code).toBe(0);
  }, 400_000);
});
