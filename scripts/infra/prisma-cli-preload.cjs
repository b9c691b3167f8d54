// Preloaded into the Prisma CLI process. Prisma's WebAssembly schema engine leaves a 10-second
// timer pending after every command (a timeout it never clears), which keeps the finished CLI
// alive for 10 s. Timers created from WebAssembly are unref'd: they no longer hold the process
// open, while the engine's open database connections still do for as long as it works.
"use strict";
const originalSetTimeout = global.setTimeout;
global.setTimeout = function setTimeoutUnrefFromWasm(...args) {
  const timer = originalSetTimeout.apply(this, args);
  if (new Error().stack?.includes("wasm://")) timer.unref();
  return timer;
};
