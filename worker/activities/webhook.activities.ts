// One attempt of a webhook delivery: POST the stored body, signed, through the egress guard,
// and record the attempt and the delivery's new state in one transaction. A repeated attempt
// (the activity retried after recording) returns what was recorded instead of POSTing again.
import type { WorkerMetrics } from "../../lib/operator-metrics.js";
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { EgressLimitError, EgressRefusedError, type EgressGuard } from "../../lib/egress/guarded-fetch.js";
import { deliveryHeaders } from "../../lib/webhooks/signing.js";
import type { AttemptDeliveryInput, AttemptOutcome } from "../../core/contracts/deliver-webhook.js";

export interface WebhookActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  egress: EgressGuard;
  metrics?: Pick<WorkerMetrics, "deliveries">;
}

const EXCERPT_CHARS = 1000;
const MAX_RESPONSE_BYTES = 64 * 1024;

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { prisma, clock, egress } = deps;
  async function post(
    delivery: { id: string; event: string; body: string; endpoint: { url: string } },
    secrets: string[],
    timeoutMs: number,
  ): Promise<{ statusCode?: number; error?: string; excerpt?: string; refused?: boolean }> {
    const headers = deliveryHeaders({
      event: delivery.event,
      deliveryId: delivery.id,
      body: delivery.body,
      secrets,
      now: clock.now(),
    });
    try {
      const response = await egress.fetch(delivery.endpoint.url, {
        method: "POST",
        headers,
        body: delivery.body,
        // A redirect is an answer outside 2xx: a failure, not a new target.
        redirect: "manual",
        timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
      const excerpt = await response.text().then(
        (text) => text.slice(0, EXCERPT_CHARS),
        () => "",
      );
      return {
        statusCode: response.status,
        excerpt,
        ...(response.ok ? {} : { error: `The receiver answered ${response.status}` }),
      };
    } catch (error) {
      const refused = error instanceof EgressRefusedError || error instanceof EgressLimitError;
      return { error: (error as Error).message, refused };
    }
  }

  return {
    async attemptDelivery(input: AttemptDeliveryInput): Promise<AttemptOutcome> {
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
        const ok = recorded.statusCode !== null && recorded.statusCode >= 200 && recorded.statusCode < 300;
        return { ok, final: ok || input.nextDelayMs === null, statusCode: recorded.statusCode ?? undefined };
      }

      const startedAt = clock.now();
      let result: Awaited<ReturnType<typeof post>>;
      if (!delivery.endpoint.enabled) {
        result = { error: "The endpoint is disabled", refused: true };
      } else {
        const secret = await prisma.webhookSecret.findUnique({ where: { workspaceId: delivery.workspaceId } });
        if (!secret) {
          result = { error: "The workspace has no webhook secret", refused: true };
        } else {
          const secrets = [secret.secret];
          if (secret.previousSecret && secret.previousExpiresAt && secret.previousExpiresAt > startedAt) {
            secrets.push(secret.previousSecret);
          }
          result = await post(delivery, secrets, input.timeoutMs);
        }
      }
      const finishedAt = clock.now();
      const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
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
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
