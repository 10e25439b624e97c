/** A scripted probe for runner tests: exact, repeatable rounds. */

/** A probe that times getppid at 100 ns + round and mincore at 500 ns + round. */
export function roundsScript(args: string[]) {
  const lines = ['@hl1 hello proto=1 kernel=6.12.0 version=x machine=x86_64 pid1=0'];
  const warm = Number(args[args.indexOf('--warmups') + 1]);
  const rounds = Number(args[args.indexOf('--rounds') + 1]);
  for (let r = 0; r < warm + rounds; r++) {
    const w = r < warm ? 1 : 0;
    const idx = w ? r : r - warm;
    lines.push(`@hl1 round profile=getppid idx=${idx} warmup=${w} ops=1000 elapsed=${(100 + r) * 1000} cpu=1`);
    lines.push(`@hl1 round profile=mincore-256k idx=${idx} warmup=${w} ops=1000 elapsed=${(500 + r) * 1000} cpu=1`);
  }
  lines.push(`@hl1 done rounds=${rounds} profiles=2`);
  return { lines, code: 0 };
}
