// A sandbox process of the expression pool (js-sandbox-pool.ts, processExecutors): says it is
// ready, then evaluates one JSONata expression at a time as the pool sends them. Whatever an
// expression does, it can only exhaust this process's time and heap: the pool kills the process at
// the time limit, and V8 aborts it (this process alone) at the heap limit.
import { Worker } from "node:worker_threads";
import { JsSandboxError, noOutput, type SandboxReply } from "./js-sandbox.contract.js";
import { evaluateJsonataOnJson, type JsonataTask } from "./jsonata-evaluation.js";

/** How often the process checks that its parent is still there. */
const ORPHAN_CHECK_MS = 500;

/** What the process tells the pool: a result is the expression's result as JSON text. */
export type JsonataReply = SandboxReply<{ json: string }>;

const send = process.send?.bind(process);
if (!send) throw new Error("jsonata.process.ts runs as a child process of the sandbox pool (with IPC)");
const reply = (message: JsonataReply) => send(message);

process.on("message", async (task: JsonataTask) => {
  try {
    reply({ type: "result", json: await evaluateJsonataOnJson(task) });
  } catch (error) {
    if (error instanceof JsSandboxError) {
      const { failure, message, details } = error;
      reply({ type: "failure", failure, message, output: noOutput(), ...(details ? { details } : {}) });
    } else {
      reply({
        type: "failure",
        failure: "internal",
        message: `The expression sandbox failed: ${(error as Error).message}`,
        output: noOutput(),
      });
    }
  }
});
// The pool is gone (its process ended): so is this one.
process.on("disconnect", () => process.exit(0));
// An evaluation holds this event loop until it ends (a backtracking regular expression, perhaps
// never), so the disconnect above may wait: a thread of its own ends the process once its parent
// has gone (the process is then another's child).
const parent = process.ppid;
const watchdog = new Worker(
  `setInterval(() => { if (process.ppid !== ${parent}) process.kill(${process.pid}, "SIGKILL"); }, ${ORPHAN_CHECK_MS});`,
  { eval: true },
);
watchdog.unref();

reply({ type: "ready" });
