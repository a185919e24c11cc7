// The board as a square SVG: 7 × 7 squares, the border arcs and the corner loops on the
// rim (R2), carpets with colour, pattern and letter, Assam with his facing, and the
// highlights the game page asks for (legal placements, a preview, the tithe region).
//
// This module draws; it knows no rules. Where Assam goes comes from the server's event
// `path` (each step says where he stands, which way he faces and whether it followed an
// arc); the rim's arcs come from the server too (config.rim, the core's rim_view), and
// the carpets' colours (config.palette, the core's marrakech.palette.WEB_CARPETS).

import { s, clear } from "./dom.js";
import { t, colourName } from "./i18n.js";
import { config } from "./config.js";

const CELL = 100;
const SIZE = 7;
const FILES = "abcdefg";
const PAD = 110;
/** The shades of a carpet colour (base, dark, light, ink): the server's palette. @param {string} colour */
export function shades(colour) {
  return config.palette[colour];
}
/** @type {Record<string, number>} */
const FACING_ANGLE = { N: 0, E: 90, S: 180, W: 270 };
/** @type {Record<string, string>} */
const OPPOSITE = { N: "S", S: "N", E: "W", W: "E" };
/** @type {Record<string, number[]>} */
const OUTWARD = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };

/**
 * What the server sends (docs/web-protocol.md), read as it comes: a position
 * (`views.state_view`), a square's carpet, one step of Assam's walk.
 * @typedef {{seats: SeatView[], winners: number[], phase: string, players: number,
 *   board: Record<string, Cell | null>, assam: {square: string, facing: string}}
 *   & Record<string, any>} StateView
 * @typedef {{seat: number, colours: string[]} & Record<string, any>} SeatView
 * @typedef {{colour: string, id: number} & Record<string, any>} Cell
 * @typedef {{square: string, facing: string, arc?: boolean} & Record<string, any>} Step
 */

/** @type {string[]} */
export const SQUARES = [];
for (let rank = 1; rank <= SIZE; rank++) {
  for (let f = 0; f < SIZE; f++) SQUARES.push(FILES[f] + rank);
}

/** @param {string} square */
export function fileOf(square) {
  return FILES.indexOf(square[0]);
}
/** @param {string} square */
export function rankOf(square) {
  return Number(square[1]);
}
/** @param {string} square */
function origin(square) {
  return [fileOf(square) * CELL, (SIZE - rankOf(square)) * CELL];
}
/** @param {string} square */
export function centre(square) {
  const [x, y] = origin(square);
  return [x + CELL / 2, y + CELL / 2];
}
/** @param {string} square @param {string} side */
function edgeMid(square, side) {
  const [cx, cy] = centre(square);
  const [dx, dy] = OUTWARD[side];
  return [cx + (dx * CELL) / 2, cy + (dy * CELL) / 2];
}

/** The SVG arc from the edge of one square to the edge of another, bulging outward. @param {string} fromSquare @param {string} fromSide @param {string} toSquare @param {string} toSide */
function arcSegment(fromSquare, fromSide, toSquare, toSide) {
  const p1 = edgeMid(fromSquare, fromSide);
  const p2 = edgeMid(toSquare, toSide);
  const r = CELL / 2;
  let out;
  let large = 0;
  if (fromSquare === toSquare) {
    // Corner loop: three quarters of a circle around the shared corner.
    const [cx, cy] = centre(fromSquare);
    const corner = [p1[0] + p2[0] - cx, p1[1] + p2[1] - cy];
    const len = Math.hypot(corner[0] - cx, corner[1] - cy);
    out = [corner[0] + ((corner[0] - cx) / len) * r, corner[1] + ((corner[1] - cy) / len) * r];
    large = 1;
  } else {
    const [dx, dy] = OUTWARD[fromSide];
    out = [(p1[0] + p2[0]) / 2 + dx * r, (p1[1] + p2[1]) / 2 + dy * r];
  }
  const cross = (out[0] - p1[0]) * (p2[1] - out[1]) - (out[1] - p1[1]) * (p2[0] - out[0]);
  const sweep = cross > 0 ? 1 : 0;
  return { p1, p2, d: `A ${r} ${r} 0 ${large} ${sweep} ${p2[0]} ${p2[1]}` };
}

