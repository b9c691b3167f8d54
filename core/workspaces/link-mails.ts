// The mails that carry one-time links (link-delivery.ts): plain text, to the link's own address.
import { quoted, type LinkMail } from "./link-delivery.js";
import type { Role } from "./permissions.js";

const until = (expiresAt: Date) => `${expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** An invite to a workspace, or (role owner, for a member) the offer of its owner role. */
export function inviteMail(invite: {
  email: string;
  role: Role;
  workspace: string;
  inviter: string;
  path: string;
  expiresAt: Date;
  ownerOffer: boolean;
}): LinkMail {
  const workspace = quoted(invite.workspace);
  const inviter = quoted(invite.inviter);
  const ask = invite.ownerOffer
    ? `${inviter} offers you the owner role of the workspace ${workspace}. You keep your role until you accept.`
    : `${inviter} invites you to join the workspace ${workspace} as ${invite.role}.`;
  return {
    to: invite.email,
    subject: invite.ownerOffer ? `The owner role of ${workspace} is offered to you` : `Join the workspace ${workspace}`,
    path: invite.path,
    text: (url) =>
      [
        ask,
        "",
        "Accept or decline here:",
        url,
        "",
        `The link works once, until ${until(invite.expiresAt)}. If you did not expect it, ignore this message: nothing changes unless you accept.`,
        "",
      ].join("\n"),
  };
}

/** A password reset link, to the account's address. */
export function passwordResetMail(reset: {
  email: string;
  issuer: string | null;
  path: string;
  expiresAt: Date;
}): LinkMail {
  const by = reset.issuer === null ? "the operator of this service" : quoted(reset.issuer);
  return {
    to: reset.email,
    subject: "Set a new password",
    path: reset.path,
    text: (url) =>
      [
        `A password reset link for your account ${reset.email} was issued by ${by}.`,
        "",
        "Set a new password here:",
        url,
        "",
        `The link works once, until ${until(reset.expiresAt)}. If you did not ask for it, ignore this message: your password stays as it is.`,
        "",
      ].join("\n"),
  };
}
