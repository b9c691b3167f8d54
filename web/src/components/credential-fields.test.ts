import { describe, expect, it } from "vitest";
import { credentialData, describeFields, parseHeaderLines } from "./credential-fields";
import { credentialChoices } from "./config-form";
import type { Credential } from "../types";

describe("credential forms", () => {
  it("turn typed values into the API's data, leaving out empty optional fields", () => {
    expect(
      credentialData("oauth2_client_credentials", {
        token_url: " https://auth.example.com/token ",
        client_id: "svc",
        client_secret: "s3cret",
        scope: "",
        audience: "api",
        client_auth: "basic",
      }),
    ).toEqual({
      ok: true,
      data: {
        token_url: "https://auth.example.com/token",
        client_id: "svc",
        client_secret: "s3cret",
        audience: "api",
        client_auth: "basic",
      },
    });
    expect(credentialData("basic", { username: "ada", password: "" })).toEqual({
      ok: false,
      error: "Password is required",
    });
  });

  it("read allowed hosts as a comma-separated list", () => {
    expect(credentialData("bearer", { token: "t0k", allowed_hosts: " api.shop.test, *.shop.test ,," })).toEqual({
      ok: true,
      data: { token: "t0k", allowed_hosts: ["api.shop.test", "*.shop.test"] },
    });
    expect(credentialData("bearer", { token: "t0k", allowed_hosts: "" })).toEqual({ ok: true, data: { token: "t0k" } });
  });

  it("ask a rotation for the secret fields only", () => {
    expect(credentialData("basic", { username: "", password: "new-pw" }, "secret")).toEqual({
      ok: true,
      data: { password: "new-pw" },
    });
    expect(credentialData("headers", { headers: "X-Tenant: acme\n\nX-Key: a:b" }, "secret")).toEqual({
      ok: true,
      data: { headers: { "X-Tenant": "acme", "X-Key": "a:b" } },
    });
  });

  it("read header lines, refusing a line without a name", () => {
    expect(parseHeaderLines("no colon here")).toBe('"no colon here" is not Name: value');
    expect(parseHeaderLines("  ")).toBe("Give at least one header");
  });

  it("describe shown fields on one line", () => {
    expect(describeFields({ username: "ada", header_names: ["X-A", "X-B"] })).toBe(
      "username: ada · header_names: X-A, X-B",
    );
  });
});

describe("credential picker", () => {
  const credential = (id: string, type: string, hint: string | null = null) =>
    ({ id, name: `name ${id}`, type, hint }) as Credential;
  const list = [credential("cred_a", "bearer", "…1234"), credential("cred_b", "ai_provider")];

  it("offers the credentials of the field's types, and says when the chosen one is gone", () => {
    expect(credentialChoices(list, ["bearer", "basic"], "cred_a")).toEqual([
      { value: "", label: "(none)" },
      { value: "cred_a", label: "name cred_a (bearer …1234)" },
    ]);
    expect(credentialChoices(list, ["bearer"], "cred_gone").map((c) => c.label)).toContain(
      "missing credential cred_gone",
    );
    // While the list loads, the chosen id stands alone.
    expect(credentialChoices(undefined, ["bearer"], "cred_a")).toEqual([
      { value: "", label: "(none)" },
      { value: "cred_a", label: "cred_a" },
    ]);
  });
});
