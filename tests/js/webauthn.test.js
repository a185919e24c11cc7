// The passkey ceremonies' byte conversions (static/js/account/webauthn.js): the server
// sends and reads bytes as base64url without padding.
import { test } from "node:test";
import assert from "node:assert/strict";

import { fromBase64url, toBase64url } from "../../src/marrakech/web/static/js/account/webauthn.js";
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
