import { databaseErrorReason } from "../../../lib/db.js";
import type { AppDeps } from "../../deps.js";

export type CheckResult = { ok: true } | { ok: false; error: string };

// Long enough for a first check on a busy machine (a new connection, then the namespace and its
// search attributes), short enough for a probe.
const CHECK_TIMEOUT_MS = 5000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The reason in one line: its last line, since Prisma's messages open with a blank line and
 * "Invalid `prisma.$queryRaw()` invocation:" and end with the cause (the server it cannot reach).
 */
function reasonOf(error: unknown): string {
  const lines = String((error as Error)?.message ?? error).split("\n");
  return lines.map((line) => line.trim()).findLast((line) => line.length > 0) ?? "unknown error";
}

async function check(probe: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await withTimeout(probe(), CHECK_TIMEOUT_MS);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: databaseErrorReason(error) ?? reasonOf(error) };
  }
}

/**
 * Readiness: the database answers a query, Temporal describes our namespace, and the namespace
 * has the search attributes runs are started with (registered here when missing).
 */
export async function checkReadiness({
  prisma,
  temporal,
  prepareNamespace,
}: Pick<AppDeps, "prisma" | "temporal" | "prepareNamespace">) {
  const [database, temporalCheck] = await Promise.all([
    check(() => prisma.$queryRaw`SELECT 1`),
    check(async () => {
      await temporal.workflowService.describeNamespace({ namespace: temporal.options.namespace });
      await prepareNamespace();
    }),
  ]);
  return { database, temporal: temporalCheck };
}
