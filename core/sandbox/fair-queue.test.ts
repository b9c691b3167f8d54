import { describe, expect, it } from "vitest";
import { FairQueue } from "./fair-queue.js";

const takeAll = (queue: FairQueue<string>, may: (owner: string) => boolean = () => true) => {
  const taken: string[] = [];
  for (let next = queue.take(may); next; next = queue.take(may)) taken.push(next.item);
  return taken;
};

describe("FairQueue", () => {
  it("serves owners round-robin, each owner's items in order", () => {
    const queue = new FairQueue<string>();
    for (const item of ["a1", "a2", "a3"]) queue.push("a", item);
    queue.push("b", "b1");
    queue.push("c", "c1");
    queue.push("b", "b2");
    expect(takeAll(queue)).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    expect(queue.size).toBe(0);
  });

  it("passes over owners that may not be served now, keeping their place in line", () => {
    const queue = new FairQueue<string>();
    queue.push("a", "a1");
    queue.push("b", "b1");
    queue.push("b", "b2");
    expect(takeAll(queue, (owner) => owner !== "a")).toEqual(["b1", "b2"]);
    expect(queue.counts()).toEqual([["a", 1]]);
    expect(queue.take(() => true)).toEqual({ owner: "a", item: "a1" });
  });

  it("removes an item that stops waiting, and drains what is left", () => {
    const queue = new FairQueue<string>();
    queue.push("a", "a1");
    queue.push("a", "a2");
    queue.push("b", "b1");
    expect(queue.remove("a", "a1")).toBe(true);
    expect(queue.remove("a", "a1")).toBe(false);
    expect(queue.remove("b", "b1")).toBe(true);
    expect(queue.counts()).toEqual([["a", 1]]);
    expect(queue.drain()).toEqual(["a2"]);
    expect(queue.size).toBe(0);
  });
});