/**
 * One arc of the rim as the server sends it: two edge squares joined by a half-circle
 * beyond the edge they share, or a corner loop (one square, its two outer edges). A
 * half-circle is drawn from its upper or left end, so the stitches fall where they
 * always have.
 * @param {{loop?: boolean, squares: string[], edges: string[]}} arc
 */
function rimSegment(arc) {
  if (arc.loop) return arcSegment(arc.squares[0], arc.edges[0], arc.squares[1], arc.edges[1]);
  const [a, b] = [...arc.squares].sort(
    (p, q) => origin(p)[0] - origin(q)[0] || origin(p)[1] - origin(q)[1],
  );
  return arcSegment(a, arc.edges[0], b, arc.edges[0]);
}

/** The SVG path of Assam's walk: straight steps, and arcs where a step followed one. @param {string} start @param {string} facing @param {Step[]} path */
export function walkPath(start, facing, path) {
  let [x, y] = centre(start);
  let d = `M ${x} ${y}`;
  let square = start;
  let heading = facing;
  for (const step of path) {
    if (step.arc) {
      const seg = arcSegment(square, heading, step.square, OPPOSITE[step.facing]);
      d += ` L ${seg.p1[0]} ${seg.p1[1]} ${seg.d}`;
    }
    [x, y] = centre(step.square);
    d += ` L ${x} ${y}`;
    square = step.square;
    heading = step.facing;
  }
  return d;
}

function defs() {
  const pat = (/** @type {string} */ id, /** @type {number} */ size, /** @type {string} */ bg, /** @type {SVGElement[]} */ ...children) =>
    s(
      "pattern",
      { id, width: size, height: size, patternUnits: "userSpaceOnUse" },
      s("rect", { width: size, height: size, fill: bg }),
      ...children,
    );
  const R = shades("R");
  const B = shades("B");
  const Y = shades("Y");
  const P = shades("P");
  return s(
    "defs",
    {},
    // Red: diagonal stripes.
    s(
      "pattern",
      {
        id: "pat-R",
        width: 18,
        height: 18,
        patternUnits: "userSpaceOnUse",
        patternTransform: "rotate(45)",
      },
      s("rect", { width: 18, height: 18, fill: R.base }),
      s("rect", { width: 6, height: 18, fill: R.dark, opacity: 0.55 }),
    ),
    // Blue: dots.
    pat(
      "pat-B",
      20,
      B.base,
      s("circle", { cx: 5, cy: 5, r: 3.6, fill: B.light }),
      s("circle", { cx: 15, cy: 15, r: 3.6, fill: B.light }),
    ),
    // Yellow: zigzag.
    pat(
      "pat-Y",
      20,
      Y.base,
      s("path", {
        d: "M0 14 L5 6 L10 14 L15 6 L20 14",
        fill: "none",
        stroke: Y.dark,
        "stroke-width": 2.6,
        "stroke-linejoin": "miter",
      }),
    ),
    // Purple: checks.
    pat(
      "pat-P",
      22,
      P.base,
      s("rect", { x: 0, y: 0, width: 11, height: 11, fill: P.dark, opacity: 0.55 }),
      s("rect", { x: 11, y: 11, width: 11, height: 11, fill: P.dark, opacity: 0.55 }),
    ),
    // The board's squares: a sand tile with a fine inner border.
    s(
      "pattern",
      { id: "pat-tile", width: CELL, height: CELL, patternUnits: "userSpaceOnUse" },
      s("rect", { width: CELL, height: CELL, fill: "#EAD3A2" }),
      s("rect", {
        x: 7,
        y: 7,
        width: CELL - 14,
        height: CELL - 14,
        fill: "none",
        stroke: "#D6B679",
        "stroke-width": 2,
        rx: 4,
      }),
      s("path", {
        d: "M50 30 L70 50 L50 70 L30 50 Z",
        fill: "none",
        stroke: "#DCC08A",
        "stroke-width": 2,
      }),
    ),
    s(
      "filter",
      { id: "shadow", x: "-20%", y: "-20%", width: "140%", height: "140%" },
      s("feDropShadow", {
        dx: 3,
        dy: 5,
        stdDeviation: 3.5,
        "flood-color": "#2a1207",
        "flood-opacity": 0.55,
      }),
    ),
    s(
      "filter",
      { id: "soft", x: "-30%", y: "-30%", width: "160%", height: "160%" },
      s("feDropShadow", {
        dx: 0,
        dy: 3,
        stdDeviation: 3,
        "flood-color": "#1b0c04",
        "flood-opacity": 0.6,
      }),
    ),
  );
}

