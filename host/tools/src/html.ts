// HTML escaping: every value the setup page and the fleet reports render goes through here
// (the page's browser side uses textContent, which needs none); and the reports' page.
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML element body or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** `head` over `rows` as an HTML table, each cell escaped; the columns after the first are
 * numbers (class "n", right-aligned by the report's style). */
export function htmlTable(head: string[], rows: string[][]): string {
  const line = (cells: string[], tag: "th" | "td") =>
    `<tr>${cells.map((c, i) => `<${tag}${i > 0 ? ' class="n"' : ""}>${escapeHtml(c)}</${tag}>`).join("")}</tr>`;
  return `<table>\n<thead>${line(head, "th")}</thead>\n<tbody>\n${rows.map((r) => line(r, "td")).join("\n")}\n</tbody>\n</table>`;
}

/** The reports' style: a column of text, tables that wrap their cells to fit it (the first
 * column's names; a number stays whole), charts that shrink with it. */
const REPORT_STYLE =
  "body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}" +
  "pre{background:#f6f6f6;padding:1em;overflow-x:auto}" +
  "table{border-collapse:collapse;font-size:.85em;width:100%}" +
  "th,td{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}" +
  "th.n,td.n{text-align:right}svg{max-width:100%;height:auto}";

/** A report's page: `title` as its title and first heading, `body` after it, the reports' style. */
export function reportPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1>${title}</h1>
${body}</body>
</html>
`;
}
