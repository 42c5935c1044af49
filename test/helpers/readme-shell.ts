/**
 * The README's shell blocks (```sh and ```bash) as commands: a command is
 * one or more lines joined while a quote is open or a line ends with `\`.
 * Comment-only lines (the README's sample output) are not commands. Used by
 * test/readme-examples.test.ts to run every command a reader would type.
 */

export interface ShellBlock {
  /** The `##` or `###` heading the block sits under. */
  readonly section: string;
  readonly text: string;
}

export function shellBlocks(readme: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  let section = '';
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = /^#{2,3} (.+)$/.exec(line);
    if (heading) section = heading[1]!;
    if (!/^```(sh|bash)$/.test(line)) continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    blocks.push({ section, text: body.join('\n') });
  }
  return blocks;
}

/** Whether a command ends on this text: no open quote and no trailing backslash. */
function complete(text: string): boolean {
  return scan(text).complete;
}

/** The command without its comments (what a placeholder check should look at). */
export function withoutComments(text: string): string {
  return scan(text).code;
}

function scan(text: string): { complete: boolean; code: string } {
  let code = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === '\\') {
      code += c;
      i++;
      code += text[i] ?? '';
      continue;
    } else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      // a comment ends the line: its quotes and backslashes do not count
      const end = text.indexOf('\n', i);
      if (end === -1) return { complete: true, code };
      i = end;
      code += '\n';
      continue;
    }
    code += c;
  }
  return { complete: quote === null && !/\\$/.test(text), code };
}

/** The commands of a block, in order, each as typed (continuation lines included). */
export function shellCommands(block: string): string[] {
  const commands: string[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (pending === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    pending = pending === '' ? line : `${pending}\n${line}`;
    if (complete(pending)) {
      commands.push(pending);
      pending = '';
    }
  }
  if (pending !== '') commands.push(pending);
  return commands;
}
