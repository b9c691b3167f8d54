// What the codec endpoint does with payloads: opens sealed ones for members of the workspace they
// belong to (the workspace of the workflow named in their metadata, or the one they were sealed
// for), and seals payloads an operator writes in the Temporal UI for the session's workspace.
import type { Payload } from "@temporalio/common";
import type { PrismaClient } from "../../lib/db.js";
import { sealedPayloadInfo, type EncryptionCodec } from "../../lib/crypto/payload-codec.js";
import { DomainError } from "../errors.js";
import { workspacesOfWorkflows } from "./workflow-workspaces.js";

/** A Temporal Payload in proto JSON, as the Temporal UI sends it: metadata values and data in base64. */
export interface CodecPayload {
  metadata?: Record<string, string>;
  data?: string;
  /** Fields a later protocol may add, passed back as they came. */
  [field: string]: unknown;
}

const bytes = (base64: string) => Buffer.from(base64, "base64");
const base64 = (value: Uint8Array) => Buffer.from(value).toString("base64");

const toPayload = ({ metadata, data }: CodecPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([key, value]) => [key, bytes(value)])),
  ...(data === undefined ? {} : { data: bytes(data) }),
});

const toCodecPayload = ({ metadata, data }: Payload): CodecPayload => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([key, value]) => [key, base64(value)])),
  ...(data ? { data: base64(data) } : {}),
});

export function createTemporalCodecService({ prisma, codec }: { prisma: PrismaClient; codec: EncryptionCodec }) {
  return {
    /**
     * The payloads, sealed ones opened; forbidden unless the user is a member of the workspace of
     * every sealed one (a payload no workspace claims is opened for nobody); unprocessable when a
     * sealed one does not open (altered, or under a key this server lacks).
     */
    async decode(userId: string, payloads: CodecPayload[]): Promise<CodecPayload[]> {
      const binary = payloads.map(toPayload);
      const infos = binary.map(sealedPayloadInfo);
      if (!infos.some((info) => info)) return payloads;
      const [owners, memberships] = await Promise.all([
        workspacesOfWorkflows(
          prisma,
          infos.flatMap((info) => (info?.workflowId ? [info.workflowId] : [])),
        ),
        prisma.membership.findMany({ where: { userId }, select: { workspaceId: true } }),
      ]);
      const workspaces = new Set(memberships.map((m) => m.workspaceId));
      const readable = infos.every((info) => {
        if (!info) return true;
        const workspaceId = info.workspaceId ?? (info.workflowId ? owners.get(info.workflowId) : undefined);
        return workspaceId !== undefined && workspaces.has(workspaceId);
      });
      if (!readable) {
        throw new DomainError(
          "forbidden",
          "forbidden",
          "These payloads belong to runs of a workspace you are not a member of",
        );
      }
      let opened: Payload[];
      try {
        opened = await codec.decode(binary);
      } catch (error) {
        throw new DomainError("unprocessable", "payload_undecodable", (error as Error).message);
      }
      return payloads.map((payload, i) => (infos[i] ? toCodecPayload(opened[i]!) : payload));
    },

    /** The payloads sealed for the workspace (without a key they stay as they are). */
    async encode(workspaceId: string, payloads: CodecPayload[]): Promise<CodecPayload[]> {
      const sealed = await codec.encodeFor({ workspaceId }, payloads.map(toPayload));
      return sealed.map(toCodecPayload);
    },
  };
}

export type TemporalCodecService = ReturnType<typeof createTemporalCodecService>;
