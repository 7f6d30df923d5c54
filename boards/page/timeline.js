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
  const parts = [];
  const step = niceStep(span);
  for (let t = 0; t <= span; t += step) {
    parts.push(el("line", { x1: x(t), x2: x(t), y1: top, y2: height - 20, stroke: "#eceff3" }));
    const text = axis === "ago" ? (t === span ? "now" : `-${label(span - t)}`) : label(t);
    parts.push(el("text", { x: x(t), y: height - 6, "text-anchor": "middle" }, text));
  }
  for (const mark of marks.filter((m) => (m.until ?? m.at) >= 0 && m.at <= span))
    parts.push(...markParts(mark, x, top, height - 20));
  if (rows.length === 0) parts.push(el("text", { x: left, y: top + 15 }, "no operation yet"));
  rows.forEach((row, i) => parts.push(...rowParts(row, top + i * rowH, x)));
  svg.replaceChildren(...parts);
}
