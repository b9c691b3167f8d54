// People (and other systems) in the loop: the waits a member may decide (a wait node's, or an
// agent's tool call awaiting approval), a decision, a resume. The database says what is pending
// and who may decide; the run's (or agent run's) workflow takes the decision
// (decideWaitUpdate), refusing it when the wait was settled meanwhile, and answers once the wait's
// record is closed. The factory only wires: lists (wait-lists.ts), decisions and resumes
// (wait-decide.ts), the hand-over to the workflow (wait-delivery.ts), views (wait-views.ts), and
// the budget waits a raised budget no longer holds (budget-lifted.ts).
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { AuditContext, AuditSource } from "../audit/audit-log.js";
import { createBlobStore } from "../runs/records/blobs.js";
import { approveLiftedBudgetWaits, type LiftedBudget } from "./budget-lifted.js";
import type { WaitsContext, WaitsServiceDeps } from "./wait-context.js";
import { decideWait, resumeWait } from "./wait-decide.js";
import { waitInbox, waitsOfAgentRun, waitsOfRun } from "./wait-lists.js";
import type { WaitMember } from "./wait-views.js";

export type { WaitMember } from "./wait-views.js";

export function createWaitsService(deps: WaitsServiceDeps) {
  const seal = createJsonSeal(deps.config.SVC_ENCRYPTION_KEY);
  const blobs = createBlobStore({ prisma: deps.prisma, offloadBytes: deps.config.RUN_OUTPUT_OFFLOAD_BYTES, seal });
  const context: WaitsContext = { ...deps, seal, blobs };
  return {
    inbox: (member: WaitMember, page: Parameters<typeof waitInbox>[2]) => waitInbox(context, member, page),
    ofRun: (member: WaitMember, runId: string) => waitsOfRun(context, member, runId),
    ofAgentRun: (member: WaitMember, agentRunId: string) => waitsOfAgentRun(context, member, agentRunId),
    decide: (
      member: WaitMember,
      waitId: string,
      decision: Parameters<typeof decideWait>[3],
      audit?: Parameters<typeof decideWait>[4],
    ) => decideWait(context, member, waitId, decision, audit),
    resume: (token: string, body: unknown, source?: AuditSource) => resumeWait(context, token, body, source),
    approveLiftedBudgetWaits: (audit: AuditContext, budget: LiftedBudget) =>
      approveLiftedBudgetWaits(context, audit, budget),
  };
}

export type WaitsService = ReturnType<typeof createWaitsService>;
