import { describe, expect, it } from "vitest";
import { countSamples, frameOwner, type CpuProfile } from "./cpu-profile.js";

const ROOT = "/srv/svc";
const at = (file: string) => `file://${ROOT}/${file}`;

/** A profile of one stack per sample, each sample 1 ms after the last, from t = 1,000,000 µs. */
function profileOf(stacks: { functionName: string; url: string }[][]): CpuProfile {
  const nodes: CpuProfile["nodes"] = [{ id: 1, callFrame: { functionName: "(root)", url: "" }, children: [] }];
  const samples = stacks.map((stack) => {
    let parent = nodes[0]!;
    for (const callFrame of stack) {
      const node = { id: nodes.length + 1, callFrame, children: [] as number[] };
      nodes.push(node);
      parent.children!.push(node.id);
      parent = node;
    }
    return parent.id;
  });
  return { nodes, startTime: 1_000_000, samples, timeDeltas: samples.map(() => 1000) };
}

const frame = (functionName: string, url = "") => ({ functionName, url });

describe("the CPU profile analyser", () => {
  it("names the owner of a frame by its module path", () => {
    expect(frameOwner(at("node_modules/@temporalio/worker/lib/worker.js"), ROOT)).toEqual({
      owner: "temporal",
      detail: "@temporalio/worker/lib/worker.js",
    });
    expect(frameOwner(at("node_modules/@prisma/client/runtime/client.js"), ROOT)?.owner).toBe("prisma");
    expect(frameOwner(at("prisma/generated/client/client.ts"), ROOT)?.owner).toBe("prisma");
    expect(frameOwner(at("node_modules/pg-protocol/dist/parser.js"), ROOT)?.owner).toBe("pg");
    expect(frameOwner(at("node_modules/rxjs/dist/cjs/internal/Subscriber.js"), ROOT)).toEqual({
      owner: "temporal",
      detail: "rxjs",
    });
    expect(frameOwner(at("lib/crypto/payload-codec.ts"), ROOT)?.owner).toBe("codec");
    expect(frameOwner(at("core/runs/steps.ts"), ROOT)).toEqual({ owner: "ours", detail: "core/runs/steps.ts" });
    expect(frameOwner(at("node_modules/express/lib/router.js"), ROOT)).toEqual({
      owner: "packages",
      detail: "express",
    });
    expect(frameOwner(`${ROOT}/workflow-bundle-2dfa07a4d6f27acb33c5.js`, ROOT)?.owner).toBe("workflow bundle");
    expect(frameOwner("evalmachine.<anonymous>", ROOT)?.owner).toBe("temporal");
    // Code run on another's behalf belongs to whoever called it.
    expect(frameOwner("node:internal/streams/readable", ROOT)).toBeUndefined();
    expect(frameOwner("wasm://wasm/0002f63a", ROOT)).toBeUndefined();
    expect(frameOwner("", ROOT)).toBeUndefined();
  });

  it("counts a builtin for its caller, the codec's callees for the codec, and only samples in the windows", () => {
    const activity = frame("runActivity", at("node_modules/@temporalio/worker/lib/activity.js"));
    const steps = frame("recordSteps", at("core/runs/steps.ts"));
    const seal = frame("encode", at("lib/crypto/payload-codec.ts"));
    const profile = profileOf([
      [
        frame("onStreamRead", "node:internal/stream_base_commons"),
        frame("handleDataRow", at("node_modules/pg/lib/client.js")),
        frame("parse"),
      ],
      [activity, steps, frame("stringify")],
      [activity, steps, seal, frame("encode", at("node_modules/@temporalio/proto/protos/root.js"))],
      [activity, steps, seal, frame("cipherUpdate")],
      [frame("(garbage collector)")],
      [frame("(program)")],
      [frame("processTicksAndRejections", "node:internal/process/task_queues")],
      [frame("(idle)")],
      [activity, steps],
    ]);

    // The last sample (t = 1,009,000 µs) falls after the window.
    const counted = countSamples(profile, [{ start: 1_000_000, end: 1_008_500 }], ROOT);

    expect(Object.fromEntries(counted.byOwner)).toEqual({ pg: 1, ours: 1, codec: 2, gc: 1, native: 1, node: 1 });
    expect(counted.total).toBe(7);
    expect(counted.byDetail.get("ours|core/runs/steps.ts")).toBe(1);
    expect(counted.byDetail.get("codec|lib/crypto/payload-codec.ts")).toBe(2);
    expect(counted.byFunction.get("parse")).toBe(1);
    expect(counted.byFunction.get("encode (root.js)")).toBe(1);
  });
});
