// Children of a real parent process that is killed with SIGKILL: those given an IPC channel notice
// and stop, whether they watched before it died or load the watch only after; one started without
// a channel is left alone.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "../scripts/infra/paths.js";
import { isProcessAlive, waitFor } from "../scripts/infra/process.js";

const WATCH = `const { whenParentGone } = await import("./lib/parent-watch.ts"); whenParentGone(() => process.exit(0));`;
/** Watches at once, then prints its label (its first argument) and pid. */
const WATCHING = `${WATCH} console.log(process.argv[1] + " " + process.pid); setInterval(() => {}, 1000);`;
/** Prints its label and pid, and loads the watch only once its parent has died (its parent pid changed). */
const LATE = `
  const parent = process.ppid;
  console.log(process.argv[1] + " " + process.pid);
  const poll = setInterval(async () => {
    if (process.ppid === parent) return;
    clearInterval(poll);
    ${WATCH}
  }, 50);
  setInterval(() => {}, 1000);`;

describe("whenParentGone", () => {
  const leftovers: number[] = [];
  afterEach(() => {
    for (const pid of leftovers.splice(0)) if (isProcessAlive(pid)) process.kill(pid, "SIGKILL");
  });

  it("stops the children with an IPC channel when their parent is killed with SIGKILL, and only those", async () => {
    const parentScript = `
      const { spawn } = require("node:child_process");
      const start = (script, label, stdio) =>
        spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, label], {
          cwd: ${JSON.stringify(projectRoot)},
          stdio,
        });
      start(${JSON.stringify(WATCHING)}, "watching", ["ignore", "inherit", "inherit", "ipc"]);
      start(${JSON.stringify(LATE)}, "late", ["ignore", "inherit", "inherit", "ipc"]);
      start(${JSON.stringify(WATCHING)}, "no-channel", ["ignore", "inherit", "inherit"]);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    parent.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const pids = await waitFor(
      "the three children",
      async () => {
        const found = Object.fromEntries(
          [...output.matchAll(/^(watching|late|no-channel) (\d+)$/gm)].map((match) => [match[1], Number(match[2])]),
        );
        return Object.keys(found).length === 3
          ? (found as Record<"watching" | "late" | "no-channel", number>)
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    leftovers.push(...Object.values(pids));

    parent.kill("SIGKILL");
    await waitFor(
      "the children with a channel to stop",
      async () => !isProcessAlive(pids.watching) && !isProcessAlive(pids.late),
      {
        timeoutMs: 20_000,
        intervalMs: 50,
      },
    );
    expect(isProcessAlive(pids["no-channel"])).toBe(true);
  }, 60_000);

  it("makes a child whose stop hangs exit by the deadline it gave, once its channel is gone", async () => {
    const hanging = `const { whenParentGone } = await import("./lib/parent-watch.ts");
      whenParentGone(() => console.log("stopping"), { exitWithinMs: 300 });
      setInterval(() => {}, 1000);
      process.send("watching");`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", hanging], {
      cwd: projectRoot,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    leftovers.push(child.pid!);
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => child.once("message", resolve));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
    // The channel closes as when npm start dies; the stop never ends, the deadline does.
    child.disconnect();
    expect(await exited).toBe(1);
    expect(output).toMatch(/^stopping\nnpm start is gone and the stop took over 300 ms: exiting\n$/);
  }, 30_000);

  it("lets a child with the channel exit on its own once its work is done", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", `${WATCH} setTimeout(() => {}, 200);`],
      { cwd: projectRoot, stdio: ["ignore", "ignore", "inherit", "ipc"] },
    );
    leftovers.push(child.pid!);
    const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
    expect(code).toBe(0);
  }, 30_000);
});
