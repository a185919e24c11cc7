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
 * A line chart of one series of the analysis (`scores` or `chances`).
 * @param {object} analysis the server's Analysis
 * @param {string[]} firstColours each seat's first colour letter
 * @param {"scores"|"chances"} series
 * @param {{title: string, seatNames: string[]}} text
 */
export function seriesChart(analysis, firstColours, series, text) {
  const points = analysis[series];
  const turns = analysis.turns;
  const percent = series === "chances";
  const top = percent ? 1 : Math.max(1, ...points.flat());
  const lastTurn = Math.max(1, turns[turns.length - 1] || 1);
  const x = (turn) => LEFT + ((W - LEFT - RIGHT) * turn) / lastTurn;
  const y = (value) => TOP + (H - TOP - BOTTOM) * (1 - value / top);
  const svg = s("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "chart",
    role: "img",
    "aria-label": text.title,
    "data-testid": `chart-${series}`,
  });
  // Grid: four bands, labelled on the left; turns along the bottom.
  for (let k = 0; k <= 4; k++) {
    const value = (top * k) / 4;
    svg.append(
      s("line", { x1: LEFT, x2: W - RIGHT, y1: y(value), y2: y(value), class: "chart-grid" }),
      s(
        "text",
        { x: LEFT - 4, y: y(value) + 4, class: "chart-axis", "text-anchor": "end" },
        percent ? `${Math.round(value * 100)}%` : String(Math.round(value)),
      ),
    );
  }
  const step = Math.max(1, Math.ceil(lastTurn / 6));
  for (let turn = 0; turn <= lastTurn; turn += step) {
    svg.append(s("text", { x: x(turn), y: H - 6, class: "chart-axis", "text-anchor": "middle" }, String(turn)));
  }
  firstColours.forEach((colour, seat) => {
    const d = points.map((row, i) => `${i ? "L" : "M"} ${x(turns[i]).toFixed(1)} ${y(row[seat]).toFixed(1)}`).join(" ");
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
