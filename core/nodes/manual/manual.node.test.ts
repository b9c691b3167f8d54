import { describe, expect, it } from "vitest";
import { manualNode } from "./manual.node.js";

describe("manual trigger", () => {
  it("is an entry node run locally, with no settings", () => {
    expect(manualNode).toMatchObject({ kind: "trigger", category: "trigger", execution: "local" });
    expect(manualNode.config.parse({})).toEqual({});
    expect(manualNode.execute).toBeUndefined();
  });

  it("refuses settings it does not have", () => {
    expect(manualNode.config.strict().safeParse({ cron: "* * * * *" }).success).toBe(false);
  });
});
