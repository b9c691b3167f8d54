// The baseline: a bare Temporal workflow with three no-op activities.
import { proxyActivities } from "@temporalio/workflow";

const { noop } = proxyActivities<{ noop(value: unknown): Promise<unknown> }>({ startToCloseTimeout: "10 seconds" });

export async function bareThreeActivities(input: unknown): Promise<unknown> {
  const a = await noop(input);
  const b = await noop(a);
  return noop(b);
}
