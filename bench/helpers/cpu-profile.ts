// A small analyser of V8 CPU profiles (node --cpu-prof): which code a thread's samples ran, by
// module path, within time windows. A sample belongs to the deepest frame on its stack that has
// an owner (a package, or a folder of this project), so a builtin (JSON.stringify, a native
// crypto call, Prisma's WebAssembly) counts for the code that called it; and anything the
// payload codec calls counts as the codec's (the protobuf encoding and AES it runs per payload).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  /** Microseconds of CLOCK_MONOTONIC, the clock of process.hrtime. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** From-to in microseconds of CLOCK_MONOTONIC (`monotonicMicros()`). */
export interface TimeWindow {
  start: number;
  end: number;
}

export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** What runs the code of a frame; `detail` names the package or file. */
export type CodeOwner =
  "ours" | "codec" | "temporal" | "prisma" | "pg" | "packages" | "workflow bundle" | "node" | "gc" | "native";

const PG_PACKAGES = /^(pg|pg-[a-z-]+|pgpass|postgres-(array|bytea|date|interval))$/;
const CODEC_FILES = ["lib/crypto/payload-codec.ts", "core/engine/data-converter.ts"];
const OUR_FOLDERS = ["api", "core", "worker", "lib", "scripts", "bench"];

/** The package a module path is in (after its last node_modules/) and the module's path from there, if any. */
function packageOf(url: string): { pkg: string; module: string } | undefined {
  const at = url.lastIndexOf("/node_modules/");
  if (at < 0) return undefined;
  const module = url.slice(at + "/node_modules/".length);
  const [scope, name] = module.split("/");
  return { pkg: scope!.startsWith("@") ? `${scope}/${name}` : scope!, module };
}

/** Packages that only the Temporal SDK uses in the service's processes (its worker's streams, its protobuf). */
const TEMPORAL_ONLY_PACKAGES = new Set(["rxjs", "protobufjs", "long"]);

function packageOwner(pkg: string): CodeOwner {
  if (pkg.startsWith("@temporalio/") || TEMPORAL_ONLY_PACKAGES.has(pkg)) return "temporal";
  if (pkg.startsWith("@prisma/") || pkg === ".prisma") return "prisma";
  if (PG_PACKAGES.test(pkg)) return "pg";
  return "packages";
}

/** The owner of a frame's code, or undefined for code run on another's behalf (Node's, builtins, wasm). */
export function frameOwner(url: string, root: string): { owner: CodeOwner; detail: string } | undefined {
  if (!url || url.startsWith("node:") || url.startsWith("wasm://")) return undefined;
  if (/\/workflow-bundle-[0-9a-f]+\.js$/.test(url)) return { owner: "workflow bundle", detail: "workflow bundle" };
  // The SDK's scripts run in the workflow context have no file (reusable-vm.js's glue).
  if (url.startsWith("evalmachine.")) return { owner: "temporal", detail: "@temporalio/worker's vm glue" };
  const inPackage = packageOf(url);
  if (inPackage) {
    const owner = packageOwner(inPackage.pkg);
    return { owner, detail: inPackage.pkg.startsWith("@temporalio/") ? inPackage.module : inPackage.pkg };
  }
  const file = path.relative(root, url.startsWith("file://") ? new URL(url).pathname : url);
  if (CODEC_FILES.includes(file)) return { owner: "codec", detail: file };
  if (file.startsWith("prisma/generated/")) return { owner: "prisma", detail: "prisma/generated" };
  if (OUR_FOLDERS.includes(file.split("/")[0]!)) return { owner: "ours", detail: file };
  return { owner: "packages", detail: file };
}

/** The owner of samples whose stack has no owned frame, by V8's pseudo-frames. */
function unownedOwner(functionName: string): CodeOwner {
  if (functionName === "(garbage collector)") return "gc";
  if (functionName === "(program)" || functionName === "(root)") return "native";
  return "node";
}

interface Attribution {
  owner: CodeOwner;
  detail: string;
}

/** Every profile node's attribution (its stack walked from the root), "(idle)" left out. */
function attributeNodes(profile: CpuProfile, root: string): Map<number, Attribution> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const attributed = new Map<number, { nearest?: Attribution; codec?: Attribution; idle: boolean }>();
  const walk = (id: number): { nearest?: Attribution; codec?: Attribution; idle: boolean } => {
    const known = attributed.get(id);
    if (known) return known;
    const node = byId.get(id)!;
    const parentId = parentOf.get(id);
    const parent = parentId === undefined ? { idle: false } : walk(parentId);
    const own = frameOwner(node.callFrame.url, root);
    const result = {
      nearest: own ?? parent.nearest,
      codec: parent.codec ?? (own?.owner === "codec" ? own : undefined),
      idle: node.callFrame.functionName === "(idle)",
    };
    attributed.set(id, result);
    return result;
  };
  const result = new Map<number, Attribution>();
  for (const node of profile.nodes) {
    const { nearest, codec, idle } = walk(node.id);
    if (idle) continue;
    const owner = unownedOwner(node.callFrame.functionName);
    result.set(node.id, codec ?? nearest ?? { owner, detail: node.callFrame.functionName || owner });
  }
  return result;
}

export interface SampleCounts {
  /** Samples not idle; `idle`: samples of the thread waiting in its event loop. */
  total: number;
  idle: number;
  byOwner: Map<CodeOwner, number>;
  /** By "owner|detail" (a file of ours, a package, a module of the Temporal SDK). */
  byDetail: Map<string, number>;
  /** By the function the sample was in, with its module's name: "runInContext", "encode (writer.js)". */
  byFunction: Map<string, number>;
}

const functionName = ({ functionName, url }: { functionName: string; url: string }) =>
  `${functionName || "(anonymous)"}${url ? ` (${url.split("/").at(-1)})` : ""}`;

/** Samples taken within `windows` (not idle ones), counted by owner, by detail and by function. */
export function countSamples(profile: CpuProfile, windows: TimeWindow[], root: string): SampleCounts {
  const attribution = attributeNodes(profile, root);
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byOwner = new Map<CodeOwner, number>();
  const byDetail = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    if (!windows.some((window) => time >= window.start && time <= window.end)) continue;
    const found = attribution.get(profile.samples[i]!);
    if (!found) {
      idle++;
      continue;
    }
    total++;
    byOwner.set(found.owner, (byOwner.get(found.owner) ?? 0) + 1);
    const key = `${found.owner}|${found.detail}`;
    byDetail.set(key, (byDetail.get(key) ?? 0) + 1);
    const leaf = functionName(frames.get(profile.samples[i]!)!);
    byFunction.set(leaf, (byFunction.get(leaf) ?? 0) + 1);
  }
  return { total, idle, byOwner, byDetail, byFunction };
}

/** The profiles a process wrote into `dir` (CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile), by thread id. */
export function readProfiles(dir: string, pid: number): Map<number, CpuProfile> {
  const profiles = new Map<number, CpuProfile>();
  for (const name of readdirSync(dir)) {
    const match = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(name);
    if (!match || Number(match[1]) !== pid) continue;
    profiles.set(Number(match[2]), JSON.parse(readFileSync(path.join(dir, name), "utf8")) as CpuProfile);
  }
  return profiles;
}
