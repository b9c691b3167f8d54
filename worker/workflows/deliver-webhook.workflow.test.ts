// The spec's webhook retry schedule (30 s, 5 min, 30 min, then failed) in full, on Temporal's
// time-skipping test server: the real workflow, attempt activity, API and database, and a real
// receiver on loopback; 35 minutes of server time pass in seconds.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLoopbackServer, type LoopbackServer } from "../../test/helpers/loopback-server.js";
import { useRunHarness } from "../../test/helpers/runs.js";

// The default schedule and time limit: only the receiver's address is allowed in.
const h = useRunHarness({ timeSkipping: true, config: { EGRESS_ALLOWLIST: "127.0.0.1" } });

/** Attempts seen per path; `/recovers/…` answers 503 twice, then 200; anything else 503. */
const attemptsAt = new Map<string, Array<string | undefined>>();
let receiver: LoopbackServer;
beforeAll(async () => {
  receiver = await startLoopbackServer((req, res) => {
    req.resume().on("end", () => {
      const seen = attemptsAt.get(req.url!) ?? [];
      seen.push(req.headers["webhook-id"] as string | undefined);
      attemptsAt.set(req.url!, seen);
      const ok = req.url!.startsWith("/recovers/") && seen.length > 2;
      res.writeHead(ok ? 200 : 503).end(ok ? "ok" : "not now");
    });
  });
});
afterAll(() => receiver.close());

const seconds = (value: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(value?.seconds ?? 0) + (value?.nanos ?? 0) / 1e9;

/** Pings a new endpoint at `path`, and awaits the delivery's workflow (letting time skip). */
async function pingAndWait(path: string) {
  const api = (method: "get" | "post", url: string) =>
    request(h.app)[method](`/api/settings/webhooks${url}`).set("Cookie", h.cookie);
  const endpoint = await api("post", "/").send({ url: `${receiver.url}${path}`, events: ["run.failed"] });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  const ping = await api("post", `/${endpoint.body.id}/ping`);
  expect(ping.status, JSON.stringify(ping.body)).toBe(202);
  const deliveryId = ping.body.id as string;

  const handle = h.temporal!.client.workflow.getHandle(deliveryId);
  const state = await handle.result();
  const events = (await handle.fetchHistory()).events!;
  const timers = events
    .filter((e) => e.timerStartedEventAttributes)
    .map((e) => seconds(e.timerStartedEventAttributes!.startToFireTimeout));
  // Server time between the starts of consecutive attempts.
  const attemptTimes = events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => seconds(e.eventTime));
  const gaps = attemptTimes.slice(1).map((time, i) => time - attemptTimes[i]!);
  const delivery = (await api("get", `/deliveries/${deliveryId}`)).body as {
    status: string;
    attempts: number;
    attempt_log: Array<{ number: number; status_code: number | null }>;
  };
  return { deliveryId, state, timers, gaps, delivery };
}

describe("deliverWebhook's retry schedule (time-skipping server)", () => {
  it("retries after 30 s, 5 min and 30 min, then marks the delivery failed", async () => {
    const { deliveryId, state, timers, gaps, delivery } = await pingAndWait("/down");
    expect(state).toBe("failed");
    expect(timers).toEqual([30, 300, 1800]);
    expect(gaps).toHaveLength(3);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(timers[i]!));
    expect(delivery.status).toBe("failed");
    expect(delivery.attempt_log.map((a) => [a.number, a.status_code])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 503],
    ]);
    // Four POSTs reached the receiver, all of the one delivery.
    expect(attemptsAt.get("/down")).toEqual([deliveryId, deliveryId, deliveryId, deliveryId]);
  });

  it("stops retrying at the first 2xx", async () => {
    const { state, timers, delivery } = await pingAndWait("/recovers/a");
    expect(state).toBe("succeeded");
    expect(timers).toEqual([30, 300]);
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 3 });
    expect(attemptsAt.get("/recovers/a")).toHaveLength(3);
  });
});
