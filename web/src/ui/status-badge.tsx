export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

export function ErrorMessage({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <div className="error-message" role="alert">
      {error}
    </div>
  );
}
