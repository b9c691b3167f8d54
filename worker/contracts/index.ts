export * from "./probe.js";