/** Put the shared patterns and filters in the page once (swatches use them too). */
export function ensurePatterns() {
  if (document.getElementById("marrakech-defs")) return;
  const holder = s("svg", {
    id: "marrakech-defs",
    width: 0,
    height: 0,
    "aria-hidden": "true",
    style: "position:absolute;width:0;height:0;overflow:hidden",
  });
  holder.append(defs());
  document.body.prepend(holder);
}

/** A small square of a colour's carpet (pattern and letter) for panels and lists. @param {string} colour */
export function swatch(colour, size = 22) {
  ensurePatterns();
  const c = shades(colour);
  return s(
    "svg",
    {
      viewBox: "0 0 40 40",
      width: size,
      height: size,
      class: "swatch",
      "aria-hidden": "true",
      "data-colour": colour,
    },
    s("rect", { x: 1, y: 1, width: 38, height: 38, rx: 6, fill: `url(#pat-${colour})`, stroke: c.dark, "stroke-width": 2 }),
    s("circle", { cx: 20, cy: 20, r: 12, fill: c.base, stroke: c.dark, "stroke-width": 2 }),
    s("text", { x: 20, y: 26.5, class: "carpet-letter", fill: c.ink, style: "font-size:17px" }, colour),
  );
}

function frame() {
  const g = s("g", { class: "frame", "aria-hidden": "true" });
  g.append(
    s("rect", {
      x: -PAD + 4,
      y: -PAD + 4,
      width: SIZE * CELL + 2 * PAD - 8,
      height: SIZE * CELL + 2 * PAD - 8,
      rx: 26,
      class: "frame-outer",
    }),
    s("rect", {
      x: -PAD + 16,
      y: -PAD + 16,
      width: SIZE * CELL + 2 * PAD - 32,
      height: SIZE * CELL + 2 * PAD - 32,
      rx: 18,
      class: "frame-inner",
    }),
  );
  // The rim arcs as a woven track: a dark band under a lighter one.
  for (const arc of config.rim) {
    const seg = rimSegment(arc);
    const d = `M ${seg.p1[0]} ${seg.p1[1]} ${seg.d}`;
    g.append(
      s("path", { d, class: "rim-under" }),
      s("path", { d, class: "rim" }),
      s("path", { d, class: "rim-stitch" }),
    );
  }
  g.append(
    s("rect", {
      x: -6,
      y: -6,
      width: SIZE * CELL + 12,
      height: SIZE * CELL + 12,
      rx: 6,
      class: "board-edge",
    }),
    s("rect", { x: 0, y: 0, width: SIZE * CELL, height: SIZE * CELL, fill: "url(#pat-tile)" }),
  );
  for (let i = 1; i < SIZE; i++) {
    g.append(
      s("line", { x1: i * CELL, y1: 0, x2: i * CELL, y2: SIZE * CELL, class: "grid" }),
      s("line", { x1: 0, y1: i * CELL, x2: SIZE * CELL, y2: i * CELL, class: "grid" }),
    );
  }
  for (let f = 0; f < SIZE; f++) {
    g.append(
      s(
        "text",
        { x: f * CELL + CELL / 2, y: SIZE * CELL + 88, class: "coord" },
        FILES[f],
      ),
    );
  }
  for (let r = 1; r <= SIZE; r++) {
    g.append(s("text", { x: -88, y: (SIZE - r) * CELL + CELL / 2 + 9, class: "coord" }, r));
  }
  return g;
}

