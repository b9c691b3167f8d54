import { z } from "zod";
import { parseDuration } from "../../../lib/duration.js";
import { DECIDER_ROLES, WAIT_MODES, WAIT_TIMEOUT_OUTCOMES } from "../../contracts/waits.js";
import { defineNode } from "../define-node.js";

export const MAX_WAIT_TIMEOUT_MS = 365 * 86_400_000;

export const waitConfig = z.object({
  mode: z.enum(WAIT_MODES).default("approval").meta({ label: "Wait for" }),
  message: z
    .string()
    .max(2000)
    .optional()
    .meta({ label: "Message to the deciders", placeholder: "Refund {{ input.amount }} EUR to {{ input.customer }}?" }),
  timeout: z
    .string()
    .refine((value) => {
      const ms = parseDuration(value);
      return ms !== undefined && ms > 0 && ms <= MAX_WAIT_TIMEOUT_MS;
    }, "must be a duration such as 30m, 12h or 3d, at most 365d")
    .optional()
    .meta({ label: "Timeout (none: wait until decided)", placeholder: "3d" }),
  on_timeout: z.enum(WAIT_TIMEOUT_OUTCOMES).default("fail").meta({ label: "On timeout" }),
  approver_user_id: z
    .string()
    .regex(/^usr_[0-9a-f]{24}$/, "must be a user id (usr_…)")
    .optional()
    .meta({ label: "Only this user may decide (approval)", placeholder: "usr_…" }),
  min_role: z.enum(DECIDER_ROLES).default("editor").meta({ label: "Least role that may decide (approval)" }),
});
export type WaitConfig = z.infer<typeof waitConfig>;

/** The edges a wait can follow: its decisions, and `timeout` when a timeout takes a branch. */
export function waitBranches(config: Pick<WaitConfig, "mode" | "timeout" | "on_timeout">): string[] {
  const decisions = config.mode === "resume" ? ["resumed"] : ["approved", "rejected"];
  return config.timeout !== undefined && config.on_timeout === "branch" ? [...decisions, "timeout"] : decisions;
}

export const waitNode = defineNode({
  type: "wait",
  version: 1,
  name: "Wait for approval or resume",
  category: "logic",
  description:
    'Pauses the run until a person decides or another system resumes it, durably (days, across restarts; nothing is held meanwhile). approval: members allowed to decide approve or reject, with a comment; outputs {decision, comment, decided_by, decided_at} and follows "approved" or "rejected". resume: a single-use resume URL shown on the run; the JSON body POSTed to it is the output, following "resumed". An optional timeout fails the node, or follows "timeout".',
  kind: "control",
  reachesOutside: true,
  execution: "local",
  config: waitConfig,
  branches: waitBranches,
});
