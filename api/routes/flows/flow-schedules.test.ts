// Schedule triggers backed by real Temporal Schedules on the dev server, runs on a real worker.
import { ScheduleNotFoundError } from "@temporalio/client";
import { CronExpressionParser } from "cron-parser";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma, testSeal } from "../../../test/helpers/context.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";
import { scheduleIdOf } from "../../../core/flows/flow-schedules.js";

const h = useRunHarness();

/** A flow whose entry node is a schedule, followed by a debug node. */
function scheduledDefinition(config: object, debugLabel = "v1") {
  const definition = flow([{ id: "after", type: "debug", config: { label: debugLabel } }], [["start", "after"]]);
  definition.nodes[0] = { id: "start", type: "schedule", config } as (typeof definition.nodes)[0];
  return definition;
}

const getFlow = async (flowId: string) => {
  const res = await request(h.app).get(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  expect(res.status).toBe(200);
  return res.body;
};

const update = async (flowId: string, changes: object) => {
  const { version } = await getFlow(flowId);
  const res = await request(h.app)
    .put(`/api/flows/${flowId}`)
    .set("Cookie", h.cookie)
    .send({ version, ...changes });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const scheduledRuns = (flowId: string) =>
  testPrisma().run.findMany({ where: { flowId, trigger: "schedule" }, orderBy: { startedAt: "asc" } });

/** Polls until `check` holds, at most `timeoutMs`. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const describeSchedule = (flowId: string) => h.deps.temporal.schedule.getHandle(scheduleIdOf(flowId)).describe();

describe("schedule triggers", () => {
  it("refuses invalid schedules at save time with 400 naming the field", async () => {
    const cases: Array<[object, RegExp]> = [
      [{ cron: "61 * * * *" }, /cron/],
      [{ cron: "* * * *" }, /5 fields/],
      [{ cron: "0 9 1 * MON" }, /day-of-month and day-of-week/],
      [{ cron: "0 9 * * *", interval: "1m" }, /exactly one of cron and interval/],
      [{}, /exactly one of cron and interval/],
      [{ interval: "0s" }, /interval/],
      [{ cron: "0 9 * * *", timezone: "Mars/Olympus" }, /time zone/],
      [{ interval: "1m", overlap: "sometimes" }, /overlap|Invalid option/i],
    ];
    for (const [config, message] of cases) {
      const res = await request(h.app)
        .post("/api/flows")
        .set("Cookie", h.cookie)
        .send({ name: "bad schedule", definition: scheduledDefinition(config) });
      expect(res.status, JSON.stringify(config)).toBe(400);
      expect(res.body.code).toBe("invalid_definition");
      const details = res.body.details as Array<{ path: string; message: string }>;
      expect(
        details.some((d) => d.path.startsWith("definition.nodes[0].config") && message.test(d.message)),
        JSON.stringify(details),
      ).toBe(true);
    }
  });

  it("shows Temporal's next fire times in the cron's time zone, follows version changes and deletion", async () => {
    const cron = "30 9 * * 1-5";
    const flowId = await h.createFlow(scheduledDefinition({ cron, timezone: "America/New_York" }), "Weekday report");
    const detail = await getFlow(flowId);
    expect(detail.schedule).toMatchObject({
      id: scheduleIdOf(flowId),
      cron,
      timezone: "America/New_York",
      overlap: "skip",
      paused: false,
    });
    const expected = CronExpressionParser.parse(cron, { tz: "America/New_York", currentDate: new Date() });
    const times = detail.schedule.next_fire_times as string[];
    expect(times).toHaveLength(5);
    for (const time of times) expect(time).toBe(expected.next().toISOString());

    // A new version with another cron reaches the Temporal Schedule.
    await update(flowId, { definition: scheduledDefinition({ cron: "0 0 1 * *", timezone: "UTC" }) });
    const described = await describeSchedule(flowId);
    expect(described.spec.calendars?.[0]).toMatchObject({ dayOfMonth: [{ start: 1, end: 1, step: 1 }] });
    expect((await getFlow(flowId)).schedule.next_fire_times[0]).toMatch(/-01T00:00:00\.000Z$/);

    // A version without a schedule node removes the schedule; deleting the flow leaves none either.
    const manual = flow([{ id: "after", type: "debug" }], [["start", "after"]]);
    await update(flowId, { definition: manual });
    await expect(describeSchedule(flowId)).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await getFlow(flowId)).schedule).toBeNull();

    await update(flowId, { definition: scheduledDefinition({ interval: "1h" }) });
    expect((await describeSchedule(flowId)).state.paused).toBe(false);
    const deleted = await request(h.app).delete(`/api/flows/${flowId}`).set("Cookie", h.cookie);
    expect(deleted.status).toBe(200);
    await expect(describeSchedule(flowId)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it("a draft's schedule waits for its publishing; the published one keeps firing on its own", async () => {
    const flowId = await h.createFlow(scheduledDefinition({ interval: "1h" }), "Drafted schedule");
    const hourly = (await getFlow(flowId)).schedule;
    expect(hourly).toMatchObject({ interval: "1h" });
    const drafted = await request(h.app)
      .put(`/api/flows/${flowId}`)
      .set("Cookie", h.cookie)
      .send({ version: 1, publish: false, definition: scheduledDefinition({ interval: "2h" }) });
    expect(drafted.body).toMatchObject({ version: 1, draft_version: 2 });
    // Temporal's schedule is the published version's.
    expect((await getFlow(flowId)).schedule).toMatchObject({ interval: "1h" });
    const published = await request(h.app)
      .post(`/api/flows/${flowId}/publish`)
      .set("Cookie", h.cookie)
      .send({ version: 2 });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect((await getFlow(flowId)).schedule).toMatchObject({ interval: "2h" });
    // A draft without a schedule node leaves the schedule; publishing it removes it.
    await request(h.app)
      .put(`/api/flows/${flowId}`)
      .set("Cookie", h.cookie)
      .send({ version: 2, publish: false, definition: flow([{ id: "after", type: "debug" }], [["start", "after"]]) });
    expect((await describeSchedule(flowId)).state.paused).toBe(false);
    await request(h.app).post(`/api/flows/${flowId}/publish`).set("Cookie", h.cookie).send({ version: 3 });
    await expect(describeSchedule(flowId)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it("a flow saved inactive gets a paused schedule; activation unpauses it", async () => {
    const res = await request(h.app)
      .post("/api/flows")
      .set("Cookie", h.cookie)
      .send({ name: "Later", status: "inactive", definition: scheduledDefinition({ interval: "1h" }) });
    expect(res.status).toBe(201);
    expect(res.body.schedule).toMatchObject({ paused: true, next_fire_times: [] });
    expect((await describeSchedule(res.body.id)).state.paused).toBe(true);
    const activated = await update(res.body.id, { status: "active" });
    expect(activated.schedule.paused).toBe(false);
    expect(activated.schedule.next_fire_times.length).toBeGreaterThan(0);
    await request(h.app).delete(`/api/flows/${res.body.id}`).set("Cookie", h.cookie);
  });

  it("an interval of seconds produces runs pinned to the version current at fire time, and stops on deactivation", async () => {
    const flowId = await h.createFlow(scheduledDefinition({ interval: "1s" }), "Every second");
    const first = await eventually(
      () => scheduledRuns(flowId),
      (runs) => runs.filter((run) => run.status === "success").length >= 2,
    );
    const done = first.find((run) => run.status === "success")!;
    expect(done.version).toBe(1);
    // In the Temporal UI: the fire names the schedule, its run the flow, version and trigger.
    const fire = await h.deps.temporal.workflow.getHandle(done.id).describe();
    expect(await fire.staticSummary()).toBe("Every second v1 · schedule");
    expect(await fire.staticDetails()).toMatch(/\*\*started by\*\* schedule fire scheduled-/);
    expect((await describeSchedule(flowId)).action).toMatchObject({ staticSummary: "schedule of Every second v1" });
    expect(testSeal.open(done.input)).toMatchObject({ scheduled_at: expect.any(String), fired_at: expect.any(String) });
    // Scheduled runs are runs like any other: listed, with steps.
    const listed = await request(h.app).get(`/api/runs?flow_id=${flowId}`).set("Cookie", h.cookie);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((run: { id: string }) => run.id)).toContain(done.id);
    const steps = await h.steps(done.id);
    expect(steps.map((step) => [step.node_id, step.status])).toEqual([
      ["start", "success"],
      ["after", "success"],
    ]);

    // A new version: later fires run it.
    await update(flowId, { definition: scheduledDefinition({ interval: "1s" }, "v2") });
    await eventually(
      () => scheduledRuns(flowId),
      (runs) => runs.some((run) => run.version === 2 && run.status === "success"),
    );

    // Deactivation pauses the schedule: after the fires already under way end, no run starts.
    const paused = await update(flowId, { status: "inactive" });
    expect(paused.schedule).toMatchObject({ paused: true, next_fire_times: [] });
    await eventually(
      () => scheduledRuns(flowId),
      (runs) => runs.every((run) => run.status !== "running"),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const settled = (await scheduledRuns(flowId)).length;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await scheduledRuns(flowId)).length).toBe(settled);
    const all = await scheduledRuns(flowId);
    expect(all.every((run) => run.status === "success")).toBe(true);
    // One run per fire: no two runs share a scheduled time.
    const fires = all.map((run) => (testSeal.open(run.input) as { scheduled_at: string }).scheduled_at);
    expect(new Set(fires).size).toBe(fires.length);
    await request(h.app).delete(`/api/flows/${flowId}`).set("Cookie", h.cookie);
  }, 90_000);
});
