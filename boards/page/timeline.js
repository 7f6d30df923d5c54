// Draws operations over time as SVG: one row per operation, a bar per attempt coloured by
// how it ended, a thin line for each wait, the end reason at the end, and the device's
// boots and sleeps as marks across the rows. Used by the live status (page.js) and the
// policy playground (playground.js). Times are ms from the chart's left edge.
const NS = "http://www.w3.org/2000/svg";

export const OUTCOME_COLORS = {
  SUCCESS: "#1a7f37",
  TRANSIENT: "#e07b00",
  THROTTLED: "#7b3fb5",
  AMBIGUOUS: "#8d6e63",
  PERMANENT: "#c62828",
  TIMEOUT: "#5b6470",
  "in flight": "#1f6feb",
  lost: "#9aa3af", // in flight when the power went (a reboot or a sleep)
};

function el(name, attrs, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A legend of the outcome colours into a <ul>. */
export function fillLegend(ul) {
  ul.replaceChildren(
    ...Object.entries(OUTCOME_COLORS).map(([name, color]) => {
      const li = document.createElement("li");
      const swatch = document.createElement("i");
      swatch.style.background = color;
      li.append(swatch, name);
      return li;
    }),
  );
}

const niceStep = (span) =>
  [100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 120000, 300000].find((s) => span / s <= 8) ?? 600000;
const label = (ms) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);
/** The characters a row's label has room for (a full 10-digit operation id). */
const LABEL_CHARS = 10;

