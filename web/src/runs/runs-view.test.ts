import { describe, expect, it } from "vitest";
import {
  bulkTargets,
  instantToLocal,
  listQuery,
  localToInstant,
  rerunOfLabel,
  rerunsLabel,
  runIdFilter,
  searchOfView,
  viewFromSearch,
  withWindow,
} from "./runs-view";

const NOW = Date.parse("2026-03-01T12:00:00.000Z");

describe("the runs page's view in its address", () => {
  it("round-trips every filter through the query string, leaving out what is not set", () => {
    const view = viewFromSearch("?flow=wf_1&status=failed&trigger=webhook&id=run_3fa8&window=custom&before=x");
    expect(view).toEqual({
      flow: "wf_1",
      status: "failed",
      trigger: "webhook",
      id: "run_3fa8",
      window: "custom",
      after: "",
      before: "x",
      cursors: [],
    });
    expect(searchOfView(view)).toBe("?flow=wf_1&status=failed&trigger=webhook&id=run_3fa8&window=custom&before=x");
    expect(searchOfView(viewFromSearch(""))).toBe("");
    // An unknown window is none.
    expect(viewFromSearch("?window=forever").window).toBe("");
  });

  it("keeps the page shown in the address: its number and the cursors of the pages before it", () => {
    const third = { ...viewFromSearch("?status=failed"), cursors: ["eyJzIjoiYSJ9", "eyJzIjoiYiJ9"] };
    const search = searchOfView(third);
    expect(search).toBe("?status=failed&page=3&cursors=eyJzIjoiYSJ9.eyJzIjoiYiJ9");
    expect(viewFromSearch(search)).toEqual(third);
    // The first page names none; the list's query holds no cursor (the pager adds the last one).
    expect(searchOfView({ ...third, cursors: [] })).toBe("?status=failed");
    expect(listQuery(third)).toEqual({ status: "failed" });
    expect(viewFromSearch("?cursors=..a..").cursors).toEqual(["a"]);
  });

  it("fixes a 'last …' window to an instant when chosen, and asks the API for it", () => {
    const view = withWindow(viewFromSearch("?status=running"), "24h", NOW);
    expect(view.after).toBe("2026-02-28T12:00:00.000Z");
    expect(listQuery(view)).toEqual({ status: "running", started_after: "2026-02-28T12:00:00.000Z" });
    expect(listQuery(withWindow(view, "", NOW))).toEqual({ status: "running" });
    // A custom window's end is sent; a "last …" window has none.
    const custom = {
      ...withWindow(view, "custom", NOW),
      after: "2026-01-01T00:00:00.000Z",
      before: "2026-01-02T00:00:00.000Z",
    };
    expect(listQuery(custom)).toEqual({
      status: "running",
      started_after: "2026-01-01T00:00:00.000Z",
      started_before: "2026-01-02T00:00:00.000Z",
    });
  });

  it("searches by a run id or its beginning, with or without run_, and sends what cannot be one as typed", () => {
    expect(runIdFilter(" run_3FA8 ")).toBe("run_3fa8");
    expect(runIdFilter("3fa8")).toBe("run_3fa8");
    expect(runIdFilter("run_")).toBeNull();
    expect(runIdFilter("hello")).toBeNull();
    // The API refuses it (400), so the page shows why instead of every run.
    expect(listQuery(viewFromSearch("?id=hello"))).toEqual({ id: "hello" });
    expect(listQuery(viewFromSearch("?id=run_"))).toEqual({ id: "run_" });
    expect(listQuery(viewFromSearch("?id=3fa8"))).toEqual({ id: "run_3fa8" });
    // A status or trigger the API does not know, from a hand-edited address, is left out.
    expect(listQuery(viewFromSearch("?status=lost&trigger=cron&flow=wf_1"))).toEqual({ flow_id: "wf_1" });
  });

  it("converts the custom window's local times to instants and back", () => {
    const instant = localToInstant("2026-03-01T09:30");
    expect(instantToLocal(instant)).toBe("2026-03-01T09:30");
    expect(localToInstant("")).toBe("");
    expect(instantToLocal("not a date")).toBe("");
  });
});

describe("acting on several runs", () => {
  it("retries the failed and cancelled ones, cancels the running and queued ones, leaves the successes alone", () => {
    expect(
      bulkTargets([
        { id: "a", status: "failed" },
        { id: "b", status: "running" },
        { id: "c", status: "success" },
        { id: "d", status: "cancelled" },
        { id: "e", status: "queued" },
      ]),
    ).toEqual({ retry: ["a", "d"], cancel: ["b", "e"] });
  });
});

describe("a run's line", () => {
  it("marks a run that reruns or retries another, and one rerun since", () => {
    expect(rerunOfLabel({ trigger: "retry", rerun_of: "run_1" })).toBe("Retry of");
    expect(rerunOfLabel({ trigger: "rerun", rerun_of: "run_1" })).toBe("Rerun of");
    expect(rerunOfLabel({ trigger: "api", rerun_of: null })).toBeNull();
    expect([0, 1, 2, 5].map(rerunsLabel)).toEqual([null, "Rerun once", "Rerun twice", "Rerun 5 times"]);
  });
});
