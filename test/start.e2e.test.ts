// `npm start` from an empty data directory: embedded PostgreSQL and Temporal dev server, API and
// worker, each restarted when killed; a user and a workflow survive a stop and a second start; a
// killed npm start's children stop or are stopped by the next npm start.
import { once } from "node:events";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, Connection } from "@temporalio/client";
import { afterAll, describe, expect, it } from "vitest";
import { createDataConverter } from "../core/engine/data-converter.js";
import { parseKeyRing, type RingKey } from "../lib/crypto/key-ring.js";
import type { ServiceFile } from "../scripts/infra/local-service.js";
import { isStillRunning, stopRecordedProcess } from "../scripts/infra/process-identity.js";
import { freePort, isPortInUse, isProcessAlive, waitFor } from "../scripts/infra/process.js";
import { probe } from "../worker/workflows/probe.workflow.js";
import { cleanEnv, runEntry, spawnEntry, type Spawned } from "./helpers/processes.js";

const READY = /press Ctrl-C to stop/;
const PASSWORD = "correct-horse";

/** The data converter of the service npm start runs on `dataDir`: its key, made on the first start. */
const serviceDataConverter = (dataDir: string) =>
  createDataConverter({
    SVC_ENCRYPTION_KEY: parseKeyRing(readFileSync(path.join(dataDir, "encryption-key"), "utf8").trim()) as RingKey[],
  });

/**
 * Logs in through the API, runs a one-node flow and waits for it to succeed: the API, Temporal,
 * the worker and the database all answer, through the connections they already had.
 */
async function runFlowThroughApi(apiUrl: string, email: string) {
  const json = { "content-type": "application/json" };
  const login = await fetch(`${apiUrl}/api/auth/login`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith("svc_session="))
    ?.split(";")[0];
  const headers = { ...json, cookie: cookie ?? "" };
  const definition = {
    nodes: [
      { id: "start", type: "manual" },
      { id: "s", type: "set", config: { fields: { a: 1 } } },
    ],
    edges: [{ from: "start", to: "s" }],
  };
  const created = await fetch(`${apiUrl}/api/flows`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: `start-e2e-${Date.now()}`, definition }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const started = await fetch(`${apiUrl}/api/workflows/${id}/run`, { method: "POST", headers, body: "{}" });
  expect(started.status).toBe(201);
  const { run_id: runId } = (await started.json()) as { run_id: string };
  const status = async () =>
    ((await (await fetch(`${apiUrl}/api/runs/${runId}`, { headers })).json()) as { run?: { status: string } }).run
      ?.status;
  await expect.poll(status, { timeout: 60_000, interval: 250 }).toBe("success");
}

