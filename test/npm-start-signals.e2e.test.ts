// `npm start` stopped through npm itself: SIGTERM to npm's own pid (what a process manager, a
// container runtime or `kill <pid of npm>` sends). npm 11 forwards it to the shell it runs the
// script in, and dash (Debian's sh) dies of it without passing it on: scripts/start.ts must see
// that its launcher is gone and stop everything, leaving no process and no port behind. The
// database and Temporal are the test setup's: npm start runs the API and the worker only.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { ServiceFile } from "../scripts/infra/local-service.js";
import { projectRoot } from "../scripts/infra/paths.js";
import { stopRecordedProcess } from "../scripts/infra/process-identity.js";
import { freePort, isPortInUse, isProcessAlive, waitFor } from "../scripts/infra/process.js";
import { cleanEnv } from "./helpers/processes.js";

const READY = /press Ctrl-C to stop/;

describe("npm start and npm's own pid", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-npm-signals-"));
  const serviceFile = path.join(dataDir, "service.json");
  /** What npm start recorded: itself and its children, to stop whatever a failed test leaves. */
  let recorded: ServiceFile | undefined;

  afterAll(async () => {
    const left = recorded ? [recorded.supervisor, ...recorded.children] : [];
    await Promise.all(left.map((process) => stopRecordedProcess(process, 5_000)));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("stops everything when npm gets SIGTERM: no process of it left, its ports free", async () => {
    const port = await freePort();
    const env = cleanEnv({
      SVC_DATA_DIR: dataDir,
      PORT: String(port),
      DATABASE_URL: inject("databaseUrl"),
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_TASK_QUEUE: `npm-signals-${randomUUID()}`,
      LOG_LEVEL: "warn",
    });
    const npm = spawn("npm", ["start"], { cwd: projectRoot, env });
    let output = "";
    npm.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const npmExited = new Promise<void>((resolve) => npm.once("exit", () => resolve()));
    try {
      await waitFor("npm start to be ready", async () => READY.test(output), {
        timeoutMs: 180_000,
        intervalMs: 250,
        abort: () => (npm.exitCode !== null ? `npm exited:\n${output}` : undefined),
      });
      recorded = JSON.parse(readFileSync(serviceFile, "utf8")) as ServiceFile;
      const processes = [recorded.supervisor, ...recorded.children];
      expect(recorded.children.map((child) => child.name).sort()).toEqual(["api", "worker"]);
      // npm runs the script through a shell: the supervisor is not npm's own process.
      expect(recorded.supervisor.pid).not.toBe(npm.pid);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

      npm.kill("SIGTERM");
      await npmExited;
      await waitFor("npm start and its processes to stop", async () => !processes.some((p) => isProcessAlive(p.pid)), {
        timeoutMs: 60_000,
        intervalMs: 250,
      }).catch((error: Error) => {
        const alive = processes.filter((p) => isProcessAlive(p.pid)).map((p) => `${p.name} (pid ${p.pid})`);
        throw new Error(`${error.message}; still running: ${alive.join(", ")}; output:\n${output.slice(-4000)}`);
      });
      expect(await isPortInUse(port)).toBe(false);
      expect(existsSync(serviceFile)).toBe(false);
      // It saw npm's shell go (npm passed SIGTERM to it), and stopped in order.
      expect(output).toMatch(/its parent \(pid \d+\) is gone: stopping/);
      expect(output).toMatch(/stopped\n/);
    } finally {
      if (npm.exitCode === null) npm.kill("SIGKILL");
    }
  }, 300_000);
});
