import type { Clock } from "../../../lib/clock.js";
import type { PrismaClient } from "../../../lib/db.js";
import { generateWebhookSecret } from "../../../lib/webhooks/signing.js";

/** A new secret, shown once; the previous one keeps signing for `graceMs` (WEBHOOK_SECRET_GRACE). */
export async function rotateWebhookSecret(
  { prisma, clock, graceMs }: { prisma: PrismaClient; clock: Clock; graceMs: number },
  workspaceId: string,
) {
  const now = clock.now();
  const secret = generateWebhookSecret();
  const previousExpiresAt = new Date(now.getTime() + graceMs);
  const existing = await prisma.webhookSecret.findUnique({ where: { workspaceId } });
  await prisma.webhookSecret.upsert({
    where: { workspaceId },
    create: { workspaceId, secret },
    update: {
      secret,
      previousSecret: existing?.secret ?? null,
      previousExpiresAt: existing ? previousExpiresAt : null,
      rotatedAt: now,
    },
  });
  return {
    secret,
    previous_secret_expires_at: existing ? previousExpiresAt.toISOString() : null,
  };
}
