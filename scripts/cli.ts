import { ConfigError } from '@/lib/config';

/**
 * Runs a command-line tool's `main` and exits with its code. A configuration error is one line (what to
 * set), anything else is printed as it is, with exit code 1.
 * @example runCli(main);
 */
export function runCli(main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof ConfigError ? error.message : error);
      process.exit(1);
    },
  );
}
