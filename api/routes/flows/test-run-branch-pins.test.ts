// Pinned branching nodes in POST /api/flows/{id}/test-runs, against the real API, worker, Temporal
// and PostgreSQL: a pinned condition follows the branch its pin names (whatever the input would
// decide), runs that side and skips the other, both ways; a branch node likewise; a step of a past
// run pinned as it is read back (output and branch) takes the same side; a node pinned on its error
// handle runs its error edges; a pin that names no branch, or one its node does not have, is
// refused (400) naming the node and the shape expected.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness({ config: { TEST_RUN_RATE_LIMIT: "100" } });

/**
 * start → check (amount > 100) → yes | no; start → route (kind: a, b) → on_a | other; start →
 * shape (on_error branch) → after, and on its error handle → recover.
 */
const definition = () =>
  flow(
    [
      {
        id: "check",
        type: "condition",
        config: { left: "{{ input.amount }}", operator: "greater_than", right: 100 },
      },
      { id: "yes", type: "set", config: { fields: { side: "true", amount: "{{ nodes.check.amount }}" } } },
      { id: "no", type: "set", config: { fields: { side: "false", amount: "{{ nodes.check.amount }}" } } },
      { id: "route", type: "branch", config: { value: "{{ input.kind }}", cases: ["a", "b"] } },
      { id: "on_a", type: "set", config: { fields: { side: "a" } } },
      { id: "other", type: "set", config: { fields: { side: "default" } } },
      { id: "shape", type: "set", on_error: "branch", config: { fields: { shaped: true } } },
      { id: "recover", type: "set", config: { fields: { recovered: true } } },
      { id: "after", type: "set", config: { fields: { after: true } } },
    ],
    [
      ["start", "check"],
      ["check", "yes", "true"],
      ["check", "no", "false"],
      ["start", "route"],
      ["route", "on_a", "a"],
      ["route", "other", "default"],
      ["start", "shape"],
      ["shape", "recover", "error"],
      ["shape", "after"],
    ],
  );

async function createFlow(): Promise<string> {
  const res = await request(h.app)
    .post("/api/flows")
    .set("Cookie", h.cookie)
    .send({ name: "Pinned branches", status: "active", definition: definition() });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const testRun = (flowId: string, body: object) =>
  request(h.app)
    .post(`/api/flows/${flowId}/test-runs`)
    .set("Cookie", h.cookie)
    .send({ definition: definition(), ...body });

/** The test run's steps by node id, once it succeeded. */
async function stepsOf(res: request.Response) {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const run = await h.waitForEnd(res.body.run_id as string);
  expect(run.status, JSON.stringify(run)).toBe("success");
  const steps = await h.steps(res.body.run_id as string);
  return Object.fromEntries(steps.map((step) => [step.node_id, step]));
}

describe("pinned branching nodes", () => {
  it("a condition pinned to false runs the false side and skips the true one, and the other way round", async () => {
    const flowId = await createFlow();
    // The input would go true: the pin says false, and the run follows the pin.
    const toFalse = await stepsOf(
      await testRun(flowId, {
        input: { amount: 500, kind: "a" },
        pins: { check: { output: { amount: 7 }, branch: "false" } },
      }),
    );
    expect(toFalse.check).toMatchObject({ status: "success", branch: "false", output: { amount: 7 } });
    expect(toFalse.no).toMatchObject({ status: "success", output: { side: "false", amount: 7 } });
    expect(toFalse.yes).toMatchObject({ status: "skipped" });

    // The input would go false: pinned true, the true side runs.
    const toTrue = await stepsOf(
      await testRun(flowId, {
        input: { amount: 1, kind: "a" },
        pins: { check: { output: { amount: 900 }, branch: "true" } },
      }),
    );
    expect(toTrue.check).toMatchObject({ status: "success", branch: "true" });
    expect(toTrue.yes).toMatchObject({ status: "success", output: { side: "true", amount: 900 } });
    expect(toTrue.no).toMatchObject({ status: "skipped" });
  });

  it("a branch node follows its pinned case, and a past run's step pinned as read back takes the same side", async () => {
    const flowId = await createFlow();
    const pinned = await stepsOf(
      await testRun(flowId, { input: { amount: 1, kind: "a" }, pins: { route: { output: {}, branch: "default" } } }),
    );
    expect(pinned.route).toMatchObject({ status: "success", branch: "default" });
    expect(pinned.other).toMatchObject({ status: "success", output: { side: "default" } });
    expect(pinned.on_a).toMatchObject({ status: "skipped" });

    // Unpinned, the real decision: amount 500 goes true, kind "c" to default.
    const past = await stepsOf(await testRun(flowId, { input: { amount: 500, kind: "c" } }));
    expect(past.check).toMatchObject({ branch: "true" });
    // Its steps pinned as the editor reads them (output and branch), on an input that decides otherwise.
    const pins = Object.fromEntries(
      ["check", "route"].map((id) => [id, { output: past[id]!.output, branch: past[id]!.branch }]),
    );
    const again = await stepsOf(await testRun(flowId, { input: { amount: 1, kind: "a" }, pins }));
    expect(again.yes).toMatchObject({ status: "success", output: { side: "true", amount: 500 } });
    expect(again.no).toMatchObject({ status: "skipped" });
    expect(again.other).toMatchObject({ status: "success" });
    expect(again.on_a).toMatchObject({ status: "skipped" });
  });

  it("a node with an error handle pinned on error runs its error edges, not its output's", async () => {
    const flowId = await createFlow();
    const steps = await stepsOf(
      await testRun(flowId, {
        input: { amount: 1, kind: "a" },
        pins: { shape: { output: { message: "bad" }, branch: "error" } },
      }),
    );
    expect(steps.shape).toMatchObject({ branch: "error", output: { message: "bad" } });
    expect(steps.recover).toMatchObject({ status: "success", output: { recovered: true } });
    expect(steps.after).toMatchObject({ status: "skipped" });
  });

  it("refuses a branching node's pin without a branch or with one it does not have, and a branch on a plain node (400)", async () => {
    const flowId = await createFlow();
    const cases: Array<[object, RegExp]> = [
      [{ check: { output: { amount: 1 } } }, /check \(condition\).*"branch": "true" \| "false"/],
      [
        { check: { output: {}, branch: "maybe" } },
        /check \(condition\): no branch "maybe", it takes "true" \| "false"/,
      ],
      [{ route: { output: {} } }, /route \(branch\).*"branch": "a" \| "b" \| "default"/],
      [{ yes: { output: {}, branch: "true" } }, /yes \(set\): no branch "true", pin \{ "output": … \} alone/],
    ];
    for (const [pins, message] of cases) {
      // Refused at the start, "run to here" or not, and nothing runs.
      for (const until of [undefined, "start"]) {
        const res = await testRun(flowId, { pins, ...(until ? { until } : {}) });
        expect(res.status, JSON.stringify(pins)).toBe(400);
        expect(res.body.code).toBe("invalid_test_node");
        expect(res.body.error).toMatch(message);
      }
    }
    const runs = await request(h.app).get(`/api/runs?flow_id=${flowId}`).set("Cookie", h.cookie);
    expect(runs.status).toBe(200);
    expect(runs.body.items).toEqual([]);
  });
});
