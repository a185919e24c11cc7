// The end screen's charts: each seat's score and winning chances after every player
// turn, drawn in SVG from the server's analysis (docs/web-protocol.md, "After the game").
// Each seat's line has its carpet colour and its own dash, so it reads without colour.

import { s, h } from "./dom.js";
import { shades } from "./board.js";

const W = 320;
const H = 150;
const LEFT = 34;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 22;
const DASHES = ["", "7 4", "2 4", "9 3 2 3"];

/**
 * A round step for about `count` ticks up to `max`: 1, 2 or 5 times a power of ten.
 * @param {number} max
 * @param {number} count
 */
export function niceStep(max, count) {
  const rough = Math.max(max, 1) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((m) => m >= rough - 1e-9);
  return Math.max(1, step || 10 * power);
}

/**
 * The axis of a chart of whole numbers up to `max`: round ticks from 0, the last at or
 * just above `max` ("0, 10, 20, 30, 40, 50" for 46; not "0, 12, 23, 35, 46").
 * @param {number} max
 * @returns {number[]}
 */
export function roundTicks(max, count = 5) {
  const step = niceStep(max, count);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const ticks = [];
  for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
  return ticks;
}

/**
 * A line chart of one series of the analysis (`scores` or `chances`).
 * @param {Record<string, any>} analysis the server's Analysis
 * @param {string[]} firstColours each seat's first colour letter
 * @param {"scores"|"chances"} series
 * @param {{title: string, seatNames: string[]}} text
 */
export function seriesChart(analysis, firstColours, series, text) {
  const points = analysis[series];
  const turns = analysis.turns;
  const percent = series === "chances";
  const ticks = percent ? [0, 0.25, 0.5, 0.75, 1] : roundTicks(Math.max(1, ...points.flat()));
  const top = ticks[ticks.length - 1];
  const lastTurn = Math.max(1, turns[turns.length - 1] || 1);
  const x = (/** @type {number} */ turn) => LEFT + ((W - LEFT - RIGHT) * turn) / lastTurn;
  const y = (/** @type {number} */ value) => TOP + (H - TOP - BOTTOM) * (1 - value / top);
  const svg = s("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "chart",
    role: "img",
    "aria-label": text.title,
    "data-testid": `chart-${series}`,
  });
  // Grid: round values, labelled on the left; turns along the bottom, round too.
  for (const value of ticks) {
    svg.append(
      s("line", { x1: LEFT, x2: W - RIGHT, y1: y(value), y2: y(value), class: "chart-grid" }),
      s(
        "text",
        { x: LEFT - 4, y: y(value) + 4, class: "chart-axis", "text-anchor": "end" },
        percent ? `${Math.round(value * 100)}%` : String(Math.round(value)),
      ),
    );
  }
  const step = niceStep(lastTurn, 6);
  for (let turn = 0; turn <= lastTurn; turn += step) {
    svg.append(s("text", { x: x(turn), y: H - 6, class: "chart-axis", "text-anchor": "middle" }, String(turn)));
  }
  firstColours.forEach((colour, seat) => {
    const d = points.map((/** @type {number[]} */ row, /** @type {number} */ i) => `${i ? "L" : "M"} ${x(turns[i]).toFixed(1)} ${y(row[seat]).toFixed(1)}`).join(" ");
    svg.append(
      s("path", {
        d,
        class: "chart-line",
        stroke: shades(colour).dark,
        "stroke-dasharray": DASHES[seat % DASHES.length],
        "data-seat": seat,
      }),
    );
  });
  const legend = h(
    "ul",
    { class: "chart-legend" },
    firstColours.map((colour, seat) =>
      h(
        "li",
        {},
        s(
          "svg",
          { viewBox: "0 0 30 10", width: 30, height: 10, "aria-hidden": "true" },
          s("line", {
            x1: 1,
            x2: 29,
            y1: 5,
            y2: 5,
            class: "chart-line",
            stroke: shades(colour).dark,
            "stroke-dasharray": DASHES[seat % DASHES.length],
          }),
        ),
        text.seatNames[seat],
      ),
    ),
  );
  return h("figure", { class: "chart-figure" }, h("figcaption", {}, text.title), svg, legend);
}

/**
 * Round ticks from `low` to `high` (a rating axis does not start at 0).
 * @param {number} low
 * @param {number} high
 * @returns {number[]}
 */
export function rangeTicks(low, high, count = 4) {
  const step = niceStep(Math.max(1, high - low), count);
  const first = Math.floor(low / step) * step;
  const ticks = [];
  for (let v = first; v < high + step - 1e-9; v += step) ticks.push(v);
  if (ticks.length < 2) ticks.push(first + step);
  return ticks;
}

/**
 * A player's rating after each of its rated games, one line per player count (the
 * profile's chart): the games along the bottom, the rating shown on the left.
 * @param {{players: number, rating: number}[]} history oldest first
 * @param {{title: string, count: (n: number) => string}} text
 */
export function ratingChart(history, text) {
  const counts = [...new Set(history.map((point) => point.players))].sort();
  const values = history.map((point) => point.rating);
  const ticks = rangeTicks(Math.min(...values), Math.max(...values));
  const low = ticks[0];
  const high = ticks[ticks.length - 1];
  const games = Math.max(1, ...counts.map((n) => history.filter((point) => point.players === n).length));
  const x = (/** @type {number} */ index) => LEFT + 8 + ((W - LEFT - RIGHT - 8) * index) / Math.max(1, games - 1);
  const y = (/** @type {number} */ value) => TOP + (H - TOP - BOTTOM) * (1 - (value - low) / Math.max(1, high - low));
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": text.title, "data-testid": "rating-chart" });
  for (const value of ticks) {
    svg.append(
      s("line", { x1: LEFT, x2: W - RIGHT, y1: y(value), y2: y(value), class: "chart-grid" }),
      s("text", { x: LEFT - 4, y: y(value) + 4, class: "chart-axis", "text-anchor": "end" }, String(value)),
    );
  }
  const step = niceStep(games, 6);
  for (let game = step; game <= games; game += step) {
    svg.append(s("text", { x: x(game - 1), y: H - 6, class: "chart-axis", "text-anchor": "middle" }, String(game)));
  }
  counts.forEach((n, line) => {
    const points = history.filter((point) => point.players === n);
    const d = points.map((point, i) => `${i ? "L" : "M"} ${x(i).toFixed(1)} ${y(point.rating).toFixed(1)}`).join(" ");
    svg.append(s("path", { d, class: "chart-line", stroke: "#7a2a12", "stroke-dasharray": DASHES[line % DASHES.length], "data-players": n }));
    for (const [i, point] of points.entries()) {
      svg.append(s("circle", { cx: x(i), cy: y(point.rating), r: 2.5, class: "chart-dot", fill: "#7a2a12" }, s("title", {}, `${text.count(n)}: ${point.rating}`)));
    }
  });
  const legend = h(
    "ul",
    { class: "chart-legend" },
    counts.map((n, line) =>
      h(
        "li",
        {},
        s(
          "svg",
          { viewBox: "0 0 30 10", width: 30, height: 10, "aria-hidden": "true" },
          s("line", { x1: 1, x2: 29, y1: 5, y2: 5, class: "chart-line", stroke: "#7a2a12", "stroke-dasharray": DASHES[line % DASHES.length] }),
        ),
        text.count(n),
      ),
    ),
  );
  return h("figure", { class: "chart-figure" }, h("figcaption", {}, text.title), svg, legend);
}