/**
 * A carpet piece covering the given squares (one or two), in a colour.
 * @param {string[]} squares
 * @param {string} colour
 * @param {{inset?: number, under?: string | null, extraClass?: string, shadow?: boolean}} [opts]
 */
function carpetShape(squares, colour, opts = {}) {
  const xs = squares.map((q) => origin(q)[0]);
  const ys = squares.map((q) => origin(q)[1]);
  const inset = opts.inset ?? 5;
  const x0 = Math.min(...xs);
  const y0 = Math.min(...ys);
  const x1 = Math.max(...xs) + CELL;
  const y1 = Math.max(...ys) + CELL;
  // A half whose other half is covered reaches under the neighbour that covers it.
  const under = opts.under;
  /** @type {Record<string, number>} */
  const ins = { N: inset, E: inset, S: inset, W: inset };
  if (under) ins[under] = -2;
  const rect = {
    x: x0 + ins.W,
    y: y0 + ins.N,
    w: x1 - x0 - ins.W - ins.E,
    h: y1 - y0 - ins.N - ins.S,
  };
  const c = shades(colour);
  const g = s("g", {
    class: `carpet carpet-${colour}${opts.extraClass ? ` ${opts.extraClass}` : ""}`,
    "data-colour": colour,
    "data-squares": [...squares].sort().join("-"),
  });
  g.append(
    s("rect", {
      x: rect.x,
      y: rect.y,
      width: rect.w,
      height: rect.h,
      rx: 7,
      fill: `url(#pat-${colour})`,
      stroke: c.dark,
      "stroke-width": 3,
      filter: opts.shadow ? "url(#shadow)" : undefined,
    }),
    s("rect", {
      x: rect.x + 7,
      y: rect.y + 7,
      width: Math.max(rect.w - 14, 0),
      height: Math.max(rect.h - 14, 0),
      rx: 4,
      fill: "none",
      stroke: c.light,
      "stroke-width": 2,
      "stroke-dasharray": "6 4",
      opacity: 0.9,
    }),
  );
  // Tassels on the two short ends of a whole carpet.
  if (squares.length === 2) {
    const horizontal = ys[0] === ys[1];
    const fringe = s("g", { class: "fringe", stroke: "#f6ecd6", "stroke-width": 2.4 });
    for (let k = 0; k < 7; k++) {
      if (horizontal) {
        const y = rect.y + 12 + (k * (rect.h - 24)) / 6;
        fringe.append(s("line", { x1: rect.x - 4, y1: y, x2: rect.x + 2, y2: y }));
        fringe.append(
          s("line", { x1: rect.x + rect.w - 2, y1: y, x2: rect.x + rect.w + 4, y2: y }),
        );
      } else {
        const x = rect.x + 12 + (k * (rect.w - 24)) / 6;
        fringe.append(s("line", { x1: x, y1: rect.y - 4, x2: x, y2: rect.y + 2 }));
        fringe.append(
          s("line", { x1: x, y1: rect.y + rect.h - 2, x2: x, y2: rect.y + rect.h + 4 }),
        );
      }
    }
    g.append(fringe);
  }
  for (const q of squares) {
    const [cx, cy] = centre(q);
    g.append(
      s("circle", {
        cx,
        cy,
        r: 19,
        fill: c.base,
        stroke: c.dark,
        "stroke-width": 2.5,
        class: "medallion",
      }),
      s("text", { x: cx, y: cy + 9, class: "carpet-letter", fill: c.ink }, colour),
    );
  }
  return g;
}

