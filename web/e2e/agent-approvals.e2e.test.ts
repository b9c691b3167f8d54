// Agent tool approvals in a real browser (Debian's Chromium through playwright-core) against the
// real service and a loopback model provider: the inbox lists the call with its arguments, Open
// leads to the agent run's page, Approve lets the run go on. A failing test saves a screenshot.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { openAiAnswer } from "../../test/helpers/fake-llm-provider.js";
import { AGENT_E2E_TIMEOUT, useAgentDashboard } from "./agent-dashboard.js";

/** What the page shows after its next polls. */
const SHOWN = { timeout: 15_000 };

describe("agent tool approvals in the dashboard (Chromium)", { timeout: AGENT_E2E_TIMEOUT }, () => {
  const d = useAgentDashboard("agent-approvals");

  it("lists the call with its arguments in the inbox; Approve on the agent run's page runs the tool", async (context) => {
    d.screenshotOnFailure(context);
    const { page, server, base, user, cookie, provider } = d;
    provider.script(
      "openai",
      openAiAnswer({
        toolCalls: [{ name: "memory_write", arguments: JSON.stringify({ key: "parcel", value: "to Lyon" }) }],
      }),
      openAiAnswer({ text: "Parcel noted." }),
    );
    const started = await request(server)
      .post("/api/agent/run")
      .set("Cookie", cookie)
      .send({
        agent: "courier",
        instructions: "Note the parcel",
        provider: "openai",
        model: "gpt-test",
        tools: ["memory.write"],
        approval_tools: ["memory.write"],
      });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.agent_run_id as string;
    await expect.poll(() => testPrisma().wait.count({ where: { agentRunId: id, status: "pending" } }), SHOWN).toBe(1);

    await page.goto(base);
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await page.locator(".topbar nav").getByRole("link", { name: /Waits/ }).click();
    await page.getByRole("heading", { name: "Waiting for you" }).waitFor();
    const row = page.locator("tr[data-wait]");
    await expect.poll(() => row.textContent(), SHOWN).toContain("tool memory.write");
    expect(await row.textContent()).toContain("agent courier");
    expect(await row.textContent()).toContain('"to Lyon"');
    await row.getByRole("link", { name: "Open" }).click();
    await page.waitForURL(`**/agents/runs/${id}`);

    const card = page.locator(".card[data-wait]");
    expect(await card.textContent()).toContain("tool memory.write");
    await card.getByLabel("Comment").fill("go ahead");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => card.textContent(), SHOWN)
      .toMatch(/approved by agent-approvals-browser name .*: “go ahead”/);
    await expect.poll(() => page.locator(`[data-agent-run="${id}"] h3 .badge`).textContent(), SHOWN).toBe("success");
    expect(await page.locator('tr[data-step-kind="approval"]').count()).toBe(1);
    const memory = await request(server).get("/api/agent/memory?agent=courier&key=parcel").set("Cookie", cookie);
    expect(memory.body).toMatchObject({ value: "to Lyon", agent_run_id: id });
  });
});
