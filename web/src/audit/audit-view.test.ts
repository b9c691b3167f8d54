import { describe, expect, it } from "vitest";
import {
  ACTION_PREFIXES,
  auditFilter,
  auditViewFromSearch,
  detailsLine,
  exportPath,
  searchOfAuditView,
} from "./audit-view";

describe("the audit page's view in its address", () => {
  it("round-trips the filters and the pages behind, dropping a malformed day", () => {
    const view = auditViewFromSearch("?actor=usr_1&action=flow.&from=2026-11-01&to=nope&cursors=a.b");
    expect(view).toEqual({ actor: "usr_1", action: "flow.", from: "2026-11-01", to: "", cursors: ["a", "b"] });
    expect(searchOfAuditView(view)).toBe("?actor=usr_1&action=flow.&from=2026-11-01&cursors=a.b");
    expect(searchOfAuditView(auditViewFromSearch(""))).toBe("");
  });

  it("asks the API for whole local days, and exports the same filter", () => {
    const view = auditViewFromSearch("?actor=usr_1&from=2026-11-01&to=2026-11-02");
    const filter = auditFilter(view);
    expect(filter.actor).toBe("usr_1");
    expect(new Date(filter.until!).getTime() - new Date(filter.since!).getTime()).toBe(2 * 86_400_000);
    expect(new Date(filter.since!).getHours()).toBe(0);
    const exported = new URL(exportPath(view, "csv"), "http://x");
    expect(Object.fromEntries(exported.searchParams)).toEqual({ ...filter, format: "csv" });
  });

  it("offers a prefix per kind of action and reads details in a line", () => {
    expect(ACTION_PREFIXES).toEqual(expect.arrayContaining(["flow.", "credential.", "budget.", "auth."]));
    expect(detailsLine({ name: "Stripe", changed: ["definition", "tags"], gone: null })).toBe(
      "name: Stripe · changed: definition, tags",
    );
  });
});
