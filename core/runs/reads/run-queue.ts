// Where a running run of a flow with `concurrency` or `throttle` waits (docs/engine.md,
// "Concurrency gates"): asked of its gate (the gateQueue query) when the API shows one run. The
// runs table stores `queued` once the run has waited a moment (run-flow/concurrency-slot.ts); the
// gate gives its place and reason, and shows one that just began waiting queued too. A run of a
// flow with `debounce` whose window is still open (debounce_windows) reads queued too.
import type { Client } from "@temporalio/client";
import { gateQueueQuery } from "../../contracts/concurrency-gate.js";
import { concurrencyGateId, shownKey } from "../../engine/concurrency-gates.js";
import type { DebounceSetting } from "../../contracts/flow-definition.js";
import { gateSetting, renderConcurrencyKey } from "../../flows/concurrency-key.js";
import { pinnedRun, type RunReadDeps } from "./run-reads.js";

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
  const pinned = await pinnedRun(deps, run.workspaceId, run.id);
  if (pinned?.definition?.debounce) {
    const debouncing = await debounceQueue(deps, run.id, pinned.definition.debounce, pinned.input);
    if (debouncing) return debouncing;
  }
  const gate = pinned?.definition ? gateSetting(pinned.definition) : undefined;
  if (!pinned || !gate) return undefined;
  let key: string;
  try {
    key = renderConcurrencyKey(gate, pinned.input, gate.field);
  } catch {
    return undefined;
  }
  const handle = deps.temporal.workflow.getHandle(concurrencyGateId(run.flowId, key));
  const answer = await deps.temporal.connection
    .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(gateQueueQuery))
    .catch(() => undefined);
  const at = answer?.waiting.indexOf(run.id) ?? -1;
  if (at === -1) return undefined;
  const shown = shownKey(key);
  const { concurrency, throttle } = pinned.definition!;
  const what =
    concurrency && throttle
      ? "a concurrency slot or a throttle window"
      : concurrency
        ? "a concurrency slot"
        : "a throttle window";
  return {
    reason: key === "" ? `waiting for ${what}` : `waiting for ${what} of key ${shown}`,
    key: shown,
    position: at + 1,
  };
}

/**
 * A run whose debounce window is still open (core/runs/start/debounce.ts) waits for it to close:
 * queued, first in its window (no other run waits there).
 */
async function debounceQueue(
  deps: RunReadDeps,
  runId: string,
  setting: DebounceSetting,
  input: unknown,
): Promise<RunQueue | undefined> {
  const open = await deps.prisma.debounceWindow.findFirst({ where: { runId }, select: { runId: true } });
  if (!open) return undefined;
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
