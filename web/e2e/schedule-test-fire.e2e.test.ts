// A schedule's "run now" as a test, in Chromium against the real service: an active flow fired every
// hour whose set node says `{{ input.schedule_id }}`; "Test a fire now" fills the run input with a
// fire's input of now and runs the draft on it as a test run (its output has the schedule's id),
// while the flow's Temporal schedule, its version and its production runs stay as they were.
import { describe, expect, it } from "vitest";
import { useDashboardPage, shownTestRun } from "./dashboard-service.js";

const TIMEOUT = 180_000;

interface Schedule {
  id: string;
  interval?: string;
  paused: boolean;
  next_fire_times?: string[];
  recent_fire_times?: string[];
}

interface FlowRead {
  id: string;
  version: number;
  draft_version: number | null;
  status: string;
  schedule: Schedule | null;
}

describe("a schedule's test fire in the editor", { timeout: TIMEOUT }, () => {
  const session = useDashboardPage();
  const readFlow = (id: string) => session.service.api<FlowRead>(session.context, "GET", `/api/flows/${id}`);
  /** The schedule as Temporal has it, but for the next fire times (the clock moves them on the hour). */
  const scheduleOf = async (id: string) => {
    const { next_fire_times: _next, ...rest } = (await readFlow(id)).schedule ?? ({} as Schedule);
    return rest;
  };

  it("tests the draft on a fire's input of now, leaving the schedule as it is", async () => {
    const { service, context, page } = session;
    const flow = await service.api<FlowRead>(context, "POST", "/api/flows", {
      name: "Hourly digest",
      definition: {
        nodes: [
          { id: "tick", type: "schedule", config: { interval: "1h" } },
          { id: "say", type: "set", config: { fields: { schedule: "{{ input.schedule_id }}" } } },
        ],
        edges: [{ from: "tick", to: "say" }],
      },
    });
    expect(flow.status).toBe("active");
    const before = await scheduleOf(flow.id);
    expect(before).toMatchObject({ id: `flow-${flow.id}`, interval: "1h", paused: false });

    await page.goto(`${service.base}/flows/${flow.id}`);
    await page.getByRole("heading", { name: "Run", exact: true }).waitFor();
    const startedAt = Date.now();
    await page.getByRole("button", { name: "Test a fire now" }).click();

    // The run input is the fire's: the schedule's id and the time of the click.
    const input = page.locator('.code-field[data-field="run-input"] .cm-content');
    await expect.poll(() => input.innerText()).toContain(`"schedule_id": "scheduled-${flow.id}-`);
    const typed = JSON.parse(await input.innerText()) as { scheduled_at: string; fired_at: string };
    expect(typed.scheduled_at).toBe(typed.fired_at);
    expect(Math.abs(Date.parse(typed.fired_at) - startedAt)).toBeLessThan(60_000);

    // A test run of the draft, whose set node read the schedule's id.
    const { runId } = await shownTestRun(page);
    const { run } = await service.api<{ run: { test: boolean; trigger: string; output: unknown } }>(
      context,
      "GET",
      `/api/runs/${runId}`,
    );
    expect(run).toMatchObject({
      test: true,
      trigger: "test",
      output: {
        schedule: expect.stringMatching(
          new RegExp(`^scheduled-${flow.id}-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`),
        ),
      },
    });

    // Production is as it was: the same schedule, no fire, no run but the test, nothing saved.
    expect(await scheduleOf(flow.id)).toEqual(before);
    const runs = await service.api<{ items: Array<{ id: string; test: boolean }> }>(
      context,
      "GET",
      `/api/runs?flow_id=${flow.id}`,
    );
    expect(runs.items.map((item) => ({ id: item.id, test: item.test }))).toEqual([{ id: runId, test: true }]);
    expect(await readFlow(flow.id)).toMatchObject({ version: 1, draft_version: null, status: "active" });
  });

  it("is not offered for a flow that does not start with a schedule", async () => {
    const { service, context, page } = session;
    const flow = await service.api<FlowRead>(context, "POST", "/api/flows", {
      name: "Started by hand",
      definition: { nodes: [{ id: "start", type: "manual", config: {} }], edges: [] },
    });
    await page.goto(`${service.base}/flows/${flow.id}`);
    await page.getByRole("button", { name: "Test flow" }).waitFor();
    expect(await page.getByRole("button", { name: "Test a fire now" }).count()).toBe(0);
  });
});
