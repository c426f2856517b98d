import { dirname, resolve } from 'node:path';
import ts from 'typescript';

let parsed: ts.ParsedCommandLine | undefined;

/**
 * Source files that earlier checks of this process read, by the options they were read and
 * bound under, their path, language version and module format. No file a check reads changes
 * during a run but the ones it is given, which are never kept, and reading lib.*.d.ts, the
 * packages' types and the project's sources again was most of every check.
 */
const sourceFiles = new Map<string, ts.SourceFile>();

/**
 * A compiler host for `options` that sees `given` (absolute path to text) as files, and reads
 * every other file once per process.
 */
export function checkerHost(
  options: ts.CompilerOptions,
  given: ReadonlyMap<string, string>,
): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const bucket = JSON.stringify(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const text = given.get(resolve(name));
    if (text !== undefined) return ts.createSourceFile(name, text, language, true);
    const { languageVersion, impliedNodeFormat } =
      typeof language === 'object' ? language : { languageVersion: language, impliedNodeFormat: undefined };
    const key = `${bucket} ${languageVersion} ${impliedNodeFormat} ${resolve(name)}`;
    let file = sourceFiles.get(key);
    if (!file) {
      file = getSourceFile.call(host, name, language, ...rest);
      if (file) sourceFiles.set(key, file);
    }
    return file;
  };
  host.fileExists = (name) => given.has(resolve(name)) || fileExists.call(host, name);
  host.readFile = (name) => given.get(resolve(name)) ?? readFile.call(host, name);
  return host;
}

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
  const host = checkerHost(options, new Map([[fileName, source]]));
  host.getCurrentDirectory = () => dirname(resolve('tsconfig.json'));
  const program = ts.createProgram([fileName], options, host);
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(fileName))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
