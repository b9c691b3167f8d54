// A sync hook's answer once its run has ended: the run's summary, or (trigger `response: "output"`)
// the flow's own answer, refused when the run did not succeed or it redirects where it may not.
import type { Response } from "express";
import type { HookTriggerConfig } from "../../../core/nodes/http-trigger/http-trigger.node.js";
import type { runView } from "../../../core/runs/reads/run-views.js";
import { HttpError } from "../../http/errors.js";
import { flowResponseOf, HOOK_ANSWER_HEADERS, refusedLocation } from "./hook-request.js";

type EndedRun = ReturnType<typeof runView>;

/** What a hook answers at once: the run that was started (or found, for a repeated dedupe key). */
export interface HookAccepted {
  run_id: string;
  status_url: string;
  deduplicated: boolean;
}

/**
 * Answers a sync hook's ended run. `noteDropped` tells the flow's author (in the run's log) the
 * names of the headers its answer set that were not sent; it is awaited before the answer goes.
 */
export async function answerEndedRun(
  res: Response,
  config: Pick<HookTriggerConfig, "response" | "redirect_hosts">,
  accepted: HookAccepted,
  ended: EndedRun,
  noteDropped: (names: string[]) => Promise<void>,
): Promise<void> {
  if (config.response !== "output") {
    res.status(200).json({ ...accepted, status: ended.status, output: ended.output, error: ended.error });
    return;
  }
  if (ended.status !== "success") {
    throw new HttpError(
      502,
      "run_failed",
      `The run ${ended.status}: ${(ended.error as { message?: string } | null)?.message ?? "no output"}`,
      {
        run_id: accepted.run_id,
        status_url: accepted.status_url,
        status: ended.status,
      },
    );
  }
  const answer = flowResponseOf(ended.output);
  const refused = refusedLocation(answer.headers, config.redirect_hosts);
  if (refused !== undefined) {
    throw new HttpError(
      502,
      "hook_redirect_refused",
      `The flow answered with Location ${refused.slice(0, 200)}: a hook redirects only to a relative location or to a host of its trigger's redirect_hosts`,
      { run_id: accepted.run_id, status_url: accepted.status_url },
    );
  }
  if (answer.dropped.length > 0) await noteDropped(answer.dropped);
  // The server's headers go last: whatever the flow chose, they stand.
  res
    .status(answer.status)
    .set(answer.headers)
    .set(HOOK_ANSWER_HEADERS)
    .set("X-Run-Id", accepted.run_id)
    .json(answer.body);
}
