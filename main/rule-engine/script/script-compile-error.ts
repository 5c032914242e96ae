/** A script refused before it runs: the line (1-based, in the user's script) and the construct at fault. */
export class ScriptCompileError extends Error {
  readonly line: number;
  readonly construct: string;

  constructor(line: number, construct: string, detail: string) {
    super(`line ${line}: ${detail} (at '${construct}')`);
    this.name = 'ScriptCompileError';
    this.line = line;
    this.construct = construct;
  }
}
