// The waits API on a real worker: the inbox, decisions and resume URLs, as members of each role.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { testPrisma } from "../../../test/helpers/context.js";
import { createTestUser, login } from "../../../test/helpers/identity.js";
import { flow, useRunHarness } from "../../../test/helpers/runs.js";

const h = useRunHarness();

type Role = "owner" | "editor" | "viewer";
const cookies = {} as Record<Role, string>;
const ids = {} as Record<Role, string>;
const names = {} as Record<Role, string>;

beforeAll(async () => {
  const session = await request(h.app).get("/api/auth/session").set("Cookie", h.cookie);
  cookies.owner = h.cookie;
  ids.owner = session.body.user.id;
  names.owner = session.body.user.name;
  for (const role of ["editor", "viewer"] as const) {
    const member = await createTestUser(role);
    await testPrisma().membership.create({ data: { userId: member.user.id, workspaceId: h.workspaceId, role } });
    cookies[role] = (await login(h.app, member.email, undefined, { workspaceId: h.workspaceId })).cookie;
    ids[role] = member.user.id;
    names[role] = member.user.name;
  }
});

const as = (role: Role) => ({
  get: (path: string) => request(h.app).get(path).set("Cookie", cookies[role]),
  post: (path: string, body?: object) => request(h.app).post(path).set("Cookie", cookies[role]).send(body),
});

