// Where the dashboard's build is: the API serves it from here and npm start builds it here. Apart
// from dashboard.ts so that npm start can name it without loading Express.
import { fileURLToPath } from "node:url";

/** Where `npm run web:build` writes the dashboard (web/dist of the repository). */
export const DASHBOARD_DIST = fileURLToPath(new URL("../../web/dist", import.meta.url));
