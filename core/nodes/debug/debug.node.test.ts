import { describe, expect, it } from "vitest";
import type { NodeEnv } from "../define-node.js";
import { debugNode } from "./debug.node.js";

describe("debug node", () => {
  it("records its input at debug level, labelled when a label is set, and passes it on", async () => {
    const entries: unknown[][] = [];
    const env: NodeEnv = {
      run: { id: "run_1", flowId: "wf_1", workspaceId: "ws_1", nodeId: "peek", attempt: 1 },
      signal: new AbortController().signal,
      async log(...entry) {
        entries.push(entry);
      },
    };
    const input = { rows: [1, 2] };
    expect(await debugNode.execute!(input, debugNode.config.parse({ label: "after fetch" }), env)).toBe(input);
    expect(await debugNode.execute!("x", debugNode.config.parse({}), env)).toBe("x");
    expect(entries).toEqual([
      ["debug", "debug: after fetch", { input }],
      ["debug", "debug", { input: "x" }],
    ]);
  });
});
