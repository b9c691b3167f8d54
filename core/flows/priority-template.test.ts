// A flow's priority template, rendered over a run's input: the number it gives, a start refused
// (400 naming definition.priority) or served at the default (with a warning) when it gives none.
import { describe, expect, it } from "vitest";
import { DomainError } from "../errors.js";
import { fallbackPriority, PriorityTemplateError, renderPriority, requiredPriority } from "./priority-template.js";

const template = { priority: "{{ input.tier.priority }}" };

describe("renderPriority", () => {
  it("gives the definition's number, the default without one, or the template's 1 to 5 (a number or its text)", () => {
    expect(renderPriority({ priority: 2 }, { tier: { priority: 5 } })).toBe(2);
    expect(renderPriority({}, {})).toBe(3);
    expect(renderPriority(template, { tier: { priority: 1 } })).toBe(1);
    expect(renderPriority(template, { tier: { priority: " 4 " } })).toBe(4);
    expect(renderPriority({ priority: "{{ trigger.p }}" }, { p: 5 })).toBe(5);
  });

  it("fails for anything but an integer from 1 to 5, without the input's value in its message", () => {
    for (const value of [0, 6, 2.5, "sk-secret", "", null, true, [1], { a: 1 }, "1e0", undefined]) {
      const input = { tier: value === undefined ? {} : { priority: value } };
      expect(() => renderPriority(template, input), JSON.stringify(value)).toThrow(PriorityTemplateError);
    }
    expect(() => renderPriority(template, { tier: { priority: "sk-secret" } })).toThrow(
      /definition\.priority \{\{ input\.tier\.priority \}\} gave a string for this run's input; it must give an integer from 1 to 5/,
    );
    try {
      renderPriority(template, { tier: { priority: "sk-secret" } });
    } catch (error) {
      expect((error as Error).message).not.toContain("sk-secret");
    }
  });
});

describe("a start's priority", () => {
  it("with a caller: 400 validation_failed naming definition.priority", () => {
    expect(requiredPriority(template, { tier: { priority: 2 } })).toBe(2);
    let refused: unknown;
    try {
      requiredPriority(template, { tier: { priority: 9 } });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({
      kind: "invalid",
      code: "validation_failed",
      details: { details: [{ path: "definition.priority", message: expect.any(String) }] },
    });
  });

  it("without one: the default, and the reason told once", () => {
    const warnings: string[] = [];
    expect(fallbackPriority(template, { tier: { priority: 9 } }, (m) => warnings.push(m))).toBe(3);
    expect(warnings).toEqual([expect.stringMatching(/definition\.priority .* served at priority 3$/)]);
    expect(fallbackPriority(template, { tier: { priority: 1 } }, (m) => warnings.push(m))).toBe(1);
    expect(warnings).toHaveLength(1);
  });
});
