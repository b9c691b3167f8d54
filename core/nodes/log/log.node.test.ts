import { describe, expect, it } from "vitest";
import type { NodeEnv } from "../define-node.js";
import { logNode } from "./log.node.js";

function envLogging() {
  const entries: Array<[string, string, unknown]> = [];
  const env: NodeEnv = {
    run: { id: "run_1", flowId: "wf_1", workspaceId: "ws_1", nodeId: "note", attempt: 1 },
    signal: new AbortController().signal,
    async log(level, message, data) {
      entries.push([level, message, data]);
    },
  };
  return { env, entries };
}

describe("log node", () => {
  it("writes one entry at its level and passes its input on unchanged", async () => {
    const { env, entries } = envLogging();
    const input = { id: 7 };
    const config = logNode.config.parse({ level: "warn", message: "order 7 late", data: { by: "2h" } });
    expect(await logNode.execute!(input, config, env)).toBe(input);
    expect(entries).toEqual([["warn", "order 7 late", { by: "2h" }]]);
  });

  it("logs at info by default and refuses an empty message or an unknown level", () => {
    expect(logNode.config.parse({ message: "hi" }).level).toBe("info");
    expect(logNode.config.safeParse({ message: "" }).success).toBe(false);
    expect(logNode.config.safeParse({ message: "hi", level: "loud" }).success).toBe(false);
  });
});
