// Worker threads do not inherit the tsx loader the CLI registered in the
// main thread: register it here, then load the TypeScript worker.
import { register } from 'tsx/esm/api';
register();
await import('./worker.ts');
