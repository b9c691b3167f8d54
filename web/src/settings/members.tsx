// Settings → Members: the members and their roles, pending invites, and the invite form. A
// one-time link (an invite, an owner offer, a password reset) the API mailed is never shown: the
// page says to whom it was sent. Without a mail server the API hands the link over, and it is
// shown once here, to be passed on by hand.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { client, describeError, read } from "../api";
import { formatTime } from "../format";
import type { InviteCreated, Member } from "../types";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage, StatusBadge } from "../ui/status-badge";

const ROLES = ["viewer", "editor", "admin", "owner"];

/** A one-time link made: mailed (no url), or handed over and shown once (only its hash is kept). */
interface ShownLink {
  what: string;
  email: string;
  url?: string;
  expires_at: string;
}

type ShowLink = (link: ShownLink) => void;

/** The link's URL when the API handed it over; none when it was mailed. */
const handedOver = (path: string | undefined) => (path === undefined ? undefined : `${window.location.origin}${path}`);

const inviteLink = (what: string, created: InviteCreated): ShownLink => ({
  what,
  email: created.invite.email,
  url: handedOver(created.delivery === "link" ? created.accept_url : undefined),
  expires_at: created.invite.expires_at,
});

export function Members() {
  // The link made last.
  const [link, setLink] = useState<ShownLink | null>(null);
  return (
    <section className="card">
      <h2>Members</h2>
      <MemberList onLink={setLink} />
      <PendingInvites />
      <InviteForm onLink={setLink} />
      {link && <LinkNotice key={link.url ?? `${link.what} ${link.email} ${link.expires_at}`} link={link} />}
    </section>
  );
}

function LinkNotice({ link }: { link: ShownLink }) {
  const [copied, setCopied] = useState(false);
  if (link.url === undefined) {
    return (
      <p className="notice invite-link" role="status" data-delivery="mail">
        {link.what} sent to {link.email}. It works once, until {formatTime(link.expires_at)}.
      </p>
    );
  }
  const url = link.url;
  return (
    <div className="notice invite-link">
      <p>
        {link.what} for {link.email}: no mail server sends it, so copy it and pass it on. It is shown only now, works
        once, until {formatTime(link.expires_at)}.
      </p>
      <div className="toolbar">
        <input readOnly aria-label={link.what} value={url} onFocus={(e) => e.target.select()} />
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(url).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy link"}
        </button>
      </div>
    </div>
  );
}

/** The members, a page at a time; a role change asks first, and the owner role is offered, not given (202). */
function MemberList({ onLink }: { onLink: ShowLink }) {
  const queryClient = useQueryClient();
  const pages = useCursorPages({ labels: IN_ORDER });
  const members = useQuery({
    queryKey: ["members", pages.cursor],
    queryFn: () =>
      read(client.GET("/api/workspace/members", { params: { query: { limit: 50, cursor: pages.cursor } } })),
  });
  const [pending, setPending] = useState<{ member: Member; role: string } | null>(null);
  const change = useMutation({
    mutationFn: (m: { userId: string; role: string }) =>
      read(
        client.PUT("/api/workspace/members/{userId}", {
          params: { path: { userId: m.userId } },
          body: { role: m.role as Member["role"] },
        }),
      ),
    onSuccess: (changed) => {
      if ("offer" in changed) onLink(inviteLink("Owner offer link", changed.offer));
      void queryClient.invalidateQueries({ queryKey: ["members"] });
      void queryClient.invalidateQueries({ queryKey: ["invites"] });
    },
  });
  const resetLink = useMutation({
    mutationFn: (userId: string) =>
      read(client.POST("/api/workspace/members/{userId}/password-reset", { params: { path: { userId } } })),
    onSuccess: (issued) =>
      onLink({
        what: "Password reset link",
        email: issued.email,
        url: handedOver(issued.delivery === "link" ? issued.reset_url : undefined),
        expires_at: issued.expires_at,
      }),
  });
  const error = members.error ?? change.error ?? resetLink.error;
  return (
    <>
      <ErrorMessage error={error ? describeError(error) : null} />
      <table className="list">
        <tbody>
          {(members.data?.items ?? []).map((m) => (
            <MemberRow
              key={m.user.id}
              member={m}
              onRole={(role) => {
                change.reset();
                setPending({ member: m, role });
              }}
              onResetLink={() => resetLink.mutate(m.user.id)}
            />
          ))}
        </tbody>
      </table>
      {pages.pager(members.data?.next_cursor)}
      <ConfirmDialog
        open={pending !== null}
        title="Change the role?"
        confirmLabel="Change role"
        onCancel={() => setPending(null)}
        onConfirm={() => {
          if (pending) change.mutate({ userId: pending.member.user.id, role: pending.role });
          setPending(null);
        }}
      >
        {pending && <RoleChange member={pending.member} role={pending.role} />}
      </ConfirmDialog>
    </>
  );
}

