// An experiment, not a setting: measures what running workflows off the worker's own thread costs.
// BENCH_NODE_OPTIONS="--require ./bench/experiments/no-vm-timeout.cjs --require
// ./bench/experiments/workflows-on-main-thread.cjs" npm run bench:tail runs the service's
// workers in the SDK's debugMode: workflow code runs on the process's main thread (no workflow
// thread, no messages to it) with no effective isolate timeout. It blocks the API's event loop
// while a workflow task runs. docs/engine.md ("Where a run's CPU goes") has what it saved.
"use strict";
process.env.TEMPORAL_DEBUG = "1";