/** A run waiting at `ask` (config as given), then `after` on approved / resumed. */
async function waitingRun(config: object = {}) {
  const resume = (config as { mode?: string }).mode === "resume";
  const flowId = await h.createFlow(
    flow(
      [
        { id: "ask", type: "wait", name: "Ask", config },
        { id: "after", type: "set", config: { fields: { went: "on" }, keep_input: true } },
      ],
      [
        ["start", "ask"],
        ["ask", "after", resume ? "resumed" : "approved"],
      ],
    ),
    "Waiting flow",
  );
  const started = await h.startRun(flowId);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const runId = started.body.run_id as string;
  for (let tries = 0; tries < 150; tries++) {
    const wait = await testPrisma().wait.findFirst({ where: { runId } });
    if (wait) return { flowId, runId, waitId: wait.id };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} has no wait`);
}

const inboxIds = async (role: Role) => {
  const res = await as(role).get("/api/waits?limit=200");
  expect(res.status).toBe(200);
  return (res.body.items as Array<{ id: string }>).map((item) => item.id);
};

describe("POST /api/waits/{id}/decision", () => {
  it("approves as an editor: 200 with the decided wait, and the run follows approved", async () => {
    const { runId, waitId, flowId } = await waitingRun({ message: "Go?" });
    const res = await as("editor").post(`/api/waits/${waitId}/decision`, { decision: "approve", comment: "fine" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: waitId,
      run_id: runId,
      flow_id: flowId,
      flow_name: "Waiting flow",
      node_id: "ask",
      node_name: "Ask",
      mode: "approval",
      message: "Go?",
      status: "decided",
      decision: "approved",
      comment: "fine",
      decided_by: { id: ids.editor, name: names.editor },
      decided_at: expect.any(String),
      can_decide: false,
    });
    const run = await h.waitForEnd(runId);
    expect(run.status).toBe("success");
    expect(run.output).toMatchObject({ decision: "approved", decided_by: { id: ids.editor }, went: "on" });
  });

  it("answers a second decision 409 wait_decided, and a rejection follows no approved edge", async () => {
    const { runId, waitId } = await waitingRun();
    expect((await as("owner").post(`/api/waits/${waitId}/decision`, { decision: "reject" })).status).toBe(200);
    const again = await as("editor").post(`/api/waits/${waitId}/decision`, { decision: "approve" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "wait_decided", error: expect.any(String), decision: "rejected" });
    expect((await h.waitForEnd(runId)).status).toBe("success");
    const steps = await h.steps(runId);
    expect(steps.find((s) => s.node_id === "ask")).toMatchObject({
      branch: "rejected",
      output: { decision: "rejected", comment: null, decided_by: { id: ids.owner } },
    });
    expect(steps.find((s) => s.node_id === "after")).toMatchObject({ status: "skipped" });
  });

  it("takes one of two decisions sent at once; the other answers 409 wait_decided", async () => {
    const { runId, waitId } = await waitingRun();
    const answers = await Promise.all([
      as("owner").post(`/api/waits/${waitId}/decision`, { decision: "approve", comment: "owner" }),
      as("editor").post(`/api/waits/${waitId}/decision`, { decision: "reject", comment: "editor" }),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    const [won, lost] = answers[0]!.status === 200 ? answers : [answers[1]!, answers[0]!];
    expect(lost!.body.code).toBe("wait_decided");
    expect((await h.waitForEnd(runId)).status).toBe("success");
    // The record and the step say what the answer that won said.
    const step = (await h.steps(runId)).find((s) => s.node_id === "ask");
    expect(step!.output).toMatchObject({ decision: won!.body.decision, comment: won!.body.comment });
    expect(await testPrisma().wait.count({ where: { runId, status: "decided" } })).toBe(1);
  });

  it("refuses viewers, roles below the node's and members it does not name with 403; unknown waits 404", async () => {
    const { runId, waitId } = await waitingRun({ min_role: "owner" });
    const viewer = await as("viewer").post(`/api/waits/${waitId}/decision`, { decision: "approve" });
    expect(viewer.status).toBe(403);
    expect(viewer.body.code).toBe("forbidden");
    const editor = await as("editor").post(`/api/waits/${waitId}/decision`, { decision: "approve" });
    expect(editor.status).toBe(403);
    expect(editor.body).toMatchObject({ code: "forbidden", error: expect.stringContaining("owner") });

    const named = await waitingRun({ approver_user_id: ids.editor });
    const owner = await as("owner").post(`/api/waits/${named.waitId}/decision`, { decision: "approve" });
    expect(owner.status).toBe(403);
    expect((await as("editor").post(`/api/waits/${named.waitId}/decision`, { decision: "approve" })).status).toBe(200);

    const unknown = await as("owner").post(`/api/waits/wait_${"0".repeat(24)}/decision`, { decision: "approve" });
    expect(unknown.status).toBe(404);
    expect((await as("owner").post(`/api/waits/${waitId}/decision`, { decision: "maybe" })).status).toBe(400);

    // The refused decisions changed nothing: the owner still decides.
    expect((await as("owner").post(`/api/waits/${waitId}/decision`, { decision: "approve" })).status).toBe(200);
    expect((await h.waitForEnd(runId)).status).toBe("success");
  });

  it("answers 409 wait_cancelled once the waiting run was cancelled, which closed the wait", async () => {
    const { runId, waitId } = await waitingRun();
    expect((await as("owner").post(`/api/runs/${runId}/cancel`)).status).toBe(202);
    expect((await h.waitForEnd(runId)).status).toBe("cancelled");
    const res = await as("owner").post(`/api/waits/${waitId}/decision`, { decision: "approve" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("wait_cancelled");
    expect(await inboxIds("owner")).not.toContain(waitId);
  });
});

describe("GET /api/waits", () => {
  it("lists only the pending waits the caller may decide, newest first, a page at a time", async () => {
    const anyone = await waitingRun();
    const ownersOnly = await waitingRun({ min_role: "owner" });
    const editorOnly = await waitingRun({ approver_user_id: ids.editor });
    const resume = await waitingRun({ mode: "resume" });

    const owner = await inboxIds("owner");
    expect(owner).toEqual(expect.arrayContaining([anyone.waitId, ownersOnly.waitId, resume.waitId]));
    expect(owner).not.toContain(editorOnly.waitId);
    const editor = await inboxIds("editor");
    expect(editor).toEqual(expect.arrayContaining([anyone.waitId, editorOnly.waitId, resume.waitId]));
    expect(editor).not.toContain(ownersOnly.waitId);
    expect(await inboxIds("viewer")).toEqual([]);

    const first = await as("owner").get("/api/waits?limit=2");
    expect(first.body.items).toHaveLength(2);
    expect(first.body.items[0]).toMatchObject({
      id: resume.waitId,
      run_id: resume.runId,
      flow_id: resume.flowId,
      flow_name: "Waiting flow",
      node_id: "ask",
      node_name: "Ask",
      mode: "resume",
      status: "pending",
      since: expect.any(String),
      expires_at: null,
      can_decide: true,
    });
    expect(first.body.items[1].id).toBe(ownersOnly.waitId);
    const second = await as("owner").get(`/api/waits?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items[0].id).toBe(anyone.waitId);

    // A decided wait leaves the inbox.
    await as("owner").post(`/api/waits/${anyone.waitId}/decision`, { decision: "approve" });
    expect(await inboxIds("editor")).not.toContain(anyone.waitId);
    expect((await as("owner").get("/api/waits?cursor=nope")).status).toBe(400);
  });

  it("shows expires_at for a wait with a timeout", async () => {
    const { waitId } = await waitingRun({ timeout: "3d" });
    const item = (await as("owner").get("/api/waits?limit=200")).body.items.find(
      (w: { id: string }) => w.id === waitId,
    );
    const days = (Date.parse(item.expires_at) - Date.parse(item.since)) / 86_400_000;
    expect(days).toBeCloseTo(3, 3);
  });
});

