// Where a running run of a flow with `concurrency` or `throttle` waits (docs/engine.md,
// "Concurrency gates"): asked of its gate (the gateQueue query) when the API shows one run, or
// for a page of the runs list at once (runQueues: one query per gate). The
// runs table stores `queued` once the run has waited a moment (run-flow/concurrency-slot.ts); the
// gate gives its place and reason, and shows one that just began waiting queued too. A run of a
// flow with `debounce` whose window is still open (debounce_windows) reads queued too.
import type { Client } from "@temporalio/client";
import { gateQueueQuery } from "../../contracts/concurrency-gate.js";
import { concurrencyGateId, shownKey } from "../../engine/concurrency-gates.js";
import type { DebounceSetting, FlowDefinition } from "../../contracts/flow-definition.js";
import { gateSetting, renderConcurrencyKey } from "../../flows/concurrency-key.js";
import { Prisma, sqlQuery } from "../../../lib/db.js";
import type { RunReadDeps } from "./run-reads.js";

/** How long a read waits for the gate's answer before showing the run as running. */
const QUERY_DEADLINE_MS = 2000;

/** A queued run's place: why it waits, for which key (as the gate shows it) and its place (1: next). */
export interface RunQueue {
  reason: string;
  key: string;
  position: number;
}

/**
 * The run's place in its gate's queue; undefined when it is not waiting there (no gate, granted,
 * its key did not render, or the gate did not answer in time).
 */
export async function runQueue(
  deps: RunReadDeps & { temporal: Client },
  run: { id: string; workspaceId: string; flowId: string; status: string },
): Promise<RunQueue | undefined> {
  if (run.status !== "running" && run.status !== "queued") return undefined;
  return (await runQueues(deps, run.workspaceId, [run.id])).get(run.id);
}

/** A run not ended, with what its place is computed from. */
interface UnendedRun {
  id: string;
  flowId: string;
  input: unknown;
  definition: FlowDefinition | null;
  /** Its debounce window is still open (debounce_windows). */
  debouncing: boolean;
}

/**
 * The places of those of the workspace's runs `runIds` that wait, by run id (runQueue's answer
 * for each): one statement for the runs, then one gateQueue query per gate they wait at, all at
 * once (GET /api/runs/queues, the runs list's reasons).
 */
export async function runQueues(
  deps: RunReadDeps & { temporal: Client },
  workspaceId: string,
  runIds: string[],
): Promise<Map<string, RunQueue>> {
  const places = new Map<string, RunQueue>();
  if (runIds.length === 0) return places;
  const runs = await sqlQuery<UnendedRun>(
    deps.prisma,
    Prisma.sql`
      SELECT r.id, r.flow_id AS "flowId", r.input, v.definition,
        EXISTS (SELECT 1 FROM debounce_windows d WHERE d.run_id = r.id) AS debouncing
      FROM runs r LEFT JOIN flow_versions v ON v.flow_id = r.flow_id AND v.version = r.version
      WHERE r.id = ANY(${runIds}::text[]) AND r.workspace_id = ${workspaceId} AND r.status IN ('running', 'queued')`,
  );
  const atGates = new Map<string, Array<{ runId: string; key: string; definition: FlowDefinition }>>();
  for (const run of runs) {
    const { definition } = run;
    if (!definition) continue;
    const input = deps.seal.open(run.input);
    if (definition.debounce && run.debouncing) {
      places.set(run.id, debouncePlace(definition.debounce, input));
      continue;
    }
    const gate = gateSetting(definition);
    if (!gate) continue;
    let key: string;
    try {
      key = renderConcurrencyKey(gate, input, gate.field);
    } catch {
      continue;
    }
    const gateId = concurrencyGateId(run.flowId, key);
    atGates.set(gateId, [...(atGates.get(gateId) ?? []), { runId: run.id, key, definition }]);
  }
  await Promise.all(
    [...atGates].map(async ([gateId, waiting]) => {
      const handle = deps.temporal.workflow.getHandle(gateId);
      const answer = await deps.temporal.connection
        .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(gateQueueQuery))
        .catch(() => undefined);
      for (const { runId, key, definition } of waiting) {
        const at = answer?.waiting.indexOf(runId) ?? -1;
        if (at !== -1) places.set(runId, { ...gateReason(definition, key), position: at + 1 });
      }
    }),
  );
  return places;
}

/** Why a run waits at its gate, and its key as shown. */
function gateReason({ concurrency, throttle }: FlowDefinition, key: string): Omit<RunQueue, "position"> {
  const shown = shownKey(key);
  const what =
    concurrency && throttle
      ? "a concurrency slot or a throttle window"
      : concurrency
        ? "a concurrency slot"
        : "a throttle window";
  return { reason: key === "" ? `waiting for ${what}` : `waiting for ${what} of key ${shown}`, key: shown };
}

/**
 * A run whose debounce window is still open (core/runs/start/debounce.ts) waits for it to close:
 * queued, first in its window (no other run waits there).
 */
function debouncePlace(setting: DebounceSetting, input: unknown): RunQueue {
  let key = "";
  try {
    key = renderConcurrencyKey(setting, input, "debounce.key");
  } catch {
    // Its window opened, so its first input rendered the key; shown without one otherwise.
  }
  const shown = shownKey(key);
  const what = `waiting for its debounce window to close (no start for ${setting.period_ms} ms)`;
  return { reason: key === "" ? what : `${what} of key ${shown}`, key: shown, position: 1 };
}
