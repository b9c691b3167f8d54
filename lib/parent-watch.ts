// A process npm start runs stops when npm start is gone (killed, out of memory) instead of living
// on as an orphan that holds its port: npm start gives each child an IPC channel, which the
// system closes when npm start dies, whatever the way.

// A process started with a channel has process.send; one whose channel already closed (the parent
// died while this process was still loading) is no longer connected.
let parentGone = process.send !== undefined && !process.connected;
const stops: Array<() => void> = [];

// Listened for from the first import, so that a parent lost while the process starts is not missed.
if (process.channel) {
  process.once("disconnect", () => {
    parentGone = true;
    for (const stop of stops.splice(0)) stop();
  });
  // The channel alone must not keep the process alive once its work is done.
  process.channel.unref();
}

/**
 * Calls `stop` once the parent that gave this process an IPC channel is gone (at once if it
 * already is); never for a process started without one (npm run api, a container). With
 * `exitWithinMs`, the process then exits by that deadline even if its stop has not finished:
 * npm start, which bounds its children's stops with SIGKILL, is no longer there to do it, and an
 * orphan would hold its ports and connections.
 */
export function whenParentGone(stop: () => void, { exitWithinMs }: { exitWithinMs?: number } = {}): void {
  const stopBounded = () => {
    if (exitWithinMs !== undefined) {
      setTimeout(() => {
        process.stderr.write(`npm start is gone and the stop took over ${exitWithinMs} ms: exiting\n`);
        process.exit(1);
      }, exitWithinMs).unref();
    }
    stop();
  };
  if (parentGone) stopBounded();
  else stops.push(stopBounded);
}
