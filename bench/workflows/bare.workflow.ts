// The baseline: a bare Temporal workflow with three no-op activities.
import { proxyActivities, proxyLocalActivities } from "@temporalio/workflow";

const { noop } = proxyActivities<{ noop(value: unknown): Promise<unknown> }>({ startToCloseTimeout: "10 seconds" });

export async function bareThreeActivities(input: unknown): Promise<unknown> {
  const a = await noop(input);
  const b = await noop(a);
  return noop(b);
}

const local = proxyLocalActivities<{ noop(value: unknown): Promise<unknown> }>({ startToCloseTimeout: "10 seconds" });

/** The same with three local activities: the floor of a run of three local nodes. */
export async function bareThreeLocalActivities(input: unknown): Promise<unknown> {
  const a = await local.noop(input);
  const b = await local.noop(a);
  return local.noop(b);
}

/** n local activities in a row. */
export async function bareLocalChain(n: number): Promise<unknown> {
  let value: unknown = n;
  for (let i = 0; i < n; i++) value = await local.noop(value);
  return value;
}
