// A run's step log as the API shows it (GET /api/runs/{id}/steps): one entry per node attempt
// with the node's input rebuilt, large outputs previewed, and the pinned definition's graph.
import type { Config } from "../../../lib/config.js";
import type { PrismaClient } from "../../../lib/db.js";
import { isBlobRef } from "../../contracts/run-flow.js";
import type { FlowDefinition } from "../../contracts/flow-definition.js";
import { buildGraph, topologicalOrder } from "../../flows/graph.js";
import { keyedInput } from "../../flows/node-input.js";
import { handlingOf } from "../../flows/plan.js";
import type { NodeRegistry } from "../../nodes/registry.js";
import { jsonBytes, replaceBlobRefs } from "../records/blobs.js";
import type { RerunRecord } from "../records/run-records.js";
import { pinnedRun, RunNotFound, type RunReadDeps } from "./run-reads.js";
import { stepInputs } from "./step-inputs.js";

export interface StepLogDeps extends RunReadDeps {
  nodes: NodeRegistry;
  config: Pick<Config, "STEP_OUTPUT_MAX_BYTES">;
}

/** How the step log shows an output stored apart from its step (a blob reference): its size only. */
const storedOutput = (ref: { bytes: number }) => ({ truncated: true, bytes: ref.bytes });

/** What a step log shows of an output: the output, or a preview when it is large. */
export function shownOutput(maxBytes: number, output: unknown) {
  if (isBlobRef(output)) return storedOutput(output);
  if (output === null || output === undefined) return null;
  const bytes = jsonBytes(output);
  return bytes <= maxBytes ? output : { truncated: true, bytes, preview: JSON.stringify(output).slice(0, 1000) };
}

/** A step input as the step log shows it: stored outputs inside it as `{truncated, bytes}`, large ones previewed. */
const shownInput = (maxBytes: number, input: unknown) => shownOutput(maxBytes, replaceBlobRefs(input, storedOutput));

/** Whether a node type takes its input keyed by parent id (merge). */
function keyedType(nodes: NodeRegistry, type: string): boolean {
  const definition = nodes.get(type);
  return definition ? keyedInput(handlingOf(definition)) : false;
}

/**
 * The nodes a rerun (or a retry) took over from the run it reruns, as its record names them; a
 * retry recorded before reruns were kept took over those that succeeded there.
 */
async function carriedOver(
  prisma: PrismaClient,
  run: { retryOf: string | null; rerun: RerunRecord | null },
): Promise<Set<string>> {
  if (run.rerun) return new Set(run.rerun.carried);
  const retryOf = run.retryOf;
  if (!retryOf) return new Set();
  const rows = await prisma.runStep.findMany({
    where: { runId: retryOf, status: "success" },
    select: { nodeId: true },
    distinct: ["nodeId"],
  });
  return new Set(rows.map((row) => row.nodeId));
}

/** The pinned definition's nodes in the engine's order (definition order if it ever held a cycle) and edges. */
function pinnedGraph(definition: FlowDefinition | null, carried: Set<string>, retryOf: string | null) {
  if (!definition) return { nodes: null, edges: null };
  const edges = definition.edges ?? [];
  const byId = new Map(definition.nodes.map((node) => [node.id, node]));
  let order: string[];
  try {
    order = topologicalOrder(buildGraph(definition.nodes, edges));
  } catch {
    order = [...byId.keys()];
  }
  return {
    nodes: order.map((id) => {
      const node = byId.get(id)!;
      const position = node.position as { x?: unknown; y?: unknown } | undefined;
      return {
        id,
        type: node.type,
        name: node.name ?? null,
        position:
          typeof position?.x === "number" && typeof position.y === "number" ? { x: position.x, y: position.y } : null,
        carried_over_from: carried.has(id) ? retryOf : null,
      };
    }),
    edges: edges.map((edge) => ({ from: edge.from, to: edge.to, branch: edge.branch ?? null })),
  };
}

/** The run's step rows in the order they ran, outputs and errors opened. */
async function openedSteps({ prisma, seal }: RunReadDeps, id: string) {
  const stored = await prisma.runStep.findMany({
    where: { runId: id },
    orderBy: [{ startedAt: { sort: "asc", nulls: "last" } }, { nodeId: "asc" }, { attempt: "asc" }],
  });
  return stored.map((step) => ({ ...step, output: seal.open(step.output), error: seal.open(step.error) }));
}

/**
 * One entry per node attempt. Each carries the node's `input`, rebuilt from the run's input,
 * its pinned definition and the recorded outputs by the engine's own function (see
 * core/runs/reads/step-inputs.ts), or null with `input_unavailable` saying why.
 */
export async function runStepLog(deps: StepLogDeps, workspaceId: string, id: string) {
  const maxBytes = deps.config.STEP_OUTPUT_MAX_BYTES;
  const [run, steps] = await Promise.all([pinnedRun(deps, workspaceId, id), openedSteps(deps, id)]);
  if (!run) throw new RunNotFound();
  const carried = await carriedOver(deps.prisma, run);
  const carriedFrom = run.rerunOf ?? run.retryOf;
  const inputs = stepInputs({
    definition: run.definition,
    runInput: run.input,
    steps,
    keyed: (type) => keyedType(deps.nodes, type),
  });
  // Each node's input as shown, once for all its attempts.
  const shownInputs = new Map(
    [...inputs].map(([nodeId, input]) => [nodeId, input.unavailable ? null : shownInput(maxBytes, input.input)]),
  );
  return {
    items: steps.map((step) => ({
      node_id: step.nodeId,
      type: step.type,
      status: step.status,
      attempt: step.attempt,
      branch: step.branch,
      started_at: step.startedAt?.toISOString() ?? null,
      finished_at: step.finishedAt?.toISOString() ?? null,
      duration_ms: step.durationMs,
      input: shownInputs.get(step.nodeId) ?? null,
      input_unavailable: inputs.get(step.nodeId)!.unavailable,
      output: shownOutput(maxBytes, step.output),
      error: step.error ?? null,
      // A carried-over node never runs in the retry: its one success there is the row taken over.
      carried_over_from: step.status === "success" && carried.has(step.nodeId) ? carriedFrom : null,
    })),
    ...pinnedGraph(run.definition, carried, carriedFrom),
  };
}
