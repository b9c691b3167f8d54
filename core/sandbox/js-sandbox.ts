// Runs untrusted JavaScript in QuickJS compiled to WebAssembly. The compiled module is loaded
// once per thread, on first use; every execution then gets its own instance, with its own
// WebAssembly memory capped at the memory limit, and a fresh runtime and context, disposed
// afterwards: nothing is shared between runs or workspaces, not even the allocator. The context
// holds only ECMAScript built-ins and a console whose lines are captured; no module loader, no
// require, no fetch, no timers, no host objects. Data crosses the boundary as JSON.
//
// QuickJS runs synchronously on the thread that calls it, so the worker never calls it on its
// own event loop (which heartbeats and polls): it runs in the threads of js-sandbox-pool.ts
// (js-sandbox.thread.ts), which also kill a thread whose code outlasts QuickJS's interrupt.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import variantExport from "@jitl/quickjs-wasmfile-release-sync";
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";
import {
  inputJsonOf,
  JsSandboxError,
  MAX_CONSOLE_LINE_CHARS,
  MAX_CONSOLE_LINES,
  memoryLimitMessage,
  MIN_MEMORY_LIMIT_BYTES,
  noOutput,
  timeLimitMessage,
  type ConsoleLevel,
  type JsSandboxFailure,
  type JsSandboxLimits,
  type JsSandboxOutput,
  type JsSandboxResult,
} from "./js-sandbox.contract.js";

// The package's typings describe its CommonJS build (the module object); Node's ESM import gives
// the variant itself.
const variant = ("default" in variantExport ? variantExport.default : variantExport) as QuickJSSyncVariant;

// TypeScript's ES lib typings leave out WebAssembly (a web-platform global in Node and in edge
// runtimes); the part used here:
interface WasmMemory {
  grow(pages: number): number;
}
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<object>;
      Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
    };
  }
).WebAssembly;

// QuickJS counts the stack it sees in WebAssembly's linear memory, but every WebAssembly frame
// also takes room on the host's own stack. 128 KB (about 680 nested calls of a small function)
// stops most deep recursion inside QuickJS; the few paths that exhaust the host's stack first
// (stringifying thousands of nested arrays) raise a RangeError in the host, reported as the same
// failure (the instance is then dropped, never used again).
const MAX_STACK_BYTES = 128 * 1024;
const CODE_FILE = "code.js";
const PAGE_BYTES = 65_536;
// The module declares 16 MB of memory at start; its static data and stack take about 5 MB of it.
const INITIAL_PAGES = MIN_MEMORY_LIMIT_BYTES / PAGE_BYTES;

// Evaluated before the user's code. It keeps JSON's functions before user code can replace
// them, installs the console (the host's sink stays in this closure, out of the code's reach)
// and returns the helpers the host calls.
const BOOTSTRAP = `(function (sink) {
  "use strict";
  const { parse, stringify } = JSON;
  const ErrorType = Error;
  const lineOf = (error) => {
    const match = /code\\.js:(\\d+)/.exec(String(error.stack));
    return match ? Number(match[1]) : undefined;
  };
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof ErrorType) return String(value.name) + ": " + String(value.message);
    if (typeof value === "object" && value !== null) {
      try {
        const json = stringify(value);
        if (json !== undefined) return json;
      } catch {}
    }
    return String(value);
  };
  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    console[level] = function (...args) {
      let text;
      try {
        text = args.map(show).join(" ");
      } catch {
        text = "(a value that cannot be printed)";
      }
      sink(level, text);
    };
  }
  globalThis.console = console;
  return {
    parse,
    serialize(value) {
      if (value === undefined) return "null";
      const json = stringify(value);
      if (json === undefined) throw new TypeError("a " + typeof value + " has no JSON form");
      return json;
    },
    describe(error) {
      try {
        if (error instanceof ErrorType) {
          return stringify({ name: String(error.name), message: String(error.message), line: lineOf(error) });
        }
        return stringify({ name: "", message: show(error) });
      } catch {
        return stringify({ name: "", message: "(a value that cannot be printed)" });
      }
    },
  };
})`;

let compiled: Promise<object> | undefined;

/** The compiled QuickJS module: read and compiled on first use, kept for the process. */
function quickjsModule(): Promise<object> {
  compiled ??= (async () => {
    // On Node the bytes come from the package's file; an edge runtime would import the .wasm.
    const path = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
    return wasm.compile(await readFile(path));
  })().catch((error: unknown) => {
    compiled = undefined;
    throw error;
  });
  return compiled;
}

