/**
 * The context of a comparison's reporters. Every reporter (one per format
 * and document kind, registered in formats.ts) is a pure function to text:
 * reporters never print or write files; the CLI's single writer decides
 * where the text goes (stdout or -o FILE), so every format can be
 * snapshot-tested.
 */
import type { PatchDocuments } from './patch-evidence.ts';
import type { ReproduceContext } from './reproduce.ts';

/** Facts about the report itself, fixed by tests for byte-identical output. */
export interface ReportContext {
  /** hintlab version writing the report. */
  hintlabVersion: string;
  /** ISO-8601 time the report was written. */
  generatedAt: string;
  /** The codegen and branch evidence documents given with --codegen and --hints. */
  evidence?: PatchDocuments;
  /** The database and directories the reproduce commands are written for (default: the runs' own directory, default database). */
  reproduce?: ReproduceContext;
  /** lkml: one table row per subject, the unproven ones too (`--all`); default folds those into one line. */
  all?: boolean;
}
