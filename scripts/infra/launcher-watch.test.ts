// The launcher watch on real processes: a node process run by a shell (as npm runs scripts), the
// shell killed as npm's SIGTERM kills it; and npm itself killed above its shell.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "./paths.js";
import { isProcessAlive, waitFor } from "./process.js";

const CHILD = "node --import tsx test/fixtures/launcher-watch-child.ts";

/** `sh -c <script>` with its output recorded; the fixture's pid is read from the process table. */
function shell(script: string, env: NodeJS.ProcessEnv) {
  const child = spawn("sh", ["-c", script], { cwd: projectRoot, env });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

const withoutNpm = () => {
  const env = { ...process.env };
  delete env.npm_lifecycle_event;
  return env;
};

describe("whenLauncherGone", () => {
  const started: number[] = [];
  afterEach(() => {
    // Whatever a failed test left: the shells this test started (the fixture exits within 60 s on its own).
    for (const pid of started.splice(0)) if (isProcessAlive(pid)) process.kill(pid, "SIGKILL");
  });

  /** The launcher the child found, once it says it watches. */
  const watching = (output: () => string) =>
    waitFor(
      "the child to watch",
      async () => {
        const line = /watching (\{.*\})/.exec(output());
        return line ? (JSON.parse(line[1]!) as { parent: number; npm?: number }) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );

  it("ends when the shell that ran it dies of SIGTERM (what npm 11 passes SIGTERM to)", async () => {
    const run = shell(CHILD, withoutNpm());
    started.push(run.child.pid!);
    expect(await watching(run.output)).toEqual({ parent: run.child.pid });
    run.child.kill("SIGTERM");
    await waitFor("the child to see its parent gone", async () => run.output().includes("gone:"), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(run.output()).toContain(`gone: its parent (pid ${run.child.pid})`);
  });

  it("ends when npm is killed above the shell it ran the script in, the shell living on", async () => {
    // The outer shell stands for npm: it runs the script in a shell of its own, which runs node.
    const run = shell(`sh -c '${CHILD}'; true`, { ...withoutNpm(), npm_lifecycle_event: "start" });
    started.push(run.child.pid!);
    const launcher = await watching(run.output);
    started.push(launcher.parent);
    expect(launcher.npm).toBe(run.child.pid);
    expect(launcher.parent).not.toBe(run.child.pid);
    run.child.kill("SIGKILL");
    await waitFor("the child to see npm gone", async () => run.output().includes("gone:"), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    // npm went, not the shell in between (its parent).
    expect(run.output()).toContain(`gone: npm (pid ${run.child.pid})`);
  });
});
