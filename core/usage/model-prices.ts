// The price table a workspace sees and sets: the shipped defaults, and its own prices over them.
import type { Clock } from "../../lib/clock.js";
import type { PrismaClient } from "../../lib/db.js";
import { recordAudit, type AuditContext } from "../audit/audit-log.js";
import { DomainError } from "../errors.js";
import { DEFAULT_PRICES } from "./prices.js";

type PricesDeps = { prisma: PrismaClient; clock: Clock };

export interface PriceView {
  provider: string;
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  /** default: shipped with the service; workspace: the workspace's own (over a default of the same model, if any). */
  source: "default" | "workspace";
  /** The shipped price a workspace's own replaces, if any. */
  default: { input_per_mtok: number; output_per_mtok: number } | null;
  updated_at: string | null;
}

const defaultOf = (provider: string, model: string) => {
  const entry = DEFAULT_PRICES.find((price) => price.provider === provider && price.model === model);
  return entry ? { input_per_mtok: entry.input_per_mtok, output_per_mtok: entry.output_per_mtok } : null;
};

/** The workspace's price table: its own prices, then the defaults it does not replace; by provider and model. */
export async function listPrices({ prisma }: PricesDeps, workspaceId: string): Promise<PriceView[]> {
  const own = await prisma.modelPrice.findMany({ where: { workspaceId } });
  const replaced = new Set(own.map((price) => `${price.provider}\u0000${price.model}`));
  const rows: PriceView[] = [
    ...own.map((price) => ({
      provider: price.provider,
      model: price.model,
      input_per_mtok: Number(price.inputPerMtok),
      output_per_mtok: Number(price.outputPerMtok),
      source: "workspace" as const,
      default: defaultOf(price.provider, price.model),
      updated_at: price.updatedAt.toISOString(),
    })),
    ...DEFAULT_PRICES.filter((price) => !replaced.has(`${price.provider}\u0000${price.model}`)).map((price) => ({
      ...price,
      source: "default" as const,
      default: null,
      updated_at: null,
    })),
  ];
  return rows.sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
}

export interface PriceChange {
  provider: string;
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
}

/** Sets the workspace's own price of a model (calls from now on cost it; recorded calls keep theirs). */
export async function setPrice(
  { prisma, clock }: PricesDeps,
  workspaceId: string,
  userId: string,
  price: PriceChange,
  audit?: AuditContext,
) {
  const now = clock.now();
  const data = {
    inputPerMtok: price.input_per_mtok,
    outputPerMtok: price.output_per_mtok,
    updatedBy: userId,
    updatedAt: now,
  };
  await prisma.$transaction(async (tx) => {
    await tx.modelPrice.upsert({
      where: { workspaceId_provider_model: { workspaceId, provider: price.provider, model: price.model } },
      create: { workspaceId, provider: price.provider, model: price.model, ...data },
      update: data,
    });
    // Prices are no secret: the row keeps them, as what later calls cost depends on them.
    if (audit)
      await recordAudit(tx, clock, audit, {
        action: "price.set",
        object: { kind: "workspace", id: workspaceId },
        details: { ...price },
      });
  });
  return (await listPrices({ prisma, clock }, workspaceId)).find(
    (row) => row.provider === price.provider && row.model === price.model && row.source === "workspace",
  )!;
}

/** Removes the workspace's own price of a model: its default (if any) applies again. */
export async function removePrice(
  { prisma, clock }: PricesDeps,
  workspaceId: string,
  model: { provider: string; model: string },
  audit?: AuditContext,
) {
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.modelPrice.deleteMany({ where: { workspaceId, ...model } });
    if (count === 0)
      throw new DomainError(
        "not_found",
        "not_found",
        `This workspace sets no price of ${model.provider} ${model.model}`,
      );
    if (audit)
      await recordAudit(tx, clock, audit, {
        action: "price.removed",
        object: { kind: "workspace", id: workspaceId },
        details: { ...model },
      });
  });
}
