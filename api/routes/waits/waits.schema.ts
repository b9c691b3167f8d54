import { z } from "zod";
import { pageQueryFields } from "../../http/cursor.js";
import { DECIDER_ROLES, WAIT_MODES, WAIT_REASONS } from "../../../core/contracts/waits.js";

export const waitIdSchema = z.string().regex(/^wait_[0-9a-f]{24}$/, { message: "must be a wait id (wait_…)" });

export const listWaitsQuerySchema = z.object({ ...pageQueryFields() });

export const decisionSchema = z.strictObject({
  decision: z.enum(["approve", "reject"]),
  comment: z.string().max(2000).optional(),
});

/**
 * A wait of a wait node, an agent's tool call awaiting approval, or a model call a budget holds (GET /api/waits, GET
 * /api/runs/{id}/waits, GET /api/agent/runs/{id}/waits, a decision's answer).
 */
export const waitSchema = z
  .object({
    id: z.string(),
    run_id: z.string().nullable().meta({ description: "A wait node's run; null for an agent's tool approval" }),
    flow_id: z.string().nullable(),
    flow_name: z.string().nullable(),
    agent_run_id: z.string().nullable().meta({ description: "An agent's tool approval: the agent run that waits" }),
    agent_id: z.string().nullable(),
    tool: z
      .object({
        name: z.string(),
        arguments: z.unknown().meta({ description: "The arguments the model proposed (their text when not JSON)" }),
      })
      .nullable()
      .meta({ description: "An agent's tool approval: the tool call waiting for the decision" }),
    node_id: z.string().nullable(),
    node_name: z.string().nullable(),
    reason: z.enum(WAIT_REASONS).meta({
      description:
        "node: a wait node; tool: an agent's tool call awaiting approval; budget: a model call a budget holds back (admins decide: approve runs that call once, reject stops the agent)",
    }),
    budget: z
      .object({
        id: z.string(),
        flow_id: z.string().nullable().meta({ description: "null: the workspace's budget" }),
        metric: z.enum(["tokens", "cost"]),
        period: z.enum(["day", "month"]),
        limit: z.number(),
        spent: z.number().meta({ description: "What the period had spent when the call was held" }),
      })
      .nullable()
      .meta({ description: "budget: the budget reached, as it stood" }),
    mode: z.enum(WAIT_MODES),
    message: z.string().nullable().meta({ description: "What the deciders are asked (the node's rendered message)" }),
    status: z.enum(["pending", "decided", "expired", "cancelled"]),
    decision: z.enum(["approved", "rejected", "resumed"]).nullable(),
    comment: z.string().nullable(),
    decided_by: z.object({ id: z.string(), name: z.string() }).nullable(),
    decided_at: z.string().nullable(),
    since: z.string().meta({ description: "When the wait started" }),
    expires_at: z.string().nullable().meta({ description: "When its timeout ends it; null: no timeout" }),
    approver_user_id: z.string().nullable().meta({ description: "approval: the one member who may decide, if any" }),
    min_role: z.enum(DECIDER_ROLES).meta({ description: "approval: the least role that may decide" }),
    can_decide: z.boolean().meta({ description: "Whether the caller may approve or reject it now" }),
  })
  .meta({ id: "Wait" });

export const runWaitSchema = waitSchema
  .extend({
    resume_url: z.string().nullable().meta({
      description:
        "resume: the path of the single-use resume URL while the wait is pending, for members who may decide; POST a JSON body to it, no session needed",
    }),
  })
  .meta({ id: "RunWait" });

export const resumeAnswerSchema = z.object({ run_id: z.string(), status_url: z.string() });
