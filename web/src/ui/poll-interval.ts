/** Polling: quick while something runs, slower when all is quiet, slower still after errors. */
export function pollInterval(running: boolean, failures: number): number {
  const base = running ? 1_000 : 5_000;
  return Math.min(base * 2 ** failures, 30_000);
}