/** A member's name, email, role select and reset-link button. */
function MemberRow({
  member: m,
  onRole,
  onResetLink,
}: {
  member: Member;
  onRole: (role: string) => void;
  onResetLink: () => void;
}) {
  return (
    <tr>
      <td>{m.user.name}</td>
      <td className="member-email">{m.user.email}</td>
      <td>
        <select aria-label={`Role of ${m.user.email}`} value={m.role} onChange={(e) => onRole(e.target.value)}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </td>
      <td>
        <button
          type="button"
          className="link"
          aria-label={`Password reset link for ${m.user.email}`}
          onClick={onResetLink}
        >
          Reset link
        </button>
      </td>
    </tr>
  );
}

function RoleChange({ member, role }: { member: Member; role: string }) {
  const who = `${member.user.name} (${member.user.email})`;
  if (role === "owner" && member.role !== "owner") {
    return (
      <p>
        {who} is offered the <strong>owner</strong> role: they stay {member.role} until they accept the offer&apos;s
        link.
      </p>
    );
  }
  return (
    <p>
      {who} becomes <strong>{role}</strong> instead of {member.role}.
    </p>
  );
}

function PendingInvites() {
  const queryClient = useQueryClient();
  const invites = useQuery({
    queryKey: ["invites"],
    queryFn: () => read(client.GET("/api/workspace/invites")),
  });
  const revoke = useMutation({
    mutationFn: (inviteId: string) =>
      read(client.DELETE("/api/workspace/invites/{inviteId}", { params: { path: { inviteId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["invites"] }),
  });
  const items = invites.data?.items ?? [];
  const error = invites.error ?? revoke.error;
  return (
    <>
      {items.length > 0 && (
        <>
          <h3>Invited</h3>
          <ul className="invites">
            {items.map((invite) => (
              <li key={invite.id} data-invite={invite.email}>
                <span className="invite-email">{invite.email}</span> · {invite.role} ·{" "}
                {invite.status === "expired" ? (
                  <StatusBadge status="expired" />
                ) : (
                  <span className="muted small">until {formatTime(invite.expires_at)}</span>
                )}{" "}
                <button type="button" className="danger" onClick={() => revoke.mutate(invite.id)}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <ErrorMessage error={error ? describeError(error) : null} />
    </>
  );
}

/** Invites an e-mail, with an account or not: the answer is the same, and nobody joins before accepting. */
function InviteForm({ onLink }: { onLink: ShowLink }) {
  const queryClient = useQueryClient();
  const form = useForm({ defaultValues: { email: "", role: "editor" } });
  const add = useMutation({
    mutationFn: (member: { email: string; role: string }) =>
      read(client.POST("/api/workspace/members", { body: { ...member, role: member.role as Member["role"] } })),
    onSuccess: (created) => {
      form.resetField("email");
      onLink(inviteLink("Invite link", created));
      void queryClient.invalidateQueries({ queryKey: ["invites"] });
    },
  });
  return (
    <>
      <form className="toolbar" onSubmit={form.handleSubmit((member) => add.mutate(member))}>
        <input type="email" aria-label="Member e-mail" placeholder="E-mail" required {...form.register("email")} />
        <select aria-label="New member role" {...form.register("role")}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <button type="submit" disabled={add.isPending}>
          Invite
        </button>
      </form>
      <p className="muted small">
        Every e-mail gets an invite link, which works once for 7 days: nobody joins before accepting it, and each person
        chooses their own password.
      </p>
      <ErrorMessage error={add.error ? describeError(add.error) : null} />
    </>
  );
}
