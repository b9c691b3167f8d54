export * from "./probe.js";
export * from "./run-flow.js";
export * from "./node-test.js";