describe("npm start", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-start-"));
  chmodSync(dataDir, 0o711); // the PostgreSQL cluster inside may belong to another OS user
  let running: Spawned | undefined;

  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill("SIGTERM");
      await running.exited;
    }
    // A test that failed after killing an npm start leaves its children: stop them as a next start would.
    const left = existsSync(path.join(dataDir, "service.json"))
      ? (JSON.parse(readFileSync(path.join(dataDir, "service.json"), "utf8")) as ServiceFile).children
      : [];
    await Promise.all(left.map((child) => stopRecordedProcess(child, 5_000)));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("brings everything up, restarts any part killed, stops cleanly, keeps users and history across a restart, and recovers from a killed npm start", async () => {
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
    // The UI decodes payloads through the API's codec endpoint, sending the session cookie, and
    // the API answers the UI's origin (and only it) with CORS.
    const uiSettings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as {
      Codec: Record<string, unknown>;
    };
    expect(uiSettings.Codec).toMatchObject({
      Endpoint: `http://127.0.0.1:${port}/api/temporal-codec`,
      IncludeCredentials: true,
    });
    const preflight = (origin: string) =>
      fetch(`http://127.0.0.1:${port}/api/temporal-codec/decode`, {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
      });
    const fromUi = await preflight(`http://127.0.0.1:${uiPort}`);
    expect([fromUi.status, fromUi.headers.get("access-control-allow-origin")]).toEqual([
      204,
      `http://127.0.0.1:${uiPort}`,
    ]);
    expect((await preflight("http://127.0.0.1:1")).status).toBe(403);
    const service = JSON.parse(readFileSync(serviceFile, "utf8")) as ServiceFile;
    const postgresPort = Number(new URL(service.databaseUrl!).port);

    const email = `owner-${Date.now()}@example.com`;
    const created = await runEntry(
      "scripts/user-create.ts",
      ["--email", email, "--password", PASSWORD, "--name", "Owner", "--workspace", "Acme"],
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

    // The Temporal dev server killed: restarted on its port and file; the API and the worker reconnect.
    const apiUrl = `http://127.0.0.1:${port}`;
    process.kill(pidOf("temporal"), "SIGKILL");
    await running.waitForOutput(
      /temporal exited unexpectedly \(SIGKILL\) after [\d.]+s; restarting it in 1\.0s/,
      30_000,
    );
    await running.waitForOutput(/temporal restarted \(pid \d+, restart 1\)/, 30_000);
    await runFlowThroughApi(apiUrl, email);

    // The PostgreSQL postmaster killed: /readyz names the database until it is back on its port.
    const readyz = async () => {
      const res = await fetch(`${apiUrl}/readyz`);
      return { status: res.status, body: (await res.json()) as { error?: string; checks: Record<string, string> } };
    };
    process.kill(pidOf("postgres"), "SIGKILL");
    const down = await waitFor(
      "/readyz to answer 503",
      async () => {
        const answer = await readyz();
        return answer.status === 503 ? answer.body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(down).toMatchObject({
      error: "Not ready: database unavailable",
      checks: { database: expect.stringMatching(/^down: \S/), temporal: "ok" },
    });
    await running.waitForOutput(
      /postgres exited unexpectedly \(SIGKILL\) after [\d.]+s; restarting it in 1\.0s/,
      30_000,
    );
    await running.waitForOutput(/postgres restarted \(pid \d+, restart 1\)/, 30_000);
    await expect.poll(async () => (await readyz()).status, { timeout: 60_000, interval: 250 }).toBe(200);
    await runFlowThroughApi(apiUrl, email);
    // The API and the worker lived through both: only the kills above restarted them.
    expect(running.output().match(/(api|worker) exited unexpectedly/g)).toHaveLength(2);

    // The workflow below runs on the restarted worker.
    const workflowId = `probe-start-e2e-${Date.now()}`;
    const connection = await Connection.connect({ address: service.temporalAddress });
    try {
      const client = new Client({ connection, dataConverter: serviceDataConverter(dataDir) });
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
    expect(running.output()).toMatch(
      /Processes: +postgres \(pid \d+\), temporal \(pid \d+\), worker-1 \(pid \d+\), worker-2 \(pid \d+\), api \(pid \d+\)/,
    );

    const again = await runEntry(
      "scripts/user-create.ts",
      ["--email", email, "--password", PASSWORD, "--name", "Owner", "--workspace", "Acme"],
      env,
    );
    expect(again.code).toBe(1);
    expect(again.output).toContain(`A user with e-mail ${email} already exists`);

    const reconnected = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      const description = await new Client({
        connection: reconnected,
        dataConverter: serviceDataConverter(dataDir),
      }).workflow
        .getHandle(workflowId)
        .describe();
      expect(description.status.name).toBe("COMPLETED");
    } finally {
      await reconnected.close();
    }

    // npm start itself killed, as an out-of-memory kill would: its API and workers notice and stop.
    const killed = running;
    const [nodeChildren, infraChildren] = [
      ["worker-1", "worker-2", "api"].map(pidOf),
      (JSON.parse(readFileSync(serviceFile, "utf8")) as ServiceFile).children.filter((child) =>
        ["postgres", "temporal"].includes(child.name),
      ),
    ];
    killed.child.kill("SIGKILL");
    await killed.exited;
    // Each shuts down as on SIGTERM (in-flight work gets its grace time): bounded generously for a
    // loaded machine, and naming any that lives on.
    await waitFor("the API and the workers to stop", async () => !nodeChildren.some(isProcessAlive), {
      timeoutMs: 120_000,
      intervalMs: 250,
    }).catch((error: Error) => {
      const alive = ["worker-1", "worker-2", "api"].filter((_, i) => isProcessAlive(nodeChildren[i]!));
      // What they printed after npm start was killed still arrives on its output.
      throw new Error(
        `${error.message}; still running: ${alive.join(", ")}; the output's end:\n${killed.output().slice(-6000)}`,
      );
    });

    // The next npm start on the same data directory stops what is left (the database at least)
    // and comes up on the same ports.
    running = spawnEntry("scripts/start.ts", [], env);
    await running.waitForOutput(READY, 180_000);
    expect(running.output()).toMatch(
      new RegExp(
        `the npm start of pid ${killed.child.pid} is gone; stopping what it left running: .*postgres \\(pid ${infraChildren.find((child) => child.name === "postgres")?.pid}\\)`,
      ),
    );
    expect(infraChildren.filter(isStillRunning)).toEqual([]);
    expect((await fetch(`${apiUrl}/readyz`)).status).toBe(200);
    await runFlowThroughApi(apiUrl, email);

    // While it runs, a further npm start on the same data directory refuses, naming it.
    const refused = await runEntry("scripts/start.ts", [], env);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`npm start is already running on ${dataDir} (pid ${running.child.pid})`);
    expect((await fetch(`${apiUrl}/readyz`)).status).toBe(200);

    running.child.kill("SIGINT");
    expect((await running.exited).code).toBe(0);
    expect(existsSync(serviceFile)).toBe(false);
  }, 600_000);
});
