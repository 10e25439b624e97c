/**
 * The HTML report's only stylesheet, inlined into the page (no network, no
 * external fonts). Verdicts carry words and symbols, never colour alone;
 * `@media print` drops the screen chrome and keeps figures and tables
 * whole on a page.
 */
export const HTML_STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: #1a1a1a; background: #fff; max-width: 1240px; margin: 0 auto; padding: 24px; }
h1 { font-size: 1.6em; margin: 0 0 .3em; }
h2 { font-size: 1.25em; margin: 1.6em 0 .5em; border-bottom: 1px solid #ccc; padding-bottom: .2em; }
h3 { font-size: 1.05em; margin: 1.2em 0 .4em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
p.lead { color: #444; margin-top: 0; }
.regressions { border: 2px solid #b00020; border-left-width: 8px; padding: .6em 1em; margin: 1em 0; background: #fff5f5; }
.regressions strong::before { content: "\\26A0  "; }
ul.verdicts { list-style: none; padding: 0; }
ul.verdicts li { margin: .35em 0; display: flex; align-items: baseline; }
.badge { display: inline-block; min-width: 11.5em; font-weight: 600; font-size: .85em; padding: .05em .5em;
  border: 1.5px solid currentColor; border-radius: 3px; margin-right: .6em; text-align: center; flex-shrink: 0; }
.badge.faster { color: #006b3c; }
.badge.faster::before { content: "\\2713  "; }
.badge.slower { color: #b00020; }
.badge.slower::before { content: "\\2717  "; }
.badge.none { color: #444; }
.badge.none::before { content: "=  "; }
.badge.insufficient { color: #6a4a00; border-style: dashed; }
.badge.insufficient::before { content: "?  "; }
.table-wrap { overflow-x: auto; margin: .5em 0 1.2em; }
table { border-collapse: collapse; font-size: .84em; }
/* Environment values (kernel command lines, JSON parameters) are long: wrap them at spaces inside a full-width table; only a word longer than its column breaks. */
table[data-table="environment"] { width: 100%; table-layout: fixed; }
table[data-table="environment"] td, table[data-table="environment"] th { overflow-wrap: break-word; }
table[data-table="environment"] th[scope="col"]:first-child { width: 14em; }
table[data-table="environment"] th[scope="col"]:nth-last-child(-n+2) { width: 7em; }
/* The Numbers table has a dozen columns: it wraps inside the page (1280 px and up) at spaces, never inside a word or a number. */
table[data-table="results"] { width: 100%; }
table[data-table="results"] td, table[data-table="results"] th { overflow-wrap: normal; word-break: normal; hyphens: manual; }
table[data-table="results"] td.num { white-space: normal; }
caption { text-align: left; font-weight: 600; padding: .3em 0; }
th, td { border: 1px solid #ccc; padding: .25em .55em; vertical-align: top; }
th { background: #f2f2f2; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
/* display: table lets the caption wrap at the plot's width instead of widening the figure. */
figure { margin: .5em 0 1em; display: table; }
figcaption { display: table-caption; caption-side: bottom; font-size: .85em; color: #444; padding-top: .3em; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
svg.plot { max-width: 100%; height: auto; background: #fff; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: .7em 1em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
footer { margin-top: 2em; font-size: .8em; color: #555; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { break-after: avoid; }
  figure, table, article, .regressions, pre { break-inside: avoid; }
  .table-wrap { overflow: visible; }
  table { font-size: 8pt; }
  .regressions { background: none; }
  a { color: inherit; text-decoration: none; }
}
`;
