import type { AppDeps } from "../../deps.js";

export type CheckResult = { ok: true } | { ok: false; error: string };

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function check(probe: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await withTimeout(probe(), CHECK_TIMEOUT_MS);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split("\n")[0] ?? "unknown error" };
  }
}

/** Readiness: the database answers a query and Temporal describes our namespace. */
export async function checkReadiness({ prisma, temporal }: Pick<AppDeps, "prisma" | "temporal">) {
  const [database, temporalCheck] = await Promise.all([
    check(() => prisma.$queryRaw`SELECT 1`),
    check(() => temporal.workflowService.describeNamespace({ namespace: temporal.options.namespace })),
  ]);
  return { database, temporal: temporalCheck };
}
