// The file threads' entry when the service runs from its TypeScript sources (tests, tsx):
// the built service loads task.js directly (pool.ts).
import { register } from 'tsx/esm/api';

register();
const { default: run } = await import('./task.ts');
export default run;
