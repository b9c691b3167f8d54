// Recorded processes against real ones: a record is acted on only while pid, start time and
// command line all still match, so a pid the system gave to another process is never signalled.
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { isStillRunning, recordChild, stopRecordedProcess, type RecordedProcess } from "./process-identity.js";

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
    else child.once("exit", (_code, signal) => resolve(signal));
  });

describe("recorded processes", () => {
  const started: ChildProcess[] = [];
  const start = (script = "setInterval(() => {}, 1000)") => {
    const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
    started.push(child);
    return child;
  };
  afterEach(() => {
    for (const child of started.splice(0)) child.kill("SIGKILL");
  });

  it("is recognised while it runs, and not once it has exited", async () => {
    const child = start();
    const record = recordChild("sleeper", child)!;
    expect(record).toMatchObject({
      name: "sleeper",
      pid: child.pid,
      command: [process.execPath, "-e", expect.any(String)],
    });
    expect(isStillRunning(record)).toBe(true);

    child.kill("SIGKILL");
    await exited(child);
    expect(isStillRunning(record)).toBe(false);
    expect(await stopRecordedProcess(record)).toBe(false);
  });

  it("never signals a pid whose start time or command line differ from the record (a recycled pid)", async () => {
    const child = start();
    const record = recordChild("sleeper", child)!;
    const impostors: RecordedProcess[] = [
      { ...record, startTime: String(Number(record.startTime) + 1) },
      { ...record, command: [process.execPath, "-e", "something else"] },
      { ...record, startTime: undefined },
    ];
    for (const impostor of impostors) {
      expect(isStillRunning(impostor)).toBe(false);
      expect(await stopRecordedProcess(impostor, 100)).toBe(false);
    }
    expect(child.exitCode).toBeNull();
    expect(isStillRunning(record)).toBe(true);
  });

  it("stops it with its stop signal, and with SIGKILL when it ignores that", async () => {
    const polite = start();
    expect(await stopRecordedProcess(recordChild("polite", polite, "SIGINT")!)).toBe(true);
    expect(await exited(polite)).toBe("SIGINT");

    const stubborn = spawn(
      process.execPath,
      ["-e", "process.on('SIGTERM', () => {}); console.log('ignoring'); setInterval(() => {}, 1000)"],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    started.push(stubborn);
    await new Promise((resolve) => stubborn.stdout.once("data", resolve));
    expect(await stopRecordedProcess(recordChild("stubborn", stubborn)!, 300)).toBe(true);
    expect(await exited(stubborn)).toBe("SIGKILL");
  });
});
