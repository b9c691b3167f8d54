import { describe, expect, it } from "vitest";
import { catalogEntry } from "../define-node.js";
import { waitNode } from "./wait.node.js";

const parse = (config: Record<string, unknown>) => waitNode.config.parse(config);

describe("wait node", () => {
  it("offers its decisions as branches, and timeout only when a timeout takes a branch", () => {
    expect(waitNode.branches!(parse({}))).toEqual(["approved", "rejected"]);
    expect(waitNode.branches!(parse({ timeout: "3d" }))).toEqual(["approved", "rejected"]);
    expect(waitNode.branches!(parse({ timeout: "3d", on_timeout: "branch" }))).toEqual([
      "approved",
      "rejected",
      "timeout",
    ]);
    expect(waitNode.branches!(parse({ mode: "resume" }))).toEqual(["resumed"]);
    expect(waitNode.branches!(parse({ mode: "resume", timeout: "1h", on_timeout: "branch" }))).toEqual([
      "resumed",
      "timeout",
    ]);
  });

  it("defaults to an approval by editors and up that fails on a timeout", () => {
    expect(parse({})).toEqual({ mode: "approval", on_timeout: "fail", min_role: "editor" });
  });

  it("refuses a timeout that is no duration or over a year, a viewer as deciders and a bad user id", () => {
    for (const timeout of ["soon", "0s", "366d", ""]) {
      expect(waitNode.config.safeParse({ timeout }).success, timeout).toBe(false);
    }
    expect(waitNode.config.safeParse({ timeout: "365d" }).success).toBe(true);
    expect(waitNode.config.safeParse({ min_role: "viewer" }).success).toBe(false);
    expect(waitNode.config.safeParse({ approver_user_id: "ada" }).success).toBe(false);
    expect(waitNode.config.safeParse({ mode: "later" }).success).toBe(false);
  });

  it("is a control node of the logic category, with its choices in the catalog", () => {
    const entry = catalogEntry(waitNode);
    expect(entry).toMatchObject({ id: "wait", category: "logic", official: true });
    expect(entry.config_schema.mode).toMatchObject({
      type: "string",
      options: ["approval", "resume"],
      default: "approval",
    });
    expect(entry.config_schema.on_timeout!.options).toEqual(["fail", "branch"]);
    expect(entry.config_schema.min_role!.options).toEqual(["editor", "admin", "owner"]);
    expect(entry.config_schema.timeout!.required).toBeUndefined();
  });
});
