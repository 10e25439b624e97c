/**
 * Escaping for text placed into HTML and SVG. Reports embed run labels,
 * kernel names and command lines that a user typed, so every piece of data
 * goes through `escapeXml` before it reaches markup.
 */

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escape text for an HTML/SVG text node or a quoted attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}
