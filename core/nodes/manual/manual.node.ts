import { z } from "zod";
import { defineNode } from "../define-node.js";

export const manualNode = defineNode({
  type: "manual",
  version: 1,
  name: "Manual trigger",
  category: "trigger",
  description:
    "Starts a run from the API (POST /api/workflows/{id}/run) or the dashboard. Its output is the run's input.",
  kind: "trigger",
  execution: "local",
  config: z.object({}),
});
