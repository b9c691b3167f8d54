// Preloaded (--require) into a benchmark's API process when BENCH_THREAD_LOG names a file: every
// JavaScript thread (the main thread, then each worker thread, which runs --require preloads
// too) appends "<pid> <Node thread id> <OS thread id> <kind>" to it, since Node 20 names all its
// threads "node" and /proc alone cannot tell the workflow thread from V8's helpers. The kind is
// `main`, `workflow` (the Temporal SDK's workflow thread, known by its script once it has loaded)
// or `js`. The main thread also lists the threads already running when it starts (V8's platform
// workers) as "<pid> early <OS thread id>...". bench/helpers/thread-cpu.ts reads the file.
"use strict";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a --require preload is CommonJS
const { appendFileSync, readdirSync, readlinkSync } = require("node:fs");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a --require preload is CommonJS
const { isMainThread, threadId } = require("node:worker_threads");

const log = process.env.BENCH_THREAD_LOG;
if (log) {
  const tid = readlinkSync("/proc/thread-self").split("/").at(-1);
  if (isMainThread) {
    const early = readdirSync("/proc/self/task").filter((task) => task !== tid);
    appendFileSync(log, `${process.pid} ${threadId} ${tid} main\n${process.pid} early ${early.join(" ")}\n`);
  } else {
    // The thread's own script loads once the --import hooks it inherits are in place: looked for
    // every 500 ms, for up to 10 s.
    let tries = 0;
    const recordKind = () => {
      const workflow = Object.keys(require.cache).some((file) => file.includes("workflow-worker-thread"));
      if (!workflow && ++tries < 20) return void setTimeout(recordKind, 500).unref();
      appendFileSync(log, `${process.pid} ${threadId} ${tid} ${workflow ? "workflow" : "js"}\n`);
    };
    recordKind();
  }
}
