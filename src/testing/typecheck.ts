import { dirname, resolve } from 'node:path';
import ts from 'typescript';

let parsed: ts.ParsedCommandLine | undefined;

/**
 * What the type checker says of `source` as if it were the file at `path` (relative to the
 * project): its messages, none when it type-checks. Tests use it to check a type's equality
 * with another at run time, where an `expectTypeOf` alone asserts nothing.
 */
export function typeErrors(source: string, path: string): string[] {
  parsed ??= ts.getParsedCommandLineOfConfigFile(
    resolve('tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!parsed) throw new Error('tsconfig.json could not be read');
  const fileName = resolve(path);
  const options = { ...parsed.options, noEmit: true, incremental: false };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    resolve(name) === fileName
      ? ts.createSourceFile(name, source, language, true)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => resolve(name) === fileName || fileExists.call(host, name);
  host.readFile = (name) => (resolve(name) === fileName ? source : readFile.call(host, name));
  host.getCurrentDirectory = () => dirname(resolve('tsconfig.json'));
  const program = ts.createProgram([fileName], options, host);
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(fileName))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
