/** The options `hintlab bench` parses, shared by its host and interleaved (--label-b) paths. */
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
}
