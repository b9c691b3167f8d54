// One activity per node type, named after it, so the Temporal UI reads like the flow. Each
// records its step, resolves large outputs, renders the config's templates, checks the config
// and runs the node. This file only wires: each activity's behaviour is in node/, one per file.
import type { Clock } from "../../lib/clock.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import { createEgressGuard, type EgressGuard } from "../../lib/egress/guarded-fetch.js";
import type { Config } from "../../lib/config.js";
import { type ApiKeyStore, createApiKeyStore } from "../../core/credentials/ai-keys.js";
import { createLanguageModels, type LanguageModels } from "../../core/ai/language-models.js";
import type {
  CancelUnstartedRunsInput,
  CompleteStepInput,
  DelayStart,
  FinalizeRunInput,
  LoopStart,
  NodeActivityInput,
  NodeActivityResult,
  NodeBudgetWaitFinishInput,
  NodeBudgetWaitStartInput,
  NodeHandling,
  RecordHandledFailureInput,
  RecordStepsInput,
} from "../../core/contracts/run-flow.js";
import type { NodeTestInput, NodeTestResult } from "../../core/contracts/node-test.js";
import type { FinishWaitInput, WaitStart } from "../../core/contracts/waits.js";
import { createCredentialsService, type CredentialsService } from "../../core/credentials/credentials.service.js";
import { createNodeCredentials, type NodeCredentialsHost } from "../../core/credentials/node-credentials.js";
import { handlingOf } from "../../core/flows/plan.js";
import type { NodeRegistry } from "../../core/nodes/registry.js";
import { createBlobStore } from "../../core/runs/records/blobs.js";
import { createStepStore } from "../../core/runs/records/steps.js";
import { createItemRecords } from "../../core/runs/records/item-records.js";
import { createSandboxes, type Sandboxes } from "../../core/sandbox/js-sandbox-pool.js";
import {
  cancelUnstartedRuns,
  completeStep,
  finalizeRun,
  finishWait,
  recordHandledFailure,
  recordSteps,
} from "./node/run-bookkeeping.js";
import { runNodeAtOnce } from "./node/node-behaviour.js";
import { finishNodeBudgetWait, startNodeBudgetWait } from "./node/budget-holds.js";
import {
  definitionOf,
  type EgressConfigKey,
  type NodeActivityConfig,
  type NodeActivityParts,
} from "./node/node-parts.js";
import { startAgentStep, startDelayStep, startLoopStep, startWaitStep } from "./node/waiting-steps.js";
import { testNode } from "./node/test-node.js";

export { HEARTBEAT_INTERVAL_MS } from "./node/node-attempt.js";
export { ITEMS_HEARTBEAT_MS } from "./node/node-items.js";
export type { EgressConfigKey } from "./node/node-parts.js";

export interface NodeActivityDeps {
  prisma: PrismaClient;
  clock: Clock;
  nodes: NodeRegistry;
  config: NodeActivityConfig;
  /** The outbound-call guard handed to nodes as env.fetch; built from the config when absent. */
  egress?: EgressGuard;
  /** Language-model providers handed to nodes as env.ai; built from the config when absent. */
  models?: LanguageModels;
  /** The workspaces' credentials; built from the config when absent. */
  credentials?: CredentialsService;
  /** What nodes get as env.credentials, and AI nodes' keys; built from the others when absent. */
  nodeCredentials?: NodeCredentialsHost;
  /** Provider keys handed to nodes as env.apiKey; built from the config when absent. */
  apiKeys?: ApiKeyStore;
  /**
   * The sandboxes handed to nodes as env.sandbox (code, transform); built from the config when
   * absent (their threads and processes start on first use and, idle, do not hold the process).
   */
  sandbox?: Sandboxes;
  /** Operator metrics; absent in tests that do not look at them. */
  metrics?: NodeActivityParts["metrics"];
  /** See ActivityDeps.runEnded. */
  runEnded?: NodeActivityParts["runEnded"];
}

export const egressGuardFrom = (config: Pick<Config, EgressConfigKey>) =>
  createEgressGuard({
    allowlist: config.EGRESS_ALLOWLIST,
    timeoutMs: config.EGRESS_TIMEOUT,
    maxResponseBytes: config.EGRESS_MAX_RESPONSE_BYTES,
    maxRedirects: config.EGRESS_MAX_REDIRECTS,
  });

