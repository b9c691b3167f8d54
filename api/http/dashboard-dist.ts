// Where the dashboard's build is: the API serves it from here and npm start builds it here. Apart
// from dashboard.ts so that npm start can name it without loading Express.
import path from "node:path";
import { packageRoot } from "../../lib/package-root.js";

/** Where `npm run web:build` writes the dashboard (web/dist of the repository, also for dist/'s API). */
export const DASHBOARD_DIST = path.join(packageRoot, "web", "dist");
