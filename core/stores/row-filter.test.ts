import { describe, expect, it } from "vitest";
import { compileRowFilter } from "./row-filter.js";

describe("compileRowFilter", () => {
  it("sends field names and values as parameters, never as SQL text", () => {
    const hostile = "x'); DELETE FROM data_rows; --";
    const compiled = compileRowFilter({
      [hostile]: hostile,
      [`${hostile}.nested`]: { contains: hostile, in: [hostile, 1], gt: hostile, ne: hostile },
      id: { in: [hostile] },
    });
    expect(compiled.sql).not.toContain("DELETE");
    expect(compiled.sql).not.toContain(hostile);
    expect(JSON.stringify(compiled.values)).toContain("DELETE FROM data_rows");
  });

  it("sends equality as containment too, so the GIN index on data can serve it", () => {
    const compiled = compileRowFilter({ "customer.tier": "gold" });
    expect(compiled.sql).toContain("data @>");
    expect(compiled.values).toContain(JSON.stringify({ customer: { tier: "gold" } }));
  });
});