function assamFigure() {
  return s(
    "g",
    { class: "assam-figure" },
    s("ellipse", { cx: 4, cy: 7, rx: 33, ry: 31, class: "assam-shadow" }),
    // The arrow for his facing, in front of him (local "up" is his facing).
    s("path", { d: "M -21 -25 L 0 -50 L 21 -25 Z", class: "assam-arrow" }),
    // Shoulders and robe seen from above.
    s("ellipse", { cx: 0, cy: 3, rx: 31, ry: 25, class: "assam-robe" }),
    s("path", { d: "M -24 -6 Q 0 10 24 -6", class: "assam-sash" }),
    // Head with the fez and its tassel.
    s("circle", { cx: 0, cy: 1, r: 15, class: "assam-fez" }),
    s("circle", { cx: 0, cy: 1, r: 6.5, class: "assam-fez-top" }),
    s("path", { d: "M 0 1 L -9 11", class: "assam-tassel" }),
  );
}

export class Board {
  /**
   * @param {HTMLElement} host where the SVG goes
   * @param {{onSquare?: (square: string) => void}} handlers
   */
  constructor(host, handlers = {}) {
    this.handlers = handlers;
    this.svg = s("svg", {
      viewBox: `${-PAD} ${-PAD} ${SIZE * CELL + 2 * PAD} ${SIZE * CELL + 2 * PAD}`,
      class: "board",
      role: "img",
      "data-testid": "board",
      tabindex: "0",
    });
    ensurePatterns();
    this.svg.append(frame());
    this.carpets = s("g", { class: "carpets" });
    // The last turn (outline, Assam's walk, the tithe) stays drawn until the next one;
    // the marks above it are the choices of the turn being played.
    this.last = s("g", { class: "last-move", "data-testid": "last-move" });
    this.marks = s("g", { class: "marks" });
    this.preview = s("g", { class: "preview", "data-testid": "preview" });
    this.assam = s("g", { class: "assam", "data-testid": "assam" });
    this.assamRot = s("g", { class: "assam-rot" });
    // The facing being considered (orient preview), drawn over the figure.
    this.ghost = s(
      "g",
      { class: "assam-ghost", visibility: "hidden", "data-testid": "facing-preview" },
      s("path", { d: "M -24 -30 L 0 -62 L 24 -30 Z" }),
    );
    this.assamRot.append(assamFigure());
    this.assam.append(this.assamRot, this.ghost);
    this.hits = s("g", { class: "hits" });
    for (const q of SQUARES) {
      const [x, y] = origin(q);
      const hit = s("rect", {
        x,
        y,
        width: CELL,
        height: CELL,
        class: "hit",
        "data-square": q,
        "data-testid": `sq-${q}`,
      });
      hit.addEventListener("click", () => this.handlers.onSquare && this.handlers.onSquare(q));
      this.hits.append(hit);
    }
    this.svg.append(this.carpets, this.last, this.marks, this.preview, this.assam, this.hits);
    host.append(this.svg);
    this.assamAt = { square: "d4", facing: "N" };
    this.angle = 0;
    this.placeAssam("d4", "N");
    this.view = null;
  }

  /** The board's clickable squares, one rect a square. @returns {SVGRectElement[]} */
  hitSquares() {
    return [.../** @type {HTMLCollectionOf<SVGRectElement>} */ (this.hits.children)];
  }

