// Passkeys in the browser: the server's ceremony options (JSON, bytes as base64url) made
// into what navigator.credentials takes, and the credential it returns made into JSON.
// No library: the options and answers are those of docs/web-protocol.md, "Accounts".

/** base64url text to bytes. @param {string} text */
export function fromBase64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const raw = atob(b64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes.buffer;
}

/** Bytes to base64url text (no padding). @param {ArrayBuffer|ArrayBufferView|null} data */
export function toBase64url(data) {
  if (!data) return null;
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let raw = "";
  for (const b of bytes) raw += String.fromCharCode(b);
  return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Whether a page's host name is an IP address (`127.0.0.1`, `[::1]`), not a name. @param {string} hostname */
export function isIpAddress(hostname) {
  return hostname.startsWith("[") || hostname.includes(":") || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Why passkeys cannot work on a page, or null when they can: `ip_address` (WebAuthn
 * refuses an IP address as the relying party: browsers answer "This is an invalid
 * domain"), `insecure` (not a secure context: plain http on a name other than
 * localhost), `unsupported` (no WebAuthn in this browser).
 * @param {{secure: boolean, hostname: string, webauthn: boolean}} here
 * @returns {"ip_address"|"insecure"|"unsupported"|null}
 */
export function passkeyObstacle(here) {
  if (isIpAddress(here.hostname)) return "ip_address";
  if (!here.secure) return "insecure";
  if (!here.webauthn) return "unsupported";
  return null;
}

/**
 * The sentence (an i18n key and its values) saying why passkeys cannot work here; on a
 * loopback address, the same page on `localhost`, where they do.
 * @param {"ip_address"|"insecure"|"unsupported"} obstacle
 * @param {{protocol: string, hostname: string, port: string, pathname: string}} where
 * @returns {{key: string, values: Record<string, string>}}
 */
export function obstacleSentence(obstacle, where) {
  const loopback = /^127\./.test(where.hostname) || where.hostname === "[::1]";
  if (obstacle === "ip_address" && loopback) {
    const url = `${where.protocol}//localhost${where.port ? `:${where.port}` : ""}${where.pathname}`;
    return { key: "account.passkey.ip_loopback", values: { url } };
  }
  return { key: `account.passkey.${obstacle}`, values: {} };
}

/** Why passkeys cannot work on this page (passkeyObstacle), or null when they can. */
export function pagePasskeyObstacle() {
  if (typeof window === "undefined") return "unsupported";
  return passkeyObstacle({
    secure: window.isSecureContext,
    hostname: location.hostname,
    webauthn: typeof window.PublicKeyCredential === "function",
  });
}

/** @param {any[]|undefined} list */
function descriptors(list) {
  return (list || []).map((c) => ({ ...c, id: fromBase64url(c.id) }));
}

/** navigator.credentials.create with the server's options; the answer as JSON. @param {any} options */
export async function createPasskey(options) {
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    user: { ...options.user, id: fromBase64url(options.user.id) },
    excludeCredentials: descriptors(options.excludeCredentials),
  };
  const credential = /** @type {any} */ (await navigator.credentials.create({ publicKey }));
  const response = credential.response;
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      attestationObject: toBase64url(response.attestationObject),
      transports: typeof response.getTransports === "function" ? response.getTransports() : [],
    },
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
  };
}

/** navigator.credentials.get with the server's options; the answer as JSON. @param {any} options */
export async function usePasskey(options) {
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    allowCredentials: descriptors(options.allowCredentials),
  };
  const credential = /** @type {any} */ (await navigator.credentials.get({ publicKey }));
  const response = credential.response;
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      authenticatorData: toBase64url(response.authenticatorData),
      signature: toBase64url(response.signature),
      userHandle: toBase64url(response.userHandle),
    },
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
  };
}
