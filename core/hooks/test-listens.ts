// "Listen for a test event" of a hook trigger (issue 51): a short-lived, one-use address, apart from
// the flow's production hook, whose next request is captured as the trigger's test data. Capturing
// starts no run and changes nothing the published version serves. Anyone holding the address may
// call it once before it expires: the token is 256 random bits, only its SHA-256 is stored, and a
// used, expired or unknown token is the same 404. One listen per flow is open at a time (a new one
// closes the earlier), so a flow holds at most one capturable address. The captured request is
// sealed at rest as run payloads are, goes with its flow, and rows a day past their expiry are
// purged (a bounded batch) whenever a listen opens.
import { createHash, randomBytes } from "node:crypto";
import type { JsonSeal } from "../../lib/crypto/sealed-json.js";
import { Prisma, sqlQuery, type PrismaClient } from "../../lib/db.js";
import { newId } from "../../lib/ids.js";
import { storedDefinition } from "../contracts/flow-definition.js";
import { domainErrorClass } from "../errors.js";
import { findFlow } from "../flows/find-flow.js";
import { HOOK_TRIGGER_TYPES } from "../nodes/http-trigger/http-trigger.node.js";

/** How long a test address listens. */
export const TEST_LISTEN_MS = 5 * 60_000;

/** The token in a test address: 43 base64url characters (256 bits). */
export const TEST_LISTEN_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** No listening test address here: unknown, already used, or expired (told apart to no one). */
export const TestListenNotFound = domainErrorClass(
  "TestListenNotFound",
  "not_found",
  "test_listen_not_found",
  "No test address listens here",
);

/** The flow's saved definition has no hook trigger to listen for. */
export const NoHookTrigger = domainErrorClass(
  "NoHookTrigger",
  "conflict",
  "no_hook_trigger",
  "The flow has no HTTP trigger to listen for",
);

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export interface TestListenView {
  id: string;
  status: "listening" | "captured" | "expired";
  expires_at: string;
  captured_at: string | null;
  /** The captured request as a run's input: {method, headers, query, body}. */
  captured: Record<string, unknown> | null;
}

type Row = { id: string; expiresAt: Date; capturedAt: Date | null; captured: unknown };

/** Expired rows purged per listen opened: the purge stays bounded however many piled up. */
export const TEST_LISTEN_PURGE_BATCH = 500;
const PURGE_AFTER_MS = 24 * 3_600_000;

const viewOf = (row: Row, now: Date, seal: JsonSeal): TestListenView => ({
  id: row.id,
  status: row.capturedAt ? "captured" : row.expiresAt <= now ? "expired" : "listening",
  expires_at: row.expiresAt.toISOString(),
  captured_at: row.capturedAt?.toISOString() ?? null,
  captured: (seal.open(row.captured) as Record<string, unknown> | null) ?? null,
});

export function createTestListens({ prisma, seal }: { prisma: PrismaClient; seal: JsonSeal }) {
  return {
    /**
     * Opens a test address for the flow's hook trigger (FlowNotFound for another workspace's flow,
     * NoHookTrigger without one) and closes the flow's earlier open one. The token is returned once.
     */
    async open(workspaceId: string, flowId: string, by: string | null, now = new Date()) {
      const flow = await findFlow(prisma, workspaceId, flowId);
      // The draft is what is tested: its trigger counts, as the published version's does.
      const draft = flow.draftVersion
        ? await prisma.flowVersion.findUnique({
            where: { flowId_version: { flowId, version: flow.draftVersion } },
            select: { definition: true },
          })
        : null;
      const hasHook = (definition: unknown) =>
        storedDefinition(definition).nodes.some((node) => HOOK_TRIGGER_TYPES.has(node.type));
      if (!hasHook(flow.definition) && !(draft && hasHook(draft.definition))) throw new NoHookTrigger();
      const token = randomBytes(32).toString("base64url");
      const expiresAt = new Date(now.getTime() + TEST_LISTEN_MS);
      const id = newId("htl");
      await prisma.$transaction([
        // The earlier open listen ends now; rows long expired go.
        prisma.hookTestListen.updateMany({
          where: { workspaceId, flowId, capturedAt: null, expiresAt: { gt: now } },
          data: { expiresAt: now },
        }),
        prisma.$executeRaw`DELETE FROM hook_test_listens WHERE id IN (SELECT id FROM hook_test_listens
          WHERE expires_at < ${new Date(now.getTime() - PURGE_AFTER_MS)} LIMIT ${TEST_LISTEN_PURGE_BATCH})`,
        prisma.hookTestListen.create({
          data: { id, workspaceId, flowId, tokenHash: hashOf(token), createdBy: by, expiresAt },
        }),
      ]);
      return { id, token, expiresAt };
    },

    /** The flow's listen as the editor polls it; TestListenNotFound for another flow's or workspace's. */
    async view(workspaceId: string, flowId: string, id: string, now = new Date()): Promise<TestListenView> {
      const row = await prisma.hookTestListen.findFirst({
        where: { id, workspaceId, flowId },
        select: { id: true, expiresAt: true, capturedAt: true, captured: true },
      });
      if (!row) throw new TestListenNotFound();
      return viewOf(row, now, seal);
    },

    /**
     * Captures a request's input on a listening token, exactly once (one statement: two calls at
     * once capture one); TestListenNotFound for any other token. Returns the listen's id.
     */
    async capture(token: string, input: Record<string, unknown>, now = new Date()): Promise<string> {
      if (!TEST_LISTEN_TOKEN.test(token)) throw new TestListenNotFound();
      const [row] = await sqlQuery<{ id: string }>(
        prisma,
        Prisma.sql`UPDATE hook_test_listens SET captured_at = ${now}, captured = ${JSON.stringify(seal.seal(input))}::jsonb
          WHERE token_hash = ${hashOf(token)} AND captured_at IS NULL AND expires_at > ${now} RETURNING id`,
      );
      if (!row) throw new TestListenNotFound();
      return row.id;
    },
  };
}

export type TestListens = ReturnType<typeof createTestListens>;
