import { Context } from "@temporalio/activity";

/**
 * Runs a call while heartbeating every 2 s, so that a worker lost mid-call is noticed within the
 * workflow's heartbeat timeout instead of the call's whole time limit.
 */
export async function heartbeating<T>(call: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), 2000);
  try {
    return await call();
  } finally {
    clearInterval(timer);
  }
}