describe("the run.waiting event", () => {
  it("is one a webhook endpoint subscribes to, and the default subscription includes it", async () => {
    const res = await as("owner").post("/api/settings/webhooks", {
      url: "https://receiver.example.com/waits",
      events: ["run.waiting"],
      enabled: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.events).toEqual(["run.waiting"]);
    const all = await as("owner").post("/api/settings/webhooks", {
      url: "https://receiver.example.com/all",
      enabled: false,
    });
    expect(all.body.events).toContain("run.waiting");
  });
});

describe("resume URLs", () => {
  it("shows the URL on the run to members who may decide; one POST resumes with its body, a second is refused", async () => {
    const { runId, waitId } = await waitingRun({ mode: "resume" });
    const shown = await as("editor").get(`/api/runs/${runId}/waits`);
    expect(shown.status).toBe(200);
    expect(shown.body.items).toEqual([
      expect.objectContaining({ id: waitId, mode: "resume", status: "pending", resume_url: expect.any(String) }),
    ]);
    const url = shown.body.items[0].resume_url as string;
    expect(url).toMatch(/^\/api\/waits\/resume\/wr_[A-Za-z0-9_-]{43}$/);
    expect((await as("viewer").get(`/api/runs/${runId}/waits`)).body.items[0].resume_url).toBeNull();
    // The database holds no token, only its hash.
    const row = await testPrisma().wait.findUnique({ where: { id: waitId } });
    expect(JSON.stringify(row)).not.toContain(url.split("/").at(-1)!);

    // Another system, without a session.
    const resumed = await request(h.app).post(url).send({ invoice: "INV-7", paid: 120 });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body).toEqual({ run_id: runId, status_url: `/api/runs/${runId}` });
    expect(resumed.headers["content-security-policy"]).toMatch(/^sandbox;/);
    expect(resumed.headers["x-frame-options"]).toBe("DENY");
    const run = await h.waitForEnd(runId);
    expect(run).toMatchObject({ status: "success", output: { invoice: "INV-7", paid: 120, went: "on" } });
    expect((await h.steps(runId)).find((s) => s.node_id === "ask")).toMatchObject({
      branch: "resumed",
      output: { invoice: "INV-7", paid: 120 },
    });

    const again = await request(h.app).post(url).send({ invoice: "INV-8" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "wait_decided", decision: "resumed" });
    expect(again.headers["content-security-policy"]).toMatch(/^sandbox;/);
    expect((await as("owner").get(`/api/runs/${runId}/waits`)).body.items[0]).toMatchObject({
      status: "decided",
      decision: "resumed",
      resume_url: null,
    });
  });

  it("writes wait.resumed with the link as its actor, from the caller's address, and nothing of the body or token", async () => {
    const { runId, waitId } = await waitingRun({ mode: "resume" });
    const url = (await as("owner").get(`/api/runs/${runId}/waits`)).body.items[0].resume_url as string;
    const body = { invoice: "audit-body-value-never-in-a-row" };
    const resumed = await request(h.app).post(url).set("User-Agent", "audit-resume").send(body);
    expect(resumed.status).toBe(200);
    await h.waitForEnd(runId);
    // A second use is refused and writes nothing.
    expect((await request(h.app).post(url).send(body)).status).toBe(409);

    const rows = await testPrisma().auditEvent.findMany({ where: { objectId: waitId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      workspaceId: h.workspaceId,
      action: "wait.resumed",
      actorKind: "token",
      actorId: null,
      actorLabel: "resume link",
      userAgent: "audit-resume",
      sourceIp: expect.any(String),
      objectKind: "wait",
      details: { run_id: runId, node_id: "ask", reason: "node" },
    });
    const written = JSON.stringify(rows);
    expect(written).not.toContain(body.invoice);
    expect(written).not.toContain(url.split("/").at(-1)!);
    // The admins' reader shows it.
    const listed = await as("owner").get(`/api/audit?action=wait.resumed&object=${waitId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({
        actor: { kind: "token", id: null, label: "resume link" },
        object: { kind: "wait", id: waitId },
      }),
    ]);
  });

  it("answers 404 to unknown tokens, 415 to bodies that are not JSON, 405 to other methods, and approves no resume wait", async () => {
    const { waitId, runId } = await waitingRun({ mode: "resume" });
    const unknown = await request(h.app)
      .post(`/api/waits/resume/wr_${"A".repeat(43)}`)
      .send({});
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
    expect(unknown.headers["content-security-policy"]).toMatch(/^sandbox;/);
    expect((await request(h.app).post("/api/waits/resume/nonsense").send({})).status).toBe(404);

    const url = (await as("owner").get(`/api/runs/${runId}/waits`)).body.items[0].resume_url as string;
    const text = await request(h.app).post(url).set("Content-Type", "text/plain").send("done");
    expect(text.status).toBe(415);
    expect((await request(h.app).get(url)).status).toBe(405);
    const approve = await as("owner").post(`/api/waits/${waitId}/decision`, { decision: "approve" });
    expect(approve.status).toBe(409);
    expect(approve.body.code).toBe("wait_wrong_mode");

    // None of it resumed the wait: an empty body does.
    const empty = await request(h.app).post(url);
    expect(empty.status).toBe(200);
    expect(await h.waitForEnd(runId)).toMatchObject({ status: "success", output: { went: "on" } });
  });
});
