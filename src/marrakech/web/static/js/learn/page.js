// The tutorial (/learn): one lesson at a time, on a position drawn with the game's board.
// The lessons, their words and the moves offered come from GET /api/lessons; every answer
// is judged by the server's engine (POST /api/lessons/{id}/answer): this page rules nothing.
// Progress is remembered on the device (progress.js); any lesson can be skipped.

import { h, clear, announce } from "../dom.js";
import { t, lang, onLangChange } from "../i18n.js";
import { Board } from "../board.js";
import { lastMove } from "../animate.js";
import { api } from "../api.js";
import { loadProgress, markLesson, saveProgress } from "./progress.js";

/**
 * A lesson as GET /api/lessons sends it: its position, the moves offered, its words.
 * @typedef {{id: string, choices: string[], position: import("../board.js").StateView
 *   & {to_move: number, legal: string[]}} & Record<string, any>} Lesson
 * @typedef {(key: string, values?: Record<string, unknown>) => string} Words
 * @typedef {{data: {lessons: Lesson[], words: Record<string, string>}, index: number,
 *   progress: import("./progress.js").Progress}} Learn  The tutorial as a step list reads it.
 */

/** The label of a move token: the orient words, the die face, or the two squares. @param {string} token */
function choiceLabel(token) {
  if (["L", "S", "R"].includes(token)) return `${t(`game.orient.${token}`)} (${token})`;
  const roll = /^r([1-4])$/.exec(token);
  if (roll) return t("learn.roll", { n: roll[1] });
  return token.replace("-", "–");
}

/** The row of numbered lessons, ticked when done. @param {Learn} L @param {Words} words @param {(index: number) => void} go */
function stepList(L, words, go) {
  const list = h("ol", { class: "learn-steps", "aria-label": words("title") });
  L.data.lessons.forEach((lesson, i) => {
    const done = L.progress.done.includes(lesson.id);
    const b = h(
      "button",
      {
        type: "button",
        class: `btn small ${i === L.index ? "" : "secondary"}${done ? " done" : ""}`,
        "data-testid": `learn-step-${lesson.id}`,
        "aria-current": i === L.index ? "step" : null,
        title: lesson.title,
      },
      done ? `✓ ${i + 1}` : String(i + 1),
    );
    const where = words("lesson", { n: i + 1, total: L.data.lessons.length });
    b.setAttribute("aria-label", `${where}: ${lesson.title}${done ? ` (${words("done")})` : ""}`);
    b.addEventListener("click", () => go(i));
    list.append(h("li", {}, b));
  });
  return list;
}

/**
 * The moves offered, as buttons; a placement shows its carpet on the board on focus.
 * @param {Lesson} lesson
 * @param {{words: Words, board: Board, disabled: boolean, onTry: (token: string) => void}} options
 */
function choiceGroup(lesson, { words, board, disabled, onTry }) {
  const seat = lesson.position.seats[lesson.position.to_move] || lesson.position.seats[0];
  const colour = seat.next_carpet || seat.colours[0];
  const choices = h("div", { class: "learn-choices", role: "group", "aria-label": words("choices") });
  for (const token of lesson.choices) {
    const b = h("button", { type: "button", class: "btn secondary", "data-testid": `choice-${token}`, "data-token": token }, choiceLabel(token));
    b.disabled = disabled;
    b.addEventListener("click", () => onTry(token));
    if (token.includes("-")) {
      const show = () => board.showPreview(token.split("-"), colour);
      const hide = () => board.showPreview(null);
      b.addEventListener("focus", show);
      b.addEventListener("mouseenter", show);
      b.addEventListener("blur", hide);
      b.addEventListener("mouseleave", hide);
    }
    choices.append(b);
  }
  return choices;
}

/**
 * A carpet placed on the board as in a game: a first square, then one of its partners.
 * The squares of legal carpets are marked; a forbidden try offered by the lesson can be
 * made too (the engine refuses it). `pick.square` is the first square chosen; `square`
 * null marks the squares to start from.
 * @param {Lesson} lesson
 * @param {Board} board
 * @param {{square: string | null}} pick
 * @param {string | null} square
 * @param {(token: string) => void} onPlace
 */
function pickSquare(lesson, board, pick, square, onPlace) {
  const places = lesson.choices.filter((c) => c.includes("-")).map((c) => [c, ...c.split("-")]);
  if (!places.length) return;
  const picked = pick.square;
  if (picked && square && picked !== square) {
    const found = places.find(([, a, b]) => (a === picked && b === square) || (a === square && b === picked));
    if (found) {
      pick.square = null;
      onPlace(found[0]);
      return;
    }
  }
  const partners = square ? places.flatMap(([, a, b]) => (a === square ? [b] : b === square ? [a] : [])) : [];
  pick.square = partners.length ? square : null;
  const legal = new Set(lesson.position.legal.flatMap((c) => c.split("-")));
  board.mark(pick.square ? { selected: pick.square, partners } : { legal: [...legal] });
}