/** Compiles the module ahead of the first execution (a sandbox thread does it as it starts). */
export async function loadQuickJS(): Promise<void> {
  await quickjsModule();
}

interface Instance {
  module: QuickJSWASMModule;
  /** Set once the memory has refused to grow: the limit was reached. */
  memoryRefused: boolean;
}

/**
 * A new instance of QuickJS (a few milliseconds) whose memory cannot grow beyond the limit.
 * QuickJS's own malloc limit cannot do this alone here: Emscripten's allocator does not report
 * the usable size of a block, so QuickJS's accounting checks each allocation but not their sum.
 */
async function newInstance(memoryLimitBytes: number): Promise<Instance> {
  const maximum = Math.max(INITIAL_PAGES, Math.floor(memoryLimitBytes / PAGE_BYTES));
  const memory = new wasm.Memory({ initial: INITIAL_PAGES, maximum });
  const wasmModule = await quickjsModule();
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule, wasmMemory: memory }));
  const instance: Instance = { module, memoryRefused: false };
  // Emscripten's allocator grows the memory through this method and takes a refusal as "no memory".
  const grow = memory.grow.bind(memory);
  memory.grow = (pages) => {
    try {
      return grow(pages);
    } catch (error) {
      instance.memoryRefused = true;
      throw error;
    }
  };
  return instance;
}

interface Described {
  name: string;
  message: string;
  line?: number;
}

/** One execution: a runtime, a context and every handle it created, all disposed at the end. */
class Execution {
  readonly output: JsSandboxOutput = { console: [], droppedConsoleLines: 0 };
  private readonly handles: QuickJSHandle[] = [];
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly deadline: number;
  private interrupted = false;
  private describeError?: QuickJSHandle;

  constructor(
    private readonly instance: Instance,
    private readonly limits: JsSandboxLimits,
  ) {
    this.runtime = instance.module.newRuntime();
    // Fails single allocations beyond the limit early; the capped memory bounds their sum.
    this.runtime.setMemoryLimit(limits.memoryLimitBytes);
    this.runtime.setMaxStackSize(MAX_STACK_BYTES);
    this.deadline = Date.now() + limits.timeLimitMs;
    // Called by QuickJS every few thousand instructions, regular expressions included.
    this.runtime.setInterruptHandler(() => {
      if (Date.now() <= this.deadline) return false;
      this.interrupted = true;
      return true;
    });
    // No setModuleLoader: import() and import statements fail to resolve anything.
    this.context = this.runtime.newContext();
  }

  run(code: string, inputJson: string): unknown {
    const { context } = this;
    const sink = this.keep(
      context.newFunction("sink", (level, text) => {
        if (context.typeof(level) !== "string" || context.typeof(text) !== "string") return;
        this.print(context.getString(level) as ConsoleLevel, context.getString(text));
      }),
    );
    const factory = this.unwrap(
      context.evalCode(BOOTSTRAP, "sandbox.js", { type: "global", strict: true }),
      "internal",
    );
    const helpers = this.unwrap(context.callFunction(factory, context.undefined, sink), "internal");
    const parse = this.keep(context.getProp(helpers, "parse"));
    const serialize = this.keep(context.getProp(helpers, "serialize"));
    this.describeError = this.keep(context.getProp(helpers, "describe"));

    // On the wrapper's line, so that line numbers in errors are the user's.
    const compiled = context.evalCode(`(async function (input) {${code}\n})`, CODE_FILE, { type: "global" });
    const fn = this.unwrap(compiled, "syntax");
    const input = this.unwrap(context.callFunction(parse, context.undefined, this.keep(context.newString(inputJson))));
    const promise = this.unwrap(context.callFunction(fn, context.undefined, input));
    const value = this.settle(promise);
    const json = this.unwrap(context.callFunction(serialize, context.undefined, value), "result");
    return JSON.parse(context.getString(json));
  }

  /** Runs promise jobs until the code's promise settles; returns its value. */
  private settle(promise: QuickJSHandle): QuickJSHandle {
    for (;;) {
      const state = this.context.getPromiseState(promise);
      if (state.type === "fulfilled") return state.notAPromise ? promise : this.keep(state.value);
      if (state.type === "rejected") throw this.failureOf(this.keep(state.error), "thrown");
      if (this.interrupted || Date.now() > this.deadline) throw this.timeLimitFailure();
      if (!this.runtime.hasPendingJob()) {
        throw this.fail(
          "unsettled",
          "The code's promise never settled: it waits for something that never happens (the sandbox has no timers, network or I/O)",
        );
      }
      const jobs = this.runtime.executePendingJobs();
      if (jobs.error) throw this.failureOf(this.keep(jobs.error), "thrown");
    }
  }

