// A sandbox process of the expression pool (js-sandbox-pool.ts, processExecutors): says it is
// ready, then evaluates one JSONata expression at a time as the pool sends them. Whatever an
// expression does, it can only exhaust this process's time and heap: the pool kills the process at
// the time limit, and V8 aborts it (this process alone) at the heap limit.
import { JsSandboxError, noOutput, type SandboxReply } from "./js-sandbox.contract.js";
import { evaluateJsonataOnJson, type JsonataTask } from "./jsonata-evaluation.js";

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

reply({ type: "ready" });
