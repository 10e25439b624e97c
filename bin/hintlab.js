#!/usr/bin/env node
// Entry point: load TypeScript sources through tsx so the package runs from
// source without a build step, then hand over to the CLI.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