  /** Draw the carpets and Assam of a state_view (no animation). @param {StateView} view */
  render(view) {
    this.view = view;
    clear(this.carpets);
    const board = view.board;
    const done = new Set();
    const pairs = [];
    const singles = [];
    for (const q of SQUARES) {
      const cell = board[q];
      if (!cell || done.has(q)) continue;
      done.add(q);
      if (cell.other) {
        done.add(cell.other);
        pairs.push([q, cell.other, cell.colour]);
      } else singles.push([q, cell.colour]);
    }
    // Halves whose other half is covered lie below: draw them first, reaching under a
    // neighbouring whole carpet (the likeliest cover), so the stacking shows.
    for (const [q, colour] of singles) {
      this.carpets.append(
        carpetShape([q], colour, { under: this.coverSide(q, board), extraClass: "half" }),
      );
    }
    for (const [a, b, colour] of pairs) {
      this.carpets.append(carpetShape([a, b], colour, { shadow: true }));
    }
    this.placeAssam(view.assam.square, view.assam.facing);
    this.svg.setAttribute(
      "aria-label",
      t("board.label", { square: view.assam.square, facing: t(`facing.${view.assam.facing}`) }),
    );
    for (const hit of this.hitSquares()) {
      const q = /** @type {string} */ (hit.dataset.square);
      const cell = board[q];
      const label = cell
        ? t("board.square.carpet", { square: q, colour: colourName(cell.colour) })
        : t("board.square.empty", { square: q });
      hit.setAttribute("aria-label", label);
      hit.dataset.colour = cell ? cell.colour : "";
    }
  }

  /** Which side of a half-visible carpet is tucked under its neighbour (drawing only). @param {string} square @param {Record<string, Cell | null>} board */
  coverSide(square, board) {
    const f = fileOf(square);
    const r = rankOf(square);
    /** @type {[string, number, number][]} */
    const around = [
      ["N", f, r + 1],
      ["E", f + 1, r],
      ["S", f, r - 1],
      ["W", f - 1, r],
    ];
    let fallback = null;
    for (const [side, nf, nr] of around) {
      if (nf < 0 || nf >= SIZE || nr < 1 || nr > SIZE) continue;
      const cell = board[FILES[nf] + nr];
      if (!cell) continue;
      if (cell.other) return side;
      fallback = fallback || side;
    }
    return fallback;
  }

  /** @param {string} square @param {string} facing */
  placeAssam(square, facing) {
    const [x, y] = centre(square);
    this.assamAt = { square, facing };
    this.assam.setAttribute("transform", `translate(${x} ${y})`);
    this.setAngle(FACING_ANGLE[facing]);
    this.assam.dataset.square = square;
    this.assam.dataset.facing = facing;
  }

  /** @param {number} angle */
  setAngle(angle) {
    this.angle = angle;
    this.assamRot.setAttribute("transform", `rotate(${angle})`);
  }

  /** A translucent arrow showing a facing before it is confirmed (null hides it). @param {string | null} facing */
  previewFacing(facing) {
    if (!facing) {
      this.ghost.setAttribute("visibility", "hidden");
      return;
    }
    this.ghost.setAttribute("visibility", "visible");
    this.ghost.setAttribute("transform", `rotate(${FACING_ANGLE[facing]})`);
    this.ghost.dataset.facing = facing;
  }

  /** Turn Assam from one facing to another, the short way round. @param {string} facing @param {number} ms */
  async animateTurn(facing, ms) {
    const target = FACING_ANGLE[facing];
    const from = this.angle % 360;
    let delta = target - from;
    if (delta > 180) delta -= 360;
    if (delta < -180) delta += 360;
    this.assam.dataset.facing = facing;
    this.assamAt = { ...this.assamAt, facing };
    if (ms <= 0 || delta === 0) {
      this.setAngle(target);
      return;
    }
    await tween(ms, (k) => this.setAngle(from + delta * ease(k)));
    this.setAngle(target);
  }

