// Mail through the operator's SMTP server (nodemailer), the way one-time links reach their people
// when SMTP_HOST is set (core/workspaces/link-delivery.ts). Plain text only; each send opens its
// own connection, bounded in time, so a server that hangs fails the send instead of the request.
import { readFileSync } from "node:fs";
import nodemailer from "nodemailer";
import { ConfigError } from "./config-error.js";
import { requireMailSettings, type MailSettings } from "./config.js";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves once the server accepted the message; rejects with the server's or the network's error. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

const DEFAULT_PORT = { starttls: 587, tls: 465, none: 25 } as const;

/** How long a send waits for a connection, for the greeting, and for any answer after it. */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

function readCa(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: SMTP_TLS_CA: cannot read ${file} (${(error as Error).message})`);
  }
}

/** The mailer of the settings; undefined without SMTP_HOST. A wrong combination throws ConfigError. */
export function createMailer(config: MailSettings): Mailer | undefined {
  requireMailSettings(config);
  if (!config.SMTP_HOST) return undefined;
  const transport = nodemailer.createTransport({
    host: config.SMTP_HOST.replace(/^\[(.*)\]$/, "$1"),
    port: config.SMTP_PORT ?? DEFAULT_PORT[config.SMTP_TLS],
    secure: config.SMTP_TLS === "tls",
    requireTLS: config.SMTP_TLS === "starttls",
    ignoreTLS: config.SMTP_TLS === "none",
    ...(config.SMTP_USER ? { auth: { user: config.SMTP_USER, pass: config.SMTP_PASSWORD! } } : {}),
    ...(config.SMTP_TLS_CA ? { tls: { ca: readCa(config.SMTP_TLS_CA) } } : {}),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    logger: false,
    debug: false,
  });
  const from = config.MAIL_FROM!;
  return {
    async send({ to, subject, text }) {
      await transport.sendMail({ from, to, subject, text, disableFileAccess: true, disableUrlAccess: true });
    },
    close: () => transport.close(),
  };
}
