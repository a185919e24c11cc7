// Small DOM helpers: element builders for HTML and SVG, and a few utilities.

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * An element's attributes: `class`, `text`, `html`, `on...` listeners, `dataset`, a
 * `style` object; null, undefined and false leave one out, true sets it empty.
 * @typedef {Record<string, any>} Attrs
 */
/** What an element holds: nodes, words, numbers, lists of them; null and false are none.
 * @typedef {Node | string | number | boolean | null | undefined | any[]} Child */

/**
 * @template {HTMLElement | SVGElement} E
 * @param {E} el
 * @param {Attrs | null | undefined} attrs
 * @param {Child[]} children
 * @returns {E}
 */
function apply(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.setAttribute("class", value);
    else if (name === "text") el.textContent = value;
    else if (name === "html") el.innerHTML = value;
    else if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "dataset") {
      for (const [k, v] of Object.entries(value)) el.dataset[k] = String(v);
    } else if (name === "style" && typeof value === "object") {
      Object.assign(el.style, value);
    } else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * h("button", {class: "x", onclick: fn}, "text", otherNode)
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  return apply(document.createElement(tag), attrs, children);
}

/**
 * s("rect", {x: 0, y: 0}) — an SVG element.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function s(tag, attrs = {}, ...children) {
  return apply(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** The element with this id, which the page's HTML always has. @param {string} id */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el;
}

/** @template {Element} E @param {E} el @returns {E} */
export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

/** @param {number} ms @returns {Promise<void>} */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True when the keyboard event was typed into a form field (keys are theirs then). @param {Event} event */
export function isTyping(event) {
  const el = event.target;
  if (!(el instanceof HTMLElement)) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || el.isContentEditable;
}

/** @param {string} text @returns {Promise<boolean>} */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    // Clipboard API needs a secure context; fall back to a hidden textarea.
    const area = h("textarea", { style: { position: "fixed", opacity: "0" } }, text);
    document.body.append(area);
    area.select();
    let ok;
    try {
      ok = document.execCommand("copy");
    } catch (_) {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/** A polite live region shared by the pages, so screen readers hear the log. @param {string} text */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  // A new text node in a later task is announced even when the text repeats.
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** @param {string} filename @param {string} text */
export function download(filename, text, type = "application/json") {
  const blob = new Blob([text], { type });
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A button with an optional key shown after its label: button("Roll", {onclick}, "Enter").
 * @param {Child} label
 * @param {Attrs} attrs
 * @param {string | null} [key]
 */
export function button(label, attrs, key = null) {
  return h("button", { type: "button", class: "btn", ...attrs }, label, key ? [" ", h("kbd", { "aria-hidden": "true" }, key)] : null);
}

/**
 * Open a modal dialog on its beginning (its title), not scrolled down to the first
 * button the browser focuses; `scrollTop` keeps where a redrawn dialog was read.
 * @param {HTMLDialogElement} dialog
 */
export function openDialog(dialog, scrollTop = 0) {
  dialog.showModal();
  dialog.scrollTop = scrollTop;
}
