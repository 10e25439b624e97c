/** The options of `hintlab bench` as commander parses them (shared by the plain and the interleaved path). */
export interface BenchOptions {
  profile: string[];
  ops?: number;
  warmups: number;
  rounds: number;
  processes: number;
  cpu?: number;
  label?: string;
  db?: string;
  json?: boolean;
  list?: boolean;
  injectSeccomp?: number;
  labelB?: string;
  injectSeccompB?: number;
  switchFile: string[];
  switchFileA: string[];
  /** `ssh://[user@]host[:port]` boxes to measure on instead of this machine. */
  target: string[];
}
