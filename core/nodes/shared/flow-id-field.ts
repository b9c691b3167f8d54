import { flowIdSchema } from "../../contracts/flow-definition.js";

/** A config field naming another flow of the workspace (loop, flow.call). */
export const flowIdField = (label: string) => flowIdSchema.meta({ label, placeholder: "wf_…" });
