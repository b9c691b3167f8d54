// One attempt of a webhook delivery: POST the stored body, signed, through the egress guard,
// and record the attempt and the delivery's new state in one transaction. A repeated attempt
// (the activity retried after recording) returns what was recorded instead of POSTing again.
import type { Clock } from "../../../lib/clock.js";
import type { PrismaClient } from "../../../lib/db.js";
import type { EgressGuard } from "../../../lib/egress/guarded-fetch.js";
import type { WorkerMetrics } from "../../../lib/operator-metrics.js";
import type { AttemptDeliveryInput, AttemptOutcome } from "../../../core/contracts/deliver-webhook.js";
import { postDelivery, type DeliveryToPost, type PostResult } from "./post-delivery.js";

export interface WebhookActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  egress: EgressGuard;
  metrics?: Pick<WorkerMetrics, "deliveries">;
}

const isSuccess = (statusCode: number | null | undefined) =>
  statusCode !== null && statusCode !== undefined && statusCode >= 200 && statusCode < 300;

export async function attemptDelivery(deps: WebhookActivityDeps, input: AttemptDeliveryInput): Promise<AttemptOutcome> {
  const { prisma, clock } = deps;
  const delivery = await prisma.webhookDelivery.findUnique({
    where: { id: input.deliveryId },
    include: {
      endpoint: { select: { url: true, enabled: true } },
      attemptLog: { where: { number: input.number } },
    },
  });
  // Deleted with its endpoint: nothing left to deliver.
  if (!delivery) return { ok: false, final: true, error: "The delivery no longer exists" };
  if (delivery.status !== "pending") return { ok: delivery.status === "succeeded", final: true };
  const recorded = delivery.attemptLog[0];
  if (recorded) {
    const ok = isSuccess(recorded.statusCode);
    return { ok, final: ok || input.nextDelayMs === null, statusCode: recorded.statusCode ?? undefined };
  }
  const startedAt = clock.now();
  const result = await sendAttempt(deps, delivery, startedAt, input.timeoutMs);
  const finishedAt = clock.now();
  const ok = isSuccess(result.statusCode);
  const final = ok || input.nextDelayMs === null || result.refused === true;
  const status = ok ? "succeeded" : final ? "failed" : "pending";
  await prisma.$transaction([
    prisma.webhookAttempt.createMany({
      data: [
        {
          deliveryId: delivery.id,
          number: input.number,
          startedAt,
          durationMs: finishedAt.getTime() - startedAt.getTime(),
          statusCode: result.statusCode ?? null,
          error: result.error ?? null,
          responseExcerpt: result.excerpt ?? null,
        },
      ],
      skipDuplicates: true,
    }),
    prisma.webhookDelivery.updateMany({
      where: { id: delivery.id, status: "pending" },
      data: {
        status,
        attempts: input.number,
        nextAttemptAt: final ? null : new Date(finishedAt.getTime() + input.nextDelayMs!),
        updatedAt: finishedAt,
      },
    }),
  ]);
  deps.metrics?.deliveries.inc({ outcome: ok ? "succeeded" : final ? "gave_up" : "failed" });
  return { ok, final, statusCode: result.statusCode, error: result.error };
}

/** POSTs the delivery signed with the current secret (and the previous one while it lasts), unless refused. */
async function sendAttempt(
  deps: WebhookActivityDeps,
  delivery: DeliveryToPost & { workspaceId: string; endpoint: { enabled: boolean } },
  startedAt: Date,
  timeoutMs: number,
): Promise<PostResult> {
  if (!delivery.endpoint.enabled) return { error: "The endpoint is disabled", refused: true };
  const secret = await deps.prisma.webhookSecret.findUnique({ where: { workspaceId: delivery.workspaceId } });
  if (!secret) return { error: "The workspace has no webhook secret", refused: true };
  const secrets = [secret.secret];
  if (secret.previousSecret && secret.previousExpiresAt && secret.previousExpiresAt > startedAt) {
    secrets.push(secret.previousSecret);
  }
  return postDelivery(deps, delivery, secrets, timeoutMs);
}
