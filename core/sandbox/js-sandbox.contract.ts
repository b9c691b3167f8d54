// What the sandboxes' callers and their threads and processes share: limits, results and failures of JavaScript
// (code node) and JSONata (transform node) evaluations. It holds neither QuickJS, JSONata nor Node
// APIs, so that nodes can import it under the node contract.

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
    /** What the evaluator said about it (JSONata: its error code, position and token). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** What a sandbox thread or process tells its pool: ready, a result (`R`), or a failure. */
export type SandboxReply<R extends object> =
  | { type: "ready" }
  | ({ type: "result" } & R)
  | {
      type: "failure";
      failure: JsSandboxFailure;
      message: string;
      output: JsSandboxOutput;
      details?: Record<string, unknown>;
    };

export const MAX_CONSOLE_LINES = 100;
export const MAX_CONSOLE_LINE_CHARS = 2000;
/** The memory QuickJS's WebAssembly module starts with (256 pages of 64 KB): the smallest limit. */
export const MIN_MEMORY_LIMIT_BYTES = 256 * 65_536;

export const noOutput = (): JsSandboxOutput => ({ console: [], droppedConsoleLines: 0 });

/** What is evaluated, as failure messages name it: JavaScript is "code", JSONata an "expression". */
export type EvaluationSubject = "code" | "expression";

export const timeLimitMessage = (limits: Pick<JsSandboxLimits, "timeLimitMs">, subject: EvaluationSubject = "code") =>
  `The ${subject} exceeded its time limit of ${limits.timeLimitMs} ms`;

export const memoryLimitMessage = (limits: JsSandboxLimits, subject: EvaluationSubject = "code") =>
  `The ${subject} exceeded its memory limit of ${Math.round((limits.memoryLimitBytes / 1024 / 1024) * 10) / 10} MB`;

/** The input as the JSON text that enters the sandbox; an input without one is the caller's failure. */
export function inputJsonOf(input: unknown): string {
  try {
    return JSON.stringify(input ?? null) ?? "null";
  } catch (error) {
    throw new JsSandboxError("input", `The input cannot be passed as JSON: ${(error as Error).message}`, noOutput());
  }
}

/** A JSONata evaluation: the transform node's, in a sandbox process. */
export interface JsonataEvaluation {
  /** Wall-clock limit of the evaluation (its memory limit is the sandbox process's heap). */
  timeLimitMs: number;
  /** Variables the expression sees besides the input (`run` is `$run`); plain JSON. */
  bindings?: Record<string, unknown>;
}

/** Nested evaluations of a JSONata expression at most (each recursive call of a function takes a few). */
export const JSONATA_MAX_DEPTH = 2000;
/** The largest result of a JSONata evaluation, as JSON text (characters). */
export const JSONATA_MAX_RESULT_CHARS = 16 * 1024 * 1024;

/**
 * User-supplied evaluations, run off the caller's event loop in the sandboxes' threads and
 * processes on behalf of the run's workspace (core/sandbox/js-sandbox-pool.ts). Each fails with a
 * JsSandboxError, or with the node's signal's reason when that aborts.
 */
export interface NodeSandbox {
  /** JavaScript in QuickJS (the code node). */
  runJavaScript(code: string, input: unknown, limits: JsSandboxLimits): Promise<JsSandboxResult>;
  /** A JSONata expression on the input (the transform node); resolves to its result as plain JSON. */
  evaluateJsonata(expression: string, input: unknown, evaluation: JsonataEvaluation): Promise<unknown>;
  /**
   * The expression on each input on its own, in one message to one sandbox process (a node that
   * runs per item): each item within `timeLimitMs`, `$item_index` counting from `firstIndex`.
   * Resolves to one outcome per input: its result, or a JsSandboxError of its own.
   */
  evaluateJsonataEach(
    expression: string,
    inputs: unknown[],
    evaluation: JsonataEvaluation & { firstIndex: number },
  ): Promise<Array<{ value: unknown } | { error: JsSandboxError }>>;
}
