// A sandbox thread of js-sandbox-pool.ts: compiles QuickJS, says it is ready, then runs one
// evaluation at a time as the pool sends them. Whatever the code does, it can only block this
// thread, which the pool terminates when the code outlasts its time limit.
import { parentPort } from "node:worker_threads";
import {
  JsSandboxError,
  noOutput,
  type JsSandboxLimits,
  type JsSandboxOutput,
  type SandboxReply,
} from "./js-sandbox.contract.js";
import { loadQuickJS, runJavaScriptOnJson } from "./js-sandbox.js";

/** One evaluation, from the pool. */
export interface ThreadTask {
  code: string;
  inputJson: string;
  limits: JsSandboxLimits;
}

/** What the thread tells the pool. */
export type ThreadReply = SandboxReply<{ value: unknown; output: JsSandboxOutput }>;

const port = parentPort;
if (!port) throw new Error("js-sandbox.thread.ts runs as a worker thread of js-sandbox-pool.ts");

const reply = (message: ThreadReply) => port.postMessage(message);

port.on("message", async (task: ThreadTask) => {
  try {
    const { value, ...output } = await runJavaScriptOnJson(task.code, task.inputJson, task.limits);
    reply({ type: "result", value, output });
  } catch (error) {
    if (error instanceof JsSandboxError) {
      reply({ type: "failure", failure: error.failure, message: error.message, output: error.output });
    } else {
      const message = `The JavaScript sandbox failed: ${(error as Error).message}`;
      reply({ type: "failure", failure: "internal", message, output: noOutput() });
    }
  }
});

await loadQuickJS();
reply({ type: "ready" });