/** The parts every node activity shares, from the deps and, for what they leave out, the config. */
function nodeActivityParts(deps: NodeActivityDeps): NodeActivityParts {
  const { prisma, clock, nodes, config, metrics, runEnded } = deps;
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  const egress = deps.egress ?? egressGuardFrom(config);
  const credentials = deps.credentials ?? createCredentialsService(deps);
  const apiKeys = deps.apiKeys ?? createApiKeyStore(deps);
  return {
    prisma,
    clock,
    nodes,
    config,
    metrics,
    runEnded,
    seal,
    steps: createStepStore({ prisma, clock, seal }),
    items: createItemRecords({ prisma, clock, seal }),
    blobs: createBlobStore({ prisma, offloadBytes: config.RUN_OUTPUT_OFFLOAD_BYTES, seal }),
    egress,
    models: deps.models ?? createLanguageModels(config),
    sandbox: deps.sandbox ?? createSandboxes(config),
    // One per worker: OAuth2 tokens are cached here until shortly before they expire.
    nodeCredentials:
      deps.nodeCredentials ?? createNodeCredentials({ credentials, apiKeys, fetch: egress.fetch, clock }),
  };
}

/** The activity of a node type, by its handling: a step that waits in the workflow, or one that runs at once. */
function activityForHandling(parts: NodeActivityParts, handling: NodeHandling) {
  const waiting: Partial<Record<NodeHandling, (args: NodeActivityInput) => Promise<unknown>>> = {
    delay: (args) => startDelayStep(parts, args),
    wait: (args) => startWaitStep(parts, args),
    loop: (args) => startLoopStep(parts, args),
    agent: (args) => startAgentStep(parts, args),
  };
  return waiting[handling] ?? ((args: NodeActivityInput) => runNodeAtOnce(parts, handling, args));
}

export function createNodeActivities(deps: NodeActivityDeps) {
  const parts = nodeActivityParts(deps);
  const perType: Record<string, (args: NodeActivityInput) => Promise<unknown>> = {};
  for (const type of deps.nodes.types()) {
    perType[type] = activityForHandling(parts, handlingOf(definitionOf(deps.nodes, type)));
  }
  return {
    ...perType,
    testNode: (test: NodeTestInput) => testNode(parts, test),
    recordSteps: (input: RecordStepsInput) => recordSteps(parts, input),
    recordHandledFailure: (input: RecordHandledFailureInput) => recordHandledFailure(parts, input),
    completeStep: (input: CompleteStepInput) => completeStep(parts, input),
    finishWait: (input: FinishWaitInput) => finishWait(parts, input),
    startNodeBudgetWait: (input: NodeBudgetWaitStartInput) => startNodeBudgetWait(parts, input),
    finishNodeBudgetWait: (input: NodeBudgetWaitFinishInput) => finishNodeBudgetWait(parts, input),
    finalizeRun: (input: FinalizeRunInput) => finalizeRun(parts, input),
    cancelUnstartedRuns: (input: CancelUnstartedRunsInput) => cancelUnstartedRuns(parts, input),
  };
}

/** The activities the runFlow workflow calls besides the per-type ones. */
export interface RunActivities {
  recordSteps(input: RecordStepsInput): Promise<void>;
  recordHandledFailure(input: RecordHandledFailureInput): Promise<void>;
  completeStep(input: CompleteStepInput): Promise<unknown>;
  finalizeRun(input: FinalizeRunInput): Promise<unknown>;
  cancelUnstartedRuns(input: CancelUnstartedRunsInput): Promise<void>;
  delay(input: NodeActivityInput): Promise<DelayStart>;
  wait(input: NodeActivityInput): Promise<WaitStart>;
  finishWait(input: FinishWaitInput): Promise<unknown>;
  startNodeBudgetWait(input: NodeBudgetWaitStartInput): Promise<{ waitId: string; since: string }>;
  finishNodeBudgetWait(input: NodeBudgetWaitFinishInput): Promise<void>;
  loop(input: NodeActivityInput): Promise<LoopStart>;
}

/** The activity of a node's test run (worker/workflows/node-test.workflow.ts). */
export interface NodeTestActivities {
  testNode(input: NodeTestInput): Promise<NodeTestResult>;
}

/** Every node-type activity has this shape. */
export type NodeActivity = (input: NodeActivityInput) => Promise<NodeActivityResult>;
