// An event-loop probe for tests: how long this thread's event loop went without running a timer.
// A timer firing late by seconds means something held the loop (an evaluation on it, say).

/** Starts probing every `intervalMs`; the returned stop() gives the longest gap seen, in ms. */
export function watchEventLoop(intervalMs = 20): () => number {
  let last = performance.now();
  let longest = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, intervalMs);
  return () => {
    clearInterval(probe);
    return Math.max(longest, performance.now() - last);
  };
}
