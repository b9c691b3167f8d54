// The audit page in a real browser (Debian's Chromium through playwright-core) against the real
// service, one service for the file: two members act (an editor saves a flow, an admin creates a
// credential); the owner filters the log by one of them and sees only that person's rows, and the
// CSV export link answers the rows of the same filter; a viewer gets the admins-only message and no
// link in the navigation. A failing test saves a screenshot.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { testPrisma } from "../../test/helpers/context.js";
import { createTestUser } from "../../test/helpers/identity.js";
import { seriousAxeViolations } from "./axe.js";
import { openWhenReady, startDashboardService, type DashboardService } from "./dashboard-service.js";

const TIMEOUT = 180_000;

type Person = Awaited<ReturnType<typeof createTestUser>> & { context: BrowserContext };

describe("the audit log in the dashboard (Chromium)", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  let owner: { context: BrowserContext; page: Page };
  const people = {} as Record<"flowEditor" | "credentialEditor" | "viewer", Person>;

  /** A person of the owner's workspace with `role`, logged in to it in a browser context of their own. */
  async function member(label: string, role: "editor" | "admin" | "viewer"): Promise<Person> {
    const person = await createTestUser(label);
    const workspaceId = service.user.workspace.workspaceId;
    await testPrisma().membership.create({ data: { userId: person.user.id, workspaceId, role } });
    const context = await service.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await service.api(context, "POST", "/api/auth/login", {
      email: person.email,
      password: person.password,
      workspaceId,
    });
    return { ...person, context };
  }

  beforeAll(async () => {
    service = await startDashboardService((_req, res) => res.end());
    owner = await service.loggedIn({ width: 1280, height: 900 });
    people.flowEditor = await member("audit-flows", "editor");
    people.credentialEditor = await member("audit-credentials", "admin");
    people.viewer = await member("audit-viewer", "viewer");
    await service.api(people.flowEditor.context, "POST", "/api/flows", {
      name: "Audited in the browser",
      status: "inactive",
      definition: { nodes: [{ id: "start", type: "manual", position: { x: 0, y: 0 } }], edges: [] },
    });
    await service.api(people.credentialEditor.context, "POST", "/api/credentials", {
      name: "Audited key",
      type: "bearer",
      data: { token: "audit-browser-secret-token" },
    });
  }, TIMEOUT);

  afterAll(async () => {
    for (const person of Object.values(people)) await person.context.close();
    await service?.stop();
  });

  const onFailure = (context: TestContext, page: () => Page) =>
    context.onTestFailed(async () => {
      await service.screenshot(page(), context.task.name);
    });

  it("shows the owner every member's rows, then only one person's, kept in the address", async (context) => {
    onFailure(context, () => owner.page);
    const { page } = owner;
    await page.goto(`${service.base}/`);
    await page.locator(".topbar nav").getByRole("link", { name: "Audit", exact: true }).click();
    await page.locator('tr[data-action="credential.created"]').waitFor();
    expect(await page.locator('tr[data-action="flow.created"]').count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);

    const editor = people.flowEditor;
    await page.getByLabel("Person filter").selectOption(editor.user.id);
    await page.waitForURL((url) => url.searchParams.get("actor") === editor.user.id);
    // The unfiltered table goes (the page shows it loading), then the filtered one comes.
    await page.locator('tr[data-action="credential.created"]').waitFor({ state: "detached" });
    await page.locator('tr[data-action="flow.created"]').waitFor();
    const who = await page.locator('table.audit-log tbody td[data-label="Who"]').allTextContents();
    // Their login and their flow, nothing of the other member's.
    expect(who.length).toBe(2);
    for (const cell of who) expect(cell).toBe(editor.email);
    expect(
      await page
        .locator("table.audit-log tbody tr")
        .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-action"))),
    ).toEqual(["flow.created", "auth.login_succeeded"]);
    expect(await page.textContent("table.audit-log")).toContain("Audited in the browser");

    // Opened again from its address, the filter holds.
    await openWhenReady(page, page.url(), 'tr[data-action="flow.created"]');
    expect(await page.getByLabel("Person filter").inputValue()).toBe(editor.user.id);
  });

  it("exports the rows of the filter shown as CSV and JSON, never a secret", async () => {
    const { page } = owner;
    const csvHref = await page.getByRole("link", { name: "Export CSV" }).getAttribute("href");
    expect(csvHref).toContain(`actor=${people.flowEditor.user.id}`);
    const csv = await owner.context.request.get(csvHref!);
    expect(csv.status()).toBe(200);
    expect(csv.headers()["content-disposition"]).toBe('attachment; filename="audit.csv"');
    const lines = (await csv.text()).trim().split("\r\n").slice(1);
    expect(lines.length).toBe(2);
    for (const line of lines) expect(line).toContain(people.flowEditor.user.id);
    expect(lines[0]).toContain("flow.created");

    const jsonHref = await page.getByRole("link", { name: "Export JSON" }).getAttribute("href");
    const json = await owner.context.request.get(jsonHref!);
    const { items } = (await json.json()) as { items: Array<{ action: string; actor: { id: string } }> };
    expect(items.map((event) => event.action)).toEqual(["flow.created", "auth.login_succeeded"]);
    const all = await owner.context.request.get(`${service.base}/api/audit?format=csv`);
    expect(await all.text()).toContain("credential.created");
    expect(await all.text()).not.toContain("audit-browser-secret-token");
  });

  it("tells a viewer the log is for admins only, and shows them no link to it", async (context) => {
    const page = await people.viewer.context.newPage();
    page.setDefaultTimeout(30_000);
    onFailure(context, () => page);
    await page.goto(`${service.base}/audit`);
    await page.locator('[data-mark="admins-only"]').waitFor();
    expect(await page.textContent('[data-mark="admins-only"]')).toContain("admins and owners only");
    expect(await page.locator("table.audit-log").count()).toBe(0);
    expect(await page.locator(".topbar nav").getByRole("link", { name: "Audit", exact: true }).count()).toBe(0);
  });
});
