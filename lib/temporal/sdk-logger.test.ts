import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../logger.js";
import { sdkLogLevel, temporalLogger } from "./sdk-logger.js";

// What Temporal's bundler logs once per process that bundles the workflows (abridged).
const WEBPACK_REPORT = `asset workflow-bundle-c0d3ef71ddefe1657bd5.js 1.81 MiB [emitted] [immutable] (name: main)
runtime modules 883 bytes 4 modules
modules by path ./worker/workflows/ 55.7 KiB
  ./worker/workflows/index.ts 415 bytes [built] [code generated]
webpack 5.112.2 compiled successfully in 3087 ms`;

describe("sdkLogLevel", () => {
  it("moves webpack's bundle report and the Nexus notice to debug", () => {
    expect(sdkLogLevel("INFO", WEBPACK_REPORT)).toBe("DEBUG");
    expect(sdkLogLevel("INFO", "No Nexus services registered, not polling for Nexus tasks")).toBe("DEBUG");
  });

  it("leaves every other line, and a failed build, at its level", () => {
    expect(sdkLogLevel("ERROR", WEBPACK_REPORT.replace("successfully", "with 1 error"))).toBe("ERROR");
    expect(sdkLogLevel("INFO", "Workflow bundle created")).toBe("INFO");
    expect(sdkLogLevel("INFO", "Worker state changed")).toBe("INFO");
    expect(sdkLogLevel("WARN", "webpack 5.112.2 compiled with 1 warning")).toBe("WARN");
  });
});

describe("temporalLogger", () => {
  it("writes the bundle report only at debug level", () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    });
    const sdk = temporalLogger(createLogger({ LOG_LEVEL: "info" }, "worker", sink));
    sdk.info(WEBPACK_REPORT, { sdkComponent: "worker" });
    sdk.log("INFO", WEBPACK_REPORT);
    sdk.info("Workflow bundle created", { size: "1.81MB" });
    expect(lines.map((line) => line.msg)).toEqual(["Workflow bundle created"]);
  });
});
