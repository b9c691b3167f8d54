// What the JavaScript sandbox's callers and its threads share: limits, results and failures. It
// holds neither QuickJS nor Node APIs, so that the code node can import it under the node contract.

export interface JsSandboxLimits {
  /** Wall-clock limit of the whole execution, promise jobs and serialization of the result included. */
  timeLimitMs: number;
  /**
   * The whole WebAssembly memory of the execution's QuickJS instance, the engine's own 5 MB
   * included; at least MIN_MEMORY_LIMIT_BYTES.
   */
  memoryLimitBytes: number;
}

export type ConsoleLevel = "log" | "info" | "warn" | "error" | "debug";

export interface ConsoleLine {
  level: ConsoleLevel;
  message: string;
}

/** What an execution printed, kept whether it succeeds or fails. */
export interface JsSandboxOutput {
  console: ConsoleLine[];
  /** Lines printed beyond MAX_CONSOLE_LINES. */
  droppedConsoleLines: number;
}

export interface JsSandboxResult extends JsSandboxOutput {
  /** The code's result, as JSON gives it back (undefined becomes null). */
  value: unknown;
}

export type JsSandboxFailure =
  "syntax" | "thrown" | "time_limit" | "memory_limit" | "stack_limit" | "unsettled" | "result" | "input" | "internal";

export class JsSandboxError extends Error {
  override name = "JsSandboxError";

  constructor(
    /** internal is the sandbox's doing (worth a retry); every other failure, the code's or its input's. */
    readonly failure: JsSandboxFailure,
    message: string,
    readonly output: JsSandboxOutput,
  ) {
    super(message);
  }
}

export const MAX_CONSOLE_LINES = 100;
export const MAX_CONSOLE_LINE_CHARS = 2000;
/** The memory QuickJS's WebAssembly module starts with (256 pages of 64 KB): the smallest limit. */
export const MIN_MEMORY_LIMIT_BYTES = 256 * 65_536;

export const noOutput = (): JsSandboxOutput => ({ console: [], droppedConsoleLines: 0 });

export const timeLimitMessage = (limits: JsSandboxLimits) =>
  `The code exceeded its time limit of ${limits.timeLimitMs} ms`;

export const memoryLimitMessage = (limits: JsSandboxLimits) =>
  `The code exceeded its memory limit of ${Math.round((limits.memoryLimitBytes / 1024 / 1024) * 10) / 10} MB`;

/** The input as the JSON text that enters the sandbox; an input without one is the caller's failure. */
export function inputJsonOf(input: unknown): string {
  try {
    return JSON.stringify(input ?? null) ?? "null";
  } catch (error) {
    throw new JsSandboxError("input", `The input cannot be passed as JSON: ${(error as Error).message}`, noOutput());
  }
}
