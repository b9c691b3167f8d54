import { describe, expect, it } from "vitest";
import { cleanEnv, runEntry } from "./helpers/processes.js";

// A wrong or missing configuration value stops each process with one line naming the key.
describe("processes refuse bad configuration with one clear line", () => {
  it.each([
    ["api/server.ts", { PORT: "3000" }, "Invalid configuration: DATABASE_URL: is required"],
    [
      "worker/main.ts",
      { DATABASE_URL: "postgresql://a@127.0.0.1:1/x", TEMPORAL_ADDRESS: "nowhere" },
      "Invalid configuration: TEMPORAL_ADDRESS: expected host:port",
    ],
    ["scripts/start.ts", { PORT: "not-a-port" }, "PORT: "],
  ])("%s", async (entry, env, expected) => {
    const { code, output } = await runEntry(
      entry,
      [],
      cleanEnv({ ...env, SVC_DATA_DIR: "/nonexistent-never-created" }),
    );
    expect(code).toBe(1);
    const lines = output.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
    expect(output).not.toMatch(/\n\s+at /);
  });
});
