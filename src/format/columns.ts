/**
 * The one column aligner for every plain-text table hintlab prints (runs,
 * compare, report text, run tables, macro, vm summaries, codegen, hints).
 * Bottom floor: it imports nothing, so every layer may use it.
 */

/**
 * Align `rows` into columns two spaces apart: each column as wide as its
 * widest cell (a row may have fewer cells; missing ones count as empty),
 * left-aligned unless `rightAligned(column)` says so; trailing blanks of
 * every line are trimmed. Returns one string per row.
 */
export function alignColumns(rows: readonly (readonly string[])[], rightAligned: (column: number) => boolean = () => false): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (rightAligned(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