  /** Walk Assam along an event path, square by square, following arcs. @param {Step[]} path @param {number} msPerStep */
  async animateWalk(path, msPerStep) {
    if (!path.length) return;
    const start = this.assamAt.square;
    const facing = this.assamAt.facing;
    const last = path[path.length - 1];
    if (msPerStep > 0) {
      const d = walkPath(start, facing, path);
      const line = s("path", { d, class: "walk-trail" });
      this.marks.append(line);
      const total = line.getTotalLength();
      let prevAngle = this.angle;
      await tween(msPerStep * path.length, (k) => {
        const at = total * easeInOut(k);
        const p = line.getPointAtLength(at);
        const q = line.getPointAtLength(Math.min(at + 1.5, total));
        this.assam.setAttribute("transform", `translate(${p.x} ${p.y})`);
        if (Math.hypot(q.x - p.x, q.y - p.y) > 0.2) {
          let a = (Math.atan2(q.x - p.x, -(q.y - p.y)) * 180) / Math.PI;
          // Keep the angle continuous so the figure never spins the long way.
          while (a - prevAngle > 180) a -= 360;
          while (a - prevAngle < -180) a += 360;
          prevAngle = a;
          this.setAngle(a);
        }
      });
      setTimeout(() => line.remove(), 600);
      line.classList.add("fading");
    }
    this.placeAssam(last.square, last.facing);
  }