/** Show the tutorial in `root`; returns what unmounts it. @param {HTMLElement} root */
export function mountLearn(root) {
  const L = {
    /** @type {any} */ data: null,
    /** @type {string | null} */ error: null,
    index: 0,
    /** @type {any} */ verdict: null,
    busy: false,
    progress: loadProgress(),
  };
  saveProgress(L.progress); // opening the tutorial answers the lobby's offer

  const words = (/** @type {string} */ key, /** @type {Record<string, unknown>} */ values = {}) =>
    L.data.words[key].replace(/\{(\w+)\}/g, (/** @type {string} */ _, /** @type {string} */ name) => String(values[name] ?? ""));

  async function load() {
    try {
      const first = !L.data;
      L.data = await api.lessons(lang());
      L.error = null;
      if (first) {
        const open = L.data.lessons.findIndex((/** @type {Lesson} */ l) => !L.progress.done.includes(l.id) && !L.progress.skipped.includes(l.id));
        L.index = open < 0 ? 0 : open;
      }
    } catch (error) {
      L.error = /** @type {Error} */ (error).message;
    }
    render();
  }

  /** @param {Lesson} lesson @param {string} token */
  async function tryMove(lesson, token) {
    if (L.busy) return;
    L.busy = true;
    try {
      L.verdict = await api.lessonAnswer(lesson.id, token, lang());
      if (L.verdict.correct) L.progress = markLesson(L.progress, lesson.id, true);
    } catch (error) {
      L.verdict = { legal: false, correct: false, message: /** @type {Error} */ (error).message, after: null, event: null };
    }
    L.busy = false;
    render();
    announce(L.verdict.message);
    const focus = root.querySelector(L.verdict.correct ? "[data-testid=learn-next]" : "[data-testid=learn-again]");
    if (focus instanceof HTMLElement) focus.focus();
  }

  /** @param {number} index */
  function go(index) {
    L.index = index;
    L.verdict = null;
    render();
    // The lesson opens at its top when it does not fit where it stands (its step buttons
    // are below it): board, question and first move in view on a phone, without scrolling.
    const card = root.querySelector(".learn-lesson");
    if (card) {
      const box = card.getBoundingClientRect();
      if (box.top < 0 || box.bottom > innerHeight) card.scrollIntoView({ block: "start" });
    }
    const heading = root.querySelector("[data-testid=learn-lesson-title]");
    if (heading instanceof HTMLElement) heading.focus({ preventScroll: true });
  }

  /** @param {Lesson} lesson */
  function skip(lesson) {
    L.progress = markLesson(L.progress, lesson.id, false);
    go(Math.min(L.index + 1, L.data.lessons.length));
  }

  /** @param {Lesson} lesson */
  function lessonCard(lesson) {
    const boardHost = h("div", { class: "board-wrap learn-board" });
    const verdict = L.verdict;
    const open = !(verdict && verdict.correct);
    const pick = { square: null };
    const board = new Board(boardHost, { onSquare: (q) => open && pickSquare(lesson, board, pick, q, (token) => tryMove(lesson, token)) });
    if (verdict && verdict.after) {
      board.render(verdict.after);
      const ev = { ...verdict.event, from: lesson.position.assam };
      board.showLastMove(lastMove([ev]));
    } else {
      board.render(lesson.position);
      if (open) pickSquare(lesson, board, pick, null, () => {});
    }
    const choices = choiceGroup(lesson, {
      words,
      board,
      disabled: Boolean(verdict && verdict.correct) || L.busy,
      onTry: (token) => tryMove(lesson, token),
    });
    const last = L.index === L.data.lessons.length - 1;
    const actions = h("div", { class: "learn-actions" });
    if (verdict && verdict.correct) {
      const next = h("button", { type: "button", class: "btn", "data-testid": "learn-next" }, last ? words("done") : words("next"));
      next.addEventListener("click", () => go(L.index + 1));
      actions.append(next);
    } else {
      if (verdict) {
        const again = h("button", { type: "button", class: "btn secondary", "data-testid": "learn-again" }, words("again"));
        again.addEventListener("click", () => go(L.index));
        actions.append(again);
      }
      const skipButton = h("button", { type: "button", class: "btn ghost", "data-testid": "learn-skip" }, words("skip"));
      skipButton.addEventListener("click", () => skip(lesson));
      actions.append(skipButton);
    }
    return h(
      "section",
      { class: "card learn-lesson", "data-testid": "learn-lesson", "data-lesson": lesson.id },
      h("p", { class: "learn-count" }, words("lesson", { n: L.index + 1, total: L.data.lessons.length }), " · ",
        h("span", { "data-testid": "learn-rule" }, words("rule", { rules: lesson.rules.join(", ") }))),
      h("h2", { tabindex: "-1", "data-testid": "learn-lesson-title" }, lesson.title),
      // Side by side on a wide screen (the board, then the words and moves), stacked on a phone.
      h(
        "div",
        { class: "learn-layout" },
        boardHost,
        h(
          "div",
          { class: "learn-text" },
          h("p", { "data-testid": "learn-prompt" }, lesson.prompt),
          choices,
          verdict
            ? h("p", { class: `notice ${verdict.correct ? "info" : "error"}`, role: "status", "data-testid": "learn-verdict", "data-correct": verdict.correct ? "1" : "0" }, verdict.message)
            : null,
          actions,
        ),
      ),
    );
  }

  function finished() {
    return h(
      "section",
      { class: "card learn-lesson", "data-testid": "learn-finished" },
      h("h2", { tabindex: "-1", "data-testid": "learn-lesson-title" }, words("finished")),
      h("a", { href: "/", class: "btn", "data-testid": "learn-lobby" }, t("nav.lobby")),
    );
  }

  function render() {
    clear(root);
    if (L.error) {
      root.append(h("p", { class: "notice error", role: "alert" }, t("lobby.error", { message: L.error })));
      return;
    }
    if (!L.data) return;
    const lesson = L.data.lessons[L.index];
    root.append(
      h(
        "div",
        { class: "learn", "data-testid": "learn" },
        h("h1", {}, words("title")),
        h("p", { class: "learn-intro" }, words("intro")),
        // The lesson before the row of lessons: its board and first move then fit a
        // 360 x 740 phone and a 1366 x 768 laptop without scrolling.
        lesson ? lessonCard(lesson) : finished(),
        stepList(L, words, go),
      ),
    );
  }

  load();
  const off = onLangChange(() => {
    L.verdict = null;
    load();
  });
  return off;
}
