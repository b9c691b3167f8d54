// A test run of a draft (POST /api/flows/{id}/test-runs): the draft, checked as a save checks a
// definition (when none is given, the flow's saved draft, or its published version without one), run once on a typed input as a
// test run (trigger `test`), on an active or an inactive flow, without saving, activating or
// turning on anything (its hook and schedule stay as they are). Its nodes run for real: an HTTP
// node calls out, so each test run counts in the workspace's TEST_RUN_RATE_LIMIT a minute. As
// every test run, it fires no run event (no outgoing webhook, no error flow), counts in no run
// quota and is left out of metrics and failures; runs it starts itself (flow.call, loop) are the
// called flows' ordinary runs.
//
// Pinned data and "run to here" (issue 51): `pins` gives nodes of the draft their output (and
// branch), so they are never executed (an HTTP node pinned calls nothing); `until` runs only that
// node and its ancestors. A pinned branching node follows the branch its pin names, as a run
// follows the node's own decision (test-run-pins.ts). Pins live with the editor's draft and come with each test run: they are
// never part of a saved definition, so production runs cannot see them.
import type { Quota } from "../../../lib/quota.js";
import type { CredentialsService } from "../../credentials/credentials.service.js";
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import type { RunFlowInput } from "../../contracts/run-flow.js";
import { checkDefinition } from "../../flows/definition-checks.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import type { StartedRun } from "./launch.js";
import { pinFlow } from "./pinned-flow.js";
import { pinDraft } from "./replay-run.js";
import { RerunRaced, type RerunCaller, type RerunRunDeps } from "./rerun-run.js";
import { pinnedBranch, TestRunNodeRefused } from "./test-run-pins.js";

export { TestRunNodeRefused };

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
  /** Pinned outputs by node id: those nodes are not executed (triggers cannot be pinned). */
  pins?: Record<string, { output?: unknown; branch?: string }>;
  /** Run to here: only this node and its ancestors run. */
  until?: string;
}

/** The node `until` and its ancestors, with the edges between them. */
export function upTo(definition: FlowDefinition, until: string): FlowDefinition {
  if (!definition.nodes.some((node) => node.id === until)) {
    throw new TestRunNodeRefused(`Run to here: no node ${until} in the draft`);
  }
  const kept = new Set([until]);
  // Bounded: each pass adds a node or stops, and there are as many passes as nodes at most.
  for (let pass = 0; pass < definition.nodes.length; pass++) {
    const before = kept.size;
    for (const edge of definition.edges) if (kept.has(edge.to)) kept.add(edge.from);
    if (kept.size === before) break;
  }
  return {
    ...definition,
    nodes: definition.nodes.filter((node) => kept.has(node.id)),
    edges: definition.edges.filter((edge) => kept.has(edge.from) && kept.has(edge.to)),
  };
}

/** The pins of nodes the run has, as the workflow's given outputs; a pin on a trigger or no node is refused. */
function givenOf(
  nodes: NodeRegistry,
  definition: FlowDefinition,
  all: FlowDefinition,
  pins: NonNullable<TestRunRequest["pins"]>,
): RunFlowInput["given"] {
  const given: NonNullable<RunFlowInput["given"]> = {};
  for (const [id, pin] of Object.entries(pins)) {
    const node = all.nodes.find((candidate) => candidate.id === id);
    if (!node) throw new TestRunNodeRefused(`Pinned data for ${id}, no node of the draft`);
    const type = nodes.get(node.type)!;
    if (type.kind === "trigger") {
      throw new TestRunNodeRefused(`${id} is a trigger: its output is the test input, not pinned`);
    }
    // Checked even where "run to here" leaves the node out: the same pins serve every test run.
    const branch = pinnedBranch(node, type, pin.branch);
    // A pin of a node "run to here" leaves out is not needed.
    if (!definition.nodes.some((kept) => kept.id === id)) continue;
    given[id] = { output: pin.output ?? null, ...(branch ? { branch } : {}) };
  }
  return Object.keys(given).length > 0 ? given : undefined;
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
  // The head: the flow's draft when it has one (what its editor opens), else its published version.
  const current = await pinFlow(deps.prisma, deps.nodes, { workspaceId, flowId, version: "head" }, { active: false });
  const draft =
    request.definition === undefined ? undefined : await checkDefinition(deps, workspaceId, request.definition);
  const all = draft ?? current.definition;
  const ran = request.until === undefined ? all : upTo(all, request.until);
  const given = request.pins ? givenOf(deps.nodes, ran, all, request.pins) : undefined;
  const flow =
    ran === current.definition
      ? current
      : await pinDraft(deps, workspaceId, flowId, ran, { active: false, version: current.version });
  const run = await deps.starter.launch(flow, {
    input: request.input,
    trigger: "test",
    createdBy: caller.by ?? undefined,
    test: true,
    inactiveToo: true,
    quota: request.quota,
    ...(given ? { given } : {}),
    // The draft is no saved version: the run records the flow's version it was drafted on.
    anyVersion: true,
  });
  if (!run) throw new RerunRaced();
  return run;
}
