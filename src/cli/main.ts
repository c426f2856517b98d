import { helpFor, USAGE, version } from './help.ts';

/**
 * The `dealroom` command. Help and the version are answered from help.ts alone, before the
 * configuration, the store or any command's modules are loaded (run.ts), so they start in
 * about a third of the time.
 */
export async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (!command) {
    console.log(USAGE);
    return 1;
  }
  if (command === '--version' || command === '-v') {
    console.log(version());
    return 0;
  }
  // Help never runs anything: it is answered before the configuration or the store is read.
  const help = helpFor(argv);
  if (help) {
    console.log(help);
    return 0;
  }
  return (await import('./run.ts')).run(argv);
}
