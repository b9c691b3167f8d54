// A test run of a draft (POST /api/flows/{id}/test-runs): the draft, checked as a save checks a
// definition (the flow's saved current one when none is given), run once on a typed input as a
// test run (trigger `test`), on an active or an inactive flow, without saving, activating or
// turning on anything (its hook and schedule stay as they are). Its nodes run for real: an HTTP
// node calls out, so each test run counts in the workspace's TEST_RUN_RATE_LIMIT a minute. As
// every test run, it fires no run event (no outgoing webhook, no error flow), counts in no run
// quota and is left out of metrics and failures; runs it starts itself (flow.call, loop) are the
// called flows' ordinary runs.
import type { Quota } from "../../../lib/quota.js";
import type { CredentialsService } from "../../credentials/credentials.service.js";
import { checkDefinition } from "../../flows/definition-checks.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import type { StartedRun } from "./launch.js";
import { pinFlow } from "./pinned-flow.js";
import { pinDraft } from "./replay-run.js";
import { RerunRaced, type RerunCaller, type RerunRunDeps } from "./rerun-run.js";

export interface TestRunDeps extends RerunRunDeps {
  nodes: NodeRegistry;
  credentials: Pick<CredentialsService, "checkReferences">;
}

export interface TestRunRequest {
  flowId: string;
  /** The draft, unchecked (the flow's saved current definition when absent). */
  definition?: unknown;
  input: Record<string, unknown>;
  /** The workspace's limit of test runs a minute, counted by the statement that records the run. */
  quota?: Quota;
}

/**
 * Starts a test run of the draft. FlowNotFound (404) for a flow of another workspace,
 * InvalidDefinition (400) for a draft a save would refuse, InvalidPlan (400), FlowInactive (409)
 * for an archived flow, RateLimited (429) over the quota; nothing is recorded then.
 */
export async function startTestRun(
  deps: TestRunDeps,
  caller: RerunCaller,
  request: TestRunRequest,
): Promise<StartedRun> {
  const { workspaceId } = caller;
  const { flowId } = request;
  // First the flow (404 before the draft is looked at), then the draft.
  const current = await pinFlow(deps.prisma, deps.nodes, { workspaceId, flowId }, { active: false });
  const flow =
    request.definition === undefined
      ? current
      : await pinDraft(deps, workspaceId, flowId, await checkDefinition(deps, workspaceId, request.definition), {
          active: false,
        });
  const run = await deps.starter.launch(flow, {
    input: request.input,
    trigger: "test",
    createdBy: caller.by ?? undefined,
    test: true,
    inactiveToo: true,
    quota: request.quota,
    // The draft is no saved version: the run records the flow's version it was drafted on.
    anyVersion: true,
  });
  if (!run) throw new RerunRaced();
  return run;
}
