// The account dialog's push notifications (docs/web.md, "Push notifications"): this
// device gets a notification, even with the site closed, for the kinds the player ticks
// (their turn in a game; more as the server sends more). The browser's push
// subscription (PushManager.subscribe, with the server's VAPID key) goes to the server
// with the kinds and the page's language; turning it off removes it from both.

import { h, clear } from "../dom.js";
import { t, lang } from "../i18n.js";
import { api, errorText } from "../api.js";
import { config } from "../config.js";
import { registerWorker } from "../signals.js";

/** The VAPID key as `applicationServerKey` wants it. @param {string} text base64url */
function keyBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** This browser's push manager, or null where there is none (no worker, no Push API). */
async function pushManager() {
  if (!("PushManager" in window)) return null;
  const registration = await registerWorker();
  return registration ? registration.pushManager : null;
}

/** The section, or null when the server sends no push notifications. */
export function accountPushSection() {
  if (!config.push) return null;
  const body = h("div", {});
  renderPush(body);
  return h(
    "section",
    { class: "account-push", "aria-labelledby": "account-push-title", "data-testid": "account-push" },
    h("h3", { id: "account-push-title" }, t("push.title")),
    h("p", { class: "hint" }, t("push.explain")),
    body,
  );
}

/** @param {HTMLElement} root */
function renderPush(root) {
  const S = {
    /** @type {string[]} the kinds the server sends */
    kinds: [],
    chosen: new Set(["your_turn", "challenge", "tournament", "pool_game"]),
    /** @type {PushSubscription|null} this device's subscription, if the server has it */
    subscription: null,
    loading: true,
    busy: false,
    unsupported: false,
    /** @type {string|null} */
    note: null,
    /** @type {string|null} */
    error: null,
  };
  const draw = () => {
    const on = S.subscription !== null;
    const status = S.unsupported ? "unsupported" : S.loading ? "loading" : on ? "on" : "off";
    const boxes = S.kinds.map((kind) => {
      const box = h("input", {
        type: "checkbox",
        id: `push-kind-${kind}`,
        checked: S.chosen.has(kind),
        disabled: S.busy,
        "data-testid": `push-kind-${kind}`,
        onchange: (/** @type {Event} */ event) => {
          const target = /** @type {HTMLInputElement} */ (event.target);
          if (target.checked) S.chosen.add(kind);
          else S.chosen.delete(kind);
          if (S.subscription) act(S.chosen.size ? turnOn : turnOff, S.chosen.size ? t("push.note.saved") : t("push.note.off"));
        },
      });
      return h("p", { class: "field check" }, box, h("label", { for: `push-kind-${kind}` }, t(`push.kind.${kind}`)));
    });
    const button = on
      ? h("button", { type: "button", class: "btn ghost small", disabled: S.busy, "data-testid": "push-off", onclick: () => act(turnOff, t("push.note.off")) }, t("push.off"))
      : h("button", { type: "button", class: "btn small", disabled: S.busy || !S.chosen.size, "data-testid": "push-on", onclick: () => act(turnOn, t("push.note.on")) }, t("push.on"));
    clear(root).append(
      ...[
        h("p", { class: "push-status", "data-testid": "push-status", "data-status": status }, t(`push.status.${status}`)),
        S.error ? h("p", { class: "notice error", role: "alert", tabindex: "-1", "data-testid": "push-error" }, S.error) : null,
        S.note ? h("p", { class: "notice info", role: "status", tabindex: "-1", "data-testid": "push-note" }, S.note) : null,
        ...(S.unsupported || S.loading ? [] : [...boxes, button]),
      ].filter((el) => el !== null),
    );
  };
  const turnOn = async () => {
    const manager = await pushManager();
    if (!manager) throw new Error(t("push.status.unsupported"));
    if ((await Notification.requestPermission()) !== "granted") throw new Error(t("push.denied"));
    const key = keyBytes((await api.pushInfo()).public_key);
    const subscription = (await manager.getSubscription()) || (await manager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
    const answer = await api.pushDevice(subscription.toJSON(), [...S.chosen], lang());
    S.chosen = new Set(answer.device.kinds);
    S.subscription = subscription;
  };
  const turnOff = async () => {
    const subscription = S.subscription;
    if (!subscription) return;
    await api.pushRemove(subscription.endpoint);
    S.subscription = null;
    await subscription.unsubscribe().catch(() => false); // gone already: nothing to undo
  };
  const act = async (/** @type {() => Promise<void>} */ action, /** @type {string} */ done) => {
    S.busy = true;
    S.note = S.error = null;
    draw();
    try {
      await action();
      S.note = done;
    } catch (e) {
      S.error = t("push.error", { message: errorText(e) });
    } finally {
      S.busy = false;
      draw();
      const answer = /** @type {HTMLElement|null} */ (root.querySelector("[role=alert], [role=status]"));
      if (answer) answer.focus();
    }
  };
  draw();
  (async () => {
    const info = await api.pushInfo();
    S.kinds = info.kinds.filter((/** @type {{live: boolean}} */ kind) => kind.live).map((/** @type {{name: string}} */ kind) => kind.name);
    const manager = await pushManager();
    if (!manager) {
      S.unsupported = true;
      return;
    }
    const subscription = await manager.getSubscription();
    if (subscription) {
      const state = (await api.pushState(subscription.endpoint)).device;
      if (state) {
        S.subscription = subscription;
        S.chosen = new Set(state.kinds);
      }
    }
  })()
    .catch((e) => {
      S.error = t("push.error", { message: errorText(e) });
    })
    .finally(() => {
      S.loading = false;
      draw();
    });
}
