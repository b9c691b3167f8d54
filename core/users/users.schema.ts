// What an account's e-mail and password look like, and a new user: the rules the API's request
// schemas and the operator's CLI check alike.
import { z } from "zod";

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: "must be an e-mail address" }));

// The upper bound keeps hashing cost bounded: longer passwords are refused before any hashing.
export const passwordSchema = z
  .string()
  .min(8, { message: "must be at least 8 characters" })
  .max(256, { message: "must be at most 256 characters" });

export const newUserSchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  name: z.string().trim().min(1).max(200),
  workspace: z.string().trim().min(1).max(200),
});

export type NewUser = z.infer<typeof newUserSchema>;
