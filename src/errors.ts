/**
 * Errors of the domain, on the bottom floor: every layer (store, bench, vm,
 * kernel, codegen, hints, report) raises them, and only the CLI
 * (src/cli/main.ts) turns them into messages and exit statuses. Nothing
 * here imports another hintlab module.
 */

/**
 * A failure the user can fix: printed as `hintlab: <message>` without a stack
 * trace, exit status 2 for usage errors, 130 after Ctrl-C, and 1 otherwise.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 | 130 = 1,
  ) {
    super(message);
  }
}
