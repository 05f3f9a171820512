// WCAG 2 contrast of what the workstation's page shows, measured inside Chromium: the test
// (test/integration/workstation-contrast.test.ts) evaluates this file's text in the page, so it is
// plain script with DOM access rather than TypeScript compiled for Node (which has no DOM types).

/**
 * Every element with text of its own (text nodes, an input's value, a select's choice, SVG text)
 * that is visible and not clipped away; disabled controls are left out, as WCAG leaves them out.
 * The background is found as the eye sees it: the element's own and its ancestors' background
 * colours composited, an absolutely placed element over whatever lies beneath it on the page,
 * a canvas by its pixel, a gradient by the average of its colours. Opacity on the way up fades
 * the text into that background. The bound is 4.5:1, or 3:1 for large text (24 px, or 18.66 px
 * bold). Returns { checked, low: [{ text, where, ratio, needed, color, background }] }.
 */
function measureTextContrast() {
  const parse = (s) => {
    const m = /rgba?\(([^)]+)\)/.exec(s);
    if (m === null) return null;
    const p = m[1].split(/[\s,/]+/).filter((x) => x !== "").map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3];
    return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1];
  };
  const lum = (c) => {
    const ch = c.slice(0, 3).map((v) => v / 255).map((v) => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const css = (c) => `rgb(${c.slice(0, 3).map((v) => Math.round(v)).join(", ")})`;
  const canvasPixel = (canvas, x, y) => {
    const r = canvas.getBoundingClientRect();
    const g = canvas.getContext("2d");
    if (g === null || r.width === 0 || r.height === 0) return null;
    const px = Math.floor((x - r.left) * canvas.width / r.width);
    const py = Math.floor((y - r.top) * canvas.height / r.height);
    if (px < 0 || py < 0 || px >= canvas.width || py >= canvas.height) return null;
    const d = g.getImageData(px, py, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  // The colours beneath the point (x, y) from `start` down, top first, ending in an opaque one.
  const backgroundAt = (start, x, y) => {
    const layers = [];
    let node = start;
    const seen = /* @__PURE__ */ new Set();
    while (node !== null && !seen.has(node)) {
      seen.add(node);
      const cs = getComputedStyle(node);
      if (node instanceof HTMLCanvasElement) {
        const p = canvasPixel(node, x, y);
        if (p !== null && p[3] > 0) layers.push(p);
      }
      const bg = parse(cs.backgroundColor);
      if (bg !== null && bg[3] > 0) layers.push(bg);
      const stops = [...cs.backgroundImage.matchAll(/rgba?\([^)]+\)/g)].map((m) => parse(m[0])).filter((c) => c !== null);
      if (stops.length > 0) layers.push(stops.reduce((s, c) => [s[0] + c[0] / stops.length, s[1] + c[1] / stops.length, s[2] + c[2] / stops.length, s[3] + c[3] / stops.length], [0, 0, 0, 0]));
      if (layers.length > 0 && layers[layers.length - 1][3] >= 1) break;
      if (cs.position === "absolute" || cs.position === "fixed") {
        const here = node;
        const beneath = document.elementsFromPoint(x, y).find((e) => !here.contains(e) && !e.contains(here));
        node = beneath ?? node.parentElement;
      } else {
        node = node.parentElement;
      }
    }
    let color = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) color = over(layers[i], color);
    return color;
  };
  const visibleBox = (el) => {
    let r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return null;
    let left = Math.max(0, r.left);
    let top = Math.max(0, r.top);
    let right = Math.min(innerWidth, r.right);
    let bottom = Math.min(innerHeight, r.bottom);
    for (let a = el.parentElement; a !== null; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === "visible" && cs.overflowY === "visible") continue;
      r = a.getBoundingClientRect();
      left = Math.max(left, r.left);
      top = Math.max(top, r.top);
      right = Math.min(right, r.right);
      bottom = Math.min(bottom, r.bottom);
    }
    return right - left >= 2 && bottom - top >= 2 ? new DOMRect(left, top, right - left, bottom - top) : null;
  };
  const low = [];
  let checked = 0;
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest(':disabled, [aria-disabled="true"], option, script, style, title') !== null) continue;
    const field = el instanceof HTMLInputElement && !["checkbox", "radio", "range", "hidden"].includes(el.type);
    const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent ?? "").join("").trim();
    const text = field ? el.value.trim() : el instanceof HTMLSelectElement ? (el.selectedOptions[0]?.text ?? "").trim() : own;
    if (text === "") continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const box = visibleBox(el);
    if (box === null) continue;
    const cs = getComputedStyle(el);
    const ink = parse(el instanceof SVGElement ? cs.fill : cs.color);
    if (ink === null) continue;
    let alpha = ink[3];
    for (let a = el; a !== null; a = a.parentElement) alpha *= Number(getComputedStyle(a).opacity);
    const cx = box.left + box.width / 2;
    const cy = box.top + box.height / 2;
    const bg = backgroundAt(el, cx, cy);
    const fg = over([ink[0], ink[1], ink[2], alpha], bg);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || size >= 18.66 && Number(cs.fontWeight) >= 700;
    const needed = large ? 3 : 4.5;
    const r = ratio(fg, bg);
    checked++;
    if (r < needed) {
      const cls = typeof el.className === "string" && el.className !== "" ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
      low.push({ text: text.slice(0, 50), where: `${el.tagName.toLowerCase()}${cls}`, ratio: Math.round(r * 100) / 100, needed, color: css(fg), background: css(bg) });
    }
  }
  return { checked, low };
}
/**
 * The text a canvas draws against the canvas's background: the highest contrast of any pixel in
 * the strip { selector, x, y, w, h } (CSS pixels from the canvas's corner) with the page colour
 * under the canvas; the strip holds text, so its strongest pixels are the text's own colour.
 */
