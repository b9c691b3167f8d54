import { describe, expect, it } from "vitest";
import { DomainError, domainErrorClass, FlowNotFound } from "./errors.js";
import { RunNotFound } from "./runs/reads/run-reads.js";

describe("domainErrorClass", () => {
  it("makes a class of its own per row: instanceof, name, kind, code, message and retry hint", () => {
    const Slow = domainErrorClass("Slow", "unavailable", "slow_down", "Try later", 7);
    const error = new Slow();
    expect(error).toBeInstanceOf(Slow);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toBeInstanceOf(Error);
    expect({ ...error, name: error.name, message: error.message }).toEqual({
      name: "Slow",
      kind: "unavailable",
      code: "slow_down",
      message: "Try later",
      details: {},
      retryAfterSeconds: 7,
    });
    expect(String(error)).toBe("Slow: Try later");
  });

  it("keeps two rows apart even with the same kind and code", () => {
    expect(new FlowNotFound()).not.toBeInstanceOf(RunNotFound);
    expect(new RunNotFound()).not.toBeInstanceOf(FlowNotFound);
    expect(new RunNotFound().code).toBe(new FlowNotFound().code);
  });
});
