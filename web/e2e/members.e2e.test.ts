// Members and invites in a real browser (Debian's Chromium through playwright-core) against the
// real service: an owner invites an e-mail from the settings page and copies the one-time link; a
// stranger's browser opens it, sets a name and password and lands in the workspace; a role change
// asks first; the owner role is offered, and taken with one click by the member logged in; a
// password reset link sets a new password. With a mail server, the page shows to whom each link was
// sent and never the link, which the invitee reads from the mail. A failing test saves a screenshot.
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { uniqueEmail } from "../../test/helpers/identity.js";
import { linkIn, startSmtpReceiver, type SmtpReceiver } from "../../test/helpers/smtp-receiver.js";
import { seriousAxeViolations } from "./axe.js";
import { startDashboardService, type DashboardService } from "./dashboard-service.js";

const TIMEOUT = 180_000;

describe("members and invites in the dashboard (Chromium)", { timeout: TIMEOUT }, () => {
  let service: DashboardService;
  let owner: { context: BrowserContext; page: Page };
  const email = uniqueEmail("invited");
  let link = "";

  beforeAll(async () => {
    service = await startDashboardService((_req, res) => res.end());
    owner = await service.loggedIn({ width: 1280, height: 900 });
  }, TIMEOUT);

  afterAll(async () => {
    await service?.stop();
  });

  const onFailure = (context: TestContext, page: () => Page) =>
    context.onTestFailed(async () => {
      await service.screenshot(page(), context.task.name);
    });

  it("invites an e-mail with no account and shows the one-time link", async (context) => {
    onFailure(context, () => owner.page);
    const { page } = owner;
    await page.goto(`${service.base}/settings`);
    await page.getByLabel("Member e-mail").fill(email);
    await page.getByLabel("New member role").selectOption("editor");
    // Nobody chooses another person's password: the invite form asks for none.
    const card = page
      .locator("section.card")
      .filter({ has: page.getByRole("heading", { name: "Members", exact: true }) });
    expect(await card.locator('input[type="password"]').count()).toBe(0);
    await page.getByRole("button", { name: "Invite", exact: true }).click();
    const shown = page.getByLabel("Invite link");
    await shown.waitFor();
    link = await shown.inputValue();
    expect(link).toMatch(new RegExp(`^${service.base}/invite/[A-Za-z0-9_-]{43}$`));
    await page.locator(`[data-invite="${email}"]`).waitFor();
    expect(await page.locator(`[data-invite="${email}"]`).textContent()).toContain("editor");
  });

  it("lets the invitee set a name and password in a browser of their own, and lands them in the workspace", async (context) => {
    expect(link).not.toBe("");
    const stranger = await service.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await stranger.newPage();
    page.setDefaultTimeout(30_000);
    onFailure(context, () => page);
    try {
      await page.goto(link);
      await page.getByText(`as editor`).waitFor();
      expect(await page.textContent("main")).toContain("browser workspace");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByLabel("Your name").fill("Invited Person");
      await page.getByLabel(/Choose a password/).fill("a-fresh-password");
      await page.getByRole("button", { name: "Join the workspace" }).click();
      // At a phone's width the header folds the e-mail away: present, not shown.
      await page.locator("header .user").getByText(email).waitFor({ state: "attached" });
      expect(await page.textContent("header")).toContain("browser workspace");
      expect(new URL(page.url()).pathname).toBe("/");

      // The link worked once: opened again, it says so.
      await page.goto(link);
      await page.getByText("This invite was accepted already").waitFor();
    } finally {
      await stranger.close();
    }
  });

  it("asks before changing a member's role, and changes it only when confirmed", async (context) => {
    onFailure(context, () => owner.page);
    const { page } = owner;
    await page.goto(`${service.base}/settings`);
    const role = page.getByLabel(`Role of ${email}`);
    await role.waitFor();
    expect(await page.locator(`[data-invite="${email}"]`).count()).toBe(0);

    await role.selectOption("viewer");
    const dialog = page.getByRole("dialog", { name: "Change the role?" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("becomes viewer instead of editor");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await role.inputValue()).toBe("editor");

    await role.selectOption("admin");
    await dialog.getByRole("button", { name: "Change role" }).click();
    await expect.poll(() => role.inputValue(), { timeout: 15_000 }).toBe("admin");
    const members = await service.api<{ items: Array<{ user: { email: string }; role: string }> }>(
      owner.context,
      "GET",
      "/api/workspace/members",
    );
    expect(members.items.find((m) => m.user.email === email)?.role).toBe("admin");
  });

  it("offers the owner role: the member stays admin until they accept the link, logged in, with one click", async (context) => {
    onFailure(context, () => owner.page);
    const { page } = owner;
    await page.goto(`${service.base}/settings`);
    const role = page.getByLabel(`Role of ${email}`);
    await role.waitFor();
    await role.selectOption("owner");
    const dialog = page.getByRole("dialog", { name: "Change the role?" });
    expect(await dialog.textContent()).toContain("is offered the owner role");
    await dialog.getByRole("button", { name: "Change role" }).click();
    const offer = page.getByLabel("Owner offer link");
    await offer.waitFor();
    const offerLink = await offer.inputValue();
    expect(await role.inputValue()).toBe("admin");

    const member = await service.browser.newContext({ viewport: { width: 1024, height: 768 } });
    const memberPage = await member.newPage();
    memberPage.setDefaultTimeout(30_000);
    onFailure(context, () => memberPage);
    try {
      await service.api(member, "POST", "/api/auth/login", { email, password: "a-fresh-password" });
      await memberPage.goto(offerLink);
      await memberPage.getByText("as owner").waitFor();
      expect(await memberPage.getByLabel(/password/i).count()).toBe(0);
      await memberPage.getByRole("button", { name: "Join the workspace" }).click();
      await memberPage.locator("header .user").getByText(email).waitFor();
      const session = await service.api<{ workspace: { role: string } }>(member, "GET", "/api/auth/session");
      expect(session.workspace.role).toBe("owner");
    } finally {
      await member.close();
    }
  });

  it("issues a password reset link, whose page sets a new password and logs in", async (context) => {
    onFailure(context, () => owner.page);
    const { page } = owner;
    await page.goto(`${service.base}/settings`);
    await page.getByRole("button", { name: `Password reset link for ${email}` }).click();
    const shown = page.getByLabel("Password reset link", { exact: true });
    await shown.waitFor();
    const resetLink = await shown.inputValue();
    expect(resetLink).toMatch(new RegExp(`^${service.base}/reset-password/[A-Za-z0-9_-]{43}$`));

    const fresh = await service.browser.newContext({ viewport: { width: 390, height: 844 } });
    const resetPage = await fresh.newPage();
    resetPage.setDefaultTimeout(30_000);
    onFailure(context, () => resetPage);
    try {
      await resetPage.goto(resetLink);
      await resetPage.getByText(`Account: ${email}`).waitFor();
      expect(await seriousAxeViolations(resetPage)).toEqual([]);
      await resetPage.getByLabel("New password (at least 8 characters)").fill("a-newer-password");
      await resetPage.getByLabel("The new password again").fill("a-newer-password");
      await resetPage.getByRole("button", { name: "Set the password" }).click();
      await resetPage.locator("header .user").getByText(email).waitFor({ state: "attached" });
      expect(new URL(resetPage.url()).pathname).toBe("/");
    } finally {
      await fresh.close();
    }
  });
});

describe("members and invites with a mail server (Chromium)", { timeout: TIMEOUT }, () => {
  // The links' origin in the mails; the test opens their paths on the test server's own origin.
  const DASHBOARD = "https://svc.example.com";
  let receiver: SmtpReceiver;
  let service: DashboardService;
  let owner: { context: BrowserContext; page: Page };

  beforeAll(async () => {
    receiver = await startSmtpReceiver();
    service = await startDashboardService((_req, res) => res.end(), {
      ...receiver.settings,
      MAIL_FROM: "svc <noreply@example.com>",
      DASHBOARD_ORIGIN: DASHBOARD,
    });
    owner = await service.loggedIn({ width: 1280, height: 900 });
  }, TIMEOUT);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  it("says the invite was sent, shows no link, and the mailed link lets the invitee join", async (context) => {
    context.onTestFailed(async () => {
      await service.screenshot(owner.page, context.task.name);
    });
    const { page } = owner;
    const email = uniqueEmail("mailed");
    await page.goto(`${service.base}/settings`);
    await page.getByLabel("Member e-mail").fill(email);
    await page.getByRole("button", { name: "Invite", exact: true }).click();
    const notice = page.locator('[data-delivery="mail"]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain(`Invite link sent to ${email}.`);
    expect(await page.getByLabel("Invite link").count()).toBe(0);

    const { url, token } = linkIn(await receiver.next(email), DASHBOARD);
    expect(await page.content()).not.toContain(token);
    const stranger = await service.browser.newContext({ viewport: { width: 390, height: 844 } });
    const invitee = await stranger.newPage();
    invitee.setDefaultTimeout(30_000);
    try {
      await invitee.goto(`${service.base}${new URL(url).pathname}`);
      await invitee.getByLabel("Your name").fill("Mailed Person");
      await invitee.getByLabel(/Choose a password/).fill("a-mailed-password");
      await invitee.getByRole("button", { name: "Join the workspace" }).click();
      await invitee.locator("header .user").getByText(email).waitFor({ state: "attached" });
    } finally {
      await stranger.close();
    }

    // A password reset for that member: sent, not shown.
    await page.goto(`${service.base}/settings`);
    await page.getByRole("button", { name: `Password reset link for ${email}` }).click();
    await page.getByText(`Password reset link sent to ${email}.`).waitFor();
    expect(await page.getByLabel("Password reset link", { exact: true }).count()).toBe(0);
    expect(linkIn(await receiver.next(email), DASHBOARD).url).toMatch(`${DASHBOARD}/reset-password/`);
  });
});
