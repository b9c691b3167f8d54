// A real SMTP server on loopback (smtp-server) standing in for the operator's mail server: it
// keeps every message it accepts, parsed (mailparser), with its envelope, and can refuse them.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO), as the server saw them. */
  rcptTo: string[];
  mailFrom: string | false;
  /** Whether the message came over TLS, and the account it authenticated as. */
  secure: boolean;
  user: string | undefined;
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpReceiver {
  port: number;
  received: ReceivedMail[];
  /** While on, DATA is answered 451 (a temporary failure): nothing is kept. */
  refuse(on: boolean): void;
  /** The next message to `to` not yet taken, waiting at most `timeoutMs`. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** The SMTP_* settings that reach this receiver (plain SMTP unless started with TLS). */
  settings: Record<string, string>;
  close(): Promise<void>;
}

/** `tls`: a certificate (and its CA) for STARTTLS, and the one account it accepts. */
export async function startSmtpReceiver(
  options: { tls?: { key: string; cert: string; ca: string }; account?: { user: string; password: string } } = {},
): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  let refusing = false;
  const server = new SMTPServer({
    logger: false,
    banner: "svc test receiver",
    closeTimeout: 1000,
    authOptional: !options.account,
    disabledCommands: [...(options.tls ? [] : ["STARTTLS"]), ...(options.account ? [] : ["AUTH"])],
    ...(options.tls ? { key: readFileSync(options.tls.key), cert: readFileSync(options.tls.cert) } : {}),
    onAuth(auth, _session, callback) {
      const account = options.account;
      if (account && auth.username === account.user && auth.password === account.password) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (refusing) {
          callback(Object.assign(new Error("Try again later"), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              rcptTo: session.envelope.rcptTo.map((a) => a.address),
              mailFrom: session.envelope.mailFrom && session.envelope.mailFrom.address,
              secure: session.secure,
              user: session.user,
              raw,
              parsed,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    refuse(on) {
      refusing = on;
    },
    async next(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = received.find((m) => !taken.has(m) && m.rcptTo.includes(to));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        if (Date.now() > deadline) throw new Error(`No mail to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    settings: {
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(port),
      SMTP_TLS: options.tls ? "starttls" : "none",
      ...(options.tls ? { SMTP_TLS_CA: options.tls.ca } : {}),
      ...(options.account ? { SMTP_USER: options.account.user, SMTP_PASSWORD: options.account.password } : {}),
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The one-time link (`<origin>/invite/<token>` or `/reset-password/<token>`) a message carries. */
export function linkIn(mail: ReceivedMail, origin: string): { url: string; token: string } {
  const escaped = origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`${escaped}/(?:invite|reset-password)/([A-Za-z0-9_-]{43})`).exec(mail.parsed.text ?? "");
  if (!match) throw new Error(`No link in the mail: ${mail.parsed.text}`);
  return { url: match[0], token: match[1]! };
}
