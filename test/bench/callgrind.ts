/** Reading valgrind's callgrind output in tests (no callgrind_annotate, which needs perl). */

/** Instructions executed in `fn` itself, from a callgrind.out written with `--compress-strings=no --compress-pos=no`. */
export function selfCost(cgOut: string, fn: string): number {
  let inFn = false, skipNext = false, sum = 0;
  for (const line of cgOut.split('\n')) {
    if (line.startsWith('fn=')) inFn = line === `fn=${fn}`;
    else if (line.startsWith('calls=')) skipNext = true;
    else if (skipNext) skipNext = false; // a call's cost is its callee's
    else if (inFn && /^\d+ \d+$/.test(line)) sum += Number(line.split(' ')[1]);
  }
  return sum;
}