  /**
   * Highlights: legal squares, selected square, partner squares, the tithe region.
   * @param {{legal?: string[], selected?: string | null, partners?: string[], region?: string[],
   *   regionLabel?: string | null, labelAt?: string | null}} [marks]
   */
  mark({ legal = [], selected = null, partners = [], region = [], regionLabel = null, labelAt = null } = {}) {
    clear(this.marks);
    const box = (/** @type {string} */ q, /** @type {string} */ cls, extra = {}) => {
      const [x, y] = origin(q);
      return s("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, rx: 8, class: cls, ...extra });
    };
    for (const q of region) this.marks.append(box(q, "mark-region", { "data-testid": `region-${q}` }));
    if (region.length && regionLabel) {
      const [cx, cy] = centre(labelAt || region[0]);
      // A pill over the square Assam stopped on: a coin and the dirhams paid.
      this.marks.append(
        s(
          "g",
          { class: "region-label", "data-testid": "tithe-label" },
          s("rect", { x: cx - 40, y: cy - 70, width: 80, height: 36, rx: 18 }),
          s("circle", { cx: cx - 19, cy: cy - 52, r: 10 }),
          s("text", { x: cx + 10, y: cy - 43 }, regionLabel),
        ),
      );
    }
    const legalSet = new Set(legal);
    const partnerSet = new Set(partners);
    for (const hit of this.hitSquares()) {
      const q = /** @type {string} */ (hit.dataset.square);
      hit.classList.toggle("legal", legalSet.has(q) || partnerSet.has(q));
      hit.classList.toggle("selected", q === selected);
      hit.setAttribute(
        "aria-label",
        (hit.getAttribute("aria-label") || "").split(" — ")[0] +
          (legalSet.has(q) || partnerSet.has(q) ? ` — ${t("board.legal")}` : ""),
      );
    }
    for (const q of legal) if (!partnerSet.has(q)) this.marks.append(box(q, "mark-legal"));
    for (const q of partners) this.marks.append(box(q, "mark-partner"));
    if (selected) this.marks.append(box(selected, "mark-selected"));
  }

  /** Show a carpet that is not placed yet (null clears). @param {string[] | null} squares  null clears @param {string} [colour] */
  showPreview(squares, colour) {
    clear(this.preview);
    if (!squares) return;
    const g = carpetShape(squares, /** @type {string} */ (colour), { shadow: true, extraClass: "ghost" });
    g.dataset.squares = squares.join("-");
    this.preview.append(g, outline(squares, 2, "preview-outline"));
  }

  /**
   * Show what the last turn did until the next one: the squares of the tithe region and
   * the dirhams paid, Assam's walk as a dotted trail, and the carpet placed (a dashed
   * outline). `move` comes from animate.js lastMove(); null clears.
   * @param {import("./animate.js").LastMove | null} move
   */
  showLastMove(move) {
    clear(this.last);
    if (!move) return;
    const tithe = move.tithe;
    if (tithe && tithe.region.length) {
      for (const q of tithe.region) {
        const [x, y] = origin(q);
        this.last.append(
          s("rect", { x: x + 6, y: y + 6, width: CELL - 12, height: CELL - 12, rx: 8, class: "last-region" }),
        );
      }
    }
    if (move.walk && move.walk.path.length) {
      const { start, facing, path } = move.walk;
      const d = start
        ? walkPath(start, facing, path)
        : `M ${path.map((step) => centre(step.square).join(" ")).join(" L ")}`;
      this.last.append(s("path", { d, class: "last-trail", "data-testid": "last-trail" }));
      if (start) {
        const [x, y] = centre(start);
        this.last.append(s("circle", { cx: x, cy: y, r: 9, class: "last-trail-start" }));
      }
    }
    if (move.placed) {
      const placed = outline(move.placed, 1, "last-placed");
      placed.dataset.squares = [...move.placed].sort().join("-");
      this.last.append(placed);
    }
    if (tithe && tithe.paid > 0 && tithe.labelAt) {
      const [cx, cy] = centre(tithe.labelAt);
      this.last.append(
        s(
          "g",
          { class: "region-label last-label", "data-testid": "last-tithe" },
          s("rect", { x: cx - 40, y: cy - 70, width: 80, height: 36, rx: 18 }),
          s("circle", { cx: cx - 19, cy: cy - 52, r: 10 }),
          s("text", { x: cx + 10, y: cy - 43 }, `${tithe.paid}`),
        ),
      );
    }
  }

  /** Numbered dots where each die result would put Assam (the orient preview). @param {{roll: string, landing: string, due: number}[] | null} rolls */
  showLandings(rolls) {
    for (const old of this.marks.querySelectorAll(".landing")) old.remove();
    if (!rolls) return;
    /** @type {Map<string, {n: string, roll: {due: number}}[]>} */
    const bySquare = new Map();
    for (const roll of rolls) {
      const n = String(roll.roll).replace(/^r/, "");
      bySquare.set(roll.landing, [...(bySquare.get(roll.landing) || []), { n, roll }]);
    }
    for (const [square, list] of bySquare) {
      const [cx, cy] = centre(square);
      const costly = list.some((x) => x.roll.due > 0);
      const g = s("g", { class: `landing${costly ? " costly" : ""}`, "data-square": square, "data-testid": `landing-${square}` });
      g.append(
        s("circle", { cx, cy: cy + 26, r: 19 }),
        s("text", { x: cx, y: cy + 34 }, list.map((x) => x.n).join(",")),
      );
      this.marks.append(g);
    }
  }
}

/** A rounded rectangle around one or two squares, `inset` inside their outer edges. @param {string[]} squares @param {number} inset @param {string} cls */
function outline(squares, inset, cls) {
  const xs = squares.map((q) => origin(q)[0]);
  const ys = squares.map((q) => origin(q)[1]);
  return s("rect", {
    x: Math.min(...xs) + inset,
    y: Math.min(...ys) + inset,
    width: Math.max(...xs) - Math.min(...xs) + CELL - 2 * inset,
    height: Math.max(...ys) - Math.min(...ys) + CELL - 2 * inset,
    rx: 9,
    class: cls,
  });
}

/** @param {number} k */
function ease(k) {
  return 1 - (1 - k) * (1 - k);
}
/** @param {number} k */
function easeInOut(k) {
  return k < 0.5 ? 2 * k * k : 1 - Math.pow(-2 * k + 2, 2) / 2;
}

/** @param {number} ms @param {(k: number) => void} frame */
function tween(ms, frame) {
  return /** @type {Promise<void>} */ (
    new Promise((resolve) => {
    const start = performance.now();
    const tick = (/** @type {number} */ now) => {
      const k = Math.min((now - start) / ms, 1);
      frame(k);
      if (k < 1) requestAnimationFrame(tick);
      else resolve();
    };
    requestAnimationFrame(tick);
  }));
}
