// The zoom a canvas opens at: the whole flow when it fits at a readable size, else its start (the
// left of the layers) at the least readable zoom, so node names are never shrunk to a few pixels.
import { getNodesBounds, useNodesInitialized, useReactFlow, useStore, type Rect, type Viewport } from "@xyflow/react";
import { useEffect, useRef } from "react";

/** Node names are 14 px: at 0.75 they read at 10.5 px. */
export const READABLE_ZOOM = 0.75;
const PADDING = 24;

/** The viewport for a flow of `bounds` on a canvas of `size`: null when fitting it all is readable. */
export function readableViewport(bounds: Rect, size: { width: number; height: number }): Viewport | null {
  const fit = Math.min((size.width - 2 * PADDING) / bounds.width, (size.height - 2 * PADDING) / bounds.height);
  if (fit >= READABLE_ZOOM) return null;
  const zoom = READABLE_ZOOM;
  const tall = bounds.height * zoom > size.height - 2 * PADDING;
  return {
    zoom,
    x: PADDING - bounds.x * zoom,
    y: tall ? PADDING - bounds.y * zoom : size.height / 2 - (bounds.y + bounds.height / 2) * zoom,
  };
}

/** Rendered inside a <ReactFlow>: places the view once, when the nodes are first measured. */
export function ReadableZoom() {
  const flow = useReactFlow();
  const initialized = useNodesInitialized();
  const width = useStore((state) => state.width);
  const height = useStore((state) => state.height);
  const placed = useRef(false);
  useEffect(() => {
    if (!initialized || placed.current || width === 0 || height === 0) return;
    placed.current = true;
    const viewport = readableViewport(getNodesBounds(flow.getNodes()), { width, height });
    if (viewport) void flow.setViewport(viewport);
    else void flow.fitView({ maxZoom: 1, padding: 0.1 });
  }, [initialized, width, height, flow]);
  return null;
}
