/** The `hintlab` program: bin/hintlab.js runs this file's build from dist/. */
import { main } from './main.ts';

await main(process.argv.slice(2));
