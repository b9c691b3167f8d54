import { describe, expect, it } from "vitest";
import { parsePinText, pinsToSend, readPins } from "./use-pins";

const stored = (text: string | null) => ({ getItem: (key: string) => (key === "flow-pins:wf_1" ? text : null) });

describe("pinned data", () => {
  it("reads typed JSON as the output, null and arrays included, and names why text is not JSON", () => {
    expect(parsePinText('{ "body": { "amount": 21 } }')).toEqual({ output: { body: { amount: 21 } } });
    expect(parsePinText("null")).toEqual({ output: null });
    expect(parsePinText("[1, 2]")).toEqual({ output: [1, 2] });
    expect(parsePinText("  ")).toEqual({ problem: "Pinned output: type a JSON value" });
    const broken = parsePinText('{ "body": ');
    expect("problem" in broken && broken.problem).toMatch(/^Pinned output: not JSON \(/);
  });

  it("keeps the stored pins of its flow only, and reads anything else stored as no pins", () => {
    const pins = { fetch: { output: { status: 200 }, source: "typed JSON" } };
    expect(readPins(stored(JSON.stringify(pins)), "wf_1")).toEqual(pins);
    expect(readPins(stored(JSON.stringify(pins)), "wf_2")).toEqual({});
    expect(readPins(stored("not json"), "wf_1")).toEqual({});
    expect(readPins(stored("[1]"), "wf_1")).toEqual({});
    expect(readPins(stored('{ "a": 1, "b": { "output": null } }'), "wf_1")).toEqual({
      b: { output: null, source: "" },
    });
    expect(readPins(undefined, "wf_1")).toEqual({});
  });

  it("keeps and sends a pin's branch, as a step of a branching node records it", () => {
    const pins = { check: { output: { amount: 1 }, source: "the run run_1", branch: "false" } };
    expect(readPins(stored(JSON.stringify(pins)), "wf_1")).toEqual(pins);
    expect(readPins(stored('{ "check": { "output": 1, "branch": 3 } }'), "wf_1")).toEqual({
      check: { output: 1, source: "" },
    });
    expect(pinsToSend(pins, ["check"])).toEqual({ check: { output: { amount: 1 }, branch: "false" } });
  });

  it("sends the outputs of pinned nodes still on the canvas, and nothing when none is", () => {
    const pins = { fetch: { output: { n: 1 }, source: "typed JSON" }, gone: { output: 2, source: "typed JSON" } };
    expect(pinsToSend(pins, ["start", "fetch", "shape"])).toEqual({ fetch: { output: { n: 1 } } });
    expect(pinsToSend(pins, ["start"])).toBeUndefined();
    expect(pinsToSend({}, ["fetch"])).toBeUndefined();
  });
});
