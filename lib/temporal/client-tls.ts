// TLS of a client connection (@temporalio/client's Connection) that follows renewed files. The SDK
// builds a connection's TLS once from its `tls` option; given gRPC channel credentials instead, it
// uses those, and gRPC's certificate-provider credentials take their CA and client certificate
// from a provider at every new handshake (each reconnect), so feeding the provider the files read
// again is enough: no new connection, no new Client.
import { readFileSync } from "node:fs";
import tls from "node:tls";
import { experimental, type ChannelCredentials, type ChannelOptions } from "@grpc/grpc-js";
import type { TLSConfig } from "@temporalio/client";

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/** The CA certificates a TLS client trusts without TEMPORAL_TLS_CA: Node's, and NODE_EXTRA_CA_CERTS. */
function systemCaCertificates(): Buffer {
  const extra = process.env.NODE_EXTRA_CA_CERTS ? [readFileSync(process.env.NODE_EXTRA_CA_CERTS, "utf8")] : [];
  return Buffer.from([...tls.rootCertificates, ...extra].join("\n"));
}

/** Hands gRPC the latest certificates: at once to a new listener, and to all of them at each update. */
class RenewableCertificates implements experimental.CertificateProvider {
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();
  private ca!: experimental.CaCertificateUpdate;
  private identity: experimental.IdentityCertificateUpdate | null = null;

  constructor(tlsConfig: TLSConfig) {
    this.update(tlsConfig);
  }

  update(tlsConfig: TLSConfig): void {
    const { serverRootCACertificate: ca, clientCertPair: pair } = tlsConfig;
    this.ca = { caCertificate: ca ? Buffer.from(ca) : systemCaCertificates() };
    this.identity = pair ? { certificate: Buffer.from(pair.crt), privateKey: Buffer.from(pair.key) } : null;
    for (const listener of this.caListeners) listener(this.ca);
    for (const listener of this.identityListeners) listener(this.identity);
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    listener(this.ca);
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    listener(this.identity);
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }
}

export interface RenewableClientTls {
  /** For the connection's `credentials` (in place of its `tls`). */
  credentials: ChannelCredentials;
  /** The server name override, as the SDK sets it from `tls.serverNameOverride`. */
  channelArgs: ChannelOptions;
  /** The certificates read again: the next handshake uses them. */
  renew(tlsConfig: TLSConfig): void;
}

/** Channel credentials built from `tlsConfig` that take renewed certificates (mTLS or a CA alone). */
export function renewableClientTls(tlsConfig: TLSConfig): RenewableClientTls {
  const certificates = new RenewableCertificates(tlsConfig);
  const name = tlsConfig.serverNameOverride;
  return {
    credentials: tlsConfig.clientCertPair
      ? experimental.createCertificateProviderChannelCredentials(certificates, certificates)
      : experimental.createCertificateProviderChannelCredentials(certificates, null),
    channelArgs: name ? { "grpc.ssl_target_name_override": name, "grpc.default_authority": name } : {},
    renew: (renewed) => certificates.update(renewed),
  };
}
