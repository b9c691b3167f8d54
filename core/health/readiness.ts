// Readiness (GET /readyz): whether the database and Temporal answer, with the reason when not.
import type { Client } from "@temporalio/client";
import { databaseErrorReason, type PrismaClient } from "../../lib/db.js";
import type { TemporalConnectionConfig } from "../../lib/temporal/credentials.js";
import { diagnoseTemporalTls } from "../../lib/temporal/tls-diagnosis.js";

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
 * Temporal's check; when it fails, a TLS handshake of its own tells a TLS mismatch (wrong CA,
 * refused client certificate, TLS on one side only) from a server that does not answer, since
 * the client only retries and times out.
 */
async function checkTemporal({ config, temporal, prepareNamespace }: TemporalDeps): Promise<CheckResult> {
  const result = await check(async () => {
    await temporal.workflowService.describeNamespace({ namespace: temporal.options.namespace });
    await prepareNamespace();
  });
  if (result.ok) return result;
  return { ok: false, error: (await diagnoseTemporalTls(config)) ?? result.error };
}

interface TemporalDeps {
  config: TemporalConnectionConfig;
  temporal: Client;
  /** Registers the search attributes runs are started with, when missing (api/deps.ts). */
  prepareNamespace: () => Promise<void>;
}

/**
 * Readiness: the database answers a query, Temporal describes our namespace, and the namespace
 * has the search attributes runs are started with (registered here when missing).
 */
export async function checkReadiness(deps: { prisma: PrismaClient } & TemporalDeps) {
  const [database, temporal] = await Promise.all([check(() => deps.prisma.$queryRaw`SELECT 1`), checkTemporal(deps)]);
  return { database, temporal };
}

export type Readiness = () => ReturnType<typeof checkReadiness>;
