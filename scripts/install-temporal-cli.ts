// npm run tools:temporal: finds the Temporal CLI (TEMPORAL_CLI, PATH, .tools/bin) or builds it.
import { locateTemporalCli } from "./infra/temporal.js";

const cli = await locateTemporalCli(process.env, (line) => process.stdout.write(`${line}\n`));
process.stdout.write(`Temporal CLI: ${cli}\n`);
