import { spawn } from "node:child_process";
import { once } from "node:events";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createLogger, logFormat, prettyLines } from "./logger.js";

describe("logFormat", () => {
  it("is human at a developer's terminal and JSON wherever a machine reads", () => {
    expect(logFormat({}, true)).toBe("pretty");
    expect(logFormat({ NODE_ENV: "development" }, true)).toBe("pretty");
    // A pipe or a file (npm start | tee, a log collector, the tests reading npm start's output).
    expect(logFormat({}, false)).toBe("json");
    expect(logFormat({ NODE_ENV: "development" }, false)).toBe("json");
    // Production and tests stay JSON at a terminal too.
    expect(logFormat({ NODE_ENV: "production" }, true)).toBe("json");
    expect(logFormat({ NODE_ENV: "test" }, true)).toBe("json");
  });

  it("follows LOG_FORMAT when it is set", () => {
    expect(logFormat({ LOG_FORMAT: "json" }, true)).toBe("json");
    expect(logFormat({ LOG_FORMAT: "json", NODE_ENV: "development" }, true)).toBe("json");
    expect(logFormat({ LOG_FORMAT: "pretty" }, false)).toBe("pretty");
    expect(logFormat({ LOG_FORMAT: "pretty", NODE_ENV: "production" }, false)).toBe("pretty");
  });
});

/** A destination that keeps what is written to it. */
function sink() {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** Our logger writing pretty lines, uncoloured, and what it wrote once a line has ended. */
function prettyLogger(name: string) {
  const out = sink();
  const logger = createLogger({ LOG_LEVEL: "info" }, name, prettyLines({ colorize: false, destination: out.stream }));
  const written = async () => {
    await expect.poll(out.text).toMatch(/\n$/);
    return out.text();
  };
  return { logger, written };
}

describe("prettyLines", () => {
  it("writes one human line per entry: time, level, process, message, then the fields on the same line", async () => {
    const { logger, written } = prettyLogger("api");
    logger.info({ method: "GET", path: "/readyz", status: 200 }, "request");
    logger.debug("not at info level");
    const text = await written();
    expect(text).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(api\): request \{"method":"GET","path":"\/readyz","status":200\}\n$/,
    );
    expect(text).not.toContain('{"level"');
  });

  it("keeps the redaction: a secret never reaches the pretty line", async () => {
    const { logger, written } = prettyLogger("worker");
    logger.info({ SVC_ENCRYPTION_KEY: "k1:very-secret", nested: { password: "hunter22" } }, "config read");
    const text = await written();
    expect(text).toContain("INFO (worker): config read");
    expect(text).not.toMatch(/very-secret|hunter22/);
    expect(text).toContain("[redacted]");
  });

  it("colours the level only when asked (a terminal)", async () => {
    const out = sink();
    pino({ name: "api" }, prettyLines({ colorize: true, destination: out.stream })).warn("slow");
    await expect.poll(out.text).toMatch(/\n$/);
    // eslint-disable-next-line no-control-regex
    expect(out.text()).toMatch(/\u001b\[\d+mWARN\u001b\[\d+m/);
  });
});

describe("JSON lines on stdout", () => {
  it("are written asynchronously, yet all of them reach a pipe when the process exits right after logging", async () => {
    // A child process logging 2,000 lines and exiting at once: process.exit does not wait for
    // asynchronous writes, so the lines still queued must be written as it exits.
    const script = `
      import { createLogger } from ${JSON.stringify(new URL("./logger.ts", import.meta.url).href)};
      const logger = createLogger({ LOG_LEVEL: "info", LOG_FORMAT: "json" }, "exit-test");
      for (let n = 0; n < 2000; n++) logger.info({ n }, "line");
      process.exit(3);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(child, "close")) as [number];
    expect(code).toBe(3);
    const lines = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { n: number; name: string });
    expect(lines).toHaveLength(2000);
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 2000 }, (_, n) => n));
    expect(lines[0]!.name).toBe("exit-test");
  });
});
