import { randomBytes } from "node:crypto";
import { defaultPayloadConverter, type Payload } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { parseKeyRing, newKeyRingEntry, UnknownKeyError, type RingKey } from "./key-ring.js";
import { createEncryptionCodec, ENCRYPTED_ENCODING, sealedPayloadInfo, SEALED_METADATA } from "./payload-codec.js";

const ring = (text: string) => parseKeyRing(text) as RingKey[];
const k1 = newKeyRingEntry("k1", randomBytes(32));
const k2 = newKeyRingEntry("k2", randomBytes(32));
const json = (value: unknown) => defaultPayloadConverter.toPayload(value)!;
const valueOf = (payload: Payload) => defaultPayloadConverter.fromPayload(payload);
const utf8 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString("utf8");
const context = { type: "workflow", namespace: "default", workflowId: "run_1" } as const;

describe("the payload encryption codec", () => {
  const codec = createEncryptionCodec({ keys: ring(k1) });

  it("seals payloads with their metadata, names key and workflow, and opens them again", async () => {
    const original = json({ secret: "MARKER-round-trip" });
    const [sealed] = await codec.encode([original], context);
    expect(utf8(sealed!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(sealedPayloadInfo(sealed!)).toEqual({ keyId: "k1", workflowId: "run_1" });
    // Neither the value nor its original encoding is readable.
    expect(utf8(sealed!.data)).not.toContain("MARKER");
    expect(utf8(sealed!.data)).not.toContain("json/plain");
    const [again] = await codec.encode([original], context);
    expect(Buffer.from(again!.data!).equals(Buffer.from(sealed!.data!))).toBe(false);

    const [opened] = await codec.decode([sealed!]);
    expect(utf8(opened!.metadata!.encoding)).toBe("json/plain");
    expect(valueOf(opened!)).toEqual({ secret: "MARKER-round-trip" });
  });

  it("opens with any key of the ring, and says which key is missing", async () => {
    const [sealed] = await codec.encode([json("under k1")], context);
    const rotated = createEncryptionCodec({ keys: ring(`${k2},${k1}`) });
    expect(valueOf((await rotated.decode([sealed!]))[0]!)).toBe("under k1");
    const [underK2] = await rotated.encode([json("under k2")], context);
    expect(sealedPayloadInfo(underK2!)?.keyId).toBe("k2");

    const withoutK1 = createEncryptionCodec({ keys: ring(k2) });
    await expect(withoutK1.decode([sealed!])).rejects.toThrow(UnknownKeyError);
    await expect(withoutK1.decode([sealed!])).rejects.toThrow(/key "k1", which SVC_ENCRYPTION_KEY lacks/);
  });

  it("refuses a tampered ciphertext, another owner or another key id in the metadata", async () => {
    const [sealed] = await codec.encode([json({ amount: 12 })], context);
    const tampered = Buffer.from(sealed!.data!);
    tampered[tampered.length - 1]! ^= 1;
    await expect(codec.decode([{ ...sealed!, data: tampered }])).rejects.toThrow();

    const moved = { ...sealed!.metadata!, [SEALED_METADATA.workflowId]: Buffer.from("run_2") };
    await expect(codec.decode([{ ...sealed!, metadata: moved }])).rejects.toThrow();
    const unowned = { ...sealed!.metadata! };
    delete unowned[SEALED_METADATA.workflowId];
    await expect(codec.decode([{ ...sealed!, metadata: unowned }])).rejects.toThrow();

    const both = createEncryptionCodec({ keys: ring(`${k1},${newKeyRingEntry("k0", randomBytes(32))}`) });
    const relabelled = { ...sealed!.metadata!, [SEALED_METADATA.keyId]: Buffer.from("k0") };
    await expect(both.decode([{ ...sealed!, metadata: relabelled }])).rejects.toThrow();
  });

  it("passes payloads that are not sealed through on decode (histories recorded before)", async () => {
    const plain = [json({ order: 7 }), json("text"), defaultPayloadConverter.toPayload(undefined)!];
    expect(await codec.decode(plain)).toEqual(plain);
  });

  it("leaves the payloads it is told to plain, and never seals twice", async () => {
    const marked = createEncryptionCodec({
      keys: ring(k1),
      leavePlain: (payload) => payload.metadata?.["operator-text"] !== undefined,
    });
    const summary = json("Invoice sync v3 · api");
    summary.metadata = { ...summary.metadata, "operator-text": Buffer.from("1") };
    const [kept, sealed] = await marked.encode([summary, json({ order: 7 })], context);
    expect(kept).toBe(summary);
    expect(sealedPayloadInfo(sealed!)).toBeDefined();
    const [twice] = await marked.encode([sealed!], { ...context, workflowId: "run_other" });
    expect(twice).toBe(sealed);
  });

  it("seals for an owner given by the caller (the codec endpoint: a workspace)", async () => {
    const [sealed] = await codec.encodeFor({ workspaceId: "ws_1" }, [json({ approve: true })]);
    expect(sealedPayloadInfo(sealed!)).toEqual({ keyId: "k1", workspaceId: "ws_1" });
    expect(valueOf((await codec.decode([sealed!]))[0]!)).toEqual({ approve: true });
  });

  it("without a key, passes payloads through and says why it cannot open sealed ones", async () => {
    const keyless = createEncryptionCodec({ keys: [] });
    expect(keyless.sealing).toBe(false);
    const plain = json({ order: 7 });
    expect(await keyless.encode([plain], context)).toEqual([plain]);
    const [sealed] = await codec.encode([plain], context);
    await expect(keyless.decode([sealed!])).rejects.toThrow(
      /encrypted under key "k1", but SVC_ENCRYPTION_KEY is not set/,
    );
  });
});
