import { describe, expect, it } from "vitest";
import { builtinNodes } from "../nodes/index.js";
import { createNodeRegistry } from "../nodes/registry.js";
import { debounceMaxWaitMs, FLOW_LIMITS } from "../contracts/flow-definition.js";
import { validateFlowDefinition } from "./validate.js";
import { concurrencyGateId, MAX_PLAIN_KEY_LENGTH, shownKey } from "../engine/concurrency-gates.js";
import { ConcurrencyKeyError, gateSetting, NO_CONCURRENCY_LIMIT, renderConcurrencyKey } from "./concurrency-key.js";

const registry = createNodeRegistry(builtinNodes);
const withConcurrency = (concurrency: unknown) => ({
  concurrency,
  nodes: [{ id: "start", type: "manual" }],
  edges: [],
});
const problemsOf = (concurrency: unknown) => {
  const result = validateFlowDefinition(withConcurrency(concurrency), registry);
  return result.ok ? [] : result.problems;
};

describe("a flow's concurrency setting at save", () => {
  it("accepts a limit with or without a key, and keeps it in the definition", () => {
    const result = validateFlowDefinition(withConcurrency({ limit: 3, key: "{{ input.customer }}" }), registry);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.definition.concurrency).toEqual({ limit: 3, key: "{{ input.customer }}" });
    expect(problemsOf({ limit: 1 })).toEqual([]);
    expect(problemsOf({ limit: 2, key: "{{ trigger.body.tenant }}-{{ input.region }}" })).toEqual([]);
  });

  it("refuses a limit of 0, above the server's maximum, or not an integer, naming the field", () => {
    for (const limit of [0, -1, FLOW_LIMITS.maxConcurrencyLimit + 1, 2.5, "3", null]) {
      expect(problemsOf({ limit }), String(limit)).toEqual([
        { path: "concurrency.limit", message: expect.any(String) },
      ]);
    }
    expect(problemsOf({ key: "x" })).toEqual([{ path: "concurrency.limit", message: expect.any(String) }]);
    expect(problemsOf({ limit: 1, keys: "x" }).map((p) => p.path)).toEqual(["concurrency"]);
  });

  it("refuses a key template that cannot render at a start: bad syntax, or data a start does not have", () => {
    expect(problemsOf({ limit: 1, key: "{{ input.customer" })).toEqual([
      { path: "concurrency.key", message: expect.any(String) },
    ]);
    expect(problemsOf({ limit: 1, key: "{{ nodes.fetch.id }}" })).toEqual([
      { path: "concurrency.key", message: expect.stringContaining("{{ nodes }} is not known when a run starts") },
    ]);
    expect(problemsOf({ limit: 1, key: "{{ item }}" }).map((p) => p.path)).toEqual(["concurrency.key"]);
    expect(problemsOf({ limit: 1, key: "" }).map((p) => p.path)).toEqual(["concurrency.key"]);
    expect(
      problemsOf({ limit: 1, key: "x".repeat(FLOW_LIMITS.maxConcurrencyKeyTemplate + 1) }).map((p) => p.path),
    ).toEqual(["concurrency.key"]);
  });
});

describe("renderConcurrencyKey", () => {
  it("renders the key from the run's input; no key is the flow's one shared key", () => {
    expect(renderConcurrencyKey({ limit: 3, key: "{{ input.customer }}" }, { customer: "acme" })).toBe("acme");
    expect(renderConcurrencyKey({ limit: 3, key: "c-{{ trigger.n }}" }, { n: 7 })).toBe("c-7");
    expect(renderConcurrencyKey({ limit: 3, key: "{{ input.n }}" }, { n: 7 })).toBe("7");
    expect(renderConcurrencyKey({ limit: 3, key: "{{ input.o }}" }, { o: { a: 1 } })).toBe('{"a":1}');
    expect(renderConcurrencyKey({ limit: 3 }, { customer: "acme" })).toBe("");
  });

  it("names each key's gate by a hash (no input in the id), and shows a long key by its hash", () => {
    const flowId = "wf_0123456789abcdef01234567";
    expect(concurrencyGateId(flowId, "acme")).toMatch(/^gate-wf_0123456789abcdef01234567-[0-9a-f]{32}$/);
    expect(concurrencyGateId(flowId, "acme")).not.toContain("acme");
    expect(concurrencyGateId(flowId, "acme")).toBe(concurrencyGateId(flowId, "acme"));
    expect(concurrencyGateId(flowId, "other")).not.toBe(concurrencyGateId(flowId, "acme"));
    expect(concurrencyGateId("wf_0123456789abcdef01234568", "acme")).not.toBe(concurrencyGateId(flowId, "acme"));
    const long = (c: string) => renderConcurrencyKey({ limit: 1, key: "{{ input.k }}" }, { k: c.repeat(5000) });
    expect(concurrencyGateId(flowId, long("a")).length).toBeLessThan(80);
    expect(shownKey(long("a"))).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(shownKey(long("a"))).toBe(shownKey(long("a")));
    expect(shownKey(long("b"))).not.toBe(shownKey(long("a")));
    const edge = "k".repeat(MAX_PLAIN_KEY_LENGTH);
    expect(shownKey(edge)).toBe(edge);
  });

  it("fails clearly when the input has no value for the key, or one too large to read", () => {
    expect(() => renderConcurrencyKey({ limit: 1, key: "{{ input.customer }}" }, { other: 1 })).toThrow(
      ConcurrencyKeyError,
    );
    expect(() => renderConcurrencyKey({ limit: 1, key: "{{ input.customer }}" }, { customer: null })).toThrow(
      /is empty for this run's input/,
    );
    expect(() => renderConcurrencyKey({ limit: 1, key: "{{ input.big }}" }, { big: "x".repeat(100_000) })).toThrow(
      /too large/,
    );
  });
});

