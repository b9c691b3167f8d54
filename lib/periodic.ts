/**
 * Runs `task` again and again in the background: at once when it says more work is waiting
 * (returns true), else after about `intervalMs` (±25 %, so several processes spread out). Errors
 * go to `onError` and the loop goes on. Returns a stop function; a pass in flight finishes, and
 * no further pass starts.
 */
export function runPeriodically(
  task: () => Promise<boolean | void>,
  options: { intervalMs: number; onError: (error: unknown) => void },
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void task()
        .then(
          (more) => more === true,
          (error: unknown) => {
            options.onError(error);
            return false;
          },
        )
        .then((more) => schedule(more ? 0 : options.intervalMs * (0.75 + Math.random() * 0.5)));
    }, delayMs);
    timer.unref();
  };
  schedule(options.intervalMs * (0.75 + Math.random() * 0.5));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
