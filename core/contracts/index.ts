export * from "./probe.js";
export * from "./run-flow.js";
