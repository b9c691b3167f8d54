import { z } from "zod";

/** A starter flow of GET /api/templates (core/flows/flow-templates.ts). */
export const flowTemplateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    definition: z
      .object({ nodes: z.array(z.record(z.string(), z.unknown())), edges: z.array(z.record(z.string(), z.unknown())) })
      .meta({ description: "The flow's definition: POST /api/flows {template} saves it" }),
  })
  .meta({ id: "FlowTemplate" });
