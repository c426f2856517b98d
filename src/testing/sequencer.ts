import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that took longest in a whole run on two cores (processes, browsers, both stores),
 * longest first. The forks take files from one queue as they come free, so a long file taken
 * last leaves the other forks idle at the end; vitest orders by the last run's durations, and
 * on a fresh clone (CI) by size, which puts some of these near the end. A file missing here
 * only loses its place at the front.
 */
const LONGEST_FIRST = [
  'src/cli/cli.test.ts',
  'src/aggregates/figures.property.test.ts',
  'src/dashboard/browser.test.ts',
  'src/server.test.ts',
  'src/link-page/browser.test.ts',
  'src/db/embedded-store.test.ts',
  'src/link-page/link-page.test.ts',
  'src/documents/renderer.test.ts',
  'src/cli/migrate.test.ts',
  'src/rendering/pool.test.ts',
  'src/management/concurrency.test.ts',
  'src/notifications/processes.test.ts',
  'src/http/rate-limit.test.ts',
  'src/delivery/delivery.test.ts',
  'src/db/embedded.test.ts',
  'src/cli/help.test.ts',
];

/** Vitest's own order, with the files above first. */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
