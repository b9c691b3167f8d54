// `npm start` stopped by a signal from outside. SIGTERM to npm's own pid (what a process manager,
// a container runtime or `kill <pid of npm>` sends): npm 11 forwards it to the shell it runs the
// script in, and dash (Debian's sh) dies of it without passing it on, so scripts/start.ts must see
// that its launcher is gone and stop everything, leaving no process and no port behind (the
// database and Temporal are the test setup's: npm start runs the API and the worker only). And
// SIGHUP to npm's process group, what a terminal sends its foreground job when it closes: every
// process of the group gets it, while the embedded PostgreSQL and Temporal dev server, in groups
// of their own, only stop if scripts/start.ts stops them.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { ServiceFile } from "../scripts/infra/local-service.js";
import { projectRoot } from "../scripts/infra/paths.js";
import { stopRecordedProcess } from "../scripts/infra/process-identity.js";
import { freePort, isPortInUse, isProcessAlive, waitFor } from "../scripts/infra/process.js";
import { cleanEnv } from "./helpers/processes.js";

const READY = /press Ctrl-C to stop/;

describe("npm start and signals from outside", () => {
  const dataDirs: string[] = [];
  /** What each npm start recorded: itself and its children, to stop whatever a failed test leaves. */
  const recorded: ServiceFile[] = [];
  const newDataDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "svc-npm-signals-"));
    chmodSync(dir, 0o711); // the PostgreSQL cluster inside may belong to another OS user
    dataDirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    const left = recorded.flatMap((service) => [service.supervisor, ...service.children]);
    await Promise.all(left.map((process) => stopRecordedProcess(process, 5_000)));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Waits until none of `processes` runs, naming those still running (and npm's output) if some do. */
  const waitForAllStopped = (processes: ServiceFile["children"], output: () => string) =>
    waitFor("npm start and its processes to stop", async () => !processes.some((p) => isProcessAlive(p.pid)), {
      timeoutMs: 60_000,
      intervalMs: 250,
    }).catch((error: Error) => {
      const alive = processes.filter((p) => isProcessAlive(p.pid)).map((p) => `${p.name} (pid ${p.pid})`);
      throw new Error(`${error.message}; still running: ${alive.join(", ")}; output:\n${output().slice(-4000)}`);
    });

  it("stops everything when npm gets SIGTERM: no process of it left, its ports free", async () => {
    const dataDir = newDataDir();
    const serviceFile = path.join(dataDir, "service.json");
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
      const service = JSON.parse(readFileSync(serviceFile, "utf8")) as ServiceFile;
      recorded.push(service);
      const processes = [service.supervisor, ...service.children];
      expect(service.children.map((child) => child.name).sort()).toEqual(["api", "worker"]);
      // npm runs the script through a shell: the supervisor is not npm's own process.
      expect(service.supervisor.pid).not.toBe(npm.pid);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

      npm.kill("SIGTERM");
      await npmExited;
      await waitForAllStopped(processes, () => output);
      expect(await isPortInUse(port)).toBe(false);
      expect(existsSync(serviceFile)).toBe(false);
      // It saw npm's shell go (npm passed SIGTERM to it), and stopped in order.
      expect(output).toMatch(/its parent \(pid \d+\) is gone: stopping/);
      expect(output).toMatch(/stopped\n/);
    } finally {
      if (npm.exitCode === null) npm.kill("SIGKILL");
    }
  }, 300_000);

  it("stops everything, the embedded PostgreSQL and Temporal dev server included, when the terminal closes (SIGHUP to npm's process group)", async () => {
    const dataDir = newDataDir();
    const serviceFile = path.join(dataDir, "service.json");
    const [port, temporalPort, uiPort, postgresPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const env = cleanEnv({
      SVC_DATA_DIR: dataDir,
      PORT: String(port),
      TEMPORAL_DEV_PORT: String(temporalPort),
      TEMPORAL_DEV_UI_PORT: String(uiPort),
      EMBEDDED_POSTGRES_PORT: String(postgresPort),
      LOG_LEVEL: "warn",
    });
    // A process group of its own, as a terminal's foreground job: npm, its shell and npm start.
    const npm = spawn("npm", ["start"], { cwd: projectRoot, env, detached: true });
    let output = "";
    npm.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor("npm start to be ready", async () => READY.test(output), {
        timeoutMs: 240_000,
        intervalMs: 250,
        abort: () => (npm.exitCode !== null ? `npm exited:\n${output}` : undefined),
      });
      const service = JSON.parse(readFileSync(serviceFile, "utf8")) as ServiceFile;
      recorded.push(service);
      const processes = [service.supervisor, ...service.children];
      expect(service.children.map((child) => child.name).sort()).toEqual(["api", "postgres", "temporal", "worker"]);
      expect(await isPortInUse(postgresPort)).toBe(true);
      expect(await isPortInUse(temporalPort)).toBe(true);

      // The terminal closes: the kernel hangs up its foreground process group.
      process.kill(-npm.pid!, "SIGHUP");
      await waitForAllStopped(processes, () => output);
      for (const [name, used] of Object.entries({ port, temporalPort, uiPort, postgresPort })) {
        expect(await isPortInUse(used), name).toBe(false);
      }
      expect(existsSync(serviceFile)).toBe(false);
      expect(output).toMatch(/stopping\.\.\.\n/);
      expect(output).toMatch(/stopped\n/);
    } finally {
      if (npm.exitCode === null) npm.kill("SIGKILL");
    }
  }, 400_000);
});
