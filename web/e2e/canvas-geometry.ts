// Where a React Flow canvas draws its nodes, edges and edge labels, in page pixels: for the browser
// tests' assertions on how a graph reads (layout, overlaps, edges behind nodes).
import type { Page } from "playwright-core";

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CanvasGeometry {
  nodes: Array<{ id: string; box: Box }>;
  /** Each edge's path sampled every few pixels, and its label's box when it has one. */
  edges: Array<{ id: string; points: Array<[number, number]>; label: Box | null }>;
}

/** Run in the page (this project's Node types have no DOM): the geometry under the canvas `root`. */
const MEASURE = (root: string) => `(() => {
  const canvas = document.querySelector(${JSON.stringify(root)});
  const boxOf = (element) => {
    const { x, y, width, height } = element.getBoundingClientRect();
    return { x, y, width, height };
  };
  const nodes = [...canvas.querySelectorAll(".react-flow__node")].map((node) => ({
    id: node.getAttribute("data-id"),
    box: boxOf(node),
  }));
  const edges = [...canvas.querySelectorAll(".react-flow__edge")].map((edge) => {
    const path = edge.querySelector("path.react-flow__edge-path");
    const matrix = path.getScreenCTM();
    const length = path.getTotalLength();
    const points = [];
    for (let at = 0; at <= length; at += 4) {
      const point = path.getPointAtLength(at).matrixTransform(matrix);
      points.push([point.x, point.y]);
    }
    const label = edge.querySelector(".react-flow__edge-textbg") ?? edge.querySelector(".react-flow__edge-text");
    return { id: edge.getAttribute("data-id"), points, label: label ? boxOf(label) : null };
  });
  return { nodes, edges };
})()`;

/** The geometry of the canvas under `selector`, once React Flow has measured and placed it. */
export async function canvasGeometry(page: Page, selector: string): Promise<CanvasGeometry> {
  await page.locator(`${selector} .react-flow__viewport`).waitFor();
  await page.waitForFunction(
    `document.querySelector(${JSON.stringify(`${selector} .react-flow__node`)})?.getBoundingClientRect().width > 0`,
  );
  // Two frames for fitView to settle after the nodes are measured.
  await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");
  return (await page.evaluate(MEASURE(selector))) as CanvasGeometry;
}
