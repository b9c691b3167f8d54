import { z } from "zod";
import {
  JsSandboxError,
  MIN_MEMORY_LIMIT_BYTES,
  type ConsoleLevel,
  type JsSandboxOutput,
} from "../../sandbox/js-sandbox.contract.js";
import { defineNode, type LogLevel, type NodeEnv } from "../define-node.js";
import { NodeError } from "../node-error.js";

const MB = 1024 * 1024;
// The code runs on a sandbox thread, not on the worker's event loop, so its limit no longer
// bounds the worker's stalls; it bounds how long the code holds one of the pool's few threads
// (its workspace gets half of them) while that workspace's other code nodes wait: 10 s at most.
const MAX_TIME_LIMIT_MS = 10_000;

const LOG_LEVEL: Record<ConsoleLevel, LogLevel> = {
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
  debug: "debug",
};

/** Writes what the code printed to the run's log, after the execution. */
async function writeConsole(env: NodeEnv, output: JsSandboxOutput): Promise<void> {
  for (const line of output.console) await env.log(LOG_LEVEL[line.level], line.message, { console: line.level });
  if (output.droppedConsoleLines > 0) {
    await env.log("warn", `console: ${output.droppedConsoleLines} more lines were not kept`, { console: "dropped" });
  }
}

export const codeNode = defineNode({
  type: "code",
  version: 1,
  name: "Code",
  category: "data",
  description:
    "Runs JavaScript in an isolated sandbox: the code is the body of an async function that receives `input` " +
    "(JSON) and returns the output (JSON). console lines go to the run's log; no network, files, timers or modules.",
  kind: "activity",
  pure: true,
  config: z.object({
    code: z
      .string()
      .min(1)
      .max(100_000)
      .meta({ label: "Code", code: true, placeholder: "return { count: input.items.length };" }),
    time_limit_ms: z.number().int().min(10).max(MAX_TIME_LIMIT_MS).default(1000).meta({ label: "Time limit (ms)" }),
    memory_limit_mb: z
      .number()
      .int()
      .min(MIN_MEMORY_LIMIT_BYTES / MB)
      .max(128)
      .default(32)
      .meta({ label: "Memory limit (MB)" }),
  }),
  async execute(input, config, env) {
    if (!env.sandbox) throw new NodeError("This runtime has no JavaScript sandbox (env.sandbox)", { retryable: false });
    let result;
    try {
      result = await env.sandbox.runJavaScript(config.code, input, {
        timeLimitMs: config.time_limit_ms,
        memoryLimitBytes: config.memory_limit_mb * MB,
      });
    } catch (error) {
      if (!(error instanceof JsSandboxError)) throw error;
      await writeConsole(env, error.output);
      // The code's own failures would fail the same way again (a thread killed at the time limit
      // included); only the sandbox's may not.
      throw new NodeError(error.message, {
        retryable: error.failure === "internal",
        details: { failure: error.failure },
      });
    }
    await writeConsole(env, result);
    return result.value;
  },
});
