// One input of a credential's field in the credential forms (a new credential, a rotation): a list of
// choices, lines, or a text (a password field for a secret, which the browser does not fill in).
import type { useForm } from "react-hook-form";
import type { CredentialFieldSpec } from "../components/credential-fields";

/** A credential form's values, by field key. */
export type Values = Record<string, string>;

/** One input of a credential field, as `register` (already naming it) binds it. */
export function CredentialFieldInput({
  field,
  register,
  prefix,
}: {
  field: CredentialFieldSpec;
  register: () => ReturnType<ReturnType<typeof useForm<Values>>["register"]>;
  prefix: string;
}) {
  const label = `${prefix}${field.label}`;
  if (field.options) {
    return (
      <select aria-label={label} {...register()}>
        {field.options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  }
  if (field.lines) {
    return <textarea aria-label={label} rows={3} placeholder="X-Tenant: acme" {...register()} />;
  }
  return (
    <input
      aria-label={label}
      type={field.secret ? "password" : "text"}
      autoComplete={field.secret ? "new-password" : "off"}
      placeholder={field.placeholder ?? (field.optional ? `${field.label} (optional)` : field.label)}
      {...register()}
    />
  );
}
