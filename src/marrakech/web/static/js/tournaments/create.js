// A private tournament for one's friends (POST /api/tournaments): the lobby's form,
// for a signed-in account; the new tournament's page opens, its link to share.

import { h } from "../dom.js";
import { t, levelName } from "../i18n.js";
import { api } from "../api.js";
import { tournamentFailure } from "./page.js";

const CLOCKS = ["blitz", "relaxed", "turn_1h", "turn_12h", "turn_1d", "turn_3d"];
const LEVELS = ["easy", "medium", "hard"];

/** @param {string} label @param {string} testid @param {HTMLElement} control */
function field(label, testid, control) {
  control.dataset.testid = testid;
  control.id = `tf-${testid}`;
  return h("p", {}, h("label", { for: control.id }, label), " ", control);
}

/** @param {[string, string][]} options */
function select(options) {
  return h(
    "select",
    {},
    options.map(([value, label]) => h("option", { value }, label)),
  );
}

/** The form, folded in a disclosure. */
export function createTournamentForm() {
  const name = /** @type {HTMLInputElement} */ (h("input", { type: "text", maxlength: "60", required: true, autocomplete: "off" }));
  const kind = /** @type {HTMLSelectElement} */ (select([["arena", t("tournament.arena")], ["swiss", t("tournament.swiss.kind")]]));
  const length = /** @type {HTMLInputElement} */ (h("input", { type: "number", min: "1", max: "10080", value: "30", inputmode: "numeric" }));
  const players = /** @type {HTMLSelectElement} */ (select([2, 3, 4].map((n) => [String(n), t("profile.count", { n })])));
  const clock = /** @type {HTMLSelectElement} */ (select(CLOCKS.map((c) => [c, t(`tournament.clock.${c}`)])));
  const bot = /** @type {HTMLSelectElement} */ (select([["", t("tournament.no_bot")], ...LEVELS.map((l) => /** @type {[string, string]} */ ([l, levelName(l)]))]));
  const lengthLabel = h("span", {}, t("tournament.minutes"));
  kind.addEventListener("change", () => {
    lengthLabel.textContent = kind.value === "arena" ? t("tournament.minutes") : t("tournament.rounds");
    length.value = kind.value === "arena" ? "30" : "5";
  });
  // No alert role until there is something to say: an empty alert is one more for
  // assistive technology (and for the page's other forms' refusals) to trip on.
  const error = h("p", { class: "notice error", hidden: true, "data-testid": "tournament-create-error" });
  const submit = h("button", { type: "submit", class: "btn", "data-testid": "tournament-create" }, t("tournament.create"));
  const form = h(
    "form",
    { "data-testid": "tournament-form" },
    field(t("tournament.name"), "tournament-name-input", name),
    field(t("tournament.kind"), "tournament-kind", kind),
    h("p", {}, h("label", { for: "tf-tournament-length" }, lengthLabel), " ", Object.assign(length, { id: "tf-tournament-length" })),
    field(t("lobby.players"), "tournament-players", players),
    field(t("tournament.clock"), "tournament-clock", clock),
    field(t("tournament.bot_entrant"), "tournament-bot", bot),
    error,
    h("p", {}, submit),
  );
  length.dataset.testid = "tournament-length";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const n = Number(length.value);
    const body = {
      name: name.value,
      kind: kind.value,
      players: Number(players.value),
      clock: clock.value,
      minutes: kind.value === "arena" ? n : 0,
      rounds: kind.value === "swiss" ? n : 0,
      bots: bot.value ? [bot.value] : [],
    };
    try {
      const made = await api.createTournament(body);
      location.assign(made.link);
    } catch (e) {
      error.textContent = tournamentFailure(e);
      error.setAttribute("role", "alert");
      error.hidden = false;
    }
  });
  return h("details", { class: "tournament-create" }, h("summary", { "data-testid": "tournament-create-open" }, t("tournament.create.title")), h("p", { class: "hint" }, t("tournament.create.help")), form);
}
