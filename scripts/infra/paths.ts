import path from "node:path";
import { packageRoot } from "../../lib/package-root.js";

/** The repository root, whatever the working directory of the process (also for dist/'s scripts). */
export const projectRoot = packageRoot;

/** Local state of `npm start` (database cluster, Temporal SQLite file): SVC_DATA_DIR or .data/. */
export const dataDir = (...parts: string[]) =>
  path.join(path.resolve(projectRoot, process.env.SVC_DATA_DIR || ".data"), ...parts);

export const toolsDir = (...parts: string[]) => path.join(projectRoot, ".tools", ...parts);
