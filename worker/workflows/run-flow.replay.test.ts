// Runs in flight when a new engine is deployed go on under it: the workflow code must replay the
// histories that earlier engines recorded (histories/, saved with `temporal workflow show -o json`):
// regular-nodes.* from the engine before quick nodes ran locally, local-nodes.* from the one after.
import { readdirSync, readFileSync } from "node:fs";
import { Worker } from "@temporalio/worker";
import { describe, expect, inject, it } from "vitest";

const histories = new URL("./histories/", import.meta.url);
const files = readdirSync(histories).filter((file) => file.endsWith(".json"));

describe("runFlow replays the histories of earlier engines", () => {
  it("has histories of both engines", () => {
    expect(files.filter((file) => file.startsWith("regular-nodes.")).length).toBeGreaterThanOrEqual(2);
    expect(files.filter((file) => file.startsWith("local-nodes.")).length).toBeGreaterThanOrEqual(2);
  });

  for (const file of files) {
    it(`replays ${file} without a nondeterminism error`, async () => {
      const history: unknown = JSON.parse(readFileSync(new URL(file, histories), "utf8"));
      await expect(
        Worker.runReplayHistory({ workflowBundle: { codePath: inject("workflowBundlePath") } }, history),
      ).resolves.toBeUndefined();
    });
  }
});
