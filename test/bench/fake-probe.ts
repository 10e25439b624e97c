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

/** A probe of one profile (getppid, 1000 calls per round) whose every round costs `nsPerCall`, with the start time of each round. */
export function steadyScript(args: string[], nsPerCall: number, startNs = 0) {
  const lines = ['@hl1 hello proto=1 kernel=6.12.0 version=x machine=x86_64 pid1=0'];
  const warm = Number(args[args.indexOf('--warmups') + 1]);
  const rounds = Number(args[args.indexOf('--rounds') + 1]);
  const cpu = Number(args[args.indexOf('--cpu') + 1]);
  for (let r = 0; r < warm + rounds; r++) {
    const w = r < warm ? 1 : 0;
    lines.push(`@hl1 round profile=getppid idx=${w ? r : r - warm} warmup=${w} ops=1000 elapsed=${Math.round(nsPerCall * 1000)} cpu=${cpu} start=${startNs + r * 2_000_000}`);
  }
  lines.push(`@hl1 done rounds=${rounds} profiles=1`);
  return { lines, code: 0 };
}

/**
 * A long-lived probe of one profile under --go-fifo: `blocks` blocks of
 * --block-rounds rounds, each preceded by its `wait` line, then the end of
 * its rounds; round r of block k costs `nsPerCall(k)`.
 */
export function blocksScript(args: string[], blocks: number, nsPerCall: (block: number) => number) {
  const lines = ['@hl1 hello proto=1 kernel=6.12.0 version=x machine=x86_64 pid1=0'];
  const warm = Number(args[args.indexOf('--warmups') + 1]);
  const per = Number(args[args.indexOf('--block-rounds') + 1]);
  for (let r = 0; r < warm; r++) lines.push(`@hl1 round profile=getppid idx=${r} warmup=1 ops=1000 elapsed=999000 cpu=1`);
  for (let k = 0; k < blocks; k++) {
    lines.push(`@hl1 wait block=${k}`);
    for (let j = 0; j < per; j++) lines.push(`@hl1 round profile=getppid idx=${k * per + j} warmup=0 ops=1000 elapsed=${Math.round(nsPerCall(k) * 1000)} cpu=1`);
  }
  lines.push(`@hl1 done rounds=${blocks * per} profiles=1`);
  return { lines, code: 0 };
}
