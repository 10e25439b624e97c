/**
 * A line diff in unified format, for the normalized listings of one function.
 * Myers' O(ND) algorithm (E. Myers, "An O(ND) Difference Algorithm and Its
 * Variations", Algorithmica 1986), which finds a shortest edit script.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** The shortest edit script turning `a` into `b`, as kept/removed/added lines. */
export function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d, offset);
    }
  }
  return [];
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[], dEnd: number, offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d >= 0; d--) {
    const v = trace[d] ?? new Int32Array();
    const k = x - y;
    const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : (v[offset + prevK] ?? 0);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: ' ', line: a[--x] ?? '' });
      y--;
    }
    if (d > 0) {
      if (down) ops.push({ kind: '+', line: b[--y] ?? '' });
      else ops.push({ kind: '-', line: a[--x] ?? '' });
    }
  }
  return ops.reverse();
}

/** Unified diff hunks (`@@ -l,n +l,n @@`) with `context` lines around each change; '' when equal. */
export function unifiedDiff(a: readonly string[], b: readonly string[], context = 2): string {
  const ops = editScript(a, b);
  const changed = ops.map((o, i) => (o.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return '';
  const hunks: [number, number][] = [];
  for (const i of changed) {
    const last = hunks[hunks.length - 1];
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else hunks.push([i, i]);
  }
  // Line numbers of each op in a and b, 1-based, before the op.
  const posA: number[] = [];
  const posB: number[] = [];
  let la = 1;
  let lb = 1;
  for (const o of ops) {
    posA.push(la);
    posB.push(lb);
    if (o.kind !== '+') la++;
    if (o.kind !== '-') lb++;
  }
  const out: string[] = [];
  for (const [first, last] of hunks) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(from, to + 1);
    const countA = slice.filter((o) => o.kind !== '+').length;
    const countB = slice.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${posA[from]},${countA} +${posB[from]},${countB} @@`);
    for (const o of slice) out.push(`${o.kind}${o.line}`);
  }
  return out.join('\n') + '\n';
}
