// How a one-time link (an invite, an owner offer, a password reset) reaches its person. With an
// SMTP server (lib/mail.ts), by mail to the link's own address, and the link is then never shown
// to whoever asked for it (`delivery: "mail"`). Without one, it is handed back to whoever asked,
// to pass on (`delivery: "link"`): fit for a single-machine install only, where that person is
// trusted with it. MAIL_REQUIRED refuses the hand-over altogether.
import { ConfigError } from "../../lib/config-error.js";
import type { Config } from "../../lib/config.js";
import type { Logger } from "../../lib/logger.js";
import type { Mailer } from "../../lib/mail.js";
import { DomainError } from "../errors.js";

export type Delivery = "mail" | "link";

/** A link's message: its text around the link's URL. */
export interface LinkMail {
  to: string;
  subject: string;
  /** The message's text; `url` is the link (the dashboard's origin and the link's path). */
  text(url: string): string;
  /** The dashboard's path of the link, with its token. */
  path: string;
}

export interface LinkDelivery {
  readonly mode: Delivery;
  /** Sends a link's message (mode "mail"); MailUnavailable when the server does not take it. */
  send(mail: LinkMail): Promise<void>;
}

/** The mail server did not take a link's message: the link was not kept. */
export class MailUnavailable extends DomainError {
  override name = "MailUnavailable";
  constructor() {
    super(
      "unavailable",
      "mail_unavailable",
      "The mail server did not take the message: nothing was sent and no new link was made; try again later",
      {},
      60,
    );
  }
}

/** Control characters out of a name written into a mail (a workspace's, a member's), and quoted. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this removes
export const quoted = (name: string) => `"${name.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ")}"`;

/** No mail server: each link is handed to whoever asked for it. */
export const handOver: LinkDelivery = {
  mode: "link",
  send: () => Promise.reject(new Error("No mail server: links are handed over")),
};

export function createLinkDelivery({
  mailer,
  config,
  logger,
}: {
  mailer: Mailer | undefined;
  config: Pick<Config, "DASHBOARD_ORIGIN" | "MAIL_REQUIRED">;
  logger: Logger;
}): LinkDelivery {
  if (!mailer) {
    if (config.MAIL_REQUIRED) {
      throw new ConfigError("Invalid configuration: SMTP_HOST: is required with MAIL_REQUIRED=true");
    }
    return handOver;
  }
  const origin = config.DASHBOARD_ORIGIN;
  if (!origin) throw new ConfigError("Invalid configuration: DASHBOARD_ORIGIN: is required with SMTP_HOST");
  return {
    mode: "mail",
    async send(mail) {
      try {
        await mailer.send({ to: mail.to, subject: mail.subject, text: mail.text(`${origin}${mail.path}`) });
      } catch (error) {
        const failure = error as Error & { code?: string; responseCode?: number; command?: string };
        // What failed, never the message (its link): the server's words with the link's token cut out.
        logger.warn(
          {
            code: failure.code,
            response_code: failure.responseCode,
            command: failure.command,
            reason: String(failure.message).replaceAll(mail.path.split("/").at(-1)!, "[token]").slice(0, 500),
          },
          "mail not sent",
        );
        throw new MailUnavailable();
      }
    },
  };
}
