// The debounce windows' activity (docs/engine.md, "Debounce windows"): a debounced run's workflow
// asks whether its window has closed, and closes it when no start came for the flow's period.
import type { Clock } from "../../lib/clock.js";
import type { Config } from "../../lib/config.js";
import { createJsonSeal } from "../../lib/crypto/sealed-json.js";
import type { PrismaClient } from "../../lib/db.js";
import type { RunDebounce } from "../../core/contracts/run-flow.js";
import { checkDebounceWindow, dropDebounceWindow, type WindowCheck } from "../../core/runs/start/debounce.js";

export function createDebounceActivities({
  prisma,
  clock,
  config,
}: {
  prisma: PrismaClient;
  clock: Clock;
  config: Pick<Config, "SVC_ENCRYPTION_KEY">;
}) {
  // The window's input is a run payload: stored sealed, as the run's record.
  const seal = createJsonSeal(config.SVC_ENCRYPTION_KEY);
  return {
    /** Still open (and how long at least), or closed now with the last input it took. */
    checkDebounceWindow(
      window: { flowId: string; runId: string; force?: boolean } & RunDebounce,
    ): Promise<WindowCheck> {
      return checkDebounceWindow({ prisma, clock, seal }, window);
    },
    /** A cancelled run's window goes with it: the next start opens a new run. */
    dropDebounceWindow(window: { flowId: string; keyHash: string; runId: string }): Promise<void> {
      return dropDebounceWindow(prisma, window);
    },
  };
}

export type DebounceActivities = ReturnType<typeof createDebounceActivities>;
