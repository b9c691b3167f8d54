// The repository's root, found the same way from the TypeScript sources (run by tsx) and from the
// JavaScript `npm run build` compiles into dist/: the nearest folder up with a package.json.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The nearest folder at or above `from` that holds a package.json. */
export function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}

/** The repository root (where package.json, prisma/ and web/ are), whatever the working directory. */
export const packageRoot = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
