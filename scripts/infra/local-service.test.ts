// The service file as npm start's lock, against real processes: one left by an npm start that
// died is taken over once the children it names that still run (and only those) are stopped; one
// whose npm start runs is refused by pid.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { claimServiceFile, releaseServiceFile, type ServiceFile } from "./local-service.js";
import { isStillRunning, recordChild, type RecordedProcess } from "./process-identity.js";

const sleeper = () => spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve()),
  );

describe("the service file as npm start's lock", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-service-file-"));
  const file = path.join(dir, "service.json");
  const started: ChildProcess[] = [];
  const start = () => {
    const child = sleeper();
    started.push(child);
    return child;
  };
  const previousDataDir = process.env.SVC_DATA_DIR;
  beforeAll(() => {
    process.env.SVC_DATA_DIR = dir;
  });
  afterEach(() => {
    releaseServiceFile();
    rmSync(file, { force: true });
    for (const child of started.splice(0)) child.kill("SIGKILL");
  });
  afterAll(() => {
    if (previousDataDir === undefined) delete process.env.SVC_DATA_DIR;
    else process.env.SVC_DATA_DIR = previousDataDir;
    rmSync(dir, { recursive: true, force: true });
  });

  const leave = (supervisor: RecordedProcess, children: RecordedProcess[]) =>
    writeFileSync(file, JSON.stringify({ supervisor, children } satisfies ServiceFile));

  it("takes over the file of an npm start that died, stopping the children it names that still run", async () => {
    const deadSupervisor = start();
    const supervisorRecord = recordChild("npm start", deadSupervisor)!;
    deadSupervisor.kill("SIGKILL");
    await exited(deadSupervisor);
    const [temporal, postgres, recycled] = [start(), start(), start()];
    const gone = start();
    const goneRecord = recordChild("worker", gone)!;
    gone.kill("SIGKILL");
    await exited(gone);
    leave(supervisorRecord, [
      recordChild("temporal", temporal)!,
      recordChild("postgres", postgres, "SIGINT")!,
      goneRecord,
      // Its pid now names another process: the start time differs.
      { ...recordChild("api", recycled)!, startTime: "1" },
    ]);

    const lines: string[] = [];
    await claimServiceFile((line) => lines.push(line));

    expect(lines).toEqual([
      `the npm start of pid ${supervisorRecord.pid} is gone; stopping what it left running: ` +
        `temporal (pid ${temporal.pid}), postgres (pid ${postgres.pid})`,
    ]);
    await Promise.all([exited(temporal), exited(postgres)]);
    expect(postgres.signalCode).toBe("SIGINT");
    expect(recycled.exitCode).toBeNull();
    expect(recycled.signalCode).toBeNull();
    const claimed = JSON.parse(readFileSync(file, "utf8")) as ServiceFile;
    expect(claimed.supervisor.pid).toBe(process.pid);
    expect(isStillRunning(claimed.supervisor)).toBe(true);
    expect(claimed.children).toEqual([]);

    releaseServiceFile();
    expect(existsSync(file)).toBe(false);
  });

  it("refuses while the npm start that holds the file runs, naming its pid, and leaves the file alone", async () => {
    const running = start();
    const child = start();
    leave(recordChild("npm start", running)!, [recordChild("api", child)!]);
    const before = readFileSync(file, "utf8");

    await expect(claimServiceFile(() => {})).rejects.toThrow(
      `npm start is already running on ${dir} (pid ${running.pid}): stop it (Ctrl-C, or kill ${running.pid}) ` +
        "or set SVC_DATA_DIR to another directory",
    );
    releaseServiceFile();
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(child.exitCode).toBeNull();
  });

  it("takes over a damaged file", async () => {
    writeFileSync(file, "{ half a fi");
    await claimServiceFile(() => {});
    expect((JSON.parse(readFileSync(file, "utf8")) as ServiceFile).supervisor.pid).toBe(process.pid);
  });
});
