// Screenshots of the dashboard compared with the baselines checked in under web/e2e/screens/: a
// changed look is a deliberate change, reviewed as a changed PNG in the commit. Compared pixel by
// pixel in Chromium itself (no image library): a pixel differs when a channel moves by more than
// CHANNEL_TOLERANCE, and a screen passes while at most PIXEL_TOLERANCE of its pixels differ (font
// antialiasing). UPDATE_SCREENS=1 writes the baselines instead (npm run web:screens:update).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";

export const screensDir = path.join(import.meta.dirname, "screens");
export const updating = process.env.UPDATE_SCREENS === "1";
const CHANNEL_TOLERANCE = 32;
const PIXEL_TOLERANCE = 0.001;

export interface ScreenComparison {
  /** The share of pixels that differ (1 when the sizes differ). */
  differing: number;
  /** A picture of the differing pixels (red), when any differ. */
  diff?: Buffer;
}

/** Run in a blank page (this project's Node types have no DOM): the two PNGs compared. */
const COMPARE = (a: string, b: string) => `(async () => {
  const load = async (src) => { const image = new Image(); image.src = src; await image.decode(); return image; };
  const [a, b] = await Promise.all([load(${JSON.stringify(a)}), load(${JSON.stringify(b)})]);
  if (a.width !== b.width || a.height !== b.height) return { differing: 1 };
  const pixels = (image) => {
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    return context.getImageData(0, 0, image.width, image.height);
  };
  const [x, y] = [pixels(a), pixels(b)];
  const out = new ImageData(a.width, a.height);
  let count = 0;
  for (let i = 0; i < x.data.length; i += 4) {
    const moved = Math.max(...[0, 1, 2].map((c) => Math.abs(x.data[i + c] - y.data[i + c])));
    const differs = moved > ${CHANNEL_TOLERANCE};
    if (differs) count++;
    out.data.set(differs ? [255, 0, 0, 255] : [x.data[i], x.data[i + 1], x.data[i + 2], 60], i);
  }
  const canvas = document.createElement("canvas");
  canvas.width = a.width;
  canvas.height = a.height;
  canvas.getContext("2d").putImageData(out, 0, 0);
  return { differing: count / (a.width * a.height), diff: count ? canvas.toDataURL("image/png") : undefined };
})()`;

const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;

export async function compareScreens(browser: Browser, actual: Buffer, baseline: Buffer): Promise<ScreenComparison> {
  const page = await browser.newPage();
  try {
    const result = (await page.evaluate(COMPARE(dataUrl(actual), dataUrl(baseline)))) as {
      differing: number;
      diff?: string;
    };
    return {
      differing: result.differing,
      diff: result.diff ? Buffer.from(result.diff.split(",")[1]!, "base64") : undefined,
    };
  } finally {
    await page.close();
  }
}

/**
 * Checks a screenshot against its baseline (or writes it when updating): the problem in words, or
 * null. A failure leaves the actual screen and the diff under `failures`.
 */
export async function checkScreen(
  browser: Browser,
  name: string,
  actual: Buffer,
  failures: string,
): Promise<string | null> {
  const file = path.join(screensDir, `${name}.png`);
  if (updating) {
    mkdirSync(screensDir, { recursive: true });
    writeFileSync(file, actual);
    return null;
  }
  if (!existsSync(file)) return `${name}: no baseline (npm run web:screens:update writes it)`;
  const { differing, diff } = await compareScreens(browser, actual, readFileSync(file));
  if (differing <= PIXEL_TOLERANCE) return null;
  mkdirSync(failures, { recursive: true });
  writeFileSync(path.join(failures, `${name}.actual.png`), actual);
  if (diff) writeFileSync(path.join(failures, `${name}.diff.png`), diff);
  return `${name}: ${(differing * 100).toFixed(2)}% of pixels differ (actual and diff in ${failures})`;
}