/** A row's label: whole, or cut with an ellipsis; the whole text on hover either way. */
function rowLabel(text, y) {
  const shown = text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1)}…` : text;
  const node = el("text", { x: 4, y: y + 15, class: "row-label" }, shown);
  node.append(el("title", {}, text));
  return node;
}

/** A boot or a sleep: a line across the rows, named at the top; a sleep shades its span. */
function markParts(mark, x, top, bottom) {
  const parts = [];
  if (mark.until !== undefined) {
    const span = el("rect", {
      x: x(mark.at),
      y: top,
      width: Math.max(1, x(mark.until) - x(mark.at)),
      height: bottom - top,
      class: "asleep",
    });
    span.append(el("title", {}, "asleep"));
    parts.push(span);
  }
  parts.push(el("line", { x1: x(mark.at), x2: x(mark.at), y1: top, y2: bottom, class: `mark ${mark.kind}` }));
  parts.push(el("text", { x: x(mark.at) + 3, y: top + 9, class: "mark-label" }, mark.kind));
  return parts;
}

/** One operation's row: its label, attempts, waits and end. */
function rowParts(row, y, x) {
  const parts = [rowLabel(row.label, y)];
  const attempts = row.attempts;
  attempts.forEach((a, j) => {
    const next = attempts[j + 1];
    if (next && next.start > a.end) {
      parts.push(
        el("line", {
          x1: x(a.end),
          x2: x(next.start),
          y1: y + 11,
          y2: y + 11,
          stroke: "#8a8f98",
          "stroke-dasharray": "3 2",
          class: "wait",
        }),
      );
    }
    const bar = el("rect", {
      x: x(a.start),
      y: y + 4,
      width: Math.max(2, x(a.end) - x(a.start)),
      height: 14,
      rx: 2,
      fill: OUTCOME_COLORS[a.outcome] ?? "#999",
      class: "attempt",
    });
    bar.append(el("title", {}, `attempt ${j + 1}: ${a.outcome}, ${Math.round(a.end - a.start)} ms`));
    parts.push(bar);
  });
  if (row.end) parts.push(el("text", { x: x(row.end.at) + 4, y: y + 15, class: "end" }, row.end.reason));
  return parts;
}

/**
 * rows: [{ label, attempts: [{ start, end, outcome }], end: { at, reason } | null }];
 * span: ms the x axis covers; axis: "ago" (0 at the right, live) or "since" (0 at the left);
 * minRows: the rows' room kept even while fewer are drawn (the live chart keeps all of its
 * rows' room, so that it never grows and pushes the page down); marks: the device's boots
 * and sleeps, [{ at, kind: "boot" | "sleep", until? }] (until: a sleep's wake).
 */
export function drawTimeline(svg, rows, span, axis, minRows = 1, marks = []) {
  // Drawn at the size it is shown, so that text stays legible on a phone.
  const width = Math.max(320, Math.round(svg.getBoundingClientRect().width) || 760);
  const left = 86; // room for LABEL_CHARS digits
  const rowH = 22;
  const top = 8;
  const height = top + Math.max(minRows, rows.length) * rowH + 24;
  const x = (ms) => left + (Math.min(Math.max(ms, 0), span) / span) * (width - left - 70);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const parts = axisParts(height, span, axis, x, top);
  for (const mark of marks.filter((m) => (m.until ?? m.at) >= 0 && m.at <= span))
    parts.push(...markParts(mark, x, top, height - 20));
  if (rows.length === 0) parts.push(el("text", { x: left, y: top + 15 }, "no operation yet"));
  rows.forEach((row, i) => parts.push(...rowParts(row, top + i * rowH, x)));
  svg.replaceChildren(...parts);
}

/** The static part of a chart: its grid lines and time labels. */
function axisParts(height, span, axis, x, top) {
  const parts = [];
  const step = niceStep(span);
  for (let t = 0; t <= span; t += step) {
    parts.push(el("line", { x1: x(t), x2: x(t), y1: top, y2: height - 20, stroke: "#eceff3" }));
    const text = axis === "ago" ? (t === span ? "now" : `-${label(span - t)}`) : label(t);
    parts.push(el("text", { x: x(t), y: height - 6, "text-anchor": "middle" }, text));
  }
  return parts;
}

/**
 * The live chart, which a poll changes only where something changed: its axis is drawn
 * once per width; the operations and marks sit, at their own times, in one group that each
 * poll slides left; a row is redrawn only when its attempts or end changed, and an attempt
 * in flight only grows. Redrawing all of it on every poll was most of the page's blocking
 * time on a throttled phone (npm run lighthouse).
 */
export class LiveTimeline {
  constructor(svg, span, rows) {
    Object.assign(this, { svg, span, rows, width: 0, drawn: new Map(), marksKey: "", origin: undefined });
    this.top = 8;
    this.left = 86; // room for LABEL_CHARS digits
    this.height = this.top + rows * 22 + 24;
    new ResizeObserver(() => (this.width = 0)).observe(svg);
  }

  /** The frame for the svg's width: axis, the row labels' room, the sliding group, its clip. */
  frame() {
    this.width = Math.max(320, Math.round(this.svg.getBoundingClientRect().width) || 760);
    this.k = (this.width - this.left - 70) / this.span;
    const x = (ms) => this.left + ms * this.k;
    this.svg.setAttribute("viewBox", `0 0 ${this.width} ${this.height}`);
    const clip = el("clipPath", { id: "live-clip" });
    clip.append(el("rect", { x: this.left, y: 0, width: this.width - this.left, height: this.height }));
    this.labels = el("g", {});
    this.slide = el("g", {});
    const view = el("g", { "clip-path": "url(#live-clip)" });
    view.append(this.slide);
    this.empty = el("text", { x: this.left, y: this.top + 15 }, "no operation yet");
    this.svg.replaceChildren(clip, ...axisParts(this.height, this.span, "ago", x, this.top), view);
    this.svg.append(this.labels, this.empty);
    this.drawn.clear();
    this.marksKey = "";
  }

  /** rows: [{ id, attempts: [{ start, end | null, outcome }], end: { t, reason } | null }] and
   * marks: [{ at, kind, until? }], all at the device's RTC times; now: the RTC now. */
  update(rows, marks, now) {
    // Started again from now once the slide has gone far: an SVG coordinate is a float32.
    if (this.origin === undefined || Math.abs(now - this.origin) > 100 * this.span)
      [this.origin, this.width] = [now, 0];
    if (this.width === 0) this.frame();
    const x = (t) => this.left + (t - this.origin) * this.k;
    this.slide.setAttribute("transform", `translate(${(this.span - (now - this.origin)) * this.k},0)`);
    // Out of the chart, not hidden, when there are rows: nothing drawn measures 0 px high.
    if (rows.length === 0) this.svg.append(this.empty);
    else this.empty.remove();
    const shown = new Set(rows.map((r) => r.id));
    for (const [id, d] of this.drawn)
      if (!shown.has(id)) (d.g.remove(), d.label.remove(), this.drawn.delete(id));
    rows.forEach((row, i) => this.row(row, this.top + i * 22, x, now));
    this.marks(marks, x, now);
  }

  /** One operation's row, redrawn only if it changed; its attempts in flight grown to now. */
  row(row, y, x, now) {
    let d = this.drawn.get(row.id);
    if (!d) {
      d = { g: el("g", {}), label: rowLabel(String(row.id), 0), key: "", y: -1 };
      this.drawn.set(row.id, d);
      this.slide.append(d.g);
      this.labels.append(d.label);
    }
    if (d.y !== y) {
      d.g.setAttribute("transform", `translate(0,${y})`);
      d.label.setAttribute("transform", `translate(0,${y})`);
      d.y = y;
    }
    const key = JSON.stringify(row);
    if (d.key !== key) {
      d.key = key;
      const attempts = row.attempts.map((a) => ({
        start: x(a.start),
        end: x(a.end ?? now),
        outcome: a.outcome ?? "in flight",
      }));
      const end = row.end && { at: x(row.end.t), reason: row.end.reason };
      d.g.replaceChildren(...rowParts({ label: "", attempts, end }, 0, (v) => v).slice(1));
      d.flying = row.attempts.flatMap((a, j) =>
        a.end === null ? [[a.start, d.g.querySelectorAll("rect.attempt")[j]]] : [],
      );
    }
    for (const [start, rect] of d.flying) rect.setAttribute("width", Math.max(2, x(now) - x(start)));
  }

  /** The boots and sleeps, redrawn when one comes or a sleep ends. */
  marks(marks, x, now) {
    const key = JSON.stringify(marks);
    if (key === this.marksKey) return;
    this.marksKey = key;
    this.markGroup?.remove();
    this.markGroup = el("g", {});
    for (const m of marks)
      this.markGroup.append(
        ...markParts(
          { ...m, at: x(m.at), until: m.until === undefined ? undefined : x(m.until) },
          (v) => v,
          this.top,
          this.height - 20,
        ),
      );
    this.slide.prepend(this.markGroup);
  }
}
