// The passkey ceremonies' byte conversions (static/js/account/webauthn.js): the server
// sends and reads bytes as base64url without padding; and where passkeys cannot work.
import { test } from "node:test";
import assert from "node:assert/strict";

import { fromBase64url, toBase64url, passkeyObstacle, obstacleSentence } from "../../src/marrakech/web/static/js/account/webauthn.js";
import { playerName, setLang } from "../../src/marrakech/web/static/js/i18n.js";

test("base64url round trips every byte, without padding", () => {
  const bytes = new Uint8Array(256).map((_, i) => i);
  const text = toBase64url(bytes);
  assert.ok(!/[+/=]/.test(text));
  assert.deepEqual(new Uint8Array(fromBase64url(text)), bytes);
  for (const n of [0, 1, 2, 3, 4, 5]) {
    const some = bytes.slice(250 - n, 250);
    assert.deepEqual(new Uint8Array(fromBase64url(toBase64url(some))), some);
  }
});

test("base64url reads what Python's webauthn writes", () => {
  // bytes_to_base64url(b"\xfb\xff\xfe") == "-__-"
  assert.deepEqual([...new Uint8Array(fromBase64url("-__-"))], [0xfb, 0xff, 0xfe]);
  assert.equal(toBase64url(new Uint8Array([0xfb, 0xff, 0xfe]).buffer), "-__-");
  assert.equal(toBase64url(null), null);
});

test("a deleted account's seats are named in the page's language", () => {
  assert.equal(playerName("deleted player"), "deleted player");
  assert.equal(playerName("Ana"), "Ana");
  setLang("fr", { remember: false });
  assert.equal(playerName("deleted player"), "joueur supprimé");
  setLang("en", { remember: false });
});

test("passkeys are refused on an IP address, an insecure page, a browser without WebAuthn", () => {
  const here = { secure: true, hostname: "localhost", webauthn: true };
  assert.equal(passkeyObstacle(here), null);
  assert.equal(passkeyObstacle({ ...here, hostname: "games.example.org" }), null);
  // 127.0.0.1 is a secure context, but WebAuthn says "This is an invalid domain" (issue 36).
  assert.equal(passkeyObstacle({ ...here, hostname: "127.0.0.1" }), "ip_address");
  assert.equal(passkeyObstacle({ ...here, hostname: "[::1]" }), "ip_address");
  assert.equal(passkeyObstacle({ ...here, hostname: "192.0.2.7", secure: false }), "ip_address");
  assert.equal(passkeyObstacle({ ...here, hostname: "games.example.org", secure: false }), "insecure");
  assert.equal(passkeyObstacle({ ...here, webauthn: false }), "unsupported");
  const where = { protocol: "http:", hostname: "127.0.0.1", port: "8000", pathname: "/g/abc" };
  assert.deepEqual(obstacleSentence("ip_address", where), { key: "account.passkey.ip_loopback", values: { url: "http://localhost:8000/g/abc" } });
  assert.deepEqual(obstacleSentence("ip_address", { ...where, hostname: "192.0.2.7" }), { key: "account.passkey.ip_address", values: {} });
  assert.deepEqual(obstacleSentence("insecure", where), { key: "account.passkey.insecure", values: {} });
});
