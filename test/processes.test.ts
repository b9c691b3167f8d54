import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { describe, expect, inject, it } from "vitest";
import { cleanEnv, runEntry, spawnEntry } from "./helpers/processes.js";

// A wrong or missing configuration value stops each process with one line naming the key.
const production = { NODE_ENV: "production", DATABASE_URL: "postgresql://a@127.0.0.1:1/x", SVC_ENCRYPTION_KEY: "" };
const noKeyInProduction = "Invalid configuration: SVC_ENCRYPTION_KEY: is required when NODE_ENV=production";
describe("processes refuse bad configuration with one clear line", () => {
  it.each([
    ["api/server.ts", { PORT: "3000" }, "Invalid configuration: DATABASE_URL: is required"],
    [
      "worker/main.ts",
      { DATABASE_URL: "postgresql://a@127.0.0.1:1/x", TEMPORAL_ADDRESS: "nowhere" },
      "Invalid configuration: TEMPORAL_ADDRESS: expected host:port",
    ],
    ["scripts/start.ts", { PORT: "not-a-port" }, "PORT: "],
    ["api/server.ts", production, noKeyInProduction],
    ["worker/main.ts", production, noKeyInProduction],
  ])("%s", async (entry, env, expected) => {
    const { code, output } = await runEntry(
      entry,
      [],
      cleanEnv({ ...env, SVC_DATA_DIR: "/nonexistent-never-created" }),
    );
    expect(code).toBe(1);
    const lines = output.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
    expect(output).not.toMatch(/\n\s+at /);
  });
});

// A port taken by someone else is named by its setting.
describe("processes name the port setting they cannot use", () => {
  const hold = async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    return { server, port: (server.address() as AddressInfo).port };
  };

  it("the API stops naming PORT; the worker keeps running without metrics naming both metrics settings", async () => {
    const [api, workerMetrics, sdkMetrics] = [await hold(), await hold(), await hold()];
    try {
      const base = {
        DATABASE_URL: inject("databaseUrl"),
        TEMPORAL_ADDRESS: inject("temporalAddress"),
        TEMPORAL_TASK_QUEUE: `ports-${Date.now()}`,
        LOG_FORMAT: "json",
      };
      const refused = await runEntry("api/server.ts", [], cleanEnv({ ...base, PORT: String(api.port) }));
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(
        `API cannot listen on 127.0.0.1:${api.port}: port ${api.port} is already in use (set PORT to a free port)`,
      );

      const worker = spawnEntry(
        "worker/main.ts",
        [],
        cleanEnv({
          ...base,
          WORKER_METRICS_PORT: String(workerMetrics.port),
          TEMPORAL_METRICS_PORT: String(sdkMetrics.port),
        }),
      );
      try {
        await worker.waitForOutput(/worker started/, 60_000);
        expect(worker.output()).toContain(
          `Worker metrics cannot listen on 127.0.0.1:${workerMetrics.port}: port ${workerMetrics.port} is already in use (set WORKER_METRICS_PORT to a free port, or 0 to turn it off)`,
        );
        expect(worker.output()).toContain(
          `Temporal SDK metrics cannot listen on 127.0.0.1:${sdkMetrics.port}: port ${sdkMetrics.port} is already in use (set TEMPORAL_METRICS_PORT`,
        );
        expect(worker.child.exitCode).toBeNull();
      } finally {
        worker.child.kill("SIGTERM");
        await worker.exited;
      }
    } finally {
      for (const { server } of [api, workerMetrics, sdkMetrics]) server.close();
    }
  });
});
