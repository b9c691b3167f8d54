import { z } from "zod";

/** A config field naming another flow of the workspace (loop, flow.call). */
export const flowIdField = (label: string) =>
  z
    .string()
    .regex(/^wf_[0-9a-f]{24}$/, "must be a flow id (wf_…)")
    .meta({ label, placeholder: "wf_…" });
