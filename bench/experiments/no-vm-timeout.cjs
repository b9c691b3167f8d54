// An experiment, not a setting: measures what the Temporal SDK's per-call vm timeout costs.
// BENCH_NODE_OPTIONS="--require ./bench/experiments/no-vm-timeout.cjs" npm run bench:tail
// runs the service's workflow threads with vm calls that carry no `timeout`, so that no watchdog
// thread is started and joined per call into the workflow context (isolateExecutionTimeout, 5 s,
// is then not enforced). docs/engine.md ("Where a run's CPU goes") has what it saved.
"use strict";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a --require preload is CommonJS
const vm = require("node:vm");

const withoutTimeout = (options) => {
  if (!options || typeof options !== "object" || !("timeout" in options)) return options;
  const { timeout: _timeout, ...rest } = options;
  return rest;
};
const runScript = vm.Script.prototype.runInContext;
vm.Script.prototype.runInContext = function runInContext(context, options) {
  return runScript.call(this, context, withoutTimeout(options));
};
const runCode = vm.runInContext;
vm.runInContext = function runInContextWithoutTimeout(code, context, options) {
  return runCode.call(this, code, context, withoutTimeout(options));
};