  private keep<H extends QuickJSHandle>(handle: H): H {
    this.handles.push(handle);
    return handle;
  }

  private unwrap(
    result: { error?: QuickJSHandle; value?: QuickJSHandle },
    failure: JsSandboxFailure = "thrown",
  ): QuickJSHandle {
    if (result.error) throw this.failureOf(this.keep(result.error), failure);
    return this.keep(result.value!);
  }

  private print(level: ConsoleLevel, text: string): void {
    const { output } = this;
    if (output.console.length >= MAX_CONSOLE_LINES) {
      output.droppedConsoleLines += 1;
      return;
    }
    const message = text.length > MAX_CONSOLE_LINE_CHARS ? `${text.slice(0, MAX_CONSOLE_LINE_CHARS)}…` : text;
    output.console.push({ level, message });
  }

  private fail(failure: JsSandboxFailure, message: string): JsSandboxError {
    return new JsSandboxError(failure, message, this.output);
  }

  private timeLimitFailure(): JsSandboxError {
    return this.fail("time_limit", timeLimitMessage(this.limits));
  }

  private memoryLimitFailure(): JsSandboxError {
    return this.fail("memory_limit", memoryLimitMessage(this.limits));
  }

  /** Reads a thrown value in the VM (user getters run under the same deadline). */
  private describe(error: QuickJSHandle): Described | undefined {
    if (!this.describeError || this.interrupted) return undefined;
    const result = this.context.callFunction(this.describeError, this.context.undefined, error);
    if (result.error) {
      result.error.dispose();
      return undefined;
    }
    const text = this.context.getString(result.value);
    result.value.dispose();
    return JSON.parse(text) as Described;
  }

  private failureOf(error: QuickJSHandle, failure: JsSandboxFailure): JsSandboxError {
    if (this.interrupted) return this.timeLimitFailure();
    const described = this.describe(error);
    if (this.interrupted) return this.timeLimitFailure();
    if (described?.name === "InternalError" && described.message === "out of memory") return this.memoryLimitFailure();
    // Out of memory, QuickJS may not even manage to create the error: it throws null.
    if (this.instance.memoryRefused && (!described || described.message === "null")) return this.memoryLimitFailure();
    if (!described) return this.fail(failure, "The code failed with a value that cannot be read");
    if (described.message === "stack overflow") {
      return this.fail("stack_limit", "The code exceeded its stack limit: recursion too deep");
    }
    const line = described.line ? ` (line ${described.line})` : "";
    const text = `${described.name ? `${described.name}: ` : ""}${described.message}${line}`;
    if (failure === "result") return this.fail("result", `The code's result cannot be turned into JSON: ${text}`);
    return this.fail(failure, text);
  }

  dispose(): void {
    for (const handle of this.handles.reverse()) if (handle.alive) handle.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }
}

/**
 * Runs `code`, the body of an async function receiving `input`, and returns what it returns (or
 * resolves to) as JSON. Fails with a JsSandboxError whose message says what went wrong.
 */
export async function runJavaScript(code: string, input: unknown, limits: JsSandboxLimits): Promise<JsSandboxResult> {
  return runJavaScriptOnJson(code, inputJsonOf(input), limits);
}

/** runJavaScript with the input already as JSON text (as it crosses to a sandbox thread). */
export async function runJavaScriptOnJson(
  code: string,
  inputJson: string,
  limits: JsSandboxLimits,
): Promise<JsSandboxResult> {
  const instance = await newInstance(limits.memoryLimitBytes);
  let execution: Execution | undefined;
  try {
    execution = new Execution(instance, limits);
    const value = execution.run(code, inputJson);
    return { value, ...execution.output };
  } catch (error) {
    if (error instanceof JsSandboxError) throw error;
    const output = execution?.output ?? noOutput();
    // The host's own stack ran out inside WebAssembly: the instance is left mid-call and is
    // dropped without being disposed.
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      execution = undefined;
      throw new JsSandboxError("stack_limit", "The code exceeded its stack limit: recursion too deep", output);
    }
    throw new JsSandboxError("internal", `The JavaScript sandbox failed: ${(error as Error).message}`, output);
  } finally {
    try {
      execution?.dispose();
    } catch {
      // The instance is dropped either way; its memory goes with it.
    }
  }
}
