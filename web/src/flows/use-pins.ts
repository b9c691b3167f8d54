// Pinned data (issue 51): a node's output given by hand, from a test or from a past run, that test
// runs of the draft use instead of executing the node. Pins live with the draft: the draft is the
// browser's (nothing unsaved reaches the server), so pins are kept in this browser's localStorage,
// by flow id, and sent only with test runs (Test flow, Run to here), never with a run of the saved
// version.
import { createContext, useCallback, useEffect, useMemo, useState } from "react";

/**
 * A node's pinned output, and where it came from (shown next to it); for a branching node, the
 * branch it takes (a pin stands for a step: the output does not say which edge a condition follows).
 */
export interface Pin {
  output: unknown;
  source: string;
  branch?: string;
}

/** A pin as the test-run endpoint takes it. */
export type SentPin = { output: unknown; branch?: string };

export type Pins = Readonly<Record<string, Pin>>;

/** The ids of the draft's pinned nodes (the canvas marks them). */
export const PinnedNodes = createContext<ReadonlySet<string>>(new Set());

const storageKey = (flowId: string) => `flow-pins:${flowId}`;

/** The flow's stored pins ({} when none, or when what is stored does not read as pins). */
export function readPins(storage: Pick<Storage, "getItem"> | undefined, flowId: string): Pins {
  try {
    const parsed = JSON.parse(storage?.getItem(storageKey(flowId)) ?? "{}") as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return {};
    const pins: Record<string, Pin> = {};
    for (const [id, pin] of Object.entries(parsed as Record<string, unknown>)) {
      if (pin !== null && typeof pin === "object" && "output" in pin) {
        const { source, branch } = pin as { source?: unknown; branch?: unknown };
        pins[id] = {
          output: (pin as { output: unknown }).output,
          source: typeof source === "string" ? source : "",
          ...(typeof branch === "string" && branch !== "" ? { branch } : {}),
        };
      }
    }
    return pins;
  } catch {
    return {};
  }
}

/** Typed JSON as a pin's output, or why it is not one (the error names the place). */
export function parsePinText(text: string): { output: unknown } | { problem: string } {
  if (text.trim() === "") return { problem: "Pinned output: type a JSON value" };
  try {
    return { output: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `Pinned output: not JSON (${(error as Error).message})` };
  }
}

/**
 * The pins a test run sends, with their branches: those of nodes still on the canvas (a removed
 * node's pin stays, unsent).
 */
export function pinsToSend(pins: Pins, nodeIds: readonly string[]): Record<string, SentPin> | undefined {
  const sent: Record<string, SentPin> = {};
  for (const id of nodeIds) {
    const pin = pins[id];
    if (pin) sent[id] = { output: pin.output, ...(pin.branch ? { branch: pin.branch } : {}) };
  }
  return Object.keys(sent).length > 0 ? sent : undefined;
}

const browserStorage = () => (typeof localStorage === "undefined" ? undefined : localStorage);

export function usePins(flowId: string) {
  const [pins, setPins] = useState<Pins>(() => readPins(browserStorage(), flowId));
  useEffect(() => {
    const storage = browserStorage();
    if (!storage) return;
    if (Object.keys(pins).length === 0) storage.removeItem(storageKey(flowId));
    else storage.setItem(storageKey(flowId), JSON.stringify(pins));
  }, [flowId, pins]);
  const pin = useCallback(
    (nodeId: string, output: unknown, source: string, branch?: string) =>
      setPins((current) => ({ ...current, [nodeId]: { output, source, ...(branch ? { branch } : {}) } })),
    [],
  );
  const unpin = useCallback(
    (nodeId: string) =>
      setPins((current) => {
        const { [nodeId]: _removed, ...rest } = current;
        return rest;
      }),
    [],
  );
  const pinned = useMemo(() => new Set(Object.keys(pins)), [pins]);
  /** The pinned outputs, as node outputs the input panel and "Test this node" start from. */
  const outputs = useMemo(
    () => new Map(Object.entries(pins).map(([id, pinOf]) => [id, pinOf.output])) as ReadonlyMap<string, unknown>,
    [pins],
  );
  return { pins, pinned, outputs, pin, unpin };
}

export type DraftPins = ReturnType<typeof usePins>;
