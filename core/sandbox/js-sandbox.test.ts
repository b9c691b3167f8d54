import { describe, expect, it } from "vitest";
import {
  JsSandboxError,
  MAX_CONSOLE_LINE_CHARS,
  MAX_CONSOLE_LINES,
  type JsSandboxFailure,
  type JsSandboxLimits,
} from "./js-sandbox.contract.js";
import { runJavaScript } from "./js-sandbox.js";

const MB = 1024 * 1024;
const limits: JsSandboxLimits = { timeLimitMs: 300, memoryLimitBytes: 32 * MB };

async function failureOf(code: string, input: unknown = null, options: JsSandboxLimits = limits) {
  const error = await runJavaScript(code, input, options).then(
    (result) => {
      throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(JsSandboxError);
  return error as JsSandboxError;
}

/** The failure is the one expected, and the sandbox still works for the next execution. */
async function expectFailure(code: string, failure: JsSandboxFailure, message: RegExp, options = limits) {
  const error = await failureOf(code, null, options);
  expect({ failure: error.failure, message: error.message }).toEqual({
    failure,
    message: expect.stringMatching(message),
  });
  await expect(runJavaScript("return input.n + 1", { n: 41 }, limits)).resolves.toMatchObject({ value: 42 });
  return error;
}

describe("runJavaScript", () => {
  it("passes the input in and the result out as JSON", async () => {
    const result = await runJavaScript(
      `const total = input.items.reduce((sum, item) => sum + item.price, 0);
       return { total, names: input.items.map((item) => item.name), at: new Date(0), none: undefined, nothing: null };`,
      {
        items: [
          { name: "a", price: 2 },
          { name: "b", price: 3.5 },
        ],
      },
      limits,
    );
    expect(result).toEqual({
      value: { total: 5.5, names: ["a", "b"], at: "1970-01-01T00:00:00.000Z", nothing: null },
      console: [],
      droppedConsoleLines: 0,
    });
    await expect(runJavaScript("input.changed = true", { a: 1 }, limits)).resolves.toMatchObject({ value: null });
    await expect(runJavaScript("return input", "text", limits)).resolves.toMatchObject({ value: "text" });
    await expect(runJavaScript("return input", undefined, limits)).resolves.toMatchObject({ value: null });
  });

  it("runs async code until its promise settles", async () => {
    const result = await runJavaScript(
      `const double = async (n) => { await null; return n * 2; };
       const values = [];
       for (const n of input) values.push(await double(n));
       return Promise.all(values.map(async (v) => (await Promise.resolve(v)) + 1));`,
      [1, 2, 3],
      limits,
    );
    expect(result.value).toEqual([3, 5, 7]);

    const rejected = await failureOf("await null; throw new RangeError('late ' + input)", "failure");
    expect(rejected).toMatchObject({ failure: "thrown", message: "RangeError: late failure (line 1)" });
  });

  it("captures console lines with their level, and caps their number and length", async () => {
    const result = await runJavaScript(
      `console.log("hello", 1, { a: [1, 2] }, null, undefined);
       console.info("info"); console.warn("warn"); console.error(new TypeError("bad")); console.debug(true);
       return 1;`,
      null,
      limits,
    );
    expect(result.console).toEqual([
      { level: "log", message: 'hello 1 {"a":[1,2]} null undefined' },
      { level: "info", message: "info" },
      { level: "warn", message: "warn" },
      { level: "error", message: "TypeError: bad" },
      { level: "debug", message: "true" },
    ]);

    const flood = await runJavaScript(
      `console.log("x".repeat(5000)); for (let i = 0; i < 150; i++) console.log(i); return "done";`,
      null,
      limits,
    );
    expect(flood.value).toBe("done");
    expect(flood.console).toHaveLength(MAX_CONSOLE_LINES);
    expect(flood.console[0]!.message).toHaveLength(MAX_CONSOLE_LINE_CHARS + 1);
    expect(flood.console.at(-1)!.message).toBe(String(MAX_CONSOLE_LINES - 2));
    expect(flood.droppedConsoleLines).toBe(151 - MAX_CONSOLE_LINES);
  });

  it("keeps the console lines of a failed execution", async () => {
    const error = await failureOf(`console.log("step", 1);\nnull.boom;`);
    expect(error.failure).toBe("thrown");
    expect(error.message).toMatch(/^TypeError: .*null.* \(line 2\)$/);
    expect(error.output.console).toEqual([{ level: "log", message: "step 1" }]);
  });

  it("reports the user's throw with its message", async () => {
    await expectFailure("const x = 1;\nthrow new Error('boom');", "thrown", /^Error: boom \(line 2\)$/);
    await expectFailure("throw 'plain text'", "thrown", /^plain text$/);
    await expectFailure("throw { code: 42 }", "thrown", /^\{"code":42\}$/);
  });

  it("reports a syntax error with its line", async () => {
    await expectFailure("const a = 1;\nreturn a +;", "syntax", /^SyntaxError: .+ \(line 2\)$/);
  });

  it("reaches no host: the Function constructor finds no process", async () => {
    await expectFailure(
      "return this.constructor.constructor('return process')()",
      "thrown",
      /^ReferenceError: 'process' is not defined/,
    );
    await expectFailure("return process.env", "thrown", /^ReferenceError: 'process' is not defined \(line 1\)$/);
    const globals = await runJavaScript(
      `return [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof WebAssembly,
               typeof globalThis.std, typeof globalThis.os, typeof Buffer];`,
      null,
      limits,
    );
    expect(globals.value).toEqual(Array(8).fill("undefined"));
  });

  it("has no module loader and no require", async () => {
    await expectFailure("return await import('fs')", "thrown", /could not load module 'fs'/);
    await expectFailure("const fs = require('fs'); return fs", "thrown", /^ReferenceError: 'require' is not defined/);
  });

  it("shares nothing between executions", async () => {
    const first = await runJavaScript(
      "globalThis.leak = 1; Object.prototype.polluted = 'yes'; JSON.stringify = () => 'hijacked'; return leak;",
      null,
      limits,
    );
    expect(first.value).toBe(1);
    const second = await runJavaScript("return [typeof leak, ({}).polluted ?? null, input]", { a: 1 }, limits);
    expect(second.value).toEqual(["undefined", null, { a: 1 }]);
  });

  it("stops an endless loop at the time limit, even one that catches errors", async () => {
    const started = Date.now();
    await expectFailure("while (true) {}", "time_limit", /^The code exceeded its time limit of 300 ms$/);
    expect(Date.now() - started).toBeLessThan(3000);
    await expectFailure(
      "for (;;) { try { while (true) {} } catch (e) { console.log('caught', e); } }",
      "time_limit",
      /time limit of 300 ms/,
    );
    await expectFailure("for (;;) await null;", "time_limit", /time limit/);
    await expectFailure("return /(a+)+b/.test('a'.repeat(40))", "time_limit", /time limit/);
  });

  it("stops a memory bomb at the memory limit", async () => {
    const small = { timeLimitMs: 5000, memoryLimitBytes: 16 * MB };
    const error = await expectFailure(
      "const chunks = []; for (;;) chunks.push(new Array(100000).fill(chunks.length));",
      "memory_limit",
      /^The code exceeded its memory limit of 16 MB$/,
      small,
    );
    expect(error.output.console).toEqual([]);
    await expectFailure(
      "const objects = []; for (;;) objects.push({ n: objects.length });",
      "memory_limit",
      /memory limit/,
      small,
    );
    await expectFailure(
      "let s = 'ab'; for (;;) s = (s + s).split('').join('');",
      "memory_limit",
      /memory limit/,
      small,
    );
    // The same allocation fits under a larger limit.
    const fits = await runJavaScript(
      "const chunks = []; for (let i = 0; i < 40; i++) chunks.push(new Array(100000).fill(i)); return chunks.length;",
      null,
      { timeLimitMs: 5000, memoryLimitBytes: 64 * MB },
    );
    expect(fits.value).toBe(40);
  });

  it("stops deep recursion at the stack limit", async () => {
    await expectFailure("const f = (n) => f(n + 1) + 1; return f(0);", "stack_limit", /stack limit/);
    await expectFailure(
      "let a = []; for (let i = 0; i < 100000; i++) a = [a]; return JSON.stringify(a).length;",
      "stack_limit",
      /stack limit/,
    );
    const shallow = await runJavaScript("const f = (n) => (n === 0 ? 0 : 1 + f(n - 1)); return f(300);", null, limits);
    expect(shallow.value).toBe(300);
  });

  it("fails a promise that can never settle, and a result that has no JSON form", async () => {
    await expectFailure("return new Promise(() => {})", "unsettled", /never settled/);
    await expectFailure("const a = {}; a.self = a; return a;", "result", /cannot be turned into JSON: .*circular/);
    await expectFailure("return () => 1", "result", /a function has no JSON form/);
    await expectFailure("return 10n", "result", /BigInt/);
  });
});