describe("a flow's throttle setting at save", () => {
  const problems = (settings: object) => {
    const result = validateFlowDefinition(
      { ...settings, nodes: [{ id: "start", type: "manual" }], edges: [] },
      registry,
    );
    return result.ok ? [] : result.problems;
  };

  it("accepts a limit per period with or without a key, alone or with concurrency on the same key", () => {
    expect(problems({ throttle: { limit: 3, period_ms: 2000 } })).toEqual([]);
    expect(problems({ throttle: { limit: 3, period_ms: 86_400_000, key: "{{ input.customer }}" } })).toEqual([]);
    expect(
      problems({
        concurrency: { limit: 1, key: "{{ input.customer }}" },
        throttle: { limit: 3, period_ms: 1000, key: "{{ input.customer }}" },
      }),
    ).toEqual([]);
  });

  it("refuses a limit of 0 or above the maximum, a period under 1 s or over 1 day, and a bad key, naming the field", () => {
    for (const limit of [0, FLOW_LIMITS.maxThrottleLimit + 1, 1.5]) {
      expect(problems({ throttle: { limit, period_ms: 1000 } }).map((p) => p.path)).toEqual(["throttle.limit"]);
    }
    for (const period_ms of [999, 86_400_001, undefined, "1s"]) {
      expect(problems({ throttle: { limit: 1, period_ms } }).map((p) => p.path)).toEqual(["throttle.period_ms"]);
    }
    expect(problems({ throttle: { limit: 1, period_ms: 1000, key: "{{ nodes.a }}" } }).map((p) => p.path)).toEqual([
      "throttle.key",
    ]);
  });

  it("refuses concurrency and throttle counted by different keys: one gate holds both", () => {
    for (const throttleKey of ["{{ input.region }}", undefined]) {
      expect(
        problems({
          concurrency: { limit: 1, key: "{{ input.customer }}" },
          throttle: { limit: 3, period_ms: 1000, ...(throttleKey ? { key: throttleKey } : {}) },
        }),
      ).toEqual([{ path: "throttle.key", message: expect.stringContaining("concurrency.key") }]);
    }
  });

  it("names throttle.key when a throttle's key does not render for a run", () => {
    const gate = gateSetting({ throttle: { limit: 1, period_ms: 1000, key: "{{ input.customer }}" } })!;
    expect(gate).toEqual({
      limit: NO_CONCURRENCY_LIMIT,
      throttle: { limit: 1, periodMs: 1000 },
      key: "{{ input.customer }}",
      field: "throttle.key",
    });
    expect(() => renderConcurrencyKey(gate, { other: 1 }, gate.field)).toThrow(/^throttle\.key/);
    expect(gateSetting({})).toBeUndefined();
  });
});

describe("a flow's debounce setting at save", () => {
  const problems = (debounce: unknown) => {
    const result = validateFlowDefinition({ debounce, nodes: [{ id: "start", type: "manual" }], edges: [] }, registry);
    return result.ok ? [] : result.problems;
  };

  it("accepts a period with or without a key and a longest wait, and keeps it in the definition", () => {
    const setting = { period_ms: 1000, key: "{{ input.body.customer }}", max_wait_ms: 5000 };
    const result = validateFlowDefinition(
      { debounce: setting, nodes: [{ id: "start", type: "manual" }], edges: [] },
      registry,
    );
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.definition.debounce).toEqual(setting);
    expect(problems({ period_ms: 100 })).toEqual([]);
    expect(problems({ period_ms: 3_600_000, max_wait_ms: 86_400_000 })).toEqual([]);
    expect(debounceMaxWaitMs({ period_ms: 1000 })).toBe(10_000);
    expect(debounceMaxWaitMs({ period_ms: 3_600_000 })).toBe(36_000_000);
  });

  it("refuses a period under 100 ms or over an hour, a longest wait out of bounds and a bad key, naming the field", () => {
    for (const period_ms of [99, 3_600_001, 0, undefined, 1.5, "1s"]) {
      expect(
        problems({ period_ms }).map((p) => p.path),
        String(period_ms),
      ).toEqual(["debounce.period_ms"]);
    }
    // Shorter than the period, or more than 100 periods.
    for (const max_wait_ms of [999, 100_001, 0, 2.5]) {
      expect(
        problems({ period_ms: 1000, max_wait_ms }).map((p) => p.path),
        String(max_wait_ms),
      ).toEqual(["debounce.max_wait_ms"]);
    }
    expect(problems({ period_ms: 1000, key: "{{ nodes.a }}" }).map((p) => p.path)).toEqual(["debounce.key"]);
    expect(problems({ period_ms: 1000, key: "{{ input.a" }).map((p) => p.path)).toEqual(["debounce.key"]);
    expect(problems({ period_ms: 1000, keys: "x" }).map((p) => p.path)).toEqual(["debounce"]);
  });
});
