/**
 * Errors of the domain, on the bottom floor: every layer (store, bench, vm,
 * kernel, codegen, hints, report) raises them, and only the CLI
 * (src/cli/main.ts) turns them into messages and exit statuses. Nothing
 * here imports another hintlab module.
 */

/**
 * A failure the user can fix: printed as `hintlab: <message>` without a stack
 * trace, exit status 2 for usage errors, 128 + the signal after Ctrl-C
 * (130), SIGHUP (129) or SIGTERM (143), and 1 otherwise.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 | 129 | 130 | 143 = 1,
  ) {
    super(message);
  }
}
