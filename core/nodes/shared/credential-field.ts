// A config field that names one of the workspace's stored credentials (env.credentials resolves
// it at call time). Never a template: run data must not choose where a secret goes.
import { credentialIdSchema } from "../../contracts/credential-types.js";

export const credentialField = (label: string, types: readonly string[]) =>
  credentialIdSchema.optional().meta({ label, credential: types });