function canvasTextContrast(args) {
  const lum = (c) => {
    const ch = c.map((v) => v / 255).map((v) => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const canvas = document.querySelector(args.selector);
  if (!(canvas instanceof HTMLCanvasElement)) return null;
  const g = canvas.getContext("2d");
  if (g === null) return null;
  const scale = canvas.width / canvas.getBoundingClientRect().width;
  // The first opaque background from the canvas up (the canvas's own, or its box's).
  let under = [255, 255, 255];
  for (let e = canvas; e !== null; e = e.parentElement) {
    const m = /rgba?\(([^)]+)\)/.exec(getComputedStyle(e).backgroundColor);
    const p = m === null ? [] : m[1].split(/[\s,/]+/).filter((x) => x !== "").map(Number);
    if (p.length === 3 || (p.length === 4 && p[3] === 1)) {
      under = p.slice(0, 3);
      break;
    }
  }
  const d = g.getImageData(Math.round(args.x * scale), Math.round(args.y * scale), Math.round(args.w * scale), Math.round(args.h * scale)).data;
  const lb = lum(under);
  let best = 1;
  for (let i = 0; i < d.length; i += 4) {
    const a = d[i + 3] / 255;
    const c = [0, 1, 2].map((k) => d[i + k] * a + under[k] * (1 - a));
    const l = lum(c);
    best = Math.max(best, (Math.max(l, lb) + 0.05) / (Math.min(l, lb) + 0.05));
  }
  return { ratio: Math.round(best * 100) / 100, background: `rgb(${under.join(", ")})` };
}

/** Relative luminance of { css } (an element's background colour) or { canvas, x, y } (a pixel). */
function luminanceOf(what) {
  let rgb = [0, 0, 0];
  if (what.css !== undefined) {
    const el = document.querySelector(what.css);
    const m = /rgba?\(([^)]+)\)/.exec(el === null ? '' : getComputedStyle(el).backgroundColor);
    if (m !== null) rgb = m[1].split(/[\s,/]+/).map(Number);
  } else {
    const c = document.querySelector(what.canvas);
    const g = c instanceof HTMLCanvasElement ? c.getContext('2d') : null;
    if (g !== null) rgb = [...g.getImageData(what.x, what.y, 1, 1).data];
  }
  const ch = rgb.slice(0, 3).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}
