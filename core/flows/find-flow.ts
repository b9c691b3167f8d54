import type { PrismaClient } from "../../lib/db.js";
import { FlowNotFound } from "../errors.js";
import type { FlowRow } from "./flow-views.js";

/** The flow of this workspace; FlowNotFound when it has none of that id. */
export async function findFlow(prisma: PrismaClient, workspaceId: string, id: string): Promise<FlowRow> {
  const flow = await prisma.flow.findFirst({ where: { id, workspaceId } });
  if (!flow) throw new FlowNotFound();
  return flow;
}
