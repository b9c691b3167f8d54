// npm run tools:temporal-server: builds the pinned Temporal server and its schema tool into .tools
// (scripts/infra/temporal-server.ts), or finds them built.
import { locateTemporalServer } from "./infra/temporal-server.js";

const binaries = await locateTemporalServer(process.env, (line) => process.stdout.write(`${line}\n`));
process.stdout.write(`Temporal server: ${binaries.server}\nSchema tool:     ${binaries.sqlTool}\n`);
